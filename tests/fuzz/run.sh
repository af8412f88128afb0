#!/usr/bin/env bash
# tests/fuzz/run.sh: `make test-fuzz` and `make fuzz`. For each target (tests/fuzz/fuzz_<target>.c):
#   1. its regression inputs (tests/fuzz/regressions/<target>/, every crash fuzzing ever found) and its
#      seed corpus (tests/fuzz/corpus/<target>/) run once: each must pass;
#   2. then SECONDS of libFuzzer (0: until stopped), from the seeds and what earlier runs found
#      (kept in DIR/corpus-<target>). A crash is saved in DIR/crashes/ and the run fails.
#
#   tests/fuzz/run.sh DIR SECONDS "MAKE COMMAND" TARGET...
#
# The fuzzers are built by `MAKE COMMAND DIR/fuzz-<target>` (tests/hardening.mk), with clang's
# -fsanitize=fuzzer,address,undefined. Without a compiler that can, it SKIPs (exit 0).
# Exit 1 if a regression input, a seed or the fuzzing found a crash, a leak or undefined behaviour.
set -u -o pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
me=fuzz/run.sh
[ $# -ge 4 ] && [[ $2 =~ ^[0-9]+$ ]] || {
    echo "$me: usage: tests/fuzz/run.sh DIR SECONDS \"MAKE COMMAND\" TARGET..." >&2
    exit 2
}
dir=$1 seconds=$2 make=$3
shift 3
cd "$here" || exit 2
for t in "$@"; do
    [ -f "tests/fuzz/fuzz_$t.c" ] || { echo "$me: no fuzz target tests/fuzz/fuzz_$t.c" >&2; exit 2; }
done
mkdir -p "$dir/crashes" || { echo "$me: cannot make $dir" >&2; exit 2; }

# Can the compiler build a libFuzzer program at all?
cc=${FUZZ_CC:-clang}
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' > "$dir/probe.c"
if ! "$cc" -fsanitize=fuzzer "$dir/probe.c" -o "$dir/probe" > /dev/null 2>&1; then
    echo "SKIP fuzzing: $cc cannot build libFuzzer programs (apt-get install clang, or FUZZ_CC=clang-14)"
    exit 0
fi

fails=0
for t in "$@"; do
    fuzzer=$dir/fuzz-$t
    # shellcheck disable=SC2086 # the make command is words on purpose
    if ! $make "$fuzzer" > "$dir/build-$t.log" 2>&1; then
        echo "FAIL fuzz-$t: does not build: $(grep -m 1 -E 'error' "$dir/build-$t.log")"
        fails=$((fails + 1))
        continue
    fi
    seeds=tests/fuzz/corpus/$t regressions=tests/fuzz/regressions/$t
    inputs=()
    for d in "$regressions" "$seeds"; do [ -d "$d" ] && inputs+=("$d"); done
    count=$(find "${inputs[@]}" -type f 2> /dev/null | wc -l)
    if "$fuzzer" -runs=0 -close_fd_mask=3 "${inputs[@]}" > "$dir/replay-$t.log" 2>&1; then
        echo "PASS fuzz-$t: $count regression and seed inputs"
    else
        echo "FAIL fuzz-$t: a regression or seed input fails: $(grep -m 1 -E 'ERROR|runtime error|Running' "$dir/replay-$t.log") (log: $dir/replay-$t.log)"
        fails=$((fails + 1))
        continue
    fi
    [ "$seconds" -gt 0 ] || echo "fuzzing $t until stopped (Ctrl-C); new inputs go to $dir/corpus-$t"
    mkdir -p "$dir/corpus-$t"
    limit=()
    [ "$seconds" -gt 0 ] && limit=(-max_total_time="$seconds")
    before=$(find "$dir/crashes" -type f | wc -l)
    "$fuzzer" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 -print_final_stats=1 \
        -artifact_prefix="$dir/crashes/$t-" "$dir/corpus-$t" "$seeds" > "$dir/fuzz-$t.log" 2>&1
    rc=$?
    runs=$(awk '/stat::number_of_executed_units/ { print $2 }' "$dir/fuzz-$t.log")
    if [ $rc -eq 0 ]; then
        echo "PASS fuzz-$t: ${runs:-?} inputs in ${seconds} s, no crash (log: $dir/fuzz-$t.log)"
    else
        crash=$(find "$dir/crashes" -type f -newer "$dir/replay-$t.log" | head -n 1)
        [ "$(find "$dir/crashes" -type f | wc -l)" -gt "$before" ] || crash=
        echo "FAIL fuzz-$t: $(grep -m 1 -E 'ERROR|runtime error|deadly' "$dir/fuzz-$t.log")"
        echo "     the input: ${crash:-see $dir/fuzz-$t.log}. Keep it as a regression (cp it to"
        echo "     $regressions/<what-it-is>), fix the bug, and make test-fuzz again."
        fails=$((fails + 1))
    fi
done
[ $fails -eq 0 ] || { echo "fuzz: $fails FAILED"; exit 1; }
echo "fuzz: every target passed"
