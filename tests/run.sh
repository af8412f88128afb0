#!/usr/bin/env bash
# run.sh [--require-run] DIR [--fail NAME=WHY | --skip NAME=WHY | --todo NAME=WHY]... PROGRAM...
# Runs the Check programs one after another and prints one line per suite, then the verdict.
# A program (tests/testlib.h) writes TAP to $CK_TAP_LOG_FILE_NAME and exits 0 (passed), 1 (failed)
# or 77 (skipped); the counts come from its TAP file, its output goes to DIR/log/NAME.log.
# --fail/--skip/--todo report a suite that was not run (a missing source, no nvcc, a step not written
# yet: its stub's TODO line, which is counted and is not a failure). --require-run: fail if
# no suite ran at all (make test-gpu on a machine without a GPU). Exit status 0 only if none failed.
# NB_TEST_COUNTS=FILE: the suites' counts are written there too (tests/all.sh adds them up).
set -u
require_run=0
if [ "${1:-}" = --require-run ]; then
    require_run=1
    shift
fi
if [ $# -lt 1 ] || [ "${1#-}" != "$1" ]; then
    echo "usage: tests/run.sh [--require-run] DIR [--fail NAME=WHY | --skip NAME=WHY | --todo NAME=WHY]... PROGRAM..." >&2
    exit 2
fi
dir=$1
shift
logs=$dir/log
mkdir -p "$logs"
rm -rf "$dir/tmp" && mkdir -p "$dir/tmp"

# The tests time nothing: OpenMP threads that sleep at barriers keep a shared or small machine usable
# (spinning ones made a run 20 times slower on a busy 2-core machine).
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

now() { printf '%s\n' "${EPOCHREALTIME:-$(date +%s.%N)}"; }
start=$(now)
suites_pass=0 suites_fail=0 suites_skip=0 suites_todo=0 tests_pass=0 tests_fail=0 tests_skip=0

# One line: name, verdict, counts or reason, seconds.
row() { printf '  %-22s %-5s %-58s %s\n' "$1" "$2" "$3" "$4"; }
count() { # what pattern file
    local n
    n=$(grep -c -E "$1" "$2" 2>/dev/null) || true
    echo "${n:-0}"
}

echo "Check suites (full output in $logs):"
while [ $# -gt 0 ]; do
    case $1 in
    --fail | --skip | --todo)
        kind=$1 name=${2%%=*} why=${2#*=}
        shift 2
        if [ "$kind" = --fail ]; then
            row "$name" FAIL "$why" ""
            suites_fail=$((suites_fail + 1))
        elif [ "$kind" = --todo ]; then
            row "$name" TODO "not written yet: $why" ""
            suites_todo=$((suites_todo + 1))
        else
            row "$name" SKIP "$why" ""
            suites_skip=$((suites_skip + 1))
        fi
        continue ;;
    esac
    prog=$1
    shift
    name=$(basename "$prog")
    name=${name#check_}
    tap=$logs/$name.tap
    rm -f "$tap"
    t0=$(now)
    CK_TAP_LOG_FILE_NAME=$tap "$prog" >"$logs/$name.log" 2>&1 </dev/null
    rc=$?
    seconds=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }')
    skipped=$(count '^ok .*# SKIP' "$tap")
    passed=$(($(count '^ok ' "$tap") - skipped))
    failed=$(count '^not ok ' "$tap")
    planned=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$tap" 2>/dev/null | tail -n 1)
    tests_pass=$((tests_pass + passed)) tests_fail=$((tests_fail + failed)) tests_skip=$((tests_skip + skipped))
    counts="$passed passed"
    [ "$failed" -gt 0 ] && counts="$counts, $failed failed"
    [ "$skipped" -gt 0 ] && counts="$counts, $skipped skipped"
    if [ "$rc" = 77 ] && [ "$failed" = 0 ]; then
        why=$(sed -n 's/^ok .*# SKIP //p' "$tap" 2>/dev/null | head -n 1)
        row "$name" SKIP "$skipped skipped: ${why:-see the log}" "$seconds"
        suites_skip=$((suites_skip + 1))
    elif [ "$rc" = 0 ] && [ "$failed" = 0 ] && [ "$passed" -gt 0 ] && [ "${planned:-x}" = $((passed + skipped)) ]; then
        row "$name" PASS "$counts" "$seconds"
        suites_pass=$((suites_pass + 1))
    else
        if [ -z "$planned" ] || [ "$planned" != $((passed + failed + skipped)) ] || { [ "$rc" != 0 ] && [ "$rc" != 1 ]; }; then
            # It did not finish: a crash, a CUDA error that exited, a signal.
            counts="$counts; stopped with exit status $rc"
            tests_fail=$((tests_fail + 1))
        fi
        row "$name" FAIL "$counts" "$seconds"
        suites_fail=$((suites_fail + 1))
        grep -E '^not ok ' "$tap" 2>/dev/null | head -n 10 | sed 's/^/      /'
        if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
            tail -n 5 "$logs/$name.log" | sed 's/^/      | /'
        fi
        echo "      (all of it: $logs/$name.log)"
    fi
done

seconds=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')
verdict=PASS
[ "$suites_fail" -gt 0 ] && verdict=FAIL
if [ "$require_run" = 1 ] && [ "$suites_pass" = 0 ] && [ "$suites_fail" = 0 ]; then
    verdict="FAIL (nothing ran: every suite was skipped)"
fi
todo=""
[ "$suites_todo" -gt 0 ] && todo=", $suites_todo TODO (steps not written yet)"
echo "$verdict: $suites_pass suites passed, $suites_fail failed, $suites_skip skipped$todo" \
    "($tests_pass tests passed, $tests_fail failed, $tests_skip skipped) in $seconds s"
# make test's last line adds these up (tests/all.sh): suites passed, failed, skipped, TODO.
[ -z "${NB_TEST_COUNTS:-}" ] || echo "$suites_pass $suites_fail $suites_skip $suites_todo" > "$NB_TEST_COUNTS"
case $verdict in PASS) exit 0 ;; *) exit 1 ;; esac
