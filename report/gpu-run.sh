#!/usr/bin/env bash
# gpu-run.sh OUT [PHASE...]: everything the lab checks and measures on a GPU machine, in one call.
# Builds for the GPU that is there, then runs the phases asked for (default: all) and leaves what
# they produce in OUT: log.txt (everything printed), results.csv (every run's row), and the sweeps'
# CSVs. Used on the lent H100/H200 (OUT=$OUT) and by hand on any CUDA machine.
#   phases: env build validate perf unroll ncu sanitize tests grade measure
# Dependencies without apt (Check, zlib headers): Debian packages unpacked into .deps/root are used
# when present (see report/README.md).
set -u -o pipefail
out=${1:?usage: report/gpu-run.sh OUT [PHASE...]}
shift
phases=${*:-env build validate perf unroll ncu sanitize tests grade measure}
mkdir -p "$out"
log="$out/log.txt"
csv="$out/results.csv"
exec > >(tee -a "$log") 2>&1
deps=()
[ -d .deps/root ] && deps=(DEPS_ROOT="$PWD/.deps/root")
jobs=$(nproc 2>/dev/null || echo 8)
bin=build/bin
cache=build/ref-cache
mkdir -p "$cache"
has() { case " $phases " in *" $1 "*) return 0 ;; esac; return 1; }
say() { printf '\n=== %s: %s\n' "$(date -u +%H:%M:%S)" "$*"; }
gpu_steps=$(awk '$1 ~ /^[0-9]+$/ && $3 == "cu" { print $2 }' steps.list)

if has env; then
    say "environment"
    nvidia-smi || true
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu --format=csv || true
    nvcc --version | tail -n 2
    lscpu | grep -E 'Model name|^CPU\(s\)' || true
    git log -1 --format='commit %H %cd' 2>/dev/null || true
fi

if has build; then
    say "build (make -j$jobs all)"
    make -j"$jobs" "${deps[@]}" all || { echo "BUILD FAILED"; exit 1; }
    for s in $gpu_steps; do
        cuobjdump --dump-resource-usage "build/obj/$s/nbody.o" 2>/dev/null | grep -E 'Function|REG' | sed "s/^/$s: /"
    done
fi

# validate: every GPU step at the awkward sizes, S = 1 and 3, both models, random masses too.
if has validate; then
    say "validate"
    fails=0
    for s in $gpu_steps; do
        [ -x "$bin/$s" ] || continue
        for n in 1 2 31 257 1000 4099 16384; do
            for sys in 1 3; do
                for model in "--model plummer" "--model uniform --masses random"; do
                    if ! "$bin/$s" -q --validate-only --ref-cache "$cache" --csv "$csv" --tag validate \
                        -n "$n" -S "$sys" $model; then
                        echo "FAIL $s N=$n S=$sys $model"
                        fails=$((fails + 1))
                    fi
                done
            done
        done
        echo "$s: validation done"
    done
    echo "validation failures: $fails"
fi

# perf: the ladder's sizes for every GPU step.
if has perf; then
    say "perf"
    for s in $gpu_steps; do
        [ -x "$bin/$s" ] || continue
        for n in 16384 65536 131072; do
            steps=$(( n >= 131072 ? 10 : n >= 65536 ? 20 : 50 ))
            "$bin/$s" -n "$n" --steps "$steps" --repeat 5 --csv "$csv" --tag perf --ref-cache "$cache" |
                grep -E 'interactions|FAIL|error' | sed "s/^/$s N=$n: /"
        done
    done
fi

# unroll: step05 over the unroll factor and bodies per thread at N = 131072.
if has unroll; then
    say "unroll sweep (step05)"
    variants=""
    for u in 1 4 8 16 32; do for b in 1 2 4 8; do variants="$variants u${u}b${b}"; done; done
    for v in $variants; do
        u=${v#u}; u=${u%b*}; b=${v#*b}
        make -s BUILD="build/var/$v" STEP_DEFS="-DUNROLL=$u -DBODIES_PER_THREAD=$b" BUILD_LABEL="$v" "${deps[@]}" \
            "build/var/$v/bin/step05_intrinsics" > "build/var-$v.log" 2>&1 || echo "variant $v failed to build" &
        while [ "$(jobs -r | wc -l)" -ge "$jobs" ]; do sleep 0.2; done
    done
    wait
    for v in $variants; do
        [ -x "build/var/$v/bin/step05_intrinsics" ] || continue
        "build/var/$v/bin/step05_intrinsics" -n 131072 --steps 10 --repeat 3 --csv "$csv" --tag unroll \
            --validate sample | grep -E 'interactions' | sed "s/^/$v: /"
    done
fi

# ncu: executed instructions per interaction of each GPU step's force kernel.
if has ncu; then
    say "ncu: instructions per interaction"
    icsv="$out/instructions.csv"
    [ -s "$icsv" ] || echo "step,name,build,instructions_per_interaction,method,device,date,commit" > "$icsv"
    dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)
    commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
    n=32768
    for s in $gpu_steps; do
        [ -x "$bin/$s" ] || continue
        id=${s:4:2}
        # thread instructions = warp instructions x 32 (every warp is full at this N); over N^2 interactions
        inst=$(ncu --metrics smsp__inst_executed.sum --kernel-name regex:'forces|force_kick' --launch-count 1 --csv \
            "$bin/$s" -q -n $n --steps 1 --repeat 1 --validate off 2>/dev/null |
            awk -F'","' '/inst_executed/ { gsub(/[",]/, "", $NF); v = $NF } END { print v }')
        [ -n "$inst" ] || { echo "$s: ncu gave nothing"; continue; }
        per=$(awk -v w="$inst" -v n=$n 'BEGIN { printf "%.2f", w * 32 / (n * n) }')
        echo "$s: $inst warp instructions in the force kernel of one step at N=$n: $per per interaction"
        echo "$id,$s,default,$per,ncu smsp__inst_executed.sum x32 / N^2 (N=$n),$dev,$(date -u +%F),$commit" >> "$icsv"
    done
fi

if has sanitize; then
    say "compute-sanitizer"
    for s in $gpu_steps; do
        [ -x "$bin/$s" ] || continue
        for tool in memcheck racecheck; do
            compute-sanitizer --tool $tool --error-exitcode 9 "$bin/$s" -q --validate-only -n 1000 -S 3 \
                > "$out/sanitize.tmp" 2>&1
            rc=$?
            echo "$s $tool N=1000 S=3: exit $rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitize.tmp" | head -n1)"
        done
    done
    rm -f "$out/sanitize.tmp"
fi

if has tests; then
    say "make test-gpu"
    make "${deps[@]}" test-gpu || echo "test-gpu FAILED"
fi

if has grade; then
    say "make grade"
    make "${deps[@]}" grade || echo "grade FAILED"
    cp build/grade/results.csv "$out/grade.csv" 2>/dev/null || true
fi

if has measure; then
    if [ -x report/measure.sh ]; then
        say "report/measure.sh"
        bash report/measure.sh "$out/measure" || echo "measure FAILED"
        (cd "$out" && tar czf measure.tar.gz measure && rm -rf measure)
    fi
fi
say "done"
