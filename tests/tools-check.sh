#!/usr/bin/env bash
# tools-check.sh WORK: make regs's and make profile's readers (report/tools/regs.sh, profile.sh) on
# recorded-form input, with no GPU, ncu or nvcc: a stand-in compiler prints ptxas -v lines, a stand-in
# ncu prints a raw-page CSV, a stand-in nvidia-smi names a GPU. Checks the figures read back, and that
# a CPU step, an unknown step and a missing ncu are one line on stderr with exit status 2.
# Prints one line per check; exits 1 if one failed, 2 on bad usage.
set -u -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] || { echo "tools-check.sh: usage: tests/tools-check.sh WORK" >&2; exit 2; }
work=$1
rm -rf "$work" && mkdir -p "$work/fake" "$work/bin" || { echo "tools-check.sh: cannot make $work" >&2; exit 2; }
work=$(cd "$work" && pwd)
fails=0
pass() { echo "PASS tools: $*"; }
fail() { echo "FAIL tools: $*"; fails=$((fails + 1)); }
one_line_2() { # WHAT RC ERR: exit 2 and one line on stderr
    if [ "$2" -eq 2 ] && [ "$(printf '%s\n' "$3" | wc -l)" -eq 1 ] && [ -n "$3" ]; then pass "$1 -> exit 2: $3"
    else fail "$1: exit $2, not 2 with one line: $3"; fi
}

# ---- regs.sh: ptxas's lines as nvcc -Xptxas -v prints them (two kernels, one spilling; a device function)
cat > "$work/fake/nvcc" << 'END'
#!/bin/bash
# a stand-in for nvcc -Xptxas -v: the output object, and ptxas's lines on stderr
for ((i = 1; i <= $#; i++)); do [ "${!i}" = -o ] && { j=$((i + 1)); : > "${!j}"; }; done
cat >&2 << 'PTXAS'
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z6forcesPK6float4PS_iif' for 'sm_90'
ptxas info    : Function properties for _Z6forcesPK6float4PS_iif
    16 bytes stack frame, 24 bytes spill stores, 20 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 4096 bytes smem, 384 bytes cmem[0]
ptxas info    : Function properties for _Z6helperf
    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function '_Z10kick_driftP6float4PKS_if' for 'sm_90'
ptxas info    : Function properties for _Z10kick_driftP6float4PKS_if
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 0 barriers, 380 bytes cmem[0]
ptxas info    : Compiling entry function '_ZN3cub17CUB_300001_SM_9006detail11EmptyKernelIN4cuda3std4pairIivEEEEvv' for 'sm_90'
ptxas info    : Function properties for _ZN3cub17CUB_300001_SM_9006detail11EmptyKernelIN4cuda3std4pairIivEEEEvv
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 4 registers, used 0 barriers
PTXAS
END
chmod +x "$work/fake/nvcc"
mkdir -p "$work/lab/stepA" "$work/lab/stepB" && touch "$work/lab/stepA/nbody.cu" "$work/lab/stepB/nbody.cu"
out=$(cd "$work/lab" && bash "$here/report/tools/regs.sh" "$work/regs" 05 stepB cu "$work/fake/nvcc" 04 stepA cu "$work/fake/nvcc" 2>&1)
rc=$?
row=$(grep -E '^  forces ' <<< "$out" | tr -s ' ')
if [ $rc -eq 0 ] && [ "$row" = " forces 255 24 20 4096 16 255 24 20 4096 16" ] &&
    [ "$(cut -f2- "$work/regs/stepB.tsv" | tr '\t' ' ' | sort | tr '\n' '|')" = "cub::EmptyKernel<...> 4 0 0 0 0|forces 255 24 20 4096 16|kick_drift 32 0 0 0 0|" ]; then
    pass "regs.sh reads ptxas's lines: forces 255 registers, 24/20 bytes spilled, 4096 B smem, 16 B stack; a library's templated kernel named short; the device function left out"
else
    fail "regs.sh: exit $rc; forces row '$row'; output: $out"
fi
err=$(cd "$work/lab" && bash "$here/report/tools/regs.sh" "$work/regs" 01 stepC c "" 2>&1 > /dev/null)
one_line_2 "regs.sh on a CPU step" $? "$err"
err=$(cd "$work/lab" && bash "$here/report/tools/regs.sh" "$work/regs" 99 "" "" "" 2>&1 > /dev/null)
one_line_2 "regs.sh on a step not in steps.list" $? "$err"

# ---- profile.sh: ncu's raw page (CSV, base units, numbers with thousands commas), per launch
cat > "$work/fake/nvidia-smi" << 'END'
#!/bin/bash
case "$*" in -L) echo "GPU 0: Stand-in GPU (UUID: none)" ;; *name*) echo "Stand-in GPU" ;; *) exit 1 ;; esac
END
cat > "$work/fake/ncu" << 'END'
#!/bin/bash
# a stand-in for ncu --csv --page raw: per time step (the run's K and one warm-up), one launch of each kernel
k=1
for ((i = 1; i <= $#; i++)); do [ "${!i}" = --steps ] && { j=$((i + 1)); k=${!j}; }; done
echo "==PROF== Connected to process 1"
echo '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","dram__bytes.sum.per_second","gpu__time_duration.sum","launch__registers_per_thread","launch__shared_mem_per_block","sm__warps_active.avg.pct_of_peak_sustained_active","smsp__inst_executed.sum","smsp__issue_active.avg.pct_of_peak_sustained_active"'
echo '"","","","","","","","","","","","byte/second","nsecond","register/thread","byte/block","%","inst","%"'
id=0
for ((s = 0; s <= k; s++)); do
    echo "\"$id\",\"1\",\"p\",\"h\",\"forces\",\"1\",\"7\",\"(256, 1, 1)\",\"(528, 1, 1)\",\"0\",\"9.0\",\"1,500,000,000\",\"4,000,000\",\"56\",\"4,096\",\"23.5\",\"1,476,395,008\",\"88.2\""
    echo "\"$((id + 1))\",\"1\",\"p\",\"h\",\"kick_drift\",\"1\",\"7\",\"(256, 1, 1)\",\"(256, 1, 1)\",\"0\",\"9.0\",\"2,000,000,000,000\",\"10,000\",\"32\",\"0\",\"80.0\",\"100,000\",\"20.0\""
    id=$((id + 2))
done
echo "==PROF== Disconnected from process 1"
END
chmod +x "$work/fake/nvidia-smi" "$work/fake/ncu"
for f in stepA stepB; do printf '#!/bin/sh\n' > "$work/bin/$f" && chmod +x "$work/bin/$f"; done
out=$(PATH=$work/fake:$PATH COMMIT=test PROFILE_STEPS=2 bash "$here/report/tools/profile.sh" "$work/profile" "$work/bin" 65536 05 stepB cu 04 stepA cu 2>&1)
rc=$?
csv=$work/profile/profile-step05.csv
# 1,476,395,008 warp instructions a launch: 32 x that / 65536^2 = 11.00 per interaction; 4 ms of 4.01 ms.
got=$(awk -F, '$3 == "forces" { print $1, $4, $5, $6, $7, $8, $9, $10, $11 }' "$csv" 2> /dev/null | tr '\n' '|')
if [ $rc -eq 0 ] && [ "$got" = "05 4 0.9975 11.00 88.2 23.5 56 4096 1.5|04 4 0.9975 11.00 88.2 23.5 56 4096 1.5|" ] &&
    grep -qE '^  05 +forces ' <<< "$out" && ! grep -q 'kick_drift' <<< "$out"; then
    pass "profile.sh reads ncu's raw CSV: 11.00 instructions per interaction, 88.2% issue, 23.5% occupancy, 56 registers, 4096 B, 1.5 GB/s; kernels under 5% of the time not printed"
else
    fail "profile.sh: exit $rc; forces rows '$got'; output: $out"
fi
err=$(PATH=$work/fake:$PATH NCU=no-such-ncu bash "$here/report/tools/profile.sh" "$work/profile" "$work/bin" 65536 05 stepB cu 2>&1 > /dev/null)
one_line_2 "profile.sh without ncu" $? "$err"
err=$(bash "$here/report/tools/profile.sh" "$work/profile" "$work/bin" 65536 01 stepC c 2>&1 > /dev/null)
one_line_2 "profile.sh on a CPU step" $? "$err"

[ $fails -eq 0 ] || exit 1
