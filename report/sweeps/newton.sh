#!/usr/bin/env bash
# newton.sh OUTDIR [PHASE...]: step09_newton (each pair once) measured against step06, on a GPU machine.
#
#   build     step06 and step09, the step09 test suite
#   test      make test-gpu TEST_STEPS=09 (the Check suite and two --deterministic runs byte-compared)
#   validate  step09 --validate-only at N = 1, 2, 31, 257, 1000, 4099, 16384, S = 1 and 3, every model,
#             equal and random masses, default and --deterministic: newton-validate.txt
#   time      newton.csv (tag newton): step06, step09 and step09 --deterministic at N = 4096, 16384,
#             131072, 1048576, validated, 3 repeats
#   pieces    newton-pieces.csv (tag pieces): step09 with NB_SLICES (its work-item length) swept at
#             N = 16384 and 131072, unvalidated
#   knobs     newton-knobs.csv (tag knobs): step09 built with other BODIES_PER_LANE, WARPS, UNROLL,
#             MIN_BLOCKS (NEWTON_KNOBS="label:-DX=1,-DY=2 ..."), validated at N = 4099, S = 3, timed
#   ncu       newton-ncu.txt: Nsight Compute on step09's force kernel at N = 131072 (instructions,
#             issue rate), default and --deterministic (and the knob builds in NEWTON_NCU_LABELS); its SASS opcode counts
#   sass      newton-sass-LABEL.txt: the force kernel's SASS, default build (and NEWTON_SASS_LABELS' knob builds)
#   sanitize  newton-sanitizer.txt: tests/compute-sanitizer.sh memcheck + racecheck on step09, small N
#
# Default: every phase. Environment: BUILD (default build), COMMIT (for trees without .git), NEWTON_MAX_N,
# NEWTON_VALIDATE (modes of the validate phase, default "default --deterministic").
set -u -o pipefail
[ $# -ge 1 ] && [ "${1#-}" = "$1" ] || { echo "usage: report/sweeps/newton.sh OUTDIR [build test validate time pieces knobs ncu sass sanitize]" >&2; exit 2; }
mkdir -p "$1" || exit 2
out=$(cd "$1" && pwd)
shift
phases=${*:-build test validate time pieces knobs ncu sanitize}
cd "$(dirname "$0")/../.." || exit 2
build=${BUILD:-build}
bin=$build/bin
max_n=${NEWTON_MAX_N:-1048576}
mk=(make --no-print-directory -j"$(nproc)" BUILD="$build")
[ -n "${COMMIT:-}" ] && mk+=(COMMIT="$COMMIT")
[ -d .deps/root ] && mk+=(DEPS_ROOT="$PWD/.deps/root")
has() { case " $phases " in *" $1 "*) return 0 ;; esac; return 1; }
say() { printf '=== %s %s\n' "$(date -u +%H:%M:%S)" "$*"; }
fails=0
cache=$build/ref-cache
mkdir -p "$cache"

if has build; then
    say build
    "${mk[@]}" "$bin/step06_soa" "$bin/step09_newton" "$build/tests/bin/check_step09_newton" 2>&1 | grep -E 'error|warning' 
    [ -x "$bin/step09_newton" ] || { echo "newton.sh: step09 did not build" >&2; exit 1; }
fi

if has test; then
    say "make test-gpu TEST_STEPS=09"
    "${mk[@]}" test-gpu TEST_STEPS=09 2>&1 | tee "$out/newton-test.txt" || fails=$((fails + 1))
fi

if has validate; then
    say "validate at the grader's sizes"
    log=$out/newton-validate.txt
    : > "$log"
    for det in ${NEWTON_VALIDATE:-default --deterministic}; do
        [ "$det" = default ] && det=
        for n in 1 2 31 257 1000 4099 16384; do
            for sm in "1 plummer equal" "3 plummer random" "3 uniform equal" "2 collision random"; do
                read -r s model masses <<< "$sm"
                [ "$n" = 1 ] && [ "$model" = collision ] && continue # a collision needs a body per sphere
                line=$("$bin/step09_newton" --validate-only --ref-cache "$cache" -n "$n" -S "$s" --model "$model" --masses "$masses" $det 2>&1 | tail -n 1)
                rc=$?
                printf '%-5s N=%-6s S=%s %-9s %-6s %s: %s\n' "$([ $rc = 0 ] && echo PASS || echo FAIL)" "$n" "$s" "$model" "$masses" "${det:-default}" "$line" >> "$log"
                [ $rc = 0 ] || fails=$((fails + 1))
            done
        done
    done
    grep -c '^PASS' "$log" | sed 's/$/ validations passed/'
    grep '^FAIL' "$log"
fi

# shellcheck source=report/sweeps/newton-lib.sh
. report/sweeps/newton-lib.sh # steps_for N RATE, pairs_resources LOG

if has time; then
    say "time: step06, step09, step09 --deterministic"
    csv=$out/newton.csv
    rm -f "$csv"
    for n in 4096 16384 131072 1048576; do
        [ "$n" -le "$max_n" ] || continue
        for v in "step06_soa 2000" "step09_newton 3000" "step09_newton 3000 --deterministic"; do
            read -r name rate det <<< "$v"
            k=$(steps_for "$n" "$rate")
            "$bin/$name" -q -n "$n" --steps "$k" --repeat 3 --ref-cache "$cache" --csv "$csv" --tag newton ${det:-} ||
                { echo "FAILED: $name N=$n $det"; fails=$((fails + 1)); }
        done
    done
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
        { printf "%-14s N=%-8s steps=%-5s %8.1f G int/s %s %s\n", $c["name"], $c["bodies"], $c["steps"], $c["ginteractions_s"], $c["pass"], $c["config"] }' "$csv"
fi

if has pieces; then
    say "pieces: NB_SLICES sweep"
    csv=$out/newton-pieces.csv
    rm -f "$csv"
    for v in "4096 64 32" "16384 256 128 64" "131072 512 256 146 64" "1048576 2048 512" \
             "16384 256 64 32 --deterministic" "131072 256 64 --deterministic"; do
        read -r n slices <<< "$v"
        det=
        case $slices in *--deterministic) det=--deterministic slices=${slices% --deterministic} ;; esac
        for sl in $slices; do
            NB_SLICES=$sl "$bin/step09_newton" -q -n "$n" --steps "$(steps_for "$n" 3000)" --repeat 3 --validate off --csv "$csv" --tag pieces $det || fails=$((fails + 1))
        done
    done
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
        { printf "N=%-8s %8.1f G int/s %s\n", $c["bodies"], $c["ginteractions_s"], $c["config"] }' "$csv"
fi

# Builds with other knobs (label:STEP_DEFS), validated at N = 4099, S = 3, timed at N = 4096 ... 1048576.
if has knobs; then
    say "knobs: variant builds"
    csv=$out/newton-knobs.csv
    rm -f "$csv"
    knobs=${NEWTON_KNOBS:-"b8u4:-DUNROLL=4 b12u4:-DBODIES_PER_LANE=12,-DUNROLL=4 b16u8:-DBODIES_PER_LANE=16 b16u4:-DBODIES_PER_LANE=16,-DUNROLL=4 b16u4p16:-DBODIES_PER_LANE=16,-DUNROLL=4,-DPIECE_MAX=16 b16u2:-DBODIES_PER_LANE=16,-DUNROLL=2 b8w8:-DWARPS=8"}
    for kv in $knobs; do
        label=${kv%%:*} defs=${kv#*:}
        "${mk[@]}" BUILD="$build/var/$label" BUILD_LABEL="$label" STEP_DEFS="${defs//,/ }" NVCCFLAGS="-O3 -lineinfo -Xptxas -v" \
            "$build/var/$label/bin/step09_newton" > "$build/var-$label.log" 2>&1 &
    done
    wait
    for kv in $knobs; do
        label=${kv%%:*}
        exe=$build/var/$label/bin/step09_newton
        [ -x "$exe" ] || { echo "$label: did not build ($(grep -m1 -E 'error' "$build/var-$label.log"))"; fails=$((fails + 1)); continue; }
        read -r regs spill <<< "$(pairs_resources "$build/var-$label.log")"
        echo "$label: pairs uses ${regs:-?} registers, ${spill:-?} bytes of spill stores+loads"
        "$exe" -q --validate-only -n 4099 -S 3 --masses random --ref-cache "$cache" > /dev/null 2>&1 || { echo "$label: FAILED validation"; fails=$((fails + 1)); continue; }
        for n in ${NEWTON_KNOBS_N:-4096 16384 131072 1048576}; do
            "$exe" -q -n "$n" --steps "$(steps_for "$n" 3000)" --repeat 3 --validate off --csv "$csv" --tag knobs || fails=$((fails + 1))
        done
    done
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
        { printf "%-10s N=%-8s %8.1f G int/s %s\n", $c["build"], $c["bodies"], $c["ginteractions_s"], $c["config"] }' "$csv"
fi

if has ncu; then
    say "ncu: the force kernel at N = 131072"
    log=$out/newton-ncu.txt
    : > "$log"
    metrics=smsp__inst_executed.sum,sm__inst_issued.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio
    profile() { # MODE EXE [ARGS...]: one step at N = 131072, the force kernel and the update kernel
        local mode=$1 exe=$2
        shift 2
        echo "--- step09_newton N=131072 $mode: kernel pairs, then the update kernel" >> "$log"
        ncu --clock-control none --metrics "$metrics" -k regex:'pairs|kick_drift' --launch-count 2 \
            "$exe" -q -n 131072 --steps 1 --repeat 1 --validate off "$@" 2>&1 |
            grep -E '^  [a-z_]+.*\(|smsp__|sm__|gpu__' >> "$log"
    }
    profile default "$bin/step09_newton"
    profile --deterministic "$bin/step09_newton" --deterministic
    for label in ${NEWTON_NCU_LABELS:-}; do # knob builds (the knobs phase made them)
        profile "build-$label" "$build/var/$label/bin/step09_newton"
    done
    awk '/^---/ { mode = $4 } /^  [a-z_]+.*\(/ { kernel = $1 }
        /smsp__inst_executed.sum/ { gsub(",", "", $3); printf "%s %s: %.3f thread instructions per interaction (32 x warp instructions / 131072^2)\n", mode, kernel, 32 * $3 / (131072 * 131072) }' "$log" > "$log.ipi"
    cat "$log.ipi" >> "$log" && rm -f "$log.ipi"
    if command -v cuobjdump > /dev/null; then
        echo "--- SASS opcodes of pairs (whole kernel)" >> "$log"
        cuobjdump -sass "$build/obj/step09_newton/nbody.o" 2>/dev/null | awk '/Function : .*pairs/ { f = 1; next } /Function :/ { f = 0 } f' |
            grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+[A-Z][A-Z0-9_.]*' | awk '{ print $2 }' | sed 's/\..*//' | sort | uniq -c | sort -rn >> "$log"
    fi
    cat "$log"
fi

# The force kernel's SASS in full (default build, and the knob builds in NEWTON_SASS_LABELS), to read its loops.
if has sass; then
    say "sass: pairs, instruction by instruction"
    for label in default ${NEWTON_SASS_LABELS:-}; do
        obj=$build/obj/step09_newton/nbody.o
        [ "$label" = default ] || obj=$build/var/$label/obj/step09_newton/nbody.o
        cuobjdump -sass "$obj" 2>/dev/null | awk '/Function : .*pairs/ { f = 1 } /Function :/ && !/pairs/ { f = 0 } f' > "$out/newton-sass-$label.txt"
        echo "$label: $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' "$out/newton-sass-$label.txt") instructions in pairs"
    done
fi

if has sanitize; then
    say "compute-sanitizer on step09"
    bash tests/compute-sanitizer.sh --bin "$bin" --sizes "1000 2500x2" --timeout 150 "$build/sanitize-newton" step09_newton 2>&1 |
        tee "$out/newton-sanitizer.txt" || fails=$((fails + 1))
fi
say "done: $fails failures"
[ $fails = 0 ]
