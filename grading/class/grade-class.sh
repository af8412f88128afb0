#!/usr/bin/env bash
# INSTRUCTORS ONLY: the class grader (grading/CLASS.md); grading/handout.sh keeps it out of the handout.
# grade-class.sh: make grade-class. Every student of SUBMISSIONS graded by grade-one.sh, CLASS_JOBS at a
# time, each in its own scratch copy of the lab; then collect.sh writes the class's tables.
#
#   grading/class/grade-class.sh SUBMISSIONS OUT
#
# SUBMISSIONS holds one folder per student, named by the student's id; anything else in it (a file, a
# symlink, a folder whose name is no id) is named on stderr and left out. The environment is
# grade-one.sh's (CLASS_STEPS, CLASS_TIMEOUT, CLASS_ISOLATE, CLASS_KEEP, GRADE_*), CLASS_JOBS (default 1)
# and collect.sh's (CLASS_PSEUDONYMS). Exit status: 0 when every student was graded (whatever their
# verdicts), 1 when one could not be (named on stderr), 2 on a bad argument.
set -u -o pipefail
me=grade-class
die() { echo "$me: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 2 ] && [ -n "$1" ] && [ -n "$2" ] ||
    die "usage: make grade-class SUBMISSIONS=DIR OUT=DIR [CLASS_STEPS=\"00 01\"] [PSEUDONYMS=1] [CLASS_JOBS=1] [CLASS_TIMEOUT=s]"
subs=$1
out=$2
[ -d "$subs" ] || die "SUBMISSIONS=$subs: no such folder"
jobs=${CLASS_JOBS:-1}
[[ $jobs =~ ^[1-9][0-9]{0,2}$ ]] || die "CLASS_JOBS=$jobs: a whole number of submissions at once, 1 to 999"
case ${CLASS_PSEUDONYMS:-0} in 0 | 1 | '') ;; *) die "PSEUDONYMS=$CLASS_PSEUDONYMS: 0 or 1" ;; esac
subs=$(cd "$subs" && pwd -P)
out=$(realpath -m -- "$out") || die "OUT=$out: not a path"
case $out/ in "$subs"/*) die "OUT=$out is inside SUBMISSIONS: the outputs would be graded as a student" ;; esac
case $subs/ in "$out"/*) die "SUBMISSIONS=$subs is inside OUT: keep the submissions apart from the outputs" ;; esac
mkdir -p "$out" || die "OUT=$out: cannot create it"
# The reports, the JSON and the page are written by python3 (report.py): installed as Check is, or said now.
bash "$here/../../common/deps.sh" python3 || die "python3 is needed for the class's reports (grading/class/report.py)"

students=()
while IFS= read -r -d '' d; do
    name=$(basename "$d")
    if [ -L "$d" ] || [ ! -d "$d" ]; then
        echo "$me: $name: not a folder (a symlink is not followed): left out" >&2
    elif ! [[ $name =~ ^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$ ]]; then
        echo "$me: $name: not a student id (letters, digits, . _ -; at most 64): left out" >&2
    else
        students+=("$d")
    fi
done < <(find "$subs" -mindepth 1 -maxdepth 1 -print0 | sort -z)
[ ${#students[@]} -gt 0 ] || die "SUBMISSIONS=$subs holds no student folder"

start=$(date +%s)
echo "$me: ${#students[@]} students, $jobs at a time, steps ${CLASS_STEPS:-(all)}, into $out"
status=0
printf '%s\0' "${students[@]}" | xargs -0 -P "$jobs" -I{} bash "$here/grade-one.sh" {} "$out" || status=1
[ $status -eq 0 ] || echo "$me: some students could not be graded (the lines above say which)" >&2
bash "$here/collect.sh" "$out" || status=1
echo "$me: ${#students[@]} students in $(($(date +%s) - start)) s: $out/class.csv, $out/index.html, $out/students/"
exit $status
