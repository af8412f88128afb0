#!/usr/bin/env bash
# run-all.sh OUT: the second round of exploration in one call on a GPU machine (report/explore/README.md):
# schedule-bench (timings, checks, ncu warp states and per-instruction stall samples), measure.sh's
# min-blocks phase and variants.sh. Leaves OUT/explore.tgz (the device tool brings back a few files only) holding
# schedule-*.txt, stalls-by-opcode.txt, min-blocks.csv, model.txt, rank.txt, again.txt, variants.csv.
set -u -o pipefail
# shellcheck source=report/explore/out-arg.sh
. "$(dirname "$0")/out-arg.sh"
here=report/explore
out=$PWD/build/explore-out
rm -rf "$out" && mkdir -p "$out" || exit 2
bench=build/schedule-bench
mkdir -p build
nvcc -O3 -std=c++17 -arch=sm_90 -ftz=true -lineinfo -o "$bench" "$here/schedule-bench.cu" || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$out/schedule-smi.txt"
"$bench" 3 | tee "$out/schedule-timing.txt"
"$bench" 2 > "$out/schedule-check.txt"
ncu --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,smsp__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum' \
    -k regex:forces "$bench" 5 > "$out/schedule-ncu.txt" 2>&1
# Which instructions the warps wait on: ncu's per-instruction stall samples of the first launch (the
# steps' form), summed by opcode.
ncu --section SourceCounters -k regex:forces --launch-count 1 -o build/schedule-source -f "$bench" 5 > /dev/null 2>&1
ncu -i build/schedule-source.ncu-rep --page source --csv --print-source sass 2> /dev/null | python3 -c '
import csv, sys
from collections import defaultdict
rows = list(csv.reader(sys.stdin))
head = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
names, data = rows[head], rows[head + 1:]
col = {n: i for i, n in enumerate(names)}
num = lambda r, k: int(r[col[k]] or 0)
hot = max(num(r, "Instructions Executed") for r in data)
loop = [r for r in data if num(r, "Instructions Executed") == hot]
keys = ["stall_selected", "stall_not_selected", "stall_dispatch", "stall_mio", "stall_short_sb", "stall_wait"]
by = defaultdict(lambda: [0] * (len(keys) + 1))
for r in loop:
    op = r[col["Source"]].split()[0].split(".")[0]
    by[op][0] += 1
    for k, key in enumerate(keys):
        by[op][k + 1] += num(r, key)
print("inner loop of the steps form: %d instructions; stall samples summed by opcode" % len(loop))
print("%-8s %6s " % ("opcode", "count") + " ".join("%18s" % k for k in keys))
for op, v in sorted(by.items(), key=lambda kv: -kv[1][3]):
    print("%-8s %6d " % (op, v[0]) + " ".join("%18d" % x for x in v[1:]))
' | tee "$out/stalls-by-opcode.txt"
bash report/sweeps/measure.sh "$out" min-blocks
bash "$here/variants.sh" "$out"
tar czf "$final/explore.tgz" -C "$out" .
