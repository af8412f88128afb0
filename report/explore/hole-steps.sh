#!/usr/bin/env bash
# INSTRUCTORS ONLY: it builds and runs hole-steps.c, step13's scheme written out in fp64
# hole-steps.sh [CSV]: builds report/explore/hole-steps.c and runs the fp64 study of step13's scheme about a
# black hole (N = HOLE_N, default 4096; seeds HOLE_SEEDS, default "42 1 2"): step12's scheme at dt 1/1024
# and 1/1536, step13's at eta 0.1 and 0.2 (dt_max 1/16), each with the hole pinned to the deepest level
# and not, and eta 0.2 at dt_max 1/64 (HOLE_RUNS to choose). CSV (default report/data/cpu/hole-steps.csv) gets one line a run
# (header n,seed,run,rel_energy_error,deepest,levels_pct,forces_per_body; split runs add fast,near,expanded_pct,
# force_err_rms,force_err_max). About 10 minutes a seed on one core at 4096.
set -u -o pipefail
cd "$(dirname "$0")/../.." || exit 2
csv=${1:-report/data/cpu/hole-steps.csv}
build=${BUILD:-build}
make --no-print-directory BUILD="$build" "$build/lib/libnbody.a" "$build/gen/version.h" > /dev/null || exit 2
exe=$build/explore/hole-steps
mkdir -p "$(dirname "$exe")" "$(dirname "$csv")" || exit 2
gcc -std=c11 -Wall -Wextra -Wshadow -fopenmp -O2 -Icommon -I"$build/gen" -o "$exe" report/explore/hole-steps.c \
    "$build/lib/libnbody.a" -lz -lm -lpthread || exit 2
# HOLE_RUNS: the runs, ';'-separated (each the program's words after N SEED).
IFS=';' read -r -a runs <<< "${HOLE_RUNS:-shared 1024;shared 1536;blocks 0.1 0 16;blocks 0.1 1 16;blocks 0.2 0 16;blocks 0.2 1 16;blocks 0.2 0 64}"
header=n,seed,run,rel_energy_error,deepest,levels_pct,forces_per_body
# a split run's line has five more fields (hole-steps.c): then the runs must all be split ones
[[ ";${HOLE_RUNS:-}" == *";split "* ]] && header=$header,fast,near,expanded_pct,force_err_rms,force_err_max
echo "$header" > "$csv"
for seed in ${HOLE_SEEDS:-42 1 2}; do
    for run in "${runs[@]}"; do
        # shellcheck disable=SC2086 # the run's words
        "$exe" "${HOLE_N:-4096}" "$seed" $run | tee -a "$csv" || exit 1
    done
done
