#!/usr/bin/env bash
# newton-ab.sh OUT "LABEL:DEFS ..." : step09 builds timed side by side, in interleaved rounds, on one GPU machine.
#   DEFS: STEP_DEFS with commas for spaces (-DBODIES_PER_LANE=18,-DWARPS=2), or - for none, or src=FILE to
#   build FILE in place of step09_newton/nbody.cu (a control: the source of another commit).
# Each build: registers and spills (ptxas), the force kernel's SASS counted and hashed (one hash, one code),
# validated at N = 4099 S = 3 (random masses) and N = 1000 S = 2 (collision), then NEWTON_AB_ROUNDS (3)
# rounds over NEWTON_AB_N (131072 1048576), every build once per round, so that the machine's drift
# lands on all of them alike. Rows in OUT/newton-ab.csv (tag ab-rK); the summary is each build's median
# over the rounds (unvalidated runs unless NEWTON_AB_VALIDATE=1). NEWTON_AB_NCU="LABEL ...": ncu's issue rate
# and instructions per interaction at N = 131072.
set -u -o pipefail
[ $# -ge 2 ] || { echo "usage: report/explore/newton-ab.sh OUT \"LABEL:DEFS ...\"" >&2; exit 2; }
mkdir -p "$1" || exit 2
out=$(cd "$1" && pwd)
builds=$2
cd "$(dirname "$0")/../.." || exit 2
root=$PWD
mk=(make --no-print-directory -j"$(nproc)")
[ -n "${COMMIT:-}" ] && mk+=(COMMIT="$COMMIT")
[ -d .deps/root ] && mk+=(DEPS_ROOT="$PWD/.deps/root")
cache=build/ref-cache
mkdir -p "$cache"
csv=$out/newton-ab.csv
rm -f "$csv"
fails=0
exe_of() { echo "$root/build/ab/$1/bin/step09_newton"; }
# shellcheck source=report/sweeps/newton-lib.sh
. report/sweeps/newton-lib.sh # steps_for N RATE, pairs_resources LOG

for kv in $builds; do
    label=${kv%%:*} defs=${kv#*:}
    dir=$root
    if [ "${defs#src=}" != "$defs" ]; then # another source: a copy of the tree with that file in place
        dir=/tmp/newton-ab-$label
        rm -rf "$dir" && mkdir -p "$dir" && tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C "$dir" &&
            cp "${defs#src=}" "$dir/step09_newton/nbody.cu" || exit 2
        defs=-
    fi
    [ "$defs" = - ] && defs=
    (cd "$dir" && "${mk[@]}" BUILD="$root/build/ab/$label" BUILD_LABEL="$label" STEP_DEFS="${defs//,/ }" \
        NVCCFLAGS="-O3 -lineinfo -Xptxas -v" "$root/build/ab/$label/bin/step09_newton") > "build/ab-$label.log" 2>&1 &
done
wait
for kv in $builds; do
    label=${kv%%:*}
    exe=$(exe_of "$label")
    [ -x "$exe" ] || { echo "$label: did not build ($(grep -m1 error "build/ab-$label.log"))"; fails=$((fails + 1)); continue; }
    read -r regs spill <<< "$(pairs_resources "build/ab-$label.log")"
    sass=$(cuobjdump -sass "$root/build/ab/$label/obj/step09_newton/nbody.o" 2>/dev/null |
        awk '/Function : .*pairs/ { f = 1; next } /Function :/ { f = 0 } f' | grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+[^;]*' | sed 's|^ */\*[0-9a-f]*\*/ *||')
    echo "$label: ${regs:-?} registers, ${spill:-?} bytes spilled, $(printf '%s\n' "$sass" | grep -c .) SASS instructions (hash $(printf '%s\n' "$sass" | md5sum | cut -c1-8))"
    for v in "4099 3 plummer random" "1000 2 collision random"; do
        read -r n s model masses <<< "$v"
        line=$("$exe" --validate-only -n "$n" -S "$s" --model "$model" --masses "$masses" --ref-cache "$cache" 2>&1 | awk '/acceleration/ && !p { print; p = 1 }')
        rc=$?
        echo "$label N=$n S=$s $model: $line"
        [ $rc = 0 ] && [ "${line/FAIL/}" = "$line" ] ||
            { echo "$label: FAILED validation at N=$n S=$s $model"; fails=$((fails + 1)); builds=${builds//$kv/}; }
    done
done

check="--validate off" # NEWTON_AB_VALIDATE=1: every timed run validated first (against the cached fp64 reference)
[ "${NEWTON_AB_VALIDATE:-0}" = 1 ] && check="--ref-cache $cache"
for r in $(seq 1 "${NEWTON_AB_ROUNDS:-3}"); do
    for n in ${NEWTON_AB_N:-131072 1048576}; do
        steps=$(steps_for "$n" 3000)
        for kv in $builds; do
            "$(exe_of "${kv%%:*}")" -q -n "$n" --steps "$steps" --repeat 3 $check --csv "$csv" --tag "ab-r$r" ||
                fails=$((fails + 1))
        done
    done
done
if [ -f "$csv" ]; then # each build's median over the rounds, fastest first at each N
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next } { print $c["bodies"], $c["build"], $c["ginteractions_s"] }' "$csv" |
        sort -k1,1n -k2,2 -k3,3n | awk '{ k = $1 " " $2; if (k != last && last != "") flush(); last = k; v[++m] = $3 }
            function flush(  s, i) { s = ""; for (i = 1; i <= m; ++i) s = s " " v[i]; split(last, p, " ");
                printf "N=%-8s %-10s median %7.1f G int/s (of%s)\n", p[1], p[2], v[int((m + 1) / 2)], s; m = 0 }
            END { if (last != "") flush() }' | sort -k1,1 -k4,4nr
fi

for label in ${NEWTON_AB_NCU:-}; do
    metrics=smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio
    ncu --clock-control none --metrics "$metrics" -k regex:pairs --launch-count 1 "$(exe_of "$label")" -q -n 131072 --steps 1 \
        --repeat 1 --validate off 2>&1 | grep -E 'smsp__|sm__|gpu__' > "$out/ncu-$label.txt"
    awk -v l="$label" '/inst_executed.sum/ { gsub(",", "", $3); ipi = 32 * $3 / 131072 / 131072 } /issue_active/ { issue = $3 }
        /warps_active/ { occ = $3 } /dispatch_stall/ { d = $3 } /stalled_wait/ { w = $3 }
        END { printf "%-10s ncu N=131072: %.3f instructions per interaction, issue %s%%, warps %s%%, stalls per issue: dispatch %s wait %s\n", l, ipi, issue, occ, d, w }' "$out/ncu-$label.txt"
    rm -f "$out/ncu-$label.txt"
done
echo "newton-ab: $fails failures"
[ $fails = 0 ]
