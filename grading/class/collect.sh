#!/usr/bin/env bash
# INSTRUCTORS ONLY: the class grader (grading/CLASS.md); grading/handout.sh keeps it out of the handout.
# collect.sh: the class's tables from every student graded so far (grade-one.sh wrote each one's folder).
#
#   grading/class/collect.sh OUT_DIR
#
# Reads OUT_DIR/students/*/rows.csv; writes OUT_DIR/class.csv (one row per student and step) and
# OUT_DIR/index.html (one static page: the ladder of the class, a table of students). CLASS_PSEUDONYMS=1
# shows each student under a stable pseudonym (an HMAC of the id, keyed by CLASS_PSEUDONYM_KEY or by a
# random key kept in OUT_DIR/.pseudonym-key). Exit status 0, or 2 on a bad argument.
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 1 ] || { echo "collect.sh: usage: grading/class/collect.sh OUT_DIR" >&2; exit 2; }
[ -d "$1/students" ] || { echo "collect.sh: $1/students: no such folder (grade some students first: grade-one.sh)" >&2; exit 2; }
pseudo=()
case ${CLASS_PSEUDONYMS:-0} in
1) pseudo=(--pseudonyms) ;;
0 | '') ;;
*) echo "collect.sh: CLASS_PSEUDONYMS=${CLASS_PSEUDONYMS}: 0 or 1" >&2; exit 2 ;;
esac
bash "$here/../../common/deps.sh" python3 || exit 2 # installed as Check is, or the command to run
exec python3 "$here/report.py" collect --out "$1" "${pseudo[@]}"
