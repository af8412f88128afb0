#!/usr/bin/env bash
# pairs.sh OUT: pairs-bench.cu (issue #3's option (a), each pair once) on a GPU machine: a few builds
# (bodies per lane B x warps per block W) at N = 131072 and 16384, several work-item lengths, and ncu's
# instruction count and issue rate of the default build. Leaves OUT/pairs.txt. Needs a GPU, nvcc, ncu.
set -u -o pipefail
# shellcheck source=report/explore/out-arg.sh
. "$(dirname "$0")/out-arg.sh"
log=$final/pairs.txt
: > "$log"
mkdir -p build || exit 2
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader >> "$log"
echo "commit: ${COMMIT:-unknown}" >> "$log"
for bw in "8 8" "4 8" "8 4" "4 16"; do
    read -r b w <<< "$bw"
    exe=build/pairs-bench-b$b-w$w
    nvcc -O3 -std=c++17 -arch=sm_90 -ftz=true -lineinfo -DB="$b" -DW="$w" -Xptxas -v -o "$exe" report/explore/pairs-bench.cu 2>&1 |
        grep -E 'registers' | sed "s/^/B=$b W=$w: /" >> "$log"
    for n in 131072 16384; do
        for piece in 32 64 128; do "$exe" "$n" "$piece" >> "$log" 2>&1 || echo "FAIL: B=$b W=$w N=$n PIECE=$piece" >> "$log"; done
    done
done
ncu --metrics smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
    -k regex:pairs --launch-count 1 build/pairs-bench-b8-w8 131072 64 2>&1 | grep -E 'smsp__|sm__|gpu__' >> "$log"
cat "$log"
