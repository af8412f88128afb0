#!/usr/bin/env bash
# cpu-peer.sh [OUT]: step01_omp side by side with report/tools/peer-soa.c (the lab's own equivalent of the
# best-known simple CPU kernel: step01_omp/README.md) on this machine, and step01's intrinsics exercise
# (report/explore/omp-intrinsics.c) where it is present. Builds all three (step01 with its steps.list
# flags, the peer with the flags it was published with: -O3 -march=native -ffast-math -fopenmp),
# validates step01 and the exercise, then times them in turns, ROUNDS rounds (default 5) of each case:
#   1 thread at N = 16384, and every thread (nproc; OMP_NUM_THREADS overrides) at N = 65536.
# Each run: one untimed step, then REPEAT (default 5) timed steps from the same state, the median.
# Writes OUT/cpu-peer.csv (one row per run: cpu, threads, bodies, kernel, round, time_s,
# ginteractions_s, date, commit) and OUT/machine.txt; default OUT build/cpu-peer. Needs gcc, make and
# OpenMP only. COMMIT names the sources where there is no .git (as on the lent GPU machines).
# Exit status 0 when everything built, validated and ran.
set -u -o pipefail
cd "$(dirname "$0")/../.." || exit 2
out=${1:-build/cpu-peer}
build=${BUILD:-build}
rounds=${ROUNDS:-5}
repeat=${REPEAT:-5}
threads=${OMP_NUM_THREADS:-$(nproc)}
unset OMP_NUM_THREADS
case "$rounds$repeat$threads" in *[!0-9]* | '') echo "cpu-peer: ROUNDS, REPEAT and OMP_NUM_THREADS must be counts" >&2; exit 2 ;; esac
commit=${COMMIT:-$( (git rev-parse --short=12 HEAD && { git diff --quiet HEAD -- || echo -dirty; }) 2>/dev/null | tr -d '\n')}
commit=${commit:-unknown}
mkdir -p "$out" "$build/cpu-peer" || exit 2
csv=$out/cpu-peer.csv
log=$out/build.log

# ---- build ------------------------------------------------------------------------------------
make --no-print-directory BUILD="$build" COMMIT="$commit" "$build/bin/step01_omp" > "$log" 2>&1 ||
    { tail -n 5 "$log"; echo "cpu-peer: make step01 failed (the log: $log)" >&2; exit 2; }
peer=$build/cpu-peer/peer-soa
gcc -std=c11 -Wall -Wextra -O3 -march=native -ffast-math -fopenmp -Icommon report/tools/peer-soa.c common/timing.c -o "$peer" -lm >> "$log" 2>&1 ||
    { echo "cpu-peer: building report/tools/peer-soa.c failed (the log: $log)" >&2; exit 2; }
kernels="peer-soa step01"
exercise=report/explore/omp-intrinsics.c
if [ -f "$exercise" ]; then # the handout leaves it out
    ex=$build/cpu-peer/step01-intrinsics
    if ! gcc -std=c11 -Wall -Wextra -fopenmp -Icommon -I"$build/gen" -O3 -march=native -ffast-math -c "$exercise" -o "$ex.o" >> "$log" 2>&1 ||
        ! gcc -fopenmp -o "$ex" "$ex.o" "$build/obj/step01_omp/main.o" "$build/obj/common/host.o" "$build/lib/libnbody.a" \
            -lz -lm -lpthread ${DEPS_ROOT:+-L"$DEPS_ROOT/usr/lib/x86_64-linux-gnu"} >> "$log" 2>&1; then
        echo "cpu-peer: building $exercise failed (the log: $log)" >&2
        exit 2
    fi
    kernels="$kernels step01-intrinsics"
fi
program() { # KERNEL: its program
    case $1 in peer-soa) echo "$peer" ;; step01) echo "$build/bin/step01_omp" ;; step01-intrinsics) echo "$ex" ;; esac
}

# ---- validate ---------------------------------------------------------------------------------
fails=0
for k in $kernels; do
    [ "$k" = peer-soa ] && continue # no masses: nothing to compare against (its arithmetic: its header)
    for v in "-n 1 -S 3" "-n 31 -S 3 --masses random" "-n 4099 -S 3 --masses random" "-n 4099 -S 2 --model collision"; do
        # shellcheck disable=SC2086
        if OMP_NUM_THREADS=$threads "$(program "$k")" -q --validate-only $v; then echo "PASS $k $v"
        else echo "FAIL $k $v"; fails=$((fails + 1)); fi
    done
done
[ $fails = 0 ] || { echo "cpu-peer: $fails validation failures: nothing timed" >&2; exit 1; }

# ---- time, in turns ---------------------------------------------------------------------------
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
cpu=${cpu:-unknown CPU}
cpu=${cpu//,/ } # a CSV field
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $commit"
    echo "host cpu: $cpu"
    echo "host threads: $(nproc)"
    echo "load average (1, 5, 15 min) before measuring: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
    echo "compiler: $(gcc --version | head -n 1)"
    echo "gcc -march=native here: $(gcc -march=native -Q --help=target 2>/dev/null | awk '$1 == "-march=" { print $2 }'), vector width preferred: $(gcc -march=native -Q --help=target 2>/dev/null | awk '$1 == "-mprefer-vector-width=" { print $2 }')"
    echo "avx-512 here: $(grep -qw avx512f /proc/cpuinfo && echo yes || echo no)"
} > "$out/machine.txt"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
echo "cpu,threads,bodies,kernel,round,steps,repeat,time_s,ginteractions_s,date,commit" > "$csv"
cases="1:16384 $threads:65536"
[ "$threads" = 1 ] && cases="1:16384 1:65536"
for c in $cases; do
    th=${c%%:*} n=${c#*:}
    for r in $(seq "$rounds"); do
        for k in $kernels; do
            if [ "$k" = peer-soa ]; then
                row=$(OMP_NUM_THREADS=$th "$peer" "$n" 1 "$repeat") || { fails=$((fails + 1)); continue; }
                t=$(echo "$row" | cut -d, -f6) g=$(echo "$row" | cut -d, -f8)
            else
                rm -f "$tmp/r.csv"
                OMP_NUM_THREADS=$th "$(program "$k")" -q -n "$n" --steps 1 -r "$repeat" --validate off --csv "$tmp/r.csv" ||
                    { fails=$((fails + 1)); continue; }
                read -r t g < <(awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
                    { print $c["kernel_s"], $c["ginteractions_s"] }' "$tmp/r.csv")
            fi
            echo "$cpu,$th,$n,$k,$r,1,$repeat,$t,$g,$(date -u +%Y-%m-%dT%H:%M:%SZ),$commit" >> "$csv"
        done
    done
done
echo "load average (1, 5, 15 min) after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" >> "$out/machine.txt"

# ---- summary: the median of the rounds, and each kernel against the peer ----------------------------
awk -F, 'NR > 1 { k = $2 " " $3; key[k] = 1; n[k, $4]++; v[k, $4, n[k, $4]] = $9; kern[$4] = 1 }
    function median(k, name,   m, i, j, t, s) {
        m = n[k, name]; for (i = 1; i <= m; ++i) s[i] = v[k, name, i]
        for (i = 1; i <= m; ++i) for (j = i + 1; j <= m; ++j) if (s[j] < s[i]) { t = s[i]; s[i] = s[j]; s[j] = t }
        return m ? (s[int((m + 1) / 2)] + s[int(m / 2) + 1]) / 2 : 0 }
    END { for (k in key) { split(k, w, " "); p = median(k, "peer-soa")
            for (name in kern) { g = median(k, name)
                printf "%2d threads  N = %-6d %-18s %7.3f G interactions/s (median of %d)%s\n", w[1], w[2], name, g, n[k, name],
                    (name != "peer-soa" && p > 0) ? sprintf("  %.2fx the peer", g / p) : "" } } }' "$csv" | sort -n
echo "cpu-peer: $csv ($cpu, commit $commit)"
[ $fails = 0 ]
