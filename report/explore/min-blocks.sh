#!/usr/bin/env bash
# min-blocks.sh OUT: the MIN_BLOCKS knob (steps 04-08: __launch_bounds__'s minimum of resident blocks,
# which caps the registers ptxas may use and so changes its schedule). Builds step06 with MIN_BLOCKS
# 0, 8, 9, 10 x TILE 256-2048, and steps 04 and 05 with MIN_BLOCKS 0, 8, 9, 10; validates each
# (N = 4099, S = 3), times it at N = 131072 and step06 at N = 16384. Leaves OUT/min-blocks.csv.
set -u -o pipefail
if [ $# -lt 1 ] || [ "${1#-}" != "$1" ]; then
    echo "usage: report/explore/min-blocks.sh OUT" >&2
    exit 2
fi
out=$1
mkdir -p "$out" || exit 2
cd "$(dirname "$0")/../.." || exit 2
deps=()
[ -d .deps/root ] && deps=(DEPS_ROOT="$PWD/.deps/root")
jobs=$(nproc 2>/dev/null || echo 8)
csv=$out/min-blocks.csv
cache=build/ref-cache
mkdir -p "$cache"
builds=()
for mb in 0 8 9 10; do
    for tile in 256 512 1024 2048; do builds+=("step06_soa:mb$mb-t$tile"); done
    for s in step04_unroll step05_intrinsics; do builds+=("$s:mb$mb-t256"); done
done
for b in "${builds[@]}"; do
    s=${b%%:*}; tag=${b#*:}; mb=${tag#mb}; mb=${mb%%-*}; tile=${tag##*-t}
    make -s BUILD="build/mb/$tag" BUILD_LABEL="$tag" STEP_DEFS="-DMIN_BLOCKS=$mb -DTILE=$tile" "${deps[@]}" \
        "build/mb/$tag/bin/$s" > "build/mb-$tag-$s.log" 2>&1 || echo "min-blocks.sh: $s $tag does not build" &
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 0.5; done
done
wait
run() { # STEP TAG N STEPS: one validated, timed run appended to the CSV
    local exe=build/mb/$2/bin/$1
    [ -x "$exe" ] || return
    "$exe" --csv "$csv" --tag min-blocks --ref-cache "$cache" -n "$3" --steps "$4" --repeat 5 2>&1 |
        grep -E 'interactions|FAIL|error' | sed "s|^|$1 $2 N=$3: |"
}
for b in "${builds[@]}"; do
    s=${b%%:*}; tag=${b#*:}
    build/mb/"$tag"/bin/"$s" -q --validate-only -n 4099 -S 3 --ref-cache "$cache" > /dev/null 2>&1 ||
        echo "FAIL: $s $tag does not validate"
    run "$s" "$tag" 131072 10
done
for b in "${builds[@]}"; do
    case $b in step06_soa:*) run step06_soa "${b#*:}" 16384 50 ;; esac
done
