#!/usr/bin/env bash
# mpi-gap.sh OUT: why step11_mpi on one rank is slower than step08 on one GPU (issue #19), on a GPU machine.
# Same force loop, same sizes: so the difference is in the build (register allocation, schedule) or in
# the launch. Leaves in OUT:
#   gap.csv       the harness's rows: step08 --gpus 1 and step11 under mpirun -np 1, at N = 262144,
#                 for the default build of each and the step11 builds of MPI_GAP_KNOBS (label:STEP_DEFS)
#   gap-sass.txt  per build: registers, the SASS opcode counts of forces, report/explore/sass-model.py
#   gap-ncu.txt   ncu on both forces kernels: instructions, issue rate, warps, the top stall reasons
# Environment: COMMIT, MPI_GAP_N (default 262144), MPI_GAP_KNOBS.
set -u -o pipefail
out=${1:?usage: report/explore/mpi-gap.sh OUT}
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")/../.." || exit 2
n=${MPI_GAP_N:-262144}
knobs=${MPI_GAP_KNOBS:-"mb8:-DMIN_BLOCKS=8 mb10:-DMIN_BLOCKS=10 u4:-DUNROLL=4 u16:-DUNROLL=16"}
mk=(make --no-print-directory -j"$(nproc)" ${COMMIT:+COMMIT=$COMMIT})
[ -d .deps/root ] && mk+=(DEPS_ROOT="$PWD/.deps/root")
np1=(mpirun -np 1)
[ "$(id -u)" = 0 ] && np1+=(--allow-run-as-root)
csv=$out/gap.csv
sass=$out/gap-sass.txt
: > "$sass"
say() { printf '=== %s %s\n' "$(date -u +%H:%M:%S)" "$*"; }

say build
builds=("default:")
for kv in $knobs; do builds+=("$kv"); done
for kv in "${builds[@]}"; do
    label=${kv%%:*} defs=${kv#*:}
    b=build/gap/$label
    targets=($b/bin/step11_mpi)
    [ "$label" = default ] && targets+=($b/bin/step08_multigpu)
    mkdir -p build/gap
    "${mk[@]}" BUILD=$b BUILD_LABEL=$label STEP_DEFS="${defs//,/ }" "${targets[@]}" > $b.log 2>&1 &
done
wait
for kv in "${builds[@]}"; do
    label=${kv%%:*}
    for s in step08_multigpu step11_mpi; do
        o=build/gap/$label/obj/$s/nbody.o
        [ "$s" = step11_mpi ] || [ "$label" = default ] || continue
        [ -f "$o" ] || { echo "$label $s: did not build ($(grep -m1 error build/gap/$label.log))" | tee -a "$sass"; continue; }
        cuobjdump -sass "$o" | awk '/Function : .*forces/ { f = 1 } /Function :/ && !/forces/ { f = 0 } f' > "$out/$label-$s.sass"
        {
            echo "--- $label $s: $(cuobjdump --dump-resource-usage "$o" 2>/dev/null | grep -A1 forces | grep -oE 'REG:[0-9]+')"
            grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+[A-Z][A-Z0-9_]*' "$out/$label-$s.sass" | awk '{ print $2 }' | sort | uniq -c |
                sort -rn | head -n 8 | tr '\n' ' '
            echo
            python3 report/explore/sass-model.py "$out/$label-$s.sass" 2>&1 | tail -n 4
        } >> "$sass"
    done
done
cat "$sass"

say "time at N = $n"
steps=$((n <= 262144 ? 5 : 2))
build/gap/default/bin/step08_multigpu -q -n $n --steps $steps --repeat 3 --gpus 1 --csv "$csv" --tag gap-step08
for kv in "${builds[@]}"; do
    label=${kv%%:*}
    exe=build/gap/$label/bin/step11_mpi
    [ -x $exe ] || continue
    "${np1[@]}" $exe -q -n $n --steps $steps --repeat 3 --csv "$csv" --tag gap-np1 || echo "FAILED: $label"
    # the same binary without mpirun: the harness's single-process path (nb_comm_size() == 1)
    $exe -q -n $n --steps $steps --repeat 3 --csv "$csv" --tag gap-direct || echo "FAILED: $label direct"
done
awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
    { printf "%-16s %-8s %-10s %8.1f G int/s %s\n", $c["name"], $c["build"], $c["tag"], $c["ginteractions_s"], $c["pass"] }' "$csv"

say "ncu on both forces kernels"
metrics=smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size,launch__occupancy_limit_registers
for exe in build/gap/default/bin/step08_multigpu "build/gap/default/bin/step11_mpi"; do
    echo "--- $exe"
    ncu --clock-control none --metrics "$metrics" --section WarpStateStats -k regex:forces --launch-count 1 \
        $exe -q -n $n --steps 1 --repeat 1 --validate off 2>&1 | grep -vE '^==PROF==|^\s*$' | head -n 60
done > "$out/gap-ncu.txt" 2>&1
cat "$out/gap-ncu.txt"
say done
