#!/usr/bin/env bash
# newton-cpu.sh [CSV]: builds report/explore/newton-cpu.c (step01 with each pair once) on the harness,
# validates it at N = 1, 2, 31, 257, 1000, 4099 (S = 3, random masses) and checks that two runs write
# the same bytes, then times it and step01_omp at N = 16384 (rows tagged newton-cpu in CSV, default
# report/data/cpu/newton-cpu.csv). Exit status 0 when every check passed.
set -u -o pipefail
cd "$(dirname "$0")/../.." || exit 2
csv=${1:-report/data/cpu/newton-cpu.csv}
build=${BUILD:-build}
make --no-print-directory BUILD="$build" "$build/lib/libnbody.a" "$build/obj/common/host.o" "$build/gen/version.h" \
    "$build/bin/step01_omp" > /dev/null || exit 2
exe=$build/explore/newton-cpu
mkdir -p "$(dirname "$exe")"
flags="-std=c11 -Wall -Wextra -Wshadow -fopenmp -Icommon -I$build/gen -O3 -march=native -mprefer-vector-width=256 -ffast-math"
# shellcheck disable=SC2086
gcc $flags -c report/explore/newton-cpu.c -o "$exe.o" || exit 2
# shellcheck disable=SC2086
gcc -std=c11 -Wall -Wextra -fopenmp -Icommon -I"$build/gen" -O2 -include version.h -DNB_STEP_ID='"01n"' \
    -DNB_STEP_NAME='"newton_cpu"' -DNB_STEP_SUMMARY='"step01 with each pair once (report/explore)"' \
    -DNB_STEP_CHECK='"exact"' -DNB_BUILD_LABEL='"explore"' -c common/main.c -o "$exe.main.o" || exit 2
gcc -fopenmp -o "$exe" "$exe.o" "$exe.main.o" "$build/obj/common/host.o" "$build/lib/libnbody.a" -lz -lm -lpthread || exit 2
fails=0
for n in 1 2 31 257 1000 4099; do
    if "$exe" -q --validate-only -n "$n" -S 3 --masses random; then echo "PASS newton-cpu N=$n S=3"; else echo "FAIL newton-cpu N=$n S=3"; fails=$((fails + 1)); fi
done
tmp=$(mktemp -d) || exit 2
"$exe" -q -n 2000 -S 2 --steps 3 --repeat 1 --validate off -o "$tmp/a.nbs" && "$exe" -q -n 2000 -S 2 --steps 3 --repeat 1 --validate off -o "$tmp/b.nbs" &&
    cmp -s "$tmp/a.nbs" "$tmp/b.nbs" && echo "PASS newton-cpu: two runs wrote the same bytes" || { echo "FAIL newton-cpu: two runs differ"; fails=$((fails + 1)); }
rm -rf "$tmp"
if [ "${NEWTON_CPU_TIME:-1}" = 1 ]; then
    mkdir -p "$(dirname "$csv")"
    for prog in "$build/bin/step01_omp" "$exe"; do
        "$prog" -q -n 16384 --steps 3 --repeat 3 --csv "$csv" --tag newton-cpu || fails=$((fails + 1))
    done
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
        { printf "%-12s N=%-6s %7.2f G int/s  %s  %s threads  %s  %s\n", $c["name"], $c["bodies"], $c["ginteractions_s"], $c["device"], $c["threads"], $c["date"], $c["commit"] }' "$csv" | tail -n 2
fi
[ $fails = 0 ]
