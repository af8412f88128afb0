#!/usr/bin/env bash
# measure.sh OUTDIR [PHASE...]: the report's measurement sweeps. Each phase writes its own file(s) in
# OUTDIR, replacing that phase's earlier recording only when the phase has finished:
#
#   env         machine.txt, nvidia-smi.csv (clocks at the start and end of every GPU phase), gpu.csv (SMs)
#   cpu         ladder-cpu.csv, throughput-cpu.csv: the CPU steps at the ladder's N (lab.conf's GRADE_N),
#               and at N = 4096 ... 32768
#   ladder      ladder.csv: every GPU step at the ladder's N
#   throughput  throughput.csv: every GPU step at N = 4096 ... 1048576 but the ladder's (MEASURE_MAX_N)
#   block       block.csv: step02 and step03 over --block 32 ... 1024 (in step03 the block is the tile)
#   unroll      unroll.csv: step04 built with UNROLL 1 ... 32 x BODIES_PER_THREAD 1 ... 8, N = 131072
#   tile        tile.csv: step04 and step06 built with TILE (bodies per shared-memory tile) 128 ... 2048, N = 131072
#   min-blocks  min-blocks.csv: MIN_BLOCKS (__launch_bounds__' minimum of resident blocks) 0, 8, 9, 10: step06
#               x TILE 256 ... 2048, steps 04 and 05 at TILE 256; validated at N = 4099, S = 3, timed at
#               N = 131072 (10 steps) and step06 also at N = 16384 (50 steps), 5 repeats
#   tuning      tuning.csv: step06 built with UNROLL x BODIES_PER_THREAD x BLOCK (seven knob sets around the
#               default), validated at N = 4099, S = 3, timed at N = 131072 and 16384
#   float3      float3.csv: step03 with float4 (default) and float3 (-DTILE_FLOAT3) tiles
#   ftz         ftz.csv: step05 with -ftz=true (its registry flags), without, and with --use_fast_math
#   streams     streams.csv: step07 at 64 x 8192 and 1 x 131072, with and without snapshots and --no-overlap; step06 (kernel only)
#   scaling     scaling.csv: step08 on 1, 2, 4 ... GPUs (strong scaling), bodies split and systems split
#   physics     physics.csv, energy.csv: a Plummer sphere (N = 4096) for 10 time units at dt = 0.008, 0.004
#               and 0.002, and a collision for 20, on a CPU step; energy, momentum and virial ratio vs time
#               (report/tools/diag.c); proj-plummer.txt, proj-collision.txt: positions at several times (snap2txt.c)
#   kepler      kepler.csv: a two-body orbit's error after one period vs dt (report/tools/kepler.c)
#
# Default: every phase. GPU phases say "skipped" where there is no GPU. Every run is validated
# (--validate auto) and tagged, and appends one row to its phase's CSV (common/results.h).
# Environment: BUILD (default build), MEASURE_TARGET_S (seconds per timed run, default 0.15),
# MEASURE_MAX_N (largest N of the GPU throughput sweep, default 1048576), PHYS_STEP (step01_omp).
set -u -o pipefail
usage="usage: report/sweeps/measure.sh OUTDIR [env cpu ladder throughput block unroll tile min-blocks tuning float3 ftz streams scaling physics kepler]"
{ [ $# -ge 1 ] && [ "${1#-}" = "$1" ]; } || { echo "$usage" >&2; exit 2; }
all_phases="env cpu ladder throughput block unroll tile min-blocks tuning float3 ftz streams scaling physics kepler"
outdir=$1
shift
phases=${*:-$all_phases}
for p in $phases; do
    case " $all_phases " in *" $p "*) ;; *) echo "measure.sh: unknown phase '$p' ($usage)" >&2; exit 2 ;; esac
done
mkdir -p "$outdir" || { echo "measure.sh: cannot create $outdir" >&2; exit 2; }
out=$(cd "$outdir" && pwd)
cd "$(dirname "$0")/../.." || exit 2

build=${BUILD:-build}
. grading/lab-conf.sh
ladder_n=$(lab_conf_file GRADE_N) # the ladder's N: lab.conf's, what the report's tables select (not the environment's)
[ -n "$ladder_n" ] || { echo "measure.sh: lab.conf has no GRADE_N" >&2; exit 2; }
target_s=${MEASURE_TARGET_S:-0.15}
max_n=${MEASURE_MAX_N:-1048576}
phys_step=${PHYS_STEP:-step01_omp}
jobs=$(nproc 2>/dev/null || echo 4)
bin=$build/bin
tools=$build/tools
scratch=$build/measure
cache=$build/ref-cache
partial=$out/.partial
mkdir -p "$scratch" "$cache" "$partial"
deps=()
[ -d .deps/root ] && deps=(DEPS_ROOT="$PWD/.deps/root")
failures=0
t_start=$(date +%s)

say() { printf '=== %s (+%ds) %s\n' "$(date -u +%H:%M:%S)" $(($(date +%s) - t_start)) "$*"; }
note() { printf '    %s\n' "$*"; }
has() { case " $phases " in *" $1 "*) return 0 ;; esac; return 1; }
. common/steps.sh
steps_of() { registry_where lang "$1" folder; }
cpu_steps=$(steps_of c)
gpu_steps=$(steps_of cu)

# A GPU is here when nvidia-smi lists one and the GPU steps can be built.
have_gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    command -v "${NVCC:-nvcc}" >/dev/null 2>&1 && have_gpu=1
fi
gpu_count=0
[ $have_gpu = 1 ] && gpu_count=$(nvidia-smi -L | grep -c '^GPU')

# ---- helpers ------------------------------------------------------------------------------
# The value of column $2 in the last row of results CSV $1 (programs read the CSV, not the output).
last_field() {
    awk -F, -v col="$2" 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == col) c = i; next } c { v = $c } END { print v }' "$1" 2>/dev/null
}

# Steps that make one timed run last about target_s at N bodies and S systems, from a rate in G int/s.
steps_for() {
    awk -v rate="$1" -v n="$2" -v s="$3" -v t="$target_s" -v cap="${4:-5000}" 'BEGIN {
        k = (rate > 0) ? int(t * rate * 1e9 / (s * n * n) + 0.5) : 1
        print (k < 1) ? 1 : (k > cap) ? cap : k }'
}

# Repeats: 3, or 1 when one run would take more than 2 s (the serial step at large N).
repeats_for() {
    awk -v rate="$1" -v n="$2" -v s="$3" -v k="$4" 'BEGIN { print (rate > 0 && s * n * n * k / (rate * 1e9) > 2) ? 1 : 3 }'
}

# A quick untimed-quality run to learn a binary's rate at N: 1 step, no validation, a scratch CSV.
probe_rate() {
    local exe=$1 n=$2 s=${3:-1} k=${4:-1}
    shift 4 2>/dev/null || shift $#
    local csv=$scratch/probe.csv
    rm -f "$csv"
    "$exe" -q --validate off --repeat 1 --steps "$k" -n "$n" -S "$s" --csv "$csv" --tag probe "$@" >/dev/null 2>&1 || { echo 0; return; }
    last_field "$csv" ginteractions_s
}

# run CSV TAG EXE ARGS...: one validated, timed run appending to CSV; one progress line from its row.
run() {
    local csv=$1 tag=$2 exe=$3
    shift 3
    if [ ! -x "$exe" ]; then
        note "$(basename "$exe"): not built, skipped"
        return 1
    fi
    local before
    before=$(wc -l < "$csv" 2>/dev/null || echo 0)
    "$exe" -q --csv "$csv" --tag "$tag" --ref-cache "$cache" "$@"
    local rc=$?
    if [ $rc != 0 ]; then
        note "FAILED: $exe $* (exit status $rc)"
        failures=$((failures + 1))
        return 1
    fi
    if [ "$(wc -l < "$csv")" -le "$before" ]; then
        note "FAILED: $exe wrote no row"
        failures=$((failures + 1))
        return 1
    fi
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next } END {
        printf "    %-18s %-10s S=%-4s N=%-8s steps=%-5s %10.4g G int/s  loop %.4g s  %s  %s\n", $c["name"], $c["build"],
            $c["systems"], $c["bodies"], $c["steps"], $c["ginteractions_s"], $c["kernel_s"], $c["pass"], $c["config"] }' "$csv"
}

# Phase bookkeeping: rows go to a partial file, moved into place when the phase ends.
begin_phase() { rm -f "$partial/$1"; : > "$partial/$1"; }
end_phase() {
    if [ -s "$partial/$1" ]; then mv "$partial/$1" "$out/$1" && note "wrote $out/$1"; else rm -f "$partial/$1"; note "$1: nothing recorded"; fi
}

smi_log() {
    [ $have_gpu = 1 ] || return 0
    local f=$out/nvidia-smi.csv q="timestamp,index,name,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu"
    [ -s "$f" ] || echo "phase,$q" > "$f"
    nvidia-smi --query-gpu="$q" --format=csv,noheader,nounits 2>/dev/null | sed "s/^/$1,/" >> "$f"
}

gpu_phase() {
    if [ $have_gpu = 0 ]; then
        say "$1: skipped (no GPU here: nvidia-smi lists none, or nvcc is missing)"
        return 1
    fi
    say "$1"
    smi_log "$1-start"
    return 0
}

# Variant builds, all at once under make -j. Reads lines "label step defs flags" on stdin, where defs
# and flags use ':' for spaces and '-' for nothing (e.g. "u4b2 step04_unroll -DUNROLL=4:-DBODIES_PER_THREAD=2 -").
build_variants() {
    local mk=$scratch/variants.mk targets="" count=0 label step defs flags t
    {
        while read -r label step defs flags; do
            [ -n "$label" ] || continue
            [ "$defs" = - ] && defs=""
            [ "$flags" = - ] && flags=""
            t=$build/var/$label/bin/$step
            targets="$targets $t"
            count=$((count + 1))
            printf '%s: FORCE\n\t+@$(MAKE) --no-print-directory -f Makefile BUILD=%s BUILD_LABEL=%s STEP_DEFS="%s" STEP_FLAGS="%s" %s %s > %s.log 2>&1 || echo "    variant %s failed to build: see %s.log"\n' \
                "$t" "$build/var/$label" "$label" "${defs//:/ }" "${flags//:/ }" "${deps[*]}" "$t" "$build/var/$label" "$label" "$build/var/$label"
        done
        echo "all:$targets"
        echo "FORCE:"
        echo ".PHONY: all FORCE"
    } > "$mk"
    mkdir -p "$build/var"
    note "building $count variants with make -j$jobs"
    make -s -j"$jobs" -f "$mk" all
}

# ---- build ------------------------------------------------------------------------------
say "measure.sh: phases: $phases; into $out"
say "build (make -j$jobs)"
if [ $have_gpu = 1 ]; then
    make -s -j"$jobs" "${deps[@]}" BUILD="$build" all report-tools || { echo "measure.sh: build failed" >&2; exit 1; }
else
    make -s -j"$jobs" "${deps[@]}" BUILD="$build" cpu report-tools || { echo "measure.sh: build failed" >&2; exit 1; }
    note "no GPU here: the GPU phases will be skipped"
fi

# ---- env --------------------------------------------------------------------------------
if has env; then
    say "env"
    {
        echo "date: $(date -u +%FT%TZ)"
        # COMMIT: given from outside where the tree travels without .git (report/sweeps/gpu-run.sh on lent machines).
        echo "commit: ${COMMIT:-$(git rev-parse -q --verify HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- 2>/dev/null || echo -dirty)}"
        echo "host cpu: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)"
        echo "host threads: $(nproc 2>/dev/null)"
        echo "load average (1, 5, 15 min) before measuring: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
        echo "compiler: $(${CC:-gcc} --version 2>/dev/null | head -n1)"
        command -v nvcc >/dev/null 2>&1 && echo "nvcc: $(nvcc --version | tail -n1)"
        [ $have_gpu = 1 ] && nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,power.limit --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
        command -v gnuplot >/dev/null 2>&1 && echo "gnuplot: $(gnuplot --version)"
    } > "$out/machine.txt"
    sed 's/^/    /' "$out/machine.txt"
    if [ $have_gpu = 1 ]; then
        rm -f "$out/nvidia-smi.csv"
        smi_log env
        if "${NVCC:-nvcc}" -O2 -o "$tools/gpuinfo" report/tools/gpuinfo.cu && "$tools/gpuinfo" > "$partial/gpu.csv"; then
            mv "$partial/gpu.csv" "$out/gpu.csv"
            sed 's/^/    /' "$out/gpu.csv"
        else
            note "gpuinfo failed: the ceiling figures will lack the SM count"
        fi
    fi
fi

# ---- cpu: the CPU steps, ladder and throughput ------------------------------------------------
if has cpu; then
    say "cpu steps: ladder at N=$ladder_n and throughput at N=4096..32768"
    begin_phase ladder-cpu.csv
    begin_phase throughput-cpu.csv
    for s in $cpu_steps; do
        exe=$bin/$s
        rate=$(probe_rate "$exe" 4096 1 1)
        note "$s: about $rate G int/s at N=4096"
        k=$(steps_for "$rate" "$ladder_n" 1)
        run "$partial/ladder-cpu.csv" ladder "$exe" -n "$ladder_n" --steps "$k" --repeat "$(repeats_for "$rate" "$ladder_n" 1 "$k")"
        for n in 4096 8192 16384 32768; do   # the ladder's N is its own row
            k=$(steps_for "$rate" "$n" 1)
            run "$partial/throughput-cpu.csv" throughput "$exe" -n "$n" --steps "$k" --repeat "$(repeats_for "$rate" "$n" 1 "$k")" &&
                rate=$(last_field "$partial/throughput-cpu.csv" ginteractions_s)
        done
    done
    end_phase ladder-cpu.csv
    end_phase throughput-cpu.csv
    # Other work on a shared machine slows the CPU steps: say how busy it was.
    echo "load average (1, 5, 15 min) after the cpu phase: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" | tee -a "$out/machine.txt" | sed 's/^/    /'
fi

# ---- ladder: every GPU step at the ladder's N ---------------------------------------------------
if has ladder && gpu_phase ladder; then
    begin_phase ladder.csv
    for s in $gpu_steps; do
        exe=$bin/$s
        [ -x "$exe" ] || { note "$s: not built, skipped"; continue; }
        rate=$(probe_rate "$exe" "$ladder_n" 1 2)
        k=$(steps_for "$rate" "$ladder_n" 1)
        run "$partial/ladder.csv" ladder "$exe" -n "$ladder_n" --steps "$k" --repeat 5
    done
    end_phase ladder.csv
    smi_log ladder-end
fi

# ---- throughput vs N ----------------------------------------------------------------------
if has throughput && gpu_phase throughput; then
    begin_phase throughput.csv
    for s in $gpu_steps; do
        exe=$bin/$s
        [ -x "$exe" ] || { note "$s: not built, skipped"; continue; }
        rate=$(probe_rate "$exe" 4096 1 20)
        for ((n = 4096; n <= max_n; n *= 2)); do
            [ $n = "$ladder_n" ] && continue     # the ladder's row
            k=$(steps_for "$rate" "$n" 1)
            run "$partial/throughput.csv" throughput "$exe" -n "$n" --steps "$k" --repeat "$(repeats_for "$rate" "$n" 1 "$k")" &&
                rate=$(last_field "$partial/throughput.csv" ginteractions_s)
        done
    done
    end_phase throughput.csv
    smi_log throughput-end
fi

# ---- block size: step02 and step03 at N = 65536 ----------------------------------------------
if has block && gpu_phase block; then
    begin_phase block.csv
    for s in step02_cuda_naive step03_tiling; do
        exe=$bin/$s
        [ -x "$exe" ] || { note "$s: not built, skipped"; continue; }
        for b in 32 64 128 256 512 1024; do
            rate=$(probe_rate "$exe" 65536 1 2 --block "$b")
            run "$partial/block.csv" "block" "$exe" -n 65536 --steps "$(steps_for "$rate" 65536 1)" --repeat 3 --block "$b"
        done
    done
    end_phase block.csv
    smi_log block-end
fi

# ---- compile-time variants: unroll x bodies per thread, tile size, float3, ftz ----------------
variant_list=""
if has unroll; then
    for u in 1 2 4 8 16 32; do
        for b in 1 2 4 8; do variant_list+="u${u}b${b} step04_unroll -DUNROLL=$u:-DBODIES_PER_THREAD=$b -"$'\n'; done
    done
fi
if has tile; then
    for st in step04_unroll step06_soa; do
        for t in 128 256 512 1024 2048; do variant_list+="tile$t-${st:4:2} $st -DTILE=$t -"$'\n'; done
    done
fi
# min-blocks: label mbM-tT-ID (ID the step's in steps.list), in the order the phase times them.
min_blocks_labels=""
step_of_label() { registry_field "${1##*-}" folder; }
if has min-blocks; then
    for mb in 0 8 9 10; do
        for t in 256 512 1024 2048; do min_blocks_labels+=" mb$mb-t$t-06"; done
        min_blocks_labels+=" mb$mb-t256-04 mb$mb-t256-05"
    done
    for label in $min_blocks_labels; do
        mb=${label#mb}; mb=${mb%%-*}; t=${label#*-t}; t=${t%-*}
        variant_list+="$label $(step_of_label "$label") -DMIN_BLOCKS=$mb:-DTILE=$t -"$'\n'
    done
fi
# tuning: label tune-uUbB[tT] (T threads per block, 128 where absent).
tuning_labels="tune-u8b4 tune-u128b4 tune-u16b8 tune-u128b8 tune-u32b2 tune-u8b4t256 tune-u16b8t64"
if has tuning; then
    for label in $tuning_labels; do
        v=${label#tune-u}; u=${v%%b*}; b=${v#*b}; b=${b%%t*}; t=128
        case $v in *t*) t=${v##*t} ;; esac
        variant_list+="$label step06_soa -DUNROLL=$u:-DBODIES_PER_THREAD=$b:-DBLOCK=$t -"$'\n'
    done
fi
has float3 && variant_list+="float3 step03_tiling -DTILE_FLOAT3 -"$'\n'
if has ftz; then
    if grep -q 'STEP_FLAGS' Makefile; then
        variant_list+="noftz step05_intrinsics - none"$'\n'"fastmath step05_intrinsics - --use_fast_math"$'\n'
    else
        note "the Makefile has no STEP_FLAGS: step05 without -ftz=true and with --use_fast_math cannot be built"
    fi
fi
if [ -n "$variant_list" ] && [ $have_gpu = 1 ]; then
    say "variant builds"
    printf '%s' "$variant_list" | build_variants
fi
vbin() { echo "$build/var/$1/bin/$2"; }
# check_variant LABEL EXE: a compile-time variant must validate (N = 4099, S = 3) before its timings count.
check_variant() {
    "$2" -q --validate-only -n 4099 -S 3 --ref-cache "$cache" > /dev/null 2>&1 && return 0
    note "FAILED: $1 does not validate at N=4099 S=3"
    failures=$((failures + 1))
}

if has unroll && gpu_phase unroll; then
    begin_phase unroll.csv
    for u in 1 2 4 8 16 32; do
        for b in 1 2 4 8; do
            exe=$(vbin "u${u}b${b}" step04_unroll)
            [ -x "$exe" ] || { note "u${u}b${b}: not built, skipped"; continue; }
            rate=$(probe_rate "$exe" 131072 1 2)
            run "$partial/unroll.csv" unroll "$exe" -n 131072 --steps "$(steps_for "$rate" 131072 1)" --repeat 3
        done
    done
    end_phase unroll.csv
    smi_log unroll-end
fi

if has tile && gpu_phase tile; then
    begin_phase tile.csv
    for st in step04_unroll step06_soa; do
        for t in 128 256 512 1024 2048; do
            exe=$(vbin "tile$t-${st:4:2}" $st)
            [ -x "$exe" ] || { note "tile$t-${st:4:2}: not built, skipped"; continue; }
            rate=$(probe_rate "$exe" 131072 1 2)
            run "$partial/tile.csv" tile "$exe" -n 131072 --steps "$(steps_for "$rate" 131072 1)" --repeat 3
        done
    done
    end_phase tile.csv
    smi_log tile-end
fi

if has min-blocks && gpu_phase min-blocks; then
    begin_phase min-blocks.csv
    for n in 131072 16384; do
        for label in $min_blocks_labels; do
            [ $n = 131072 ] || [ "${label##*-}" = 06 ] || continue
            exe=$(vbin "$label" "$(step_of_label "$label")")
            [ -x "$exe" ] || { note "$label: not built, skipped"; continue; }
            [ $n = 131072 ] && check_variant "$label" "$exe"
            k=10
            [ $n = 16384 ] && k=50
            run "$partial/min-blocks.csv" min-blocks "$exe" -n "$n" --steps $k --repeat 5
        done
    done
    end_phase min-blocks.csv
    smi_log min-blocks-end
fi

if has tuning && gpu_phase tuning; then
    begin_phase tuning.csv
    for label in $tuning_labels; do
        exe=$(vbin "$label" step06_soa)
        [ -x "$exe" ] || { note "$label: not built, skipped"; continue; }
        check_variant "$label" "$exe"
        run "$partial/tuning.csv" tuning "$exe" -n 131072 --steps 10 --repeat 3
        run "$partial/tuning.csv" tuning "$exe" -n 16384 --steps 50 --repeat 3
    done
    end_phase tuning.csv
    smi_log tuning-end
fi

if has float3 && gpu_phase float3; then
    begin_phase float3.csv
    for exe in "$bin/step03_tiling" "$(vbin float3 step03_tiling)"; do
        [ -x "$exe" ] || { note "$exe: not built, skipped"; continue; }
        for n in 65536 262144; do
            rate=$(probe_rate "$exe" "$n" 1 2)
            run "$partial/float3.csv" float3 "$exe" -n "$n" --steps "$(steps_for "$rate" "$n" 1)" --repeat 3
        done
    done
    end_phase float3.csv
    smi_log float3-end
fi

if has ftz && gpu_phase ftz; then
    begin_phase ftz.csv
    for exe in "$bin/step05_intrinsics" "$(vbin noftz step05_intrinsics)" "$(vbin fastmath step05_intrinsics)"; do
        [ -x "$exe" ] || { note "$exe: not built, skipped"; continue; }
        rate=$(probe_rate "$exe" 131072 1 2)
        run "$partial/ftz.csv" ftz "$exe" -n 131072 --steps "$(steps_for "$rate" 131072 1)" --repeat 3
    done
    end_phase ftz.csv
    smi_log ftz-end
fi

# ---- streams: step07, many systems with snapshots, overlapped or not ---------------------------
if has streams && gpu_phase streams; then
    begin_phase streams.csv
    exe=$bin/step07_streams
    snaps=$scratch/stream-snaps
    # The issue's shapes: 64 systems of 8192, one of 131072; step06 (copies outside its loop) is the
    # kernel-only time, step07 --no-overlap the copies one after another, step07 the overlap.
    for shape in "64 8192" "1 131072"; do
        read -r sys n <<< "$shape"
        [ -x "$exe" ] || { note "step07_streams: not built, skipped"; break; }
        # 64 x 8192: 20 steps, the copies at the two ends ~1% of the loop; 1 x 131072: ten snapshots,
        # nine of them taken while steps remain to hide them behind (the last is the final state).
        k=20 every=10
        [ "$sys" = 1 ] && k=100
        [ -x "$bin/step06_soa" ] && run "$partial/streams.csv" streams-kernel "$bin/step06_soa" -S "$sys" -n "$n" --steps "$k" --repeat 7
        for mode in overlap serial; do
            rm -rf "$snaps"; mkdir -p "$snaps"
            extra=(); [ $mode = serial ] && extra=(--no-overlap)
            run "$partial/streams.csv" "streams-$mode" "$exe" -S "$sys" -n "$n" --steps "$k" --repeat 7 \
                --snapshot-every "$every" --snapshot-dir "$snaps" "${extra[@]}"
            run "$partial/streams.csv" "streams-$mode-nosnap" "$exe" -S "$sys" -n "$n" --steps "$k" --repeat 7 "${extra[@]}"
        done
    done
    rm -rf "$snaps"
    end_phase streams.csv
    smi_log streams-end
fi

# ---- scaling: step08 on 1, 2, 4 ... GPUs -------------------------------------------------------
if has scaling && gpu_phase scaling; then
    begin_phase scaling.csv
    exe=$bin/step08_multigpu
    if [ -x "$exe" ]; then
        [ "$gpu_count" -ge 2 ] || note "one GPU here: only the 1-GPU points (run this phase on a 2-GPU machine for scaling)"
        for shape in "bodies 1 262144" "systems 16 32768"; do
            read -r split sys n <<< "$shape"
            rate=$(probe_rate "$exe" "$n" "$sys" 1 --gpus 1)
            k=$(steps_for "$rate" "$n" "$sys")
            k=$(( k * 2 ))                 # the 1-GPU run at twice the target, so 2 GPUs still time enough work
            for ((g = 1; g <= gpu_count; g *= 2)); do
                run "$partial/scaling.csv" "scaling-$split" "$exe" -S "$sys" -n "$n" --steps "$k" --repeat 3 --gpus "$g"
            done
        done
    else
        note "step08_multigpu: not built, skipped"
    fi
    end_phase scaling.csv
    smi_log scaling-end
fi

# ---- physics: energy, momentum, virial ratio vs time (CPU) -------------------------------------
# snap_run DIR EVERY CSV TAG EXE ARGS...: a run writing a snapshot every EVERY steps into DIR, and the
# initial state as its step 0.
snap_run() {
    local dir=$1 every=$2 csv=$3 tag=$4 exe=$5
    shift 5
    rm -rf "$dir" && mkdir -p "$dir"
    "$exe" -q "$@" --steps 0 --validate off -o "$dir/snap-0000000000.nbs" || return 1   # after "$@": the last --steps wins
    run "$csv" "$tag" "$exe" --repeat 1 --snapshot-every "$every" --snapshot-dir "$dir" "$@"
}

if has physics; then
    say "physics: Plummer N=4096 for 10 time units at dt = 0.008, 0.004, 0.002, and a collision ($phys_step)"
    for f in physics.csv energy.csv proj-plummer.txt proj-collision.txt; do begin_phase $f; done
    exe=$bin/$phys_step
    header_done=0
    for dt in 0.008 0.004 0.002; do
        k=$(awk -v dt=$dt 'BEGIN { printf "%d", 10 / dt + 0.5 }')
        every=$(awk -v dt=$dt 'BEGIN { printf "%d", 0.2 / dt + 0.5 }')   # 50 snapshots
        dir=$scratch/plummer-dt$dt
        if snap_run "$dir" "$every" "$partial/physics.csv" "physics-dt$dt" "$exe" -n 4096 --model plummer --dt "$dt" --steps "$k"; then
            opt=(); [ $header_done = 1 ] && opt=(--no-header)
            "$tools/diag" "${opt[@]}" --label "plummer-dt$dt" "$dir"/snap-*.nbs >> "$partial/energy.csv" && header_done=1 ||
                { note "diag failed on $dir"; failures=$((failures + 1)); }
            note "energy error at t=10: $(awk -F, 'END { print $11 }' "$partial/energy.csv")"
        fi
    done
    dir=$scratch/collision
    if snap_run "$dir" 100 "$partial/physics.csv" physics-collision "$exe" -n 4096 --model collision --dt 0.004 --steps 5000; then
        opt=(); [ $header_done = 1 ] && opt=(--no-header)
        "$tools/diag" "${opt[@]}" --label collision-dt0.004 "$dir"/snap-*.nbs >> "$partial/energy.csv" ||
            { note "diag failed on $dir"; failures=$((failures + 1)); }
    fi
    # Positions for the projections: the Plummer sphere at t = 0, 5, 10; the collision at t = 0, 4 ... 20.
    "$tools/snap2txt" "$scratch/plummer-dt0.002"/snap-00000{00000,02500,05000}.nbs > "$partial/proj-plummer.txt" &&
        "$tools/snap2txt" "$dir"/snap-00000{00000,01000,02000,03000,04000,05000}.nbs > "$partial/proj-collision.txt" ||
        { note "snap2txt failed"; failures=$((failures + 1)); }
    end_phase physics.csv
    end_phase energy.csv
    end_phase proj-plummer.txt
    end_phase proj-collision.txt
fi

# ---- kepler: a two-body orbit's error after one period vs dt ------------------------------------
if has kepler; then
    kepler_steps=step00_serial
    [ $have_gpu = 1 ] && kepler_steps="$kepler_steps step05_intrinsics"
    say "kepler: two bodies, one period in K = 32 ... 65536 steps ($kepler_steps)"
    begin_phase kepler.csv
    begin_phase kepler-runs.csv
    "$tools/kepler" header > "$partial/kepler.csv"
    for s in $kepler_steps; do
        exe=$bin/$s
        [ -x "$exe" ] || { note "$s: not built, skipped"; continue; }
        for ecc in 0 0.5; do
            for ((k = 32; k <= 65536; k *= 2)); do
                "$tools/kepler" init --ecc "$ecc" --steps "$k" -o "$scratch/kepler-init.nbs" &&
                    run "$partial/kepler-runs.csv" "kepler-e$ecc" "$exe" --input "$scratch/kepler-init.nbs" --steps "$k" --repeat 1 \
                        -o "$scratch/kepler-final.nbs" &&
                    "$tools/kepler" compare --ecc "$ecc" --steps "$k" --label "$s" "$scratch/kepler-final.nbs" >> "$partial/kepler.csv" ||
                    { note "kepler: $s e=$ecc K=$k failed"; failures=$((failures + 1)); }
            done
            note "$s e=$ecc: error after one period at K=65536: $(awk -F, 'END { print $5 }' "$partial/kepler.csv")"
        done
    done
    end_phase kepler.csv
    end_phase kepler-runs.csv
fi

rmdir "$partial" 2>/dev/null
say "done in $(($(date +%s) - t_start)) s: $failures failure(s); recorded in $out"
[ $failures = 0 ]
