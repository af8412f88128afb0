#!/usr/bin/env bash
# INSTRUCTORS ONLY: the platforms' grader (grading/GRADESCOPE.md, grading/PRAIRIELEARN.md); grading/handout.sh keeps it out of the handout.
# platform-run.sh: the entry point inside a platform's grading machine, in a bundle that
# grading/class/platform-bundle.sh made (ROOT/lab is the lab at CLASS_LAB_COMMIT, this file in it).
#
#   platform-run.sh gradescope     grade /autograder/submission into /autograder/results/results.json
#   platform-run.sh prairielearn   grade /grade/student into /grade/results/results.json
#   platform-run.sh prepare        (setup.sh, once, when the image is built) the lab stripped and its
#                                  shared parts built in ROOT/out/.lab, so that a submission costs its
#                                  own compiles and its grade only
#
# One submission is graded by grade-one.sh (the class grader, sandboxed as make grade-class grades:
# grading/CLASS.md), as the student "submission", after platform.py staged its step sources (any
# layout a student uploads: step folders, a copy of the handout, inside one folder, or a zip of
# either). GPU steps go to the course's GPU host over ssh where the bundle names one (CLASS_REMOTE:
# grading/class/platform-remote.sh), else they are compiled here and reported "compiled; graded on the
# course's GPUs". The settings are ROOT/lab/grading/class/platform.conf's, read as data.
# PLATFORM_SUBMISSION and PLATFORM_RESULTS override the two paths (to try a bundle by hand).
# Always writes a results.json and exits 0: a submission that cannot be graded gets one that says
# what to upload; a grader that stops unexpectedly, one that says so.
set -u -o pipefail
me=platform-run.sh
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/../.." && pwd)
root=$(dirname "$lab")
mode=${1:-}
case $mode in
gradescope) sub=${PLATFORM_SUBMISSION:-/autograder/submission} results=${PLATFORM_RESULTS:-/autograder/results/results.json} ;;
prairielearn) sub=${PLATFORM_SUBMISSION:-/grade/student} results=${PLATFORM_RESULTS:-/grade/results/results.json} ;;
prepare) sub="" results="" ;;
*) echo "$me: usage: platform-run.sh gradescope|prairielearn|prepare" >&2; exit 2 ;;
esac
start=$SECONDS

# The last word, whatever happens: a results.json that says the grader stopped, written without python.
written=0
fallback() {
    [ -n "$results" ] && [ "$written" = 0 ] || return 0
    local msg="The grader stopped before it could grade this submission ($1); nothing is held against you. Tell your instructor (the autograder's log has the details)."
    mkdir -p "$(dirname "$results")" 2> /dev/null
    if [ "$mode" = gradescope ]; then
        printf '{"score": 0.0, "output": "%s", "tests": []}\n' "$msg" > "$results"
    else
        printf '{"gradable": false, "score": 0.0, "message": "%s", "output": "%s", "tests": []}\n' "$msg" "$msg" > "$results"
    fi
}
trap 'fallback "status $?"' EXIT

# platform.conf, as data: KEY=VALUE lines with KEY in [A-Z_], VALUE in [A-Za-z0-9_.:/,@ -].
conf_keys="PLATFORM CLASS_LAB_COMMIT CLASS_STEPS PLATFORM_TIME_LIMIT GRADE_N GRADE_S GRADE_CHECK_N GRADE_TIMEOUT GRADE_REPEAT
  CLASS_REMOTE CLASS_REMOTE_PORT CLASS_REMOTE_STEPS CLASS_REMOTE_TRANSPORT CLASS_REMOTE_LAB"
declare -A conf=()
if [ -r "$here/platform.conf" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
        [[ $line =~ ^[[:space:]]*(#.*)?$ ]] && continue
        if [[ $line =~ ^([A-Z_]+)=([A-Za-z0-9_.:/,@\ -]*)$ ]] && [[ " $(echo $conf_keys) " == *" ${BASH_REMATCH[1]} "* ]]; then
            conf[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
        else
            echo "$me: platform.conf: skipped: ${line:0:60}" >&2
        fi
    done < "$here/platform.conf"
fi
cv() { printf '%s' "${conf[$1]:-${2:-}}"; }
limit=$(cv PLATFORM_TIME_LIMIT 600)
[[ $limit =~ ^[1-9][0-9]*$ ]] || limit=600
export CLASS_LAB_COMMIT="$(cv CLASS_LAB_COMMIT unknown)"
for k in GRADE_N GRADE_S GRADE_CHECK_N GRADE_TIMEOUT GRADE_REPEAT; do
    [ -n "${conf[$k]:-}" ] && export "$k=${conf[$k]}"
done
# NVIDIA's compiler from PyPI, where setup.sh fetched it (beside the lab: the grade's box hides the lab).
[ -x "$root/cuda/bin/nvcc" ] && export PATH="$root/cuda/bin:$PATH"
unset CLASS_ISOLATE CLASS_KEEP CLASS_JOBS

# The steps: platform.conf's (default every step), each with its folder, language and GPUs.
steps_tsv=$root/stage.steps.tsv
STEPS_LIST=$lab/steps.list bash "$lab/common/steps.sh" registry_ids id folder lang gpus > "$steps_tsv.all" ||
    { echo "$me: cannot read $lab/steps.list" >&2; exit 0; }
read -r -a want <<< "$(cv CLASS_STEPS "$(cut -f1 "$steps_tsv.all" | tr '\n' ' ')")"
awk -F'\t' -v want=" ${want[*]} " 'index(want, " " $1 " ")' "$steps_tsv.all" > "$steps_tsv"
# The GPU host's steps: CLASS_REMOTE_STEPS, by default the GPU steps, where a host is configured.
remote_steps=()
if [ -n "$(cv CLASS_REMOTE)" ]; then
    read -r -a remote_steps <<< "$(cv CLASS_REMOTE_STEPS "$(awk -F'\t' '$4 > 0 { printf "%s ", $1 }' "$steps_tsv")")"
fi
local_steps=()
for s in $(cut -f1 "$steps_tsv"); do
    [[ " ${remote_steps[*]} " == *" $s "* ]] || local_steps+=("$s")
done
out=$root/out

if [ "$mode" = prepare ]; then
    # grade-one.sh on an empty submission: it prepares the lab (the same steps as every run, so its
    # stamp matches and no run remakes it), grades nothing.
    trap - EXIT
    rm -rf "$root/stage" && mkdir -p "$root/stage/prepare" || exit 2
    [ ${#local_steps[@]} -gt 0 ] || { echo "$me: every step is graded on the GPU host: nothing to prepare here"; exit 0; }
    CLASS_VIEW=0 CLASS_STEPS="${local_steps[*]}" bash "$here/grade-one.sh" "$root/stage/prepare" "$out" || exit 2
    rm -rf "$out/students/prepare" "$root/stage"
    echo "$me: the lab is prepared in $out/.lab (steps ${local_steps[*]})"
    exit 0
fi

py() { python3 "$here/platform.py" "$@"; }
stage=$root/stage
rm -rf "$stage" && mkdir -p "$stage" "$(dirname "$results")" || { fallback "cannot write $stage"; exit 0; }
staged=$stage/submission
notes=$stage/notes.json
elapsed() { echo $((SECONDS - start)); }
finish() { # finish ARGS...: results.json from what was graded, then exit 0
    if py results --platform "$mode" --notes "$notes" --steps "$steps_tsv" --out "$results" --elapsed "$(elapsed)" "$@"; then
        written=1
    fi
    exit 0
}

# 1. The step sources, from any layout a student uploads.
if ! py stage --from "$sub" --to "$staged" --steps "$steps_tsv" --notes "$notes"; then
    echo '{"staged": [], "problem": "the submission could not be read"}' > "$notes"
fi
if [ -z "$(find "$staged" -mindepth 1 -maxdepth 1 2> /dev/null | head -n 1)" ]; then
    echo "$me: no step source in the submission"
    finish
fi

# 2. The sandbox every grade needs: where this machine cannot make one, nothing of the student's runs.
if ! why=$(bwrap --ro-bind / / --dev-bind /dev /dev --unshare-all --die-with-parent true 2>&1); then
    finish --stop "This grading machine cannot start the sandbox that every grade runs in (bubblewrap: ${why:0:200}); nothing was run and nothing is held against you. Your instructor: see 'The sandbox' in the lab's platform guide."
fi

# 3. The GPU host (in the background), and the steps graded here, within the platform's time limit.
budget=$((limit - 45 - $(elapsed)))
[ "$budget" -ge 30 ] || budget=30
remote_args=()
if [ ${#remote_steps[@]} -gt 0 ]; then
    bash "$here/platform-remote.sh" send "$staged" "$stage/remote" "${remote_steps[*]}" "$budget" > "$stage/remote.log" 2>&1 &
    remote_pid=$!
fi
if [ ${#local_steps[@]} -gt 0 ]; then
    CLASS_VIEW=0 CLASS_STEPS="${local_steps[*]}" CLASS_TIMEOUT=$budget bash "$here/grade-one.sh" "$staged" "$out" ||
        echo "$me: grade-one.sh could not grade the submission (above)" >&2
    cat "$out/students/submission/grade.txt" 2> /dev/null
    remote_args+=(--rows "$out/students/submission/rows.csv" --failures "$out/students/submission/failures")
fi
if [ ${#remote_steps[@]} -gt 0 ]; then
    wait "$remote_pid"
    cat "$stage/remote.log"
    note=$(head -c 300 "$stage/remote/status" 2> /dev/null | tr -d '\000-\037')
    if [ "$note" = ok ]; then
        remote_args+=(--rows "$stage/remote/rows.csv" --failures "$stage/remote/failures")
    else
        # Not graded there: each of its steps "compiled; graded on the course's GPUs", and why.
        for s in "${remote_steps[@]}"; do
            printf 'student,step,verdict,reason\nsubmission,%s,SKIP,"not graded yet: the course'"'"'s GPU host did not answer (%s)"\n' \
                "$s" "${note//\"/}" | sed 1d
        done | { echo 'student,step,verdict,reason'; cat; } > "$stage/remote-missing.csv"
        # A CPU step sent there is a SKIP too, but counted: it is no GPU step (platform.py).
        remote_args+=(--rows "$stage/remote-missing.csv" --remote-note "the GPU host: ${note:-no answer}")
    fi
fi
finish "${remote_args[@]}"
