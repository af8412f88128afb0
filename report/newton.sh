#!/usr/bin/env bash
# newton.sh OUT: step09_newton (each pair once) on a GPU machine, in one call. Builds step06 and
# step09, validates step09 at the grader's sizes (S = 1 and 3, default and --deterministic), checks
# that two --deterministic runs write byte-identical snapshots, times step06 and step09 (both modes) at
# N = 4096 ... 1048576, reads ncu's instruction count and issue rate of the force kernels at N = 131072,
# and runs step09's Check suite and compute-sanitizer. Leaves OUT/newton.csv (the harness's rows,
# tag newton-*), OUT/newton-ncu.txt and OUT/newton.log. Needs a GPU; COMMIT names the commit.
#   NEWTON_SIZES="4096 16384 131072 1048576"; NEWTON_VARIANTS="w2:-DWARPS=2 b4:-DBODIES_PER_LANE=4" (variant
#   builds of step09, label:STEP_DEFS with commas for spaces, timed next to the default as step09-LABEL);
#   NEWTON_PHASES="validate deterministic timing ncu tests" (default: all)
set -u -o pipefail
[ $# -eq 1 ] && [ "${1#-}" = "$1" ] || { echo "usage: report/newton.sh OUT" >&2; exit 2; }
mkdir -p "$1" || { echo "newton.sh: cannot create $1" >&2; exit 2; }
out=$(cd "$1" && pwd)
cd "$(dirname "$0")/.." || exit 2
exec > >(tee "$out/newton.log") 2>&1
deps=()
[ -d .deps/root ] && deps=(DEPS_ROOT="$PWD/.deps/root")
csv=$out/newton.csv
cache=build/ref-cache
mkdir -p "$cache"
fails=0
say() { printf '\n=== %s %s\n' "$(date -u +%H:%M:%S)" "$*"; }

say "build"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
make -j"$(nproc)" "${deps[@]}" build/bin/step06_soa build/bin/step09_newton build/tests/bin/check_step09_newton >/dev/null ||
    { echo "newton.sh: build failed"; exit 1; }
variants=() pids=()
for v in ${NEWTON_VARIANTS:-}; do # built side by side, each in its own folder
    label=${v%%:*} defs=${v#*:}
    make "${deps[@]}" BUILD="build/newton-$label" BUILD_LABEL="$label" STEP_DEFS="${defs//,/ }" \
        "build/newton-$label/bin/step09_newton" >/dev/null 2>&1 &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done # not a bare wait: it would wait for the tee of the log too
for v in ${NEWTON_VARIANTS:-}; do
    label=${v%%:*}
    if [ -x "build/newton-$label/bin/step09_newton" ]; then
        variants+=("step09-$label build/newton-$label/bin/step09_newton")
    else
        echo "FAIL variant $v: no build"
        fails=$((fails + 1))
    fi
done
phase() { case " ${NEWTON_PHASES:-validate deterministic timing ncu tests} " in *" $1 "*) say "$2" ;; *) return 1 ;; esac; }
cuobjdump --dump-resource-usage build/obj/step09_newton/nbody.o | grep -E 'Function|REG'

if phase validate "validation at the grader's sizes"; then
for n in 1 2 31 257 1000 4099 16384; do
    for sys in 1 3; do
        for mode in "" "--deterministic"; do
            for mm in "--model plummer --masses equal" "--model uniform --masses random"; do
                # shellcheck disable=SC2086
                if ! line=$(build/bin/step09_newton -q --validate-only --ref-cache "$cache" -n "$n" -S "$sys" $mm $mode 2>&1); then
                    echo "FAIL step09 -n $n -S $sys $mm $mode: $line"
                    fails=$((fails + 1))
                fi
            done
        done
    done
done
echo "validation failures: $fails"
fi

if phase deterministic "--deterministic: two runs, byte-identical snapshots"; then
for n in 4099 131072; do
    build/bin/step09_newton -q --validate off -n "$n" -S 1 -k 5 -r 1 --deterministic -o build/det-a.nbs &&
        build/bin/step09_newton -q --validate off -n "$n" -S 1 -k 5 -r 1 --deterministic -o build/det-b.nbs &&
        cmp build/det-a.nbs build/det-b.nbs && echo "PASS deterministic N=$n: identical snapshots" ||
        { echo "FAIL deterministic N=$n: snapshots differ"; fails=$((fails + 1)); }
    build/bin/step09_newton -q --validate off -n "$n" -S 1 -k 5 -r 1 -o build/atomic-a.nbs &&
        build/bin/step09_newton -q --validate off -n "$n" -S 1 -k 5 -r 1 -o build/atomic-b.nbs &&
        { cmp -s build/atomic-a.nbs build/atomic-b.nbs && echo "atomic N=$n: identical this time" ||
            echo "atomic N=$n: the snapshots differ (float atomics: the order of the sums depends on scheduling)"; }
done
fi

if phase timing "timing"; then
steps_for() { # about 0.1 s of step06 per repeat, at least one step
    local n=$1
    echo $(((2000000000000 / 10) / (n * n) > 0 ? (2000000000000 / 10) / (n * n) : 1))
}
for n in ${NEWTON_SIZES:-4096 16384 131072 1048576}; do
    k=$(steps_for "$n")
    runs=("step06_soa build/bin/step06_soa" "step09 build/bin/step09_newton" "step09-det build/bin/step09_newton --deterministic")
    runs+=("${variants[@]}")
    for r in "${runs[@]}"; do
        read -r label exe args <<< "$r"
        # shellcheck disable=SC2086
        build_line=$($exe -q --csv "$csv" --tag "newton-$label" --ref-cache "$cache" -n "$n" -k "$k" -r 5 $args 2>&1) ||
            { echo "FAIL $label N=$n: $build_line"; fails=$((fails + 1)); continue; }
        tail -n 1 "$csv" | awk -F, -v l="$label" '{ printf "%-16s N=%-8s steps=%-5s %8.1f G interactions/s  (%s)\n", l, $8, $9, $20, $33 }'
    done
done
fi

if phase ncu "ncu: instructions per interaction and issue rate at N = 131072 (one step)"; then
for exe in build/bin/step06_soa build/bin/step09_newton; do
    ncu --clock-control none --metrics smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
        -k regex:'forces|pairs' --launch-count 1 --launch-skip 1 "$exe" -q --validate off -n 131072 -k 1 -r 1 2>&1 |
        grep -E '^  [a-z]|smsp__|gpu__' | sed "s|^|$(basename "$exe"): |"
done | tee "$out/newton-ncu.txt"
awk '/inst_executed/ { gsub(",", "", $NF); printf "%s %.2f thread instructions per interaction (32 x warp instructions / 131072^2)\n", $1, 32 * $NF / (131072 * 131072) }' "$out/newton-ncu.txt" |
    tee -a "$out/newton-ncu.txt"
fi

if phase tests "make test-gpu for step09 and compute-sanitizer"; then
make "${deps[@]}" TEST_STEPS=09 test-gpu 2>&1 | tail -n 3 || fails=$((fails + 1))
bash tests/compute-sanitizer.sh --sizes "1000 4099 1000x300" --timeout 300 build/sanitizer step09_newton || fails=$((fails + 1))
fi

say "done: $fails failure(s)"
[ "$fails" = 0 ]
