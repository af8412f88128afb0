#!/usr/bin/env bash
# all.sh: make test, whose last line of standard output is its verdict (CI reads it): "N passed, N failed,
# N skipped" (on a failure make then adds its own "Error" line, on standard error).
#
#   tests/all.sh DIR 'MAKE' 'EXTRA TARGETS' -- RUN_SH_ARGS...
#
# 1. builds the test programs (make test-build through MAKE, which make test runs with -s: no compiler
#    command lines, V=1 shows them; warnings and errors still show); a failed build is one failure;
# 2. runs the Check suites (tests/run.sh DIR RUN_SH_ARGS: one line a suite); each suite counts once, a
#    step not written yet (TODO) as skipped;
# 3. runs each extra target (the handout, the bad inputs, the tables...) through MAKE, one after another;
#    each counts once: failed if it exits non-zero, skipped if it only said SKIP, else passed.
# Exit status 0 only if nothing failed.
set -u -o pipefail
[ $# -ge 4 ] && [ "$4" = -- ] || { echo "usage: tests/all.sh DIR 'MAKE' 'EXTRA TARGETS' -- RUN_SH_ARGS..." >&2; exit 2; }
dir=$1 mk=$2 extras=$3
shift 4
mkdir -p "$dir" || { echo "all.sh: cannot make $dir" >&2; exit 2; }
passed=0 failed=0 skipped=0
verdict() {
    echo "$passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
    exit $?
}

# shellcheck disable=SC2086 # MAKE is a command and its options, split on purpose
if ! $mk test-build; then
    echo "FAIL build: the test programs do not build (the compiler's error is above)"
    failed=$((failed + 1))
    verdict
fi

counts=$dir/suites.counts
rm -f "$counts"
NB_TEST_COUNTS=$counts bash "$(dirname "$0")/run.sh" "$dir" "$@"
if read -r p f s t < "$counts" 2> /dev/null; then
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s + t))
else
    echo "FAIL suites: tests/run.sh stopped before it counted them"
    failed=$((failed + 1))
fi

for target in $extras; do
    log=$dir/$target.log
    # shellcheck disable=SC2086
    $mk "$target" 2>&1 | tee "$log"
    if [ "${PIPESTATUS[0]}" -ne 0 ]; then
        failed=$((failed + 1))
    elif grep -q '^SKIP ' "$log" && ! grep -q '^PASS ' "$log"; then
        skipped=$((skipped + 1))
    else
        passed=$((passed + 1))
    fi
done
verdict
