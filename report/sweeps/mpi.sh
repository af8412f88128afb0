#!/usr/bin/env bash
# mpi.sh OUT: step11_mpi on a lent GPU machine, in one call (issue #19). Leaves in OUT:
#   mpi.log        everything printed (compiler lines removed)
#   mpi-env.txt    the GPU, OpenMPI's version and whether it was built CUDA-aware
#   mpi-runs.csv   the harness's rows: validation at every grader size (2 ranks sharing the GPU, both
#                  splits, ring and allgather), then time per step at N = 262144 and 1048576 of
#                  step08 on one GPU and step11 on 1 and 2 ranks, ring and allgather
#   pingpong.csv   MPI one-way time and bandwidth between two ranks on this host (tests/mpi_exchange.c)
#   mpi-tests.txt  make test-mpi, make test-gpu of step11 (one rank), make grade of step11, and the
#                  failure checks: a rank given a GPU that does not exist, a rank killed mid-run
# Environment: COMMIT (the tree has no .git there), MPI_TIME_STEPS (default 3), MPI_REPEAT (default 3).
set -u -o pipefail
out=${1:?usage: report/sweeps/mpi.sh OUT}
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")/../.." || exit 2
steps=${MPI_TIME_STEPS:-3}
repeat=${MPI_REPEAT:-3}
deps=()
[ -d .deps/root ] && deps=(DEPS_ROOT="$PWD/.deps/root")
commit=(${COMMIT:+COMMIT=$COMMIT})
csv=$out/mpi-runs.csv
tests=$out/mpi-tests.txt
t0=$(date +%s)
say() { printf '=== %s (+%ds) %s\n' "$(date -u +%H:%M:%S)" $(($(date +%s) - t0)) "$*"; }
# shellcheck source=report/sweeps/mpi-launch.sh
. report/sweeps/mpi-launch.sh # ranks NP, mpirun_np NP
exec > >(grep -v -E '^(gcc|nvcc|ar|rm) ' | tee "$out/mpi.log") 2>&1

say env
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    echo "nproc $(nproc)"
    mpirun --version | head -n 1
    ompi_info --parsable --all 2>/dev/null | grep -E 'mpi_built_with_cuda_support:value|^ompi:version:full' || true
} > "$out/mpi-env.txt"
cat "$out/mpi-env.txt"

say build
make -j"$(nproc)" "${deps[@]}" "${commit[@]}" build/bin/step08_multigpu build/bin/step11_mpi build/tests/bin/mpi_exchange || exit 1
make -j"$(nproc)" "${deps[@]}" "${commit[@]}" BUILD=build/allgather BUILD_LABEL=allgather STEP_DEFS=-DALLGATHER=1 \
    build/allgather/bin/step11_mpi || exit 1
ring=build/bin/step11_mpi
gather=build/allgather/bin/step11_mpi

say "validation: every grader size, 2 ranks sharing the GPU"
for n in 1 2 31 257 1000 4099 16384; do
    for bin in $ring $gather; do
        tag=$([ $bin = $ring ] && echo ring || echo allgather)
        $bin $(ranks 2) -q -n $n --validate-only --csv "$csv" --tag "validate-np2-$tag" ||
            echo "FAIL validation $tag N=$n (exit $?)"
        $bin $(ranks 2) -q -n $n -S 3 --decompose bodies --validate-only --csv "$csv" --tag "validate-np2-$tag-S3" ||
            echo "FAIL validation $tag N=$n S=3 bodies (exit $?)"
    done
    $ring $(ranks 2) -q -n $n -S 3 --decompose systems --validate-only --csv "$csv" --tag validate-np2-systems-S3 ||
        echo "FAIL validation systems N=$n S=3 (exit $?)"
    $ring $(ranks 3) -q -n $n --validate-only --csv "$csv" --tag validate-np3-ring ||
        echo "FAIL validation 3 ranks N=$n (exit $?)"
done
grep -c ',PASS,' "$csv" | sed 's/^/validation rows passed: /'

say "ping-pong"
$(mpirun_np 2) build/tests/bin/mpi_exchange pingpong | tee "$out/pingpong.csv"

say "time per step"
for n in 262144 1048576; do
    build/bin/step08_multigpu -n $n --steps $steps --repeat $repeat --gpus 1 --csv "$csv" --tag "time-step08-1gpu"
    $ring $(ranks 1) -n $n --steps $steps --repeat $repeat --csv "$csv" --tag "time-np1"
    $ring $(ranks 2) -n $n --steps $steps --repeat $repeat --csv "$csv" --tag "time-np2-ring"
    $gather $(ranks 2) -n $n --steps $steps --repeat $repeat --csv "$csv" --tag "time-np2-allgather"
done

say "tests"
{
    echo "--- make test-mpi"
    make "${deps[@]}" "${commit[@]}" test-mpi
    echo "--- make test-gpu TEST_STEPS=11"
    make "${deps[@]}" "${commit[@]}" test-gpu TEST_STEPS=11 2>&1 | grep -v -E '^(gcc|nvcc|ar|rm) '
    echo "--- ranks given a GPU that does not exist (CUDA_VISIBLE_DEVICES=7)"
    s=$SECONDS
    timeout 120 env CUDA_VISIBLE_DEVICES=7 $ring $(ranks 2) -n 4096 --sandbox off 2>&1 | grep -v '^\[' | head -n 3
    echo "exit status ${PIPESTATUS[0]} after $((SECONDS - s)) s (124: hung)"
    echo "--- a rank killed with SIGKILL mid-run (N = 1048576, 20 steps)"
    $ring $(ranks 2) -q -n 1048576 --steps 20 --repeat 1 --validate off > "$out/.kill.log" 2>&1 &
    job=$!
    sleep 8
    victim=$(pgrep -n -f "$(basename "$ring")-worker --call" || true)
    echo "killing rank pid ${victim:-none}"
    [ -n "$victim" ] && kill -9 "$victim"
    s=$SECONDS
    for _ in $(seq 300); do kill -0 $job 2>/dev/null || break; sleep 0.1; done
    kill -0 $job 2>/dev/null && { echo "mpirun still running 30 s later"; kill $job; }
    wait $job
    echo "mpirun exit status $? after $((SECONDS - s)) s"
    echo "--- make grade STEPS=11"
    make "${deps[@]}" "${commit[@]}" grade STEPS=11 2>&1 | grep -v -E '^(gcc|nvcc|ar|rm) ' | tail -n 25
} > "$tests" 2>&1
cat "$tests"
say done
