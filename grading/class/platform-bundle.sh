#!/usr/bin/env bash
# INSTRUCTORS ONLY: the platforms' grader (grading/GRADESCOPE.md, grading/PRAIRIELEARN.md); grading/handout.sh keeps it out of the handout.
# platform-bundle.sh: what an instructor uploads to a grading platform (make gradescope, make prairielearn).
#
#   platform-bundle.sh gradescope DEST     DEST/nbody-gradescope.zip: setup.sh, run_autograder and lab/
#                                          at its top (Gradescope unpacks it in /autograder/source)
#   platform-bundle.sh prairielearn DEST   DEST/grader-image/ (Dockerfile, setup.sh, entrypoint.sh, lab/:
#                                          the external grader's image, the lab at /nbody/lab) and
#                                          DEST/question/ (info.json, question.html: the question)
#
# lab/ is the lab at CLASS_LAB_COMMIT (default HEAD; git archive, so nothing uncommitted), its step
# sources already stripped of their solutions (grading/handout.sh --strip), without INSTRUCTORS.md
# and the engineers' notes; with the class grader (grading/class/) and platform.conf, which records
# the commit and the settings below. DEST is made if missing; what this writes there is replaced.
# Settings (the environment; make passes its variables):
#   CLASS_STEPS           the steps graded (default every step of steps.list)
#   GRADE_N               the ladder's N (default 16384: at Gradescope's half a CPU, step 00 at the lab's
#                         65536 was killed by signal 9 before its verdict); GRADE_CHECK_N, GRADE_TIMEOUT,
#                         GRADE_S, GRADE_REPEAT where given
#   PLATFORM_TIME_LIMIT   seconds the platform allows a submission (default 600: Gradescope's default,
#                         and the PrairieLearn question's timeout); the grade stops 45 s before it
#   CLASS_REMOTE          user@host of the course's GPU host (none: GPU steps compiled, "graded on the
#                         course's GPUs"); CLASS_REMOTE_KEY (the private key made for it; required with
#                         it), CLASS_REMOTE_KNOWN_HOSTS (the host's key line; required), CLASS_REMOTE_PORT
#                         (22), CLASS_REMOTE_STEPS (default the GPU steps)
# Exit status 0, or 2 with one line on stderr.
set -u -o pipefail
me=platform-bundle.sh
die() { echo "$me: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/../.." && pwd)
platform=${1:-}
dest=${2:-}
case $platform in gradescope | prairielearn) ;; *) die "usage: platform-bundle.sh gradescope|prairielearn DEST" ;; esac
[ -n "$dest" ] || die "DEST=DIR: where the bundle goes (e.g. make $platform DEST=../$platform)"
commit=$(git -C "$lab" rev-parse --verify "${CLASS_LAB_COMMIT:-HEAD}^{commit}" 2> /dev/null) ||
    die "CLASS_LAB_COMMIT=${CLASS_LAB_COMMIT:-HEAD}: not a commit of $lab"
mkdir -p "$dest" || die "cannot create $dest"
dest=$(cd "$dest" && pwd)
case $dest/ in "$lab"/build/* | "$lab"/build/) ;; "$lab"/*) die "DEST=$dest is inside the lab's sources: name a folder outside it (or under build/)" ;; esac
registry() { STEPS_LIST=$lab/steps.list bash "$lab/common/steps.sh" "$@"; }
all=$(registry registry_ids id | tr '\n' ' ')
read -r -a steps <<< "${CLASS_STEPS:-$all}"
for s in "${steps[@]}"; do [[ " $all " == *" $s "* ]] || die "CLASS_STEPS: no step '$s' in steps.list"; done
value_ok() { [[ $1 =~ ^[A-Za-z0-9_.:/,@\ -]*$ ]]; }
limit=${PLATFORM_TIME_LIMIT:-600}
[[ $limit =~ ^[1-9][0-9]{1,4}$ ]] && [ "$limit" -ge 120 ] || die "PLATFORM_TIME_LIMIT=$limit: seconds, at least 120"
remote=${CLASS_REMOTE:-}
if [ -n "$remote" ]; then
    [[ $remote =~ ^[A-Za-z0-9_.-]+@[A-Za-z0-9_.-]+$ ]] || die "CLASS_REMOTE=$remote: user@host"
    [ -r "${CLASS_REMOTE_KEY:-}" ] || die "CLASS_REMOTE_KEY=${CLASS_REMOTE_KEY:-}: the private key made for the GPU host (grading/GRADESCOPE.md, 'The GPU host')"
    [ -r "${CLASS_REMOTE_KNOWN_HOSTS:-}" ] || die "CLASS_REMOTE_KNOWN_HOSTS=${CLASS_REMOTE_KNOWN_HOSTS:-}: the host's public key line (ssh-keyscan -H host > known_hosts, checked by hand)"
    [[ ${CLASS_REMOTE_PORT:-22} =~ ^[0-9]{1,5}$ ]] || die "CLASS_REMOTE_PORT=${CLASS_REMOTE_PORT}: a port"
fi
for v in GRADE_N GRADE_CHECK_N GRADE_TIMEOUT GRADE_S GRADE_REPEAT CLASS_REMOTE_STEPS CLASS_REMOTE_TRANSPORT CLASS_REMOTE_LAB; do
    value_ok "${!v:-}" || die "$v='${!v}': letters, digits, spaces and _ . : / , @ - only"
done

tmp=$(mktemp -d "$dest/.bundle.XXXXXX") || die "cannot write in $dest"
trap 'rm -rf "$tmp"' EXIT
# ---- the lab at the commit, its solutions stripped -----------------------------------------------
tree=$tmp/lab
mkdir -p "$tree" && git -C "$lab" archive "$commit" | tar -x -C "$tree" || die "git archive $commit failed"
rm -rf "$tree/.notes" "$tree/.ci"
find "$tree" -name INSTRUCTORS.md -delete
while IFS=$'\t' read -r sid folder lang; do
    f=$tree/$folder/nbody.$lang
    [ -f "$f" ] || continue
    bash "$tree/grading/handout.sh" --strip "$f" > "$f.stub" && mv "$f.stub" "$f" || die "cannot strip $folder/nbody.$lang"
done < <(registry registry_ids id folder lang)
# Anything else marked as an answer (a region outside the step sources) goes too.
if grep -rlE '^[[:space:]]*/\* BEGIN SOLUTION \*/' "$tree" --include='*.c' --include='*.cu' --include='*.h' --include='*.cuh' | grep -q .; then
    while IFS= read -r f; do
        bash "$tree/grading/handout.sh" --strip "$f" > "$f.stub" && mv "$f.stub" "$f" || die "cannot strip $f"
    done < <(grep -rlE '^[[:space:]]*/\* BEGIN SOLUTION \*/' "$tree" --include='*.c' --include='*.cu' --include='*.h' --include='*.cuh')
fi
{
    echo "# grading/class/platform.conf: written by platform-bundle.sh $(date -u +%Y-%m-%dT%H:%MZ); read as data by platform-run.sh"
    echo "PLATFORM=$platform"
    echo "CLASS_LAB_COMMIT=$commit"
    echo "CLASS_STEPS=${steps[*]}"
    echo "PLATFORM_TIME_LIMIT=$limit"
    echo "GRADE_N=${GRADE_N:-16384}"
    for v in GRADE_CHECK_N GRADE_TIMEOUT GRADE_S GRADE_REPEAT CLASS_REMOTE_STEPS CLASS_REMOTE_TRANSPORT CLASS_REMOTE_LAB; do
        [ -n "${!v:-}" ] && echo "$v=${!v}"
    done
    [ -n "$remote" ] && echo "CLASS_REMOTE=$remote" && echo "CLASS_REMOTE_PORT=${CLASS_REMOTE_PORT:-22}"
} > "$tree/grading/class/platform.conf"
if [ -n "$remote" ]; then
    mkdir -p "$tree/grading/class/remote" &&
        cp "$CLASS_REMOTE_KEY" "$tree/grading/class/remote/key" && chmod 600 "$tree/grading/class/remote/key" &&
        cp "$CLASS_REMOTE_KNOWN_HOSTS" "$tree/grading/class/remote/known_hosts" || die "cannot copy the key"
fi

# ---- setup.sh: the machine's packages, nvcc where a GPU step is compiled here, the lab prepared ----
gpu_here=0
read -r -a remote_steps <<< "${CLASS_REMOTE_STEPS:-$(registry registry_ids id gpus | awk -F'\t' '$2 > 0 { printf "%s ", $1 }')}"
while IFS=$'\t' read -r sid gpus; do
    [[ " ${steps[*]} " == *" $sid "* ]] && [ "$gpus" -gt 0 ] || continue
    { [ -z "$remote" ] || [[ " ${remote_steps[*]} " != *" $sid "* ]]; } && gpu_here=1
done < <(registry registry_ids id gpus)
cat > "$tmp/setup.sh" << EOF
#!/usr/bin/env bash
# setup.sh (platform-bundle.sh, lab commit $commit): run once where the image is built, as root on
# Ubuntu 22.04 (Gradescope: /autograder/source; the PrairieLearn Dockerfile: /nbody). It installs what
# the grader needs (apt-get, as the lab's common/deps.sh does), NVIDIA's compiler from PyPI where a GPU
# step is compiled here and no CUDA Toolkit is, and prepares the lab (platform-run.sh prepare).
set -eu
root=\$(cd "\$(dirname "\$0")" && pwd)
export DEBIAN_FRONTEND=noninteractive
need=()
for t in make gcc tar; do command -v \$t > /dev/null 2>&1 || need+=(\$t); done
if [ \${#need[@]} -gt 0 ]; then
    apt-get update -qq && apt-get install -y -qq --no-install-recommends make gcc tar ca-certificates
fi
for d in zlib python3 bwrap gxx; do bash "\$root/lab/common/deps.sh" \$d; done
if [ $gpu_here = 1 ] && ! command -v nvcc > /dev/null 2>&1 && [ ! -x "\$root/cuda/bin/nvcc" ]; then
    bash "\$root/lab/common/deps.sh" nvcc   # into lab/.deps/cuda; moved beside the lab, which the grade's box hides
    rm -rf "\$root/cuda" && mv "\$root/lab/.deps/cuda" "\$root/cuda"
fi
bash "\$root/lab/grading/class/platform-run.sh" prepare
EOF
chmod 755 "$tmp/setup.sh"

bytes() { du -sh "$1" | cut -f1; }
if [ "$platform" = gradescope ]; then
    printf '#!/usr/bin/env bash\n# run_autograder (platform-bundle.sh): Gradescope runs it for every submission.\nexec bash /autograder/source/lab/grading/class/platform-run.sh gradescope\n' > "$tmp/run_autograder"
    chmod 755 "$tmp/run_autograder"
    zip=$dest/nbody-gradescope.zip
    rm -f "$zip.tmp"
    (cd "$tmp" && zip -q -r -X "$zip.tmp" setup.sh run_autograder lab) || die "zip failed"
    mv "$zip.tmp" "$zip"
    echo "$me: $zip ($(bytes "$zip"); lab $commit, steps ${steps[*]}, GRADE_N=${GRADE_N:-16384}, ${limit} s${remote:+, GPU steps on $remote}): upload it as the assignment's autograder (grading/GRADESCOPE.md)"
else
    img=$tmp/grader-image q=$tmp/question
    mkdir -p "$img" "$q"
    mv "$tree" "$img/lab" && mv "$tmp/setup.sh" "$img/setup.sh"
    printf '#!/usr/bin/env bash\n# entrypoint.sh (platform-bundle.sh): the external grader'"'"'s entrypoint (info.json).\nexec bash /nbody/lab/grading/class/platform-run.sh prairielearn\n' > "$img/entrypoint.sh"
    chmod 755 "$img/entrypoint.sh"
    cat > "$img/Dockerfile" << EOF
# The N-body ladder's external grader (platform-bundle.sh; lab commit $commit, steps ${steps[*]}).
# docker build -t YOUR_DOCKERHUB_USER/nbody-grader . && docker push YOUR_DOCKERHUB_USER/nbody-grader
FROM ubuntu:22.04
COPY . /nbody
RUN bash /nbody/setup.sh && rm -rf /var/lib/apt/lists/*
CMD ["/nbody/entrypoint.sh"]
EOF
    python3 - "$q/info.json" "$commit" "$limit" "${remote:+1}" "${steps[*]}" << 'EOF'
import json, sys, uuid
path, commit, limit, remote, steps = sys.argv[1:6]
info = {
    "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, "nbody-ladder/" + commit + "/" + steps)),
    "title": "N-body ladder: steps " + steps,
    "topic": "N-body",
    "tags": ["nbody", "autograded"],
    "type": "v3",
    "singleVariant": True,
    "gradingMethod": "External",
    "externalGradingOptions": {
        "enabled": True,
        "image": "YOUR_DOCKERHUB_USER/nbody-grader",
        "entrypoint": "/nbody/entrypoint.sh",
        "timeout": int(limit),
        "enableNetworking": bool(remote),
    },
}
json.dump(info, open(path, "w"), indent=2)
open(path, "a").write("\n")
EOF
    cat > "$q/question.html" << 'EOF'
<pl-question-panel>
  <p>Upload your work on the N-body ladder as one zip: your copy of the lab, or only its step folders
  (for example <code>step00_serial/nbody.c</code>, <code>step01_omp/nbody.c</code>). Each step is
  built, checked against the fp64 reference and timed by the lab's own grader.</p>
</pl-question-panel>
<pl-file-upload file-patterns="*.zip"></pl-file-upload>
<pl-submission-panel>
  <pl-external-grader-results></pl-external-grader-results>
  <pl-file-preview></pl-file-preview>
</pl-submission-panel>
EOF
    rm -rf "$dest/grader-image" "$dest/question"
    mv "$img" "$dest/grader-image" && mv "$q" "$dest/question" || die "cannot write $dest"
    echo "$me: $dest/grader-image ($(bytes "$dest/grader-image")) and $dest/question (lab $commit, steps ${steps[*]}, GRADE_N=${GRADE_N:-16384}, ${limit} s${remote:+, GPU steps on $remote}): grading/PRAIRIELEARN.md"
fi
