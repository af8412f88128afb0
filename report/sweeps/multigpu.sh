#!/usr/bin/env bash
# multigpu.sh OUT: step08_multigpu and step11_mpi on a machine with two GPUs or more, in one call (issue #20).
# Leaves in OUT:
#   multigpu.log        everything printed (compiler lines removed)
#   multigpu-env.txt    the GPUs, their topology, OpenMPI's version and whether it was built CUDA-aware
#   multigpu-runs.csv   the harness's rows: validation at every grader size (step08 on 2 GPUs, both splits;
#                       step11 on 2 ranks, one GPU each: ring, allgather, systems), then the timed runs:
#                       S = 1 at N = 262144, 1048576, 4194304 and S = 64 x 16384, step08 on one GPU and
#                       on two, step11 on two ranks (ring and allgather; systems for S = 64)
#   scaling.csv         step08's timed rows again, tagged for the scaling figure (report/plots/scaling.gp)
#   pingpong-2gpu.csv   MPI one-way time and bandwidth between the two ranks (tests/mpi_exchange.c)
#   multigpu-summary.txt  time per step, speed-up over one GPU, step11 against step08 on two GPUs (the same split),
#                       step08's exchange time (config)
# Environment: COMMIT (the tree has no .git there), MULTIGPU_SIZES (default "262144 1048576 4194304").
set -u -o pipefail
out=${1:?usage: report/sweeps/multigpu.sh OUT}
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")/../.." || exit 2
deps=()
[ -d .deps/root ] && deps=(DEPS_ROOT="$PWD/.deps/root")
commit=(${COMMIT:+COMMIT=$COMMIT})
csv=$out/multigpu-runs.csv
t0=$(date +%s)
fails=0
say() { printf '=== %s (+%ds) %s\n' "$(date -u +%H:%M:%S)" $(($(date +%s) - t0)) "$*"; }
# shellcheck source=report/sweeps/mpi-launch.sh
. report/sweeps/mpi-launch.sh # ranks NP, mpirun_np NP
run() { # TAG CMD...: one harness run appending to the CSV; a failure is counted and said
    local tag=$1
    shift
    "$@" --csv "$csv" --tag "$tag" || { echo "FAIL ($?): $tag: $*"; fails=$((fails + 1)); }
}
exec > >(grep -v -E '^(gcc|nvcc|ar|rm|/opt/gcc/bin/gcc) ' | tee "$out/multigpu.log") 2>&1

say env
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
{
    nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
    nvidia-smi topo -m 2>/dev/null
    echo "nproc $(nproc)"
    mpirun --version | head -n 1
    ompi_info --parsable --all 2>/dev/null | grep -E 'mpi_built_with_cuda_support:value|^ompi:version:full' || true
    echo "commit ${COMMIT:-unknown}, $(date -u +%FT%TZ)"
} > "$out/multigpu-env.txt"
cat "$out/multigpu-env.txt"
[ "$gpus" -ge 2 ] || { echo "multigpu.sh: $gpus GPU here; this script needs two" >&2; exit 2; }

say build
make -j"$(nproc)" "${deps[@]}" "${commit[@]}" build/bin/step08_multigpu build/bin/step11_mpi build/tests/bin/mpi_exchange || exit 1
make -j"$(nproc)" "${deps[@]}" "${commit[@]}" BUILD=build/allgather BUILD_LABEL=allgather STEP_DEFS=-DALLGATHER=1 \
    build/allgather/bin/step11_mpi || exit 1
s08=build/bin/step08_multigpu
ring=build/bin/step11_mpi
gather=build/allgather/bin/step11_mpi

say "validation at the grader's sizes, two GPUs"
for n in 1 2 31 257 1000 4099 16384; do
    run validate-step08-2gpu-bodies $s08 -q -n $n --gpus 2 --decompose bodies --validate-only
    run validate-step08-2gpu-bodies-S3 $s08 -q -n $n -S 3 --masses random --gpus 2 --decompose bodies --validate-only
    run validate-step08-2gpu-systems-S3 $s08 -q -n $n -S 3 --gpus 2 --decompose systems --validate-only
    run validate-np2-ring $ring $(ranks 2) -q -n $n --validate-only
    run validate-np2-ring-S3 $ring $(ranks 2) -q -n $n -S 3 --masses random --decompose bodies --validate-only
    run validate-np2-allgather $gather $(ranks 2) -q -n $n --validate-only
    run validate-np2-systems-S3 $ring $(ranks 2) -q -n $n -S 3 --decompose systems --validate-only
done
echo "validation rows passed: $(grep -c ',PASS,' "$csv"), failed runs: $fails"

say "ping-pong between the two ranks"
$(mpirun_np 2) build/tests/bin/mpi_exchange pingpong | tee "$out/pingpong-2gpu.csv"

say "time per step"
for n in ${MULTIGPU_SIZES:-262144 1048576 4194304}; do
    k=$((n <= 262144 ? 10 : n <= 1048576 ? 3 : 1))
    run time-step08-1gpu $s08 -n $n --steps $k --repeat 3 --gpus 1
    run time-step08-2gpu $s08 -n $n --steps $k --repeat 3 --gpus 2 --decompose bodies
    run time-np2-ring $ring $(ranks 2) -n $n --steps $k --repeat 3
    run time-np2-allgather $gather $(ranks 2) -n $n --steps $k --repeat 3
done
run time-step08-1gpu $s08 -S 64 -n 16384 --steps 10 --repeat 3 --gpus 1
run time-step08-2gpu $s08 -S 64 -n 16384 --steps 10 --repeat 3 --gpus 2 --decompose systems
run time-step08-2gpu-bodies $s08 -S 64 -n 16384 --steps 10 --repeat 3 --gpus 2 --decompose bodies
run time-np2-systems $ring $(ranks 2) -S 64 -n 16384 --steps 10 --repeat 3 --decompose systems
run time-np2-ring $ring $(ranks 2) -S 64 -n 16384 --steps 10 --repeat 3 --decompose bodies

say summary
awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
    $c["tag"] ~ /^time-/ {
        key = $c["systems"] " x " $c["bodies"]; per_step = $c["kernel_s"] / $c["steps"]; tag = $c["tag"]
        if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
        step[key, tag] = per_step; rate[key, tag] = $c["ginteractions_s"]; cfg[key, tag] = $c["config"]; ok[key, tag] = $c["pass"]
        tags[key] = tags[key] " " tag
    }
    END {
        printf "%-14s %-26s %12s %10s %9s %9s  %s\n", "S x N", "run", "s per step", "G int/s", "x 1 GPU", "x step08", "validation, config"
        for (i = 1; i <= nk; ++i) {
            key = order[i]; base = step[key, "time-step08-1gpu"]; two = step[key, "time-step08-2gpu"]
            n = split(tags[key], names, " ")
            for (j = 1; j <= n; ++j) {
                tag = names[j]
                speedup = base > 0 ? sprintf("%.2f", base / step[key, tag]) : "-"
                against = "-"
                ref = (tag ~ /ring|allgather/ && step[key, "time-step08-2gpu-bodies"] > 0) ? step[key, "time-step08-2gpu-bodies"] : two
                if (ref > 0 && tag ~ /np2/) against = sprintf("%.3f", ref / step[key, tag]) # the same split
                printf "%-14s %-26s %12.5f %10.1f %9s %9s  %s, %s\n", key, tag, step[key, tag], rate[key, tag],
                    speedup, against, ok[key, tag], cfg[key, tag]
            }
        }
    }' "$csv" | tee "$out/multigpu-summary.txt"
# The scaling figure's rows (report/plots/scaling.gp reads scaling.csv): step08's timed rows, tagged by their split
# as report/sweeps/gpu-run.sh's scaling phase tags them; the one-GPU run of S = 64 is the base of both splits.
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; print; next }
    $c["tag"] == "time-step08-1gpu" { $c["tag"] = "scaling-bodies"; print; if ($c["systems"] > 1) { $c["tag"] = "scaling-systems"; print }; next }
    $c["tag"] == "time-step08-2gpu" { $c["tag"] = $c["systems"] > 1 ? "scaling-systems" : "scaling-bodies"; print; next }
    $c["tag"] == "time-step08-2gpu-bodies" { $c["tag"] = "scaling-bodies"; print }' "$csv" > "$out/scaling.csv"
say "done: $fails failed runs"
[ $fails = 0 ]
