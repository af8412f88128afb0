#!/usr/bin/env bash
# tests/hardening/sanitize.sh: `make sanitize`. The CPU steps, common/ and the tests built with
# AddressSanitizer and UndefinedBehaviorSanitizer in their own build folder, then:
#   1. the Check suites (make test, CPU steps only) built and run there;
#   2. every bad-input and edge case of tests/hardening/run.sh against the sanitized programs;
#   3. full runs of each CPU step through every path of the harness (validation, fp64 cache, timing,
#      snapshots on their thread, diagnostics, CSV, reading a snapshot back);
#   4. the same runs under valgrind (memcheck), from a plain -O1 -g build.
#
#   tests/hardening/sanitize.sh BUILD "CFLAGS" "LDFLAGS"
#
# Any sanitizer report makes its program exit with its own status (86 ASan, 87 UBSan, 23 LSan) and
# print more than one line, so no check can mistake it for a pass. Exit 1 if anything failed.
#
# Why these ASAN_OPTIONS: allocator_may_return_null=1 lets a malloc the lab cannot have return NULL
# as it does without ASan (the lab then says so in one line), instead of ASan aborting the program.
# detect_leaks=1 is the default, kept on. OpenMP needs nothing: libgomp is not instrumented, and
# its thread pool stays reachable from its globals, so LeakSanitizer does not report it.
set -u -o pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
me=hardening/sanitize.sh
[ $# -eq 3 ] || { echo "$me: usage: tests/hardening/sanitize.sh BUILD \"CFLAGS\" \"LDFLAGS\"" >&2; exit 2; }
build=$1 cflags=$2 ldflags=$3
cd "$here" || exit 2
mkdir -p "$build" && babs=$(cd "$build" && pwd) || { echo "$me: cannot make $build" >&2; exit 2; }
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:exitcode=86:detect_stack_use_after_return=1:strict_string_checks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=87
export LSAN_OPTIONS=exitcode=23
jobs=$(nproc 2> /dev/null || echo 2)
. common/steps.sh
cpu_ids=$(registry_where lang c id | tr '\n' ' ')
cpu_steps=$(registry_where lang c folder | tr '\n' ' ')
fails=0
say() { printf '\n== %s\n' "$*"; }
verdict() { # NAME STATUS
    if [ "$2" -eq 0 ]; then echo "PASS $1"; else echo "FAIL $1 (exit $2)"; fails=$((fails + 1)); fi
}
# HAVE_NVCC= : the sanitized library cannot be linked into nvcc's GPU programs; TEST_EXTRA= : make
# test's own extra checks (handout, hardening) are run here directly, once.
sanmake() { make --no-print-directory -j"$jobs" BUILD="$build" CFLAGS="$cflags" LDFLAGS="$ldflags" HAVE_NVCC= "$@"; }

say "build with $cflags"
sanmake cpu hardening-tools > "$build.log" 2>&1 || { tail -n 20 "$build.log"; echo "FAIL sanitized build"; exit 1; }
verdict "sanitized build of steps $cpu_ids, common/ and tools (log: $build.log)" 0

say "1. the Check suites under the sanitizers"
if make -n -C "$here" test > /dev/null 2>&1; then
    sanmake TEST_STEPS="$cpu_ids" TEST_EXTRA= test
    verdict "make test (units and CPU steps) under ASan+UBSan" $?
else
    echo "SKIP make test: no test target in this tree"
fi

say "2. bad input and edge cases under the sanitizers"
bash tests/hardening/run.sh --steps-only --bin "$build/bin" --craft "$build/tools/hardening-craft" --timeout 900 "$build/hardening" |
    grep -vE '^[A-Z][0-9]+ +ok '
verdict "every case of tests/hardening/run.sh under ASan+UBSan" "${PIPESTATUS[0]}"

# Every path of the harness, twice (the second run finds the fp64 cache and appends to the CSV), then
# the final snapshot read back, a sampled validation and the other models.
full_runs() { # LABEL PREFIX-COMMAND... (the step binary is appended per step)
    local label=$1 s dir rc
    shift
    for s in $cpu_steps; do
        dir=$babs/runs/$label/$s
        rm -rf "$dir" && mkdir -p "$dir/snap" "$dir/cache"
        rc=0
        for pass in 1 2; do
            "$@" "$build_bin/$s" -q -n 100 -S 3 --steps 4 --repeat 2 --validate full --diagnostics --tag "$label" \
                --snapshot-every 2 --snapshot-dir "$dir/snap" --ref-cache "$dir/cache" --csv "$dir/results.csv" \
                -o "$dir/final.nbs" > "$dir/run$pass.log" 2>&1 || rc=$?
        done
        "$@" "$build_bin/$s" -q -i "$dir/final.nbs" --steps 2 --repeat 1 > "$dir/input.log" 2>&1 || rc=$?
        "$@" "$build_bin/$s" -q -n 300 --validate sample --steps 1 --repeat 1 > "$dir/sample.log" 2>&1 || rc=$?
        "$@" "$build_bin/$s" -q --model collision --masses random -n 64 -S 2 --steps 2 --repeat 1 \
            > "$dir/collision.log" 2>&1 || rc=$?
        [ "$(cat "$dir/results.csv" 2> /dev/null | wc -l)" -eq 3 ] || { echo "  $s: results.csv should hold a header and 2 rows"; rc=1; }
        [ "$(find "$dir/snap" -name '*.nbs' | wc -l)" -ge 2 ] || { echo "  $s: no snapshots written"; rc=1; }
        [ $rc -eq 0 ] || grep -h -m 5 -E 'ERROR|runtime error|Invalid|definitely|FAIL|error' "$dir"/*.log | sed 's/^/  /'
        verdict "$label: $s through every path of the harness (logs: $dir)" $rc
    done
}

say "3. every path of the harness under the sanitizers"
build_bin=$build/bin
full_runs asan-ubsan env

say "4. valgrind (memcheck) on a plain -O1 -g build"
if command -v valgrind > /dev/null; then
    vbuild=$build/valgrind
    # -mno-avx512f: valgrind does not decode AVX-512, which -march=native (step01) uses where it can.
    if make --no-print-directory -j"$jobs" BUILD="$vbuild" CFLAGS="-O1 -g" STEP_DEFS=-mno-avx512f HAVE_NVCC= cpu \
        > "$vbuild.log" 2>&1; then
        build_bin=$vbuild/bin
        # Definite and indirect leaks and every memory error fail; OpenMP's thread stacks are "possibly lost".
        full_runs valgrind valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
            --show-leak-kinds=definite,indirect
    else
        tail -n 5 "$vbuild.log"
        verdict "plain build for valgrind" 1
    fi
else
    echo "SKIP valgrind: not installed (apt-get install valgrind)"
fi

echo
if [ $fails -gt 0 ]; then
    echo "sanitize: $fails checks FAILED"
    exit 1
fi
echo "sanitize: every check passed under ASan+UBSan and valgrind"
