#!/usr/bin/env bash
# profile.sh: Nsight Compute's figures of a GPU step's kernels, beside the step it grows from.
# `make profile STEP=NN` runs it (PROFILE_OUT=DIR puts the CSVs there; default build/profile):
#
#   report/tools/profile.sh OUT BIN_DIR N ID FOLDER LANG [FROM_ID FROM_FOLDER FROM_LANG]
#
# Each step runs twice under ncu (--clock-control none: the card's clocks are left as they are), with
# 1 and 1 + PROFILE_STEPS time steps (default 2), validation off, one repeat. Every kernel is profiled;
# a figure that counts (instructions) is the difference of the two runs, so the harness's warm-up and
# anything else run once cancel out: instructions per interaction = 32 x smsp__inst_executed (warp
# instructions, 32 lanes) / (N^2 x PROFILE_STEPS), the lessons' measure. The rates are the longer
# run's, weighted by each launch's time:
#   issue %      smsp__issue_active.avg.pct_of_peak_sustained_active   (issue slots busy)
#   occupancy %  sm__warps_active.avg.pct_of_peak_sustained_active     (achieved occupancy)
#   regs         launch__registers_per_thread
#   smem B       launch__shared_mem_per_block                          (static + dynamic, per block)
#   DRAM GB/s    dram__bytes.sum.per_second
# Printed: the kernels that take 5% or more of a step's GPU time (its force kernels); written:
# OUT/profile-stepNN.csv, every kernel of both steps (and the raw ncu CSVs beside it).
# No ncu (NCU=/path/to/ncu), no GPU, a CPU step or a failed run: one line on stderr, exit 2.
set -u -o pipefail
me=profile.sh
die() { echo "$me: $*" >&2; exit 2; }
[ $# -eq 6 ] || [ $# -eq 9 ] || die "usage: report/tools/profile.sh OUT BIN_DIR N ID FOLDER LANG [FROM_ID FROM_FOLDER FROM_LANG]"
out=$1 bins=$2 n=$3 id=$4 folder=$5 lang=$6
from_id=${7:-} from_folder=${8:-} from_lang=${9:-}
steps=${PROFILE_STEPS:-2}
ncu=${NCU:-ncu}
[ -n "$id" ] || die "usage: make profile STEP=NN (a GPU step of steps.list, e.g. STEP=04)"
[ -n "$folder" ] || die "no step $id in steps.list"
[ "$lang" = cu ] || die "step $id ($folder) is a CPU step: make profile is for the GPU steps (Nsight Compute profiles kernels)"
[[ $n =~ ^[1-9][0-9]*$ ]] || die "N must be a positive whole number, not '$n'"
[[ $steps =~ ^[1-9][0-9]*$ ]] || die "PROFILE_STEPS must be a positive whole number, not '$steps'"
command -v "$ncu" > /dev/null || die "Nsight Compute (ncu) is not installed here (or name it: NCU=/path/to/ncu): nothing profiled"
nvidia-smi -L 2> /dev/null | grep -q '^GPU' || die "no GPU here (nvidia-smi lists none): nothing profiled"
mkdir -p "$out" || die "cannot make $out"
out=$(cd "$out" && pwd)
metrics=smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__shared_mem_per_block,dram__bytes.sum.per_second,gpu__time_duration.sum

# run FOLDER K: the step under ncu with K time steps; its launches as OUT/FOLDER-kK.csv (ncu's raw page).
run() {
    local f=$1 k=$2 log=$out/$1-k$2.log
    [ -x "$bins/$f" ] || die "$bins/$f is not built (make step${f:4:2})"
    if ! "$ncu" --clock-control none --target-processes all --metrics "$metrics" --csv --page raw \
        --print-units base --print-kernel-base function \
        "$bins/$f" -q -n "$n" --steps "$k" --repeat 1 --validate off --timing call --sandbox off > "$out/$f-k$k.csv" 2> "$log"; then
        die "ncu on $f failed: $(grep -m 1 -E 'ERR|rror' "$log" || tail -n 1 "$log") (all of it: $log)"
    fi
    grep -q '"Kernel Name"' "$out/$f-k$k.csv" || die "ncu on $f profiled no kernel (its output: $out/$f-k$k.csv, $log)"
}

# figures ID FOLDER: one CSV row per kernel (no header), from the two runs' raw CSVs.
figures() {
    local sid=$1 f=$2
    run "$f" 1
    run "$f" $((1 + steps))
    awk -v id="$sid" -v folder="$f" -v n="$n" -v steps="$steps" '
        # One line of ncu CSV ("a","b,c",...) into fld[1..nf]; numbers lose their thousands commas later.
        function split_csv(line,   i, c, q, cur) {
            nf = 0; cur = ""; q = 0
            for (i = 1; i <= length(line); ++i) {
                c = substr(line, i, 1)
                if (c == "\"") q = !q
                else if (c == "," && !q) { fld[++nf] = cur; cur = "" }
                else cur = cur c
            }
            fld[++nf] = cur
        }
        function num(s) { gsub(/,/, "", s); return s + 0 }
        FNR == 1 { run++; hdr = 0 }
        /^"ID"/ { split_csv($0); for (i = 1; i <= nf; ++i) col[fld[i]] = i; hdr = 1; next }
        !hdr || !/^"[0-9]+",/ { next } # the lines of ncu itself, the units line: not a launch
        {
            split_csv($0); k = fld[col["Kernel Name"]]
            if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
            inst[run, k] += num(fld[col["smsp__inst_executed.sum"]])
            if (run == 2) {
                t = num(fld[col["gpu__time_duration.sum"]]); time[k] += t; total += t; launches[k]++
                issue[k] += t * num(fld[col["smsp__issue_active.avg.pct_of_peak_sustained_active"]])
                occ[k] += t * num(fld[col["sm__warps_active.avg.pct_of_peak_sustained_active"]])
                dram[k] += t * num(fld[col["dram__bytes.sum.per_second"]])
                regs[k] = num(fld[col["launch__registers_per_thread"]])
                smem[k] = num(fld[col["launch__shared_mem_per_block"]])
            }
        }
        END {
            if (!("smsp__inst_executed.sum" in col) || total <= 0) { print "no kernel timed" > "/dev/stderr"; exit 2 }
            for (i = 1; i <= nk; ++i) {
                k = order[i]; t = time[k] > 0 ? time[k] : 1
                printf "%s,%s,%s,%d,%.4f,%.2f,%.1f,%.1f,%d,%d,%.1f\n", id, folder, k, launches[k], time[k] / total,
                    32 * (inst[2, k] - inst[1, k]) / (n * n * steps), issue[k] / t, occ[k] / t, regs[k], smem[k], dram[k] / t / 1e9
            }
        }' "$out/$f-k1.csv" "$out/$f-k$((1 + steps)).csv" || die "could not read ncu's CSVs of $f ($out/$f-k*.csv)"
}

device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n 1)
commit=${COMMIT:-$(git rev-parse --short=12 HEAD 2> /dev/null || echo unknown)}
csv=$out/profile-step$id.csv
rows=$(figures "$id" "$folder") || exit 2
from_note=""
if [ -z "$from_id" ]; then
    from_note="step $id grows from no other step"
elif [ "$from_lang" != cu ]; then
    from_note="step $from_id ($from_folder) is a CPU step: no kernels to set beside"
else
    rows=$rows$'\n'$(figures "$from_id" "$from_folder") || exit 2
fi
{
    echo "step,name,kernel,launches,time_share,instructions_per_interaction,issue_active_pct,achieved_occupancy_pct,registers_per_thread,shared_mem_per_block,dram_gbytes_per_second,bodies,steps_measured,device,date,commit"
    printf '%s\n' "$rows" | sed "s/\$/,$n,$steps,$device,$(date -u +%F),$commit/"
} > "$csv"

echo "make profile STEP=$id: ncu --clock-control none on $device, N=$n, the difference of 1 and $((1 + steps)) time steps"
[ -z "$from_note" ] || echo "  ($from_note)"
printf '  %-5s %-24s %6s %9s %7s %7s %5s %8s %9s\n' step kernel "time%" inst/int "issue%" "occup%" regs "smem B" "DRAM GB/s"
awk -F, 'NR > 1 && $5 >= 0.05 {
    k = length($3) > 24 ? substr($3, 1, 21) "..." : $3
    printf "  %-5s %-24s %6.1f %9.2f %7.1f %7.1f %5d %8d %9.1f\n", $1, k, 100 * $5, $6, $7, $8, $9, $10, $11 }' "$csv"
echo "  (kernels with 5% or more of their step's GPU time; inst/int: 32 x warp instructions / N^2 per time step; every kernel: $csv)"
