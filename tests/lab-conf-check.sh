#!/usr/bin/env bash
# lab-conf-check.sh: the grade's constants have one home, lab.conf (grading/lab-conf.sh reads it as data).
# The ladder's N is written in none of the places that once held it each (grading/grading.mk,
# grading/options.c, report/tables/sections.spec, report/tables/tables.sh, report/plots/figures.sh; the
# ladder phases of report/sweeps/measure.sh take it from lab.conf); make's defaults are lab.conf's, a
# copy of lab.conf with other values (LAB_CONF) changes them, a command line's value wins; the grader
# built by make says lab.conf's values in grade --help. Run by make test-conf.
set -u -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here" || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "PASS conf: $*"; }
fail() { echo "FAIL conf: $*"; fails=$((fails + 1)); }
. grading/lab-conf.sh
n=$(lab_conf_file GRADE_N)
[ -n "$n" ] || { echo "FAIL conf: lab.conf has no GRADE_N"; exit 1; }

homes="grading/grading.mk grading/options.c report/tables/sections.spec report/tables/tables.sh report/plots/figures.sh"
held=$(grep -lw -- "$n" $homes 2> /dev/null)
ladder_runs=$(grep -cE 'run "\$partial/ladder(-cpu)?\.csv" .*-n "\$ladder_n"' report/sweeps/measure.sh)
if [ -z "$held" ] && [ "$ladder_runs" -eq 2 ]; then
    pass "the ladder's N ($n) is lab.conf's alone: not in $(echo $homes | wc -w) former homes, measure.sh's 2 ladder runs read it"
else
    fail "the ladder's N ($n) written in: ${held:-none}; measure.sh's ladder runs from lab.conf: $ladder_runs of 2"
fi

value() { make -s --no-print-directory --eval 'print-%: ; @echo $($*)' "print-$1" "${@:2}" 2> /dev/null; }
# The correctness cases' sizes: lab.conf's list (commas), in no other file of the grader or its make.
cn=$(lab_conf_file GRADE_CHECK_N)
spelled=$(grep -lE -- "${cn//,/[ ,]+}" grading/*.c grading/*.h grading/*.mk grading/*.sh 2> /dev/null)
if [ -n "$cn" ] && [ -z "$spelled" ] && [ "$(value GRADE_CHECK_N)" = "${cn//,/ }" ]; then
    pass "the cases' sizes ($cn) are lab.conf's alone, and make's GRADE_CHECK_N is they"
else
    fail "the cases' sizes: lab.conf '${cn:-none}', make '$(value GRADE_CHECK_N)', spelled out in: ${spelled:-none}"
fi

sed -e 's/^GRADE_N=.*/GRADE_N=4096/' -e 's/^GRADE_REPEAT=.*/GRADE_REPEAT=5/' lab.conf > "$tmp/lab.conf"
got="$(value GRADE_N) $(value GRADE_REPEAT) $(LAB_CONF=$tmp/lab.conf value GRADE_N) $(LAB_CONF=$tmp/lab.conf value GRADE_REPEAT) $(value GRADE_N GRADE_N=77)"
want="$n $(lab_conf_file GRADE_REPEAT) 4096 5 77"
[ "$got" = "$want" ] && pass "make's GRADE_N, GRADE_REPEAT: lab.conf's, another lab.conf's, the command line's ($got)" ||
    fail "make's GRADE_N, GRADE_REPEAT: got '$got', want '$want'"

grader=$(value GRADER)
if make -s --no-print-directory "$grader" > "$tmp/build.log" 2>&1 && help=$("$grader" --help); then
    if grep -qF "ladder size (default $n, lab.conf's GRADE_N)" <<< "$help" &&
        grep -qF "timed repeats, median reported (default $(lab_conf_file GRADE_REPEAT)," <<< "$help"; then
        pass "grade --help gives lab.conf's GRADE_N and GRADE_REPEAT as its defaults (compiled in)"
    else
        fail "grade --help: $(grep -E 'ladder size|timed repeats' <<< "$help" | tr -s ' ')"
    fi
else
    fail "the grader did not build: $(tail -n 2 "$tmp/build.log")"
fi
[ "$fails" -eq 0 ]
