#!/usr/bin/env bash
# sanitizer-plants.sh: the faults tests/compute-sanitizer.sh must find, planted in copies of step03 (its
# tiles): an out-of-bounds read (each tile loads one body past the system's last, memcheck) and the
# __syncthreads() between a tile's loads and its use dropped (threads read what others have not written
# yet, racecheck at one slice, where each block loops over four tiles). (Dropping the one after its use
# was not found by racecheck at N = 1000 S = 30 on an H200, 2026-12-01.) Each copy is built as the step is (make grade-copy)
# and must FAIL; the unchanged copy must PASS both.
#
#   tests/sanitizer-plants.sh LOGDIR
#
# Exit status: 0 every plant found and the copy clean (or SKIP: no GPU or no compute-sanitizer), 1 not.
set -u -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: tests/sanitizer-plants.sh LOGDIR" >&2; exit 2; }
logs=$1
nvidia-smi -L 2> /dev/null | grep -q '^GPU' || { echo "SKIP sanitizer plants: no GPU here"; exit 0; }
command -v compute-sanitizer > /dev/null 2>&1 || [ -x /usr/local/cuda/bin/compute-sanitizer ] ||
    { echo "SKIP sanitizer plants: compute-sanitizer not found"; exit 0; }
mkdir -p "$logs" && logs=$(cd "$logs" && pwd)
folder=step03_tiling
src=$here/$folder/nbody.cu
# name | tool | size | sed program | expected status of compute-sanitizer.sh (0 clean, 1 a finding)
plants=(
    "unchanged|memcheck|1000||0"
    "unchanged|racecheck|1000x30||0"
    "out-of-bounds|memcheck|1000|s/if (j < n)$/if (j < n + 1)/|1"
    "no-sync-before-use|racecheck|1000x30|s#^\( *\)__syncthreads();\$#\1/* __syncthreads() dropped */#|1"
)
bad=0
for p in "${plants[@]}"; do
    IFS='|' read -r name tool size program want <<< "$p"
    dir=$logs/$name
    mkdir -p "$dir"
    sed "$program" "$src" > "$dir/nbody.cu"
    if [ -n "$program" ] && cmp -s "$src" "$dir/nbody.cu"; then
        echo "BROKEN $name: the sed matched nothing in $src"; bad=1; continue
    fi
    make -C "$here" -s --no-print-directory grade-copy COPY_ID=03 COPY_SRC="$dir/nbody.cu" COPY_BIN="$dir/$folder" \
        > "$dir/build.log" 2>&1 || { echo "BROKEN $name: the copy did not build ($dir/build.log)"; bad=1; continue; }
    bash "$here/tests/compute-sanitizer.sh" --bin "$dir" --tools "$tool" --sizes "$size" "$dir/logs" 03 > "$dir/run.txt" 2>&1
    rc=$?
    line=$(grep -E '^(PASS|FAIL)' "$dir/run.txt" | head -n 1)
    if [ "$rc" = "$want" ]; then
        echo "ok $name ($tool): $line"
    else
        echo "WRONG $name ($tool): compute-sanitizer.sh exited $rc, expected $want: $line"; bad=1
    fi
done
[ $bad -eq 0 ] && echo "sanitizer plants: every plant found, the unchanged copy clean" || echo "sanitizer plants: FAILED"
exit $bad
