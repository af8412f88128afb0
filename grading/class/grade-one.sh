#!/usr/bin/env bash
# INSTRUCTORS ONLY: a stand-in for grade-class's per-student entry point (the real one comes from the grade-class work)
# grade-one.sh SUBMISSION_DIR OUT_DIR: grades one student (the folder's name is the id) into
# OUT_DIR/students/<id>/: grade/ (the grader's folder: verdicts.csv, results.csv), grade.txt (its
# output) and rows.csv (student,step,verdict,reason). Only SUBMISSION_DIR/<step folder>/nbody.c or .cu
# (regular files, no links) of the steps in CLASS_STEPS (default "00 01") are taken, into a scratch copy
# of this lab (a step not handed in: the handout's stub); the grade runs there with a CLASS_TIMEOUT (seconds, default 1800). Status 0 when it ran.
set -u
[ $# -eq 2 ] || { echo "usage: grading/class/grade-one.sh SUBMISSION_DIR OUT_DIR" >&2; exit 2; }
sub=$1 out=$2
lab=$(cd "$(dirname "$0")/../.." && pwd)
id=$(basename "$sub")
[[ $id =~ ^[A-Za-z0-9_.-]+$ ]] || { echo "grade-one.sh: '$id': a student id is letters, digits and _ . -" >&2; exit 2; }
[ -d "$sub" ] && [ ! -L "$sub" ] || { echo "grade-one.sh: $sub is not a folder" >&2; exit 2; }
steps=${CLASS_STEPS:-00 01}
dest=$out/students/$id
rm -rf "$dest" && mkdir -p "$dest" || exit 2
dest=$(cd "$dest" && pwd)

scratch=$(mktemp -d "${TMPDIR:-/tmp}/grade-one.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
# The instructor's lab (its files as git lists them: tracked, or new and not ignored); then the student's step sources over it.
# Their times are kept (-p), and the lab's own build of the library and the grader comes along, so only
# the student's steps compile; a student's file is newer than any object, so it always compiles.
(cd "$lab" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp -p --parents -t "$scratch") ||
    { echo "grade-one.sh: cannot copy the lab" >&2; exit 2; }
for d in gen lib obj/common obj/grading grading; do
    [ -d "$lab/build/$d" ] && mkdir -p "$scratch/build/$(dirname "$d")" && cp -a "$lab/build/$d" "$scratch/build/$d"
done
commit=$(sed -n 's/^#define NB_COMMIT "\(.*\)"$/\1/p' "$lab/build/gen/version.h" 2>/dev/null)
. "$lab/common/steps.sh"
for s in $steps; do
    folder=$(registry_field "$s" folder) && lang=$(registry_field "$s" lang) || exit 2
    f=$sub/$folder/nbody.$lang
    # A step not handed in is the handout's stub (TODO), never the instructor's solution.
    if [ -f "$f" ] && [ ! -L "$f" ]; then cp "$f" "$scratch/$folder/nbody.$lang"
    else bash "$lab/grading/handout.sh" --strip "$lab/$folder/nbody.$lang" > "$scratch/$folder/nbody.$lang" || exit 2; fi
done

timeout "${CLASS_TIMEOUT:-1800}" make -C "$scratch" --no-print-directory ${commit:+COMMIT="$commit"} \
    grade STEPS="$steps" GRADE_DIR="$dest/grade" SLURM_GRADE_LOCAL=1 > "$dest/grade.txt" 2>&1
rc=$?
{
    echo "student,step,verdict,reason"
    if [ -f "$dest/grade/verdicts.csv" ]; then
        awk -F, -v id="$id" 'NR > 1 { print id "," $1 "," $3 "," $4 }' "$dest/grade/verdicts.csv"
    else
        for s in $steps; do echo "$id,$s,ERROR,the grade did not run (status $rc): see grade.txt"; done
    fi
} > "$dest/rows.csv"
exit 0
