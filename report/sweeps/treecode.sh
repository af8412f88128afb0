#!/usr/bin/env bash
# treecode.sh OUT: step10_barnes_hut on a GPU machine, in one call. Validates it at the grader's sizes
# (the exact sum at theta = 0, then the approximation at theta = 0.35, the default, 0.4 and 0.7), shows that a planted
# bug (a cell that drops a child's mass) fails, runs its Check suite and compute-sanitizer, times it
# against step06 over N (time per step, tree build included) and over theta at N = 1048576 (the
# accuracy-speed frontier), splits one step into its kernels (ncu), and follows the energy of a
# Plummer sphere for 1000 steps. Leaves OUT/tree.csv (the harness's rows, tags tree-*), OUT/tree-energy.csv
# (report/tools/diag.c), OUT/tree-kernels.txt and OUT/tree.log. Needs a GPU; COMMIT names the commit.
#   TREE_SIZES="16384 65536 131072 1048576 4194304 16777216" TREE_PHASES="validate tests timing frontier kernels energy"
set -u -o pipefail
[ $# -eq 1 ] && [ "${1#-}" = "$1" ] || { echo "usage: report/sweeps/treecode.sh OUT" >&2; exit 2; }
mkdir -p "$1" || { echo "treecode.sh: cannot create $1" >&2; exit 2; }
out=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.." || exit 2
exec > >(tee "$out/tree.log") 2>&1
deps=()
[ -d .deps/root ] && deps=(DEPS_ROOT="$PWD/.deps/root")
csv=$out/tree.csv
cache=build/ref-cache
tree=build/bin/step10_barnes_hut
mkdir -p "$cache"
fails=0
tag_prefix=tree
. report/sweeps/tree-lib.sh # row, timed, validate_grid, energy_runs
say() { printf '\n=== %s %s\n' "$(date -u +%H:%M:%S)" "$*"; }
phase() { case " ${TREE_PHASES:-validate tests timing frontier kernels energy} " in *" $1 "*) say "$2" ;; *) return 1 ;; esac; }

say "build"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader
make -j"$(nproc)" "${deps[@]}" build/bin/step06_soa "$tree" build/tools/diag >/dev/null ||
    { echo "treecode.sh: build failed"; exit 1; }
make "${deps[@]}" BUILD=build/tree-planted BUILD_LABEL=planted STEP_DEFS=-DPLANT_DROP_CELL_MASS \
    build/tree-planted/bin/step10_barnes_hut >/dev/null 2>&1 || { echo "treecode.sh: planted build failed"; exit 1; }

if phase validate "validation: theta = 0 exact, then the approximation (tree class), at the grader's sizes"; then
    for theta in 0.35 0.4 0.7; do
        validate_grid "$tree" "$theta"
        $tree --validate-only --ref-cache "$cache" -n 16384 -S 1 --theta "$theta" 2>&1 | grep -E 'acceleration|state after' |
            sed "s/^/theta=$theta N=16384 plummer: /"
    done
    echo "validation failures: $fails"
    for n in 4099 16384; do
        if build/tree-planted/bin/step10_barnes_hut --validate-only --ref-cache "$cache" -n "$n" >build/planted.log 2>&1; then
            echo "FAIL planted bug (a cell drops a child's mass) PASSED validation at N=$n"
            fails=$((fails + 1))
        else
            echo "PASS planted bug fails validation at N=$n (exit $?): $(grep -E 'acceleration' build/planted.log | tail -n 1)"
        fi
    done
fi

if phase tests "make test-gpu for step10 and compute-sanitizer"; then
    make "${deps[@]}" TEST_STEPS=10 test-gpu 2>&1 | tail -n 3 || fails=$((fails + 1))
    grep -h 'theta=' build/tests/log/*step10* 2>/dev/null | head -n 12
    bash tests/compute-sanitizer.sh --sizes "1000 4099 1000x30" --timeout 300 build/sanitizer step10_barnes_hut ||
        fails=$((fails + 1))
fi

steps_for() { # about 0.5 s of the slower step per repeat
    local n=$1
    echo $((n <= 65536 ? 50 : n <= 1048576 ? 5 : 2))
}

if phase timing "time per step over N (default theta, tree build included) against step06"; then
    for n in ${TREE_SIZES:-16384 65536 131072 1048576 4194304 16777216}; do
        k=$(steps_for "$n")
        timed n "$tree" -n "$n" -k "$k" -r 3
        [ "$n" -le 1048576 ] && timed step06 build/bin/step06_soa -n "$n" -k $((k < 10 ? 1 : k / 5)) -r 3
    done
fi

if phase frontier "accuracy against time at N = 1048576 over theta"; then
    for theta in 0.2 0.3 0.4 0.5 0.6 0.7 0.8 1.0; do
        timed frontier "$tree" -n 1048576 -k 3 -r 3 --theta "$theta"
    done
fi

if phase kernels "one step at N = 1048576 split into its kernels (ncu)"; then
    # Two steps run (the warm-up and the timed one): every kernel of both, halved.
    ncu --clock-control none --metrics gpu__time_duration.sum \
        "$tree" -q --validate off -n 1048576 -k 1 -r 1 2>&1 | grep -E '^  [a-zA-Z_]|gpu__time' |
        paste - - | awk '{ name = $1; t = $NF; unit = $(NF - 1); if (unit == "us") t /= 1000; if (unit == "ns") t /= 1e6;
            sub(/\(.*/, "", name); sub(/<.*/, "", name); if (name != "clock_probe") sum[name] += t / 2 }
            END { for (k in sum) { printf "%-40s %8.3f ms per step\n", k, sum[k]; all += sum[k] } printf "%-40s %8.3f ms per step\n", "(all kernels)", all }' |
        sort -k2 -nr | tee "$out/tree-kernels.txt"
fi

if phase energy "energy over 1000 steps: Plummer N=16384, dt 0.001, theta 0.3 0.5 0.7 and step06"; then
    energy_runs "$out/tree-energy.csv" "theta0.3 $tree --theta 0.3" "theta0.5 $tree --theta 0.5" "theta0.7 $tree --theta 0.7" "direct build/bin/step06_soa"
fi

say "done: $fails failure(s)"
[ "$fails" = 0 ]
