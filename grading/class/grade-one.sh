#!/usr/bin/env bash
# INSTRUCTORS ONLY: the class grader (grading/CLASS.md); grading/handout.sh keeps it out of the handout.
# grade-one.sh: grade one student's submission in a scratch copy of the lab (make grade-class calls it
# once per student; the Slurm runner once per array task).
#
#   grading/class/grade-one.sh SUBMISSION_DIR OUT_DIR
#
# SUBMISSION_DIR  a folder named by the student's id (letters, digits, . _ -, not starting with . or -,
#                 at most 64 characters). Only the step sources are taken from it: STEPFOLDER/nbody.c or
#                 STEPFOLDER/nbody.cu (the step's language, steps.list), for the steps graded. A whole
#                 copy of the handout and a folder holding only those files look the same to it.
# OUT_DIR         the class's output folder, shared by every submission. This run writes only
#                   OUT_DIR/students/ID/   replaced whole: rows.csv (this student's class.csv rows, with
#                                          the header), grade.txt, gradescope/results.json,
#                                          prairielearn/results.json, failures/NN.txt, grade.log,
#                                          view.html (a run of the student's own step, make view),
#                                          grade/{verdicts,results,checks}.csv (the grader's)
#                   OUT_DIR/work/ID/       the scratch copy, removed at the end unless CLASS_KEEP=1
#                   OUT_DIR/.lab/          the lab stripped of its solutions, its common parts built:
#                                          made once, under a lock, by whichever run comes first
# Environment:    CLASS_STEPS   steps to grade ("00 01"; default: every step of steps.list)
#                 CLASS_TIMEOUT seconds for the whole submission (default 3600): past it, ERROR
#                 CLASS_ISOLATE bwrap (default where bwrap is) or none: the grade runs in a bubblewrap
#                               box that sees its own copy writable, the lab and OUT_DIR hidden, no
#                               network, and whose processes all end with it
#                 CLASS_KEEP    1: keep OUT_DIR/work/ID
#                 CLASS_VIEW    0: no view.html (default 1: make view of the highest CPU step that
#                               passed, 1024 bodies, 200 steps, in the same box, within the time left)
#                 CLASS_LAB_COMMIT  the lab's commit where it has no .git (a platform's bundle)
#                 GRADE_N GRADE_S GRADE_STEPS GRADE_CPU_STEPS GRADE_REPEAT GRADE_CHECK_N GRADE_JOBS
#                 GRADE_TIMEOUT: passed to make grade (grading/README.md, "Knobs")
# Exit status:    0 the student was graded (whatever the verdicts; a crash, a failed build or a timeout is
#                 the student's verdict, in rows.csv); 2 bad arguments, or the lab could not be prepared.
set -u -o pipefail
me=grade-one.sh
die() { echo "$me: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
lab=${LAB:-$(cd "$here/../.." && pwd)}
max_bytes=$((1024 * 1024)) # a step source larger than this is refused: no lesson's answer comes near it

[ $# -eq 2 ] || die "usage: grading/class/grade-one.sh SUBMISSION_DIR OUT_DIR"
sub=$1
out=$2
[ -d "$sub" ] && [ ! -L "$sub" ] || die "$sub: not a folder (a symlink is not followed)"
id=$(basename "$sub")
[[ $id =~ ^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$ ]] ||
    die "$sub: a student's folder is named by an id of letters, digits, . _ - (not starting with . or -, at most 64)"
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
sub=$(cd "$sub" && pwd)
timeout_s=${CLASS_TIMEOUT:-3600}
[[ $timeout_s =~ ^[1-9][0-9]{0,6}$ ]] || die "CLASS_TIMEOUT=$timeout_s: a whole number of seconds, at least 1"
bash "$lab/common/deps.sh" python3 || die "python3 is needed for the reports (grading/class/report.py)"
isolate=${CLASS_ISOLATE:-}
[ -n "$isolate" ] || { command -v bwrap > /dev/null 2>&1 && isolate=bwrap || isolate=none; }
case $isolate in
bwrap) command -v bwrap > /dev/null 2>&1 || die "CLASS_ISOLATE=bwrap: bwrap is not installed (apt-get install bubblewrap)" ;;
none) ;;
*) die "CLASS_ISOLATE=$isolate: bwrap or none" ;;
esac

# The steps: every one of the registry, or CLASS_STEPS, each checked against it.
registry() { STEPS_LIST=$lab/steps.list bash "$lab/common/steps.sh" "$@"; }
declare -A folder_of lang_of
all_ids=()
while IFS=$'\t' read -r rid rfolder rlang; do
    folder_of[$rid]=$rfolder
    lang_of[$rid]=$rlang
    all_ids+=("$rid")
done < <(registry registry_ids id folder lang) || die "cannot read $lab/steps.list"
[ ${#all_ids[@]} -gt 0 ] || die "$lab/steps.list: no steps"
read -r -a steps <<< "${CLASS_STEPS:-${all_ids[*]}}"
for s in "${steps[@]}"; do
    [ -n "${folder_of[$s]:-}" ] || die "CLASS_STEPS: no step '$s' in steps.list"
done

# ---- the lab, stripped and its common parts built: once per OUT_DIR, under a lock ------------------
if [ -n "${CLASS_LAB_COMMIT:-}" ]; then # a platform's bundle: no .git, the commit it was made from
    lab_commit=${CLASS_LAB_COMMIT:0:12}
else
    lab_commit=$(git -C "$lab" rev-parse --short=12 HEAD 2> /dev/null || echo unknown)
    git -C "$lab" diff --quiet HEAD -- 2> /dev/null || lab_commit="$lab_commit-dirty"
fi
# The copies have no .git: the version stamp is given, so that make never asks a git above them.
commit="class-$lab_commit"
base=$out/.lab/base
stamp="$commit ${steps[*]} $(command -v nvcc > /dev/null 2>&1 && echo nvcc)"

prepare_base() {
    [ -f "$base/.class-ready" ] && [ "$(cat "$base/.class-ready")" = "$stamp" ] && return 0
    rm -rf "$base"
    local scratch=()
    case $base/ in "$lab"/build/*) scratch=(--scratch) ;; esac
    bash "$lab/grading/handout.sh" "${scratch[@]}" "$base" > "$out/.lab/handout.log" 2>&1 ||
        { cat "$out/.lab/handout.log" >&2; return 1; }
    # Everything a step's build shares: the library, the grader, each step's judge and the worker's shim; then only the
    # student's nbody.o compiles in each copy.
    local targets=(build/lib/libnbody.a build/grading/grade build/obj/common/host.o) s
    [ "${CLASS_VIEW:-1}" = 1 ] && targets+=(build/tools/snap2html)
    for s in "${steps[@]}"; do targets+=("build/obj/${folder_of[$s]}/judge.o" "build/obj/${folder_of[$s]}/worker.o"); done
    if command -v nvcc > /dev/null 2>&1; then targets+=(build/obj/common/device.o build/grading/gpu_probe); fi
    make -C "$base" -s --no-print-directory COMMIT="$commit" "${targets[@]}" >> "$out/.lab/handout.log" 2>&1 ||
        { tail -n 20 "$out/.lab/handout.log" >&2; return 1; }
    make -C "$base" -s --no-print-directory COMMIT="$commit" build/.deps-gnuplot >> "$out/.lab/handout.log" 2>&1 ||
        echo "$me: no gnuplot: the students' ladder figures are not drawn (the CSVs are)" >&2
    echo "$stamp" > "$base/.class-ready"
}
mkdir -p "$out/.lab" || die "cannot write in $out"
exec 9> "$out/.lab/lock" || die "cannot write $out/.lab/lock"
flock 9 || die "cannot lock $out/.lab/lock"
prepare_base || die "could not prepare the lab in $base (log: $out/.lab/handout.log)"

# ---- this student's folders, fresh; the copy made under the lock (a run for other steps remakes the lab)
dest=$out/students/$id
work=$out/work/$id
copy=$work/lab
rm -rf "$dest" "$work" || die "cannot clear $dest or $work"
mkdir -p "$dest" "$work" || die "cannot create $dest or $work"
cp -a "$base" "$copy" || die "cannot copy the lab into $copy"
rm -f "$copy/.class-ready"
flock -u 9
exec 9>&-

# ---- the step sources: regular files only, never followed, at most 1 MiB --------------------------
plan=$dest/plan.tsv # step, folder, what (graded/missing/refused), reason: report.py reads it
: > "$plan"
graded=()
for s in "${steps[@]}"; do
    folder=${folder_of[$s]}
    name=nbody.${lang_of[$s]}
    src=$sub/$folder/$name
    why=""
    if [ -L "$sub/$folder" ]; then
        why="refused: $folder is a symbolic link (not followed)"
    elif [ ! -e "$src" ] && [ ! -L "$src" ]; then
        printf '%s\t%s\tmissing\tno %s/%s in the submission\n' "$s" "$folder" "$folder" "$name" >> "$plan"
        continue
    elif [ -L "$src" ]; then
        why="refused: $folder/$name is a symbolic link (not followed)"
    elif [ ! -f "$src" ]; then
        why="refused: $folder/$name is not a regular file"
    else
        size=$(stat -c %s -- "$src") || size=-1
        if [ "$size" -lt 0 ]; then
            why="refused: $folder/$name cannot be read"
        elif [ "$size" -gt "$max_bytes" ]; then
            why="refused: $folder/$name is $size bytes, over the limit of $max_bytes"
        elif ! cp --no-dereference -- "$src" "$copy/$folder/$name" 2> /dev/null; then
            why="refused: $folder/$name cannot be read"
        fi
    fi
    if [ -n "$why" ]; then
        printf '%s\t%s\trefused\t%s\n' "$s" "$folder" "$why" >> "$plan"
        continue
    fi
    printf '%s\t%s\tgraded\t\n' "$s" "$folder" >> "$plan"
    graded+=("$s")
done

# boxed SECONDS LOG COMMAND...: the command in this submission's box, within SECONDS, its output in LOG.
# The lab and OUT_DIR hidden (tmpfs over them), this copy the one writable folder. No PID namespace,
# and the host's /proc as it is: a box of bwrap's own /proc lets the judge's sandbox inside (the
# student's code is there, each worker in a PID namespace of its own) mount no /proc. What it left
# running when its time was up is ended after it, by its copy's path.
boxed() {
    local seconds=$1 log=$2 rc
    shift 2
    local cmd=("$@")
    if [ "$isolate" = bwrap ]; then
        cmd=(bwrap --ro-bind / / --dev-bind /dev /dev --bind /proc /proc --tmpfs /tmp --tmpfs /var/tmp
            --tmpfs "$lab" --tmpfs "$out" ${subs:+--tmpfs "$subs"} --bind "$work" "$work" --unshare-net --unshare-ipc
            --die-with-parent --new-session --chdir "$copy" -- "${cmd[@]}")
    fi
    # A make of the instructor's, one level up, must not hand its variables or jobserver to this one.
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES timeout --kill-after=10 "$seconds" \
        "${cmd[@]}" < /dev/null > "$log" 2>&1
    rc=$?
    pkill -KILL -f -- "$copy/" 2> /dev/null || true # the grader's children, the judges, their workers
    return $rc
}

# ---- make grade in the copy, within CLASS_TIMEOUT ------------------------------------------------
gdir=$work/grade
status=0
start=$(date +%s)
if [ ${#graded[@]} -gt 0 ]; then
    knobs=()
    for v in GRADE_N GRADE_S GRADE_STEPS GRADE_CPU_STEPS GRADE_REPEAT GRADE_CHECK_N GRADE_JOBS GRADE_TIMEOUT; do
        [ -n "${!v:-}" ] && knobs+=("$v=${!v}")
    done
    # The other submissions: hidden from this one's build and workers (the folder that holds them all,
    # unless this grade's own copy lies inside it).
    subs=$(dirname "$sub") hide=()
    case $work/ in "$subs"/*) subs="" ;; esac
    [ "$subs" = / ] && subs=""
    [ -n "$subs" ] && hide=("GRADE_HIDE=$subs")
    cmd=(make -C "$copy" --no-print-directory grade "STEPS=${graded[*]}" GRADE_SANDBOX=require SLURM_GRADE_LOCAL=1 "GRADE_DIR=$gdir"
        "COMMIT=$commit" "${hide[@]}" "${knobs[@]}")
    boxed "$timeout_s" "$dest/grade.log" "${cmd[@]}"
    status=$?
fi
elapsed=$(($(date +%s) - start))

# ---- a run of the student's own step to watch: make view of the highest CPU step that passed ---------
left=$((timeout_s - elapsed))
if [ "${CLASS_VIEW:-1}" = 1 ] && [ -f "$gdir/verdicts.csv" ] && [ $left -ge 10 ]; then
    watch=""
    for s in $(python3 "$here/report.py" passed "$gdir/verdicts.csv" 2> /dev/null); do
        [ "${lang_of[$s]:-}" = c ] && watch=$s
    done
    if [ -n "$watch" ]; then
        boxed $((left < 120 ? left : 120)) "$dest/view.log" make -C "$copy" --no-print-directory view "RUN=$watch" \
            "VIEW_OUT=$work/view.html" "VIEW_SNAPS=$work/view-snaps" VIEW_N=1024 VIEW_STEPS=200 VIEW_EVERY=20 "COMMIT=$commit" &&
            [ -f "$work/view.html" ] && [ ! -L "$work/view.html" ] && cp -- "$work/view.html" "$dest/view.html"
    fi
fi

# The grader's files, copied out: report.py reads them by column name.
mkdir -p "$dest/grade"
for f in verdicts.csv results.csv checks.csv; do
    [ -f "$gdir/$f" ] && [ ! -L "$gdir/$f" ] && cp -- "$gdir/$f" "$dest/grade/$f"
done

python3 "$here/report.py" student --id "$id" --out "$dest" --plan "$plan" --grade-dir "$gdir" \
    --status "$status" --timeout "$timeout_s" --elapsed "$elapsed" ||
    die "could not write $dest (report.py failed)"

[ "${CLASS_KEEP:-0}" = 1 ] || rm -rf "$work"
echo "$me: $id: $(cut -d, -f2,3 "$dest/rows.csv" | tail -n +2 | tr ',\n' ': ' | sed 's/ $//') ($elapsed s)"
exit 0
