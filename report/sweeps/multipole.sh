#!/usr/bin/env bash
# multipole.sh OUT: step12_multipole beside step10_barnes_hut on a GPU machine, in one call. Validates
# step12 at the grader's sizes (the exact sum at theta = 0, then the approximation at the default theta
# and at 0.7), shows that planted bugs in its moments fail, runs its Check suite and compute-sanitizer,
# then times both steps over theta at N = 1048576 (and 131072, 16777216: the accuracy-time frontiers,
# tree build included, rms error against fp64 on the harness's sample), step12 over its leaf size, and
# follows the energy of a Plummer sphere for 1000 steps. Leaves OUT/multipole.csv (the harness's rows,
# tags mp-*), OUT/multipole-energy.csv (report/diag.c) and OUT/multipole.log. Needs a GPU; COMMIT names
# the commit.
#   MP_PHASES="validate planted selftest tests frontier leaf grade big anchor energy"
#   MP_FRONTIER_N="131072 1048576"  MP_BIG_N=16777216  MP_LEAVES="16 64" (variants; the default is 32)
set -u -o pipefail
[ $# -eq 1 ] && [ "${1#-}" = "$1" ] || { echo "usage: report/sweeps/multipole.sh OUT" >&2; exit 2; }
mkdir -p "$1" || { echo "multipole.sh: cannot create $1" >&2; exit 2; }
out=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.." || exit 2
exec > >(tee "$out/multipole.log") 2>&1
deps=()
[ -d .deps/root ] && deps=(DEPS_ROOT="$PWD/.deps/root")
[ -n "${COMMIT:-}" ] && deps+=(COMMIT="$COMMIT") # a copy without .git: the commit measured, for every row
csv=$out/multipole.csv
cache=build/ref-cache
mp=build/bin/step12_multipole
bh=build/bin/step10_barnes_hut
mkdir -p "$cache"
fails=0
tag_prefix=mp
. report/sweeps/tree-lib.sh # row, timed, validate_grid, energy_runs
phases=${MP_PHASES:-validate planted selftest tests frontier leaf grade big anchor energy}
leaves=${MP_LEAVES:-16 64}
say() { printf '\n=== %s %s\n' "$(date -u +%H:%M:%S)" "$*"; }
phase() { case " $phases " in *" $1 "*) say "$2" ;; *) return 1 ;; esac; }
variant() { echo "build/mp-$1/bin/step12_multipole"; }

say "build (commit ${COMMIT:-unknown})"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader
builds=("make -j8 ${deps[*]} $bh $mp build/tools/diag")
for v in planted-quad planted-monopole; do
    def=-DPLANT_DROP_CELL_QUAD
    [ "$v" = planted-monopole ] && def=-DPLANT_MONOPOLE
    builds+=("make ${deps[*]} BUILD=build/mp-$v BUILD_LABEL=$v STEP_DEFS=$def $(variant "$v")")
done
for l in $leaves; do
    builds+=("make ${deps[*]} BUILD=build/mp-leaf$l BUILD_LABEL=leaf$l STEP_DEFS=-DLEAF_BODIES=$l $(variant "leaf$l")")
done
pids=()
for b in "${builds[@]}"; do
    $b >"build/mp-build-${#pids[@]}.log" 2>&1 &
    pids+=($!)
done
for k in "${!pids[@]}"; do
    wait "${pids[$k]}" || { echo "multipole.sh: build failed: ${builds[$k]}"; tail -n 20 "build/mp-build-$k.log"; exit 1; }
done
grep -h -i 'warning' build/mp-build-*.log | sort -u

if phase validate "validation: theta = 0 exact, then the approximation (tree class), at the grader's sizes"; then
    for theta in 0.35 0.7; do
        validate_grid "$mp" "$theta"
        for mm in "--model plummer --masses equal" "--model uniform --masses random"; do
            # shellcheck disable=SC2086
            $mp --validate-only --ref-cache "$cache" -n 16384 -S 3 $mm --theta "$theta" 2>&1 | grep -E 'acceleration|state after' |
                sed "s/^/theta=$theta N=16384x3 ${mm// /_}: /"
        done
    done
    echo "validation failures: $fails"
fi

if phase planted "planted bugs: every cell forgets a child's quadrupole; every cell a point mass"; then
    for v in planted-quad planted-monopole; do
        for n in 4099 16384; do
            for mm in "--model plummer --masses equal" "--model uniform --masses random"; do
                # shellcheck disable=SC2086
                if "$(variant $v)" --validate-only --ref-cache "$cache" -n "$n" -S 3 $mm >build/planted.log 2>&1; then
                    echo "PASSED (should fail) $v N=${n}x3 $mm: $(grep -E 'acceleration' build/planted.log | tail -n 1)"
                    [ "$v" = planted-quad ] && fails=$((fails + 1))
                else
                    echo "fails as it must $v N=${n}x3 $mm (exit $?): $(grep -E 'acceleration' build/planted.log | tail -n 1)"
                fi
            done
        done
    done
fi

if phase selftest "make grade-selftest, step12's cases (a planted fault in a copy, graded: FAIL; the copy unchanged: PASS)"; then
    SELFTEST_STEPS=12 make -s "${deps[@]}" grade-selftest 2>&1 | tail -n 6 || fails=$((fails + 1))
fi

if phase tests "make test-gpu for step12, the stub, and compute-sanitizer"; then
    make "${deps[@]}" TEST_STEPS=12 test-gpu 2>&1 | tail -n 3 || fails=$((fails + 1))
    rm -rf build/handout-mp && bash grading/handout.sh --scratch build/handout-mp >/dev/null &&
        (cd build/handout-mp && make -s "${deps[@]}" step12 >/dev/null 2>&1 && ./build/bin/step12_multipole -n 16; echo "handout stub: exit $?")
    bash tests/compute-sanitizer.sh --tools memcheck --sizes "1000 4099" --timeout 300 build/sanitizer step12_multipole ||
        fails=$((fails + 1))
fi


if phase frontier "accuracy against time over theta, step10 and step12 (Plummer, one system)"; then
    for n in ${MP_FRONTIER_N:-131072 1048576}; do
        k=$((n <= 131072 ? 20 : 3))
        for theta in ${MP_THETA10:-0.3 0.35 0.4 0.5 0.6}; do timed frontier10 "$bh" -n "$n" -k "$k" -r 3 --theta "$theta"; done
        for theta in ${MP_THETA12:-0.15 0.2 0.3 0.35 0.4 0.5 0.6 0.7}; do timed frontier12 "$mp" -n "$n" -k "$k" -r 3 --theta "$theta"; done
    done
fi

if phase leaf "step12's leaf size at N = 1048576 (LEAF_BODIES, default 32)"; then
    for l in $leaves; do
        for theta in 0.35 0.5 0.6; do timed "leaf$l" "$(variant "leaf$l")" -n 1048576 -k 3 -r 3 --theta "$theta"; done
    done
fi

if phase grade "make grade STEPS=\"10 12\" (the grader's sizes, then timed at N = 65536)"; then
    make "${deps[@]}" grade STEPS="10 12" 2>&1 | tail -n 8 || fails=$((fails + 1))
    cp build/grade/results.csv "$out/grade-results.csv" 2>/dev/null
fi

if phase big "accuracy against time at N = ${MP_BIG_N:-16777216}"; then
    n=${MP_BIG_N:-16777216}
    for theta in ${MP_BIG_THETA10:-0.35}; do timed big10 "$bh" -n "$n" -k 2 -r 3 --theta "$theta"; done
    for theta in ${MP_BIG_THETA12:-0.35 0.5}; do timed big12 "$mp" -n "$n" -k 2 -r 3 --theta "$theta"; done
fi

if phase anchor "GOTHIC's anchor: N = 8388608, every body every step"; then
    for theta in ${MP_ANCHOR_THETA12:-0.5}; do timed anchor12 "$mp" -n 8388608 -k 3 -r 3 --theta "$theta"; done
fi

if phase energy "energy over 1000 steps: Plummer N=16384, dt 0.001, step12 at theta 0.35 0.5 0.7, step10 at 0.35"; then
    energy_runs "$out/multipole-energy.csv" "step12-theta0.35 $mp --theta 0.35" "step12-theta0.5 $mp --theta 0.5" "step12-theta0.7 $mp --theta 0.7" \
        "step10-theta0.35 $bh --theta 0.35"
fi

say "done: $fails failure(s)"
[ "$fails" = 0 ]
