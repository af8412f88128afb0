#!/usr/bin/env bash
# compute-sanitizer.sh: the GPU steps under NVIDIA's compute-sanitizer, memcheck and racecheck.
#
#   tests/compute-sanitizer.sh [--bin DIR] [--tools "memcheck racecheck"] [--sizes "1000 4099 1000x300"]
#                              [--timeout S] LOGDIR [STEP...]
#
# Every GPU step of steps.list (or the STEPs named: folder names or ids) that is built in DIR
# (default build/bin) runs under each tool at each size. A size N is N bodies in S = 3 systems:
# validation (one force evaluation, then a few steps, every body compared), the warm-up, one timed
# repeat and a snapshot every step, so every kernel and copy of the step is covered. A size NxS is
# one timed step of S systems, unvalidated, with the j-range in one slice (NB_SLICES=1): the tiled
# steps otherwise split it until each block has one tile or a few, and only a block that loops over
# several tiles shows a missing __syncthreads(). A run gets S seconds (default 900). One log per run goes to
# LOGDIR (<step>-<tool>-<size>.log), one line per run to LOGDIR/summary.txt and stdout.
# Exit status: 0 clean (or SKIP: no GPU, no compute-sanitizer, no GPU step built), 1 a finding or a
# failed run, 2 bad usage.
set -u -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
me=compute-sanitizer.sh
usage() {
    echo "$me: usage: tests/compute-sanitizer.sh [--bin DIR] [--tools LIST] [--sizes LIST] [--timeout S] LOGDIR [STEP...]" >&2
    exit 2
}
bin=$here/build/bin tools="memcheck racecheck" sizes="1000 4099 1000x300" limit=900
while [ $# -gt 0 ]; do
    case $1 in
    --bin) [ $# -ge 2 ] || usage; bin=$2; shift 2 ;;
    --tools) [ $# -ge 2 ] || usage; tools=$2; shift 2 ;;
    --sizes) [ $# -ge 2 ] || usage; sizes=$2; shift 2 ;;
    --timeout) [ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]*$ ]] || usage; limit=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "$me: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -ge 1 ] || usage
logs=$1
shift
for t in $tools; do
    case $t in memcheck | racecheck | synccheck | initcheck) ;; *) echo "$me: --tools: '$t' is not a compute-sanitizer tool" >&2; exit 2 ;; esac
done
for n in $sizes; do
    [[ $n =~ ^[1-9][0-9]*(x[1-9][0-9]*)?$ ]] || { echo "$me: --sizes: '$n' is not N or NxS" >&2; exit 2; }
done

# The GPU steps: all of steps.list, or those named.
all=$(. "$here/common/steps.sh" && registry_where lang cu id folder)
steps=()
if [ $# -eq 0 ]; then
    while read -r _ folder; do steps+=("$folder"); done <<< "$all"
else
    for s in "$@"; do
        folder=$(awk -v s="$s" '$1 == s || $2 == s { print $2 }' <<< "$all")
        [ -n "$folder" ] || { echo "$me: $s: not a GPU step of steps.list" >&2; exit 2; }
        steps+=("$folder")
    done
fi

skip() { echo "SKIP compute-sanitizer: $*"; exit 0; }
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2> /dev/null)
nvidia-smi -L 2> /dev/null | grep -q '^GPU' || skip "no GPU here"
[ -n "$sanitizer" ] || skip "compute-sanitizer not found (it comes with the CUDA Toolkit)"
built=()
for s in "${steps[@]}"; do [ -x "$bin/$s" ] && built+=("$s"); done
[ ${#built[@]} -gt 0 ] || skip "no GPU step built in $bin (make gpu)"
mkdir -p "$logs" || { echo "$me: cannot make $logs" >&2; exit 2; }
logs=$(cd "$logs" && pwd)
summary=$logs/summary.txt
: > "$summary"
work=$(mktemp -d "${TMPDIR:-/tmp}/nb-sanitize.XXXXXX") || { echo "$me: cannot make a scratch folder" >&2; exit 2; }
trap 'rm -rf "$work"' EXIT

fails=0
for s in "${steps[@]}"; do
    if [ ! -x "$bin/$s" ]; then
        echo "SKIP $s: not built in $bin" | tee -a "$summary"
        continue
    fi
    for tool in $tools; do
        for size in $sizes; do
            n=${size%x*} systems=3 run=(--steps 2 --repeat 1 --snapshot-every 1 --snapshot-dir "$work/snap") slices=
            [ "$size" = "$n" ] || { systems=${size#*x} slices=1; run=(--validate off --steps 1 --repeat 1); }
            log=$logs/$s-$tool-$size.log
            rm -rf "$work/snap" && mkdir -p "$work/snap"
            start=$(date +%s)
            # The sanitizer runs inside each worker's sandbox, around the worker (the judge's test-only
            # --worker-wrapper): from outside it finds no process to attach to. Every worker (the checks',
            # the warm-up's, each timed call's) prints its own summary; one with a finding ends it (exit 9).
            NB_SLICES=$slices timeout -k 10 "$limit" "$bin/$s" -q -n "$n" -S "$systems" "${run[@]}" \
                --worker-wrapper "$sanitizer --tool $tool --error-exitcode 9 --print-limit 20" > "$log" 2>&1
            rc=$?
            seconds=$(($(date +%s) - start))
            summaries=$(grep -cE '(ERROR|RACECHECK|SYNCCHECK|INITCHECK) SUMMARY' "$log")
            bad=$(grep -E '(ERROR|RACECHECK|SYNCCHECK|INITCHECK) SUMMARY' "$log" | grep -vE 'SUMMARY: 0 ' | head -n 1)
            what="$s $tool N=$n S=$systems: $summaries workers, ${bad:-every one clean} (${seconds} s)"
            if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
                line="FAIL $what: still running after ${limit} s"; fails=$((fails + 1))
            elif [ -n "$bad" ] || grep -q 'status 9' "$log"; then
                line="FAIL $what: see $log"; fails=$((fails + 1))
            elif [ $rc -ne 0 ] || [ "$summaries" -eq 0 ]; then
                line="FAIL $what: the step exited $rc: $(grep -m 1 -vE '^=+' "$log" | head -c 200)"; fails=$((fails + 1))
            else
                line="PASS $what"
            fi
            echo "$line" | tee -a "$summary"
        done
    done
done
if [ $fails -gt 0 ]; then
    echo "compute-sanitizer: $fails runs FAILED (logs in $logs)" | tee -a "$summary"
    exit 1
fi
echo "compute-sanitizer: every run clean (logs in $logs)" | tee -a "$summary"
