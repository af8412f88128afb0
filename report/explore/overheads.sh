#!/usr/bin/env bash
# overheads.sh OUT: round 3 (report/explore/README.md): how much of step06's time at N = 131072 is not
# the interaction loop? ncu per kernel (forces and kick_drift): duration, the issue rate over elapsed and
# over active cycles (their gap is the idle tail of the grid) and SM activity; then the harness over
# several slice counts (NB_SLICES), each build with its own. Builds: the default and two knob sets of
# report/explore/variants.sh. Leaves OUT/overheads.txt and OUT/overheads.csv. Needs a GPU, nvcc and ncu.
set -u -o pipefail
# shellcheck source=report/explore/out-arg.sh
. "$(dirname "$0")/out-arg.sh"
out=$final
deps=()
[ -d .deps/root ] && deps=(DEPS_ROOT="$PWD/.deps/root")
jobs=$(nproc 2>/dev/null || echo 8)
log=$out/overheads.txt
csv=$out/overheads.csv
: > "$log"
rm -f "$csv"
mkdir -p build || exit 2

# label and STEP_DEFS (':' for spaces, '-' for none)
builds="default -
b4-u8-t2048 -DTILE=2048
b6-u2-t2048 -DBODIES_PER_THREAD=6:-DUNROLL=2:-DTILE=2048"
while read -r label defs; do
    [ "$defs" = - ] && defs=
    make -s -j"$jobs" "${deps[@]}" BUILD="build/overheads/$label" BUILD_LABEL="$label" STEP_DEFS="${defs//:/ }" \
        "build/overheads/$label/bin/step06_soa" > "build/overheads-$label.log" 2>&1 ||
        { echo "overheads.sh: $label does not build (build/overheads-$label.log)" >&2; exit 1; }
done <<< "$builds"

metrics=gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_elapsed.avg,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__grid_size,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
while read -r label _; do
    bin=build/overheads/$label/bin/step06_soa
    echo "=== $label: ncu, N = 131072, 2 steps, no validation" >> "$log"
    ncu --metrics "$metrics" -k regex:'forces|kick_drift' --launch-skip 4 --launch-count 2 \
        "$bin" -n 131072 -k 2 -r 1 --validate off -q >> "$log" 2>&1
    for slices in auto 24 32 43 57 86 114 172; do
        env_slices=()
        [ "$slices" = auto ] || env_slices=(NB_SLICES="$slices")
        env "${env_slices[@]}" "$bin" -n 131072 -k 10 -r 5 --csv "$csv" --tag "$label-s$slices" -q >> "$log" 2>&1 ||
            echo "overheads.sh: $label at NB_SLICES=$slices failed" | tee -a "$log" >&2
    done
    "$bin" -n 16384 -k 50 -r 5 --csv "$csv" --tag "$label-n16384" -q >> "$log" 2>&1
done <<< "$builds"
awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
    { printf "%-22s N=%-7s %8.1f G/s  %s\n", $c["tag"], $c["bodies"], $c["ginteractions_s"], $c["config"] }' "$csv" | tee -a "$log"
