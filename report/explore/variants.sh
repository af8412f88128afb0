#!/usr/bin/env bash
# variants.sh OUT [TOP]: how much of step06's speed is the schedule ptxas happens to pick?
# Writes 16 versions of step06_soa/nbody.cu that compute the same thing in a different source order
# (toggles: c = f's two products swapped, d = d2 summed z-first, p = az accumulated first, v = bodies
# visited in reverse), builds each with 8 knob sets x 4 tiles (512 builds), ranks them with
# sass-model.py, links the TOP best (default 40) and the lab's default into the lab's harness, then
# validates (N = 4099, S = 3) and times each at N = 131072; the best 8 again, and at N = 16384.
# Leaves OUT/model.txt, OUT/rank.txt, OUT/again.txt and OUT/variants.csv. Needs a GPU, nvcc, cuobjdump.
# Environment (round 3; the defaults are round 2's): VARIANTS_ORDERS (source orders, e.g. "a c cv"; default all
# 16), VARIANTS_KNOBS (e.g. "b4-u8-mb0 b6-u2-mb0"), VARIANTS_TILES, VARIANTS_LEVELS (ptxas
# --register-usage-level values; "-" builds without the option, the default), VARIANTS_BLOCKS (threads per
# block; "-" is the step's own, the default). A level adds -rL to the tag, a block -kB.
set -u -o pipefail
if [ $# -lt 1 ] || [ "${1#-}" != "$1" ]; then
    echo "usage: report/explore/variants.sh OUT [TOP]" >&2
    exit 2
fi
out=$1
top=${2:-40}
case $top in
'' | *[!0-9]* | 0) echo "variants.sh: TOP must be a whole number of builds, 1 or more (got '$top')" >&2; exit 2 ;;
esac
knob_sets=${VARIANTS_KNOBS:-b4-u4-mb0 b4-u8-mb0 b4-u4-mb9 b4-u8-mb9 b6-u2-mb0 b6-u4-mb0 b8-u2-mb0 b8-u2-mb6}
tiles=${VARIANTS_TILES:-256 512 1024 2048}
levels=${VARIANTS_LEVELS:--}
blocks=${VARIANTS_BLOCKS:--}
bad() { echo "variants.sh: $1" >&2; exit 2; }
for v in ${VARIANTS_ORDERS:-a}; do [[ $v =~ ^(a|c?d?p?v?)$ ]] || bad "no source order '$v' (a, or letters of cdpv in that order)"; done
for k in $knob_sets; do [[ $k =~ ^b[1-9][0-9]*-u[1-9][0-9]*-mb[0-9]+$ ]] || bad "knob set '$k' is not bB-uU-mbM"; done
for t in $tiles; do [[ $t =~ ^[1-9][0-9]*$ ]] || bad "tile '$t' is not a whole number of bodies, 1 or more"; done
for l in $levels; do [[ $l =~ ^(-|[0-9]|10)$ ]] || bad "register-usage level '$l' is not 0 ... 10 or -"; done
for k in $blocks; do [[ $k =~ ^(-|[1-9][0-9]*)$ ]] || bad "block '$k' is not a whole number of threads or -"; done
mkdir -p "$out" || exit 2
cd "$(dirname "$0")/../.." || exit 2
deps=()
[ -d .deps/root ] && deps=(DEPS_ROOT="$PWD/.deps/root")
jobs=$(nproc 2>/dev/null || echo 8)
work=build/explore-variants
rm -rf "$work" && mkdir -p "$work/src" || exit 2
make -s -j"$jobs" "${deps[@]}" build/bin/step06_soa > /dev/null || { echo "variants.sh: the lab does not build" >&2; exit 1; }

python3 - "$work/src" << 'EOF' || exit 1
import itertools, sys
base = open('step06_soa/nbody.cu').read()
toggles = {
    'c': ('const float f = (pj.w * inv) * (inv * inv);', 'const float f = (inv * inv) * (pj.w * inv);'),
    'd': ('fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)))', 'fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)))'),
    'p': ('ax[u] += dx * f;\n                    ay[u] += dy * f;\n                    az[u] += dz * f;',
          'az[u] += dz * f;\n                    ay[u] += dy * f;\n                    ax[u] += dx * f;'),
    'v': ('for (int u = 0; u < BODIES_PER_THREAD; ++u) {\n                    const float dx',
          'for (int w = 0; w < BODIES_PER_THREAD; ++w) {\n                    const int u = BODIES_PER_THREAD - 1 - w;\n                    const float dx'),
}
for n in range(len(toggles) + 1):
    for combo in itertools.combinations(sorted(toggles), n):
        text = base
        for key in combo:
            old, new = toggles[key]
            if old not in text:
                sys.exit('variants.sh: step06_soa/nbody.cu no longer has: ' + old.split('\n')[0])
            text = text.replace(old, new, 1)
        open('%s/%s.cu' % (sys.argv[1], ''.join(combo) or 'a'), 'w').write(text)
EOF

flags=$(. common/steps.sh && registry_field step06_soa flags) # as the Makefile's flags_of
[ "$flags" = none ] && flags=
orders=${VARIANTS_ORDERS:-$(find "$work/src" -name '*.cu' -printf '%f\n' | sed 's/\.cu$//' | sort)}
for v in $orders; do
    src=$work/src/$v.cu
    for knobs in $knob_sets; do
        b=${knobs#b}; b=${b%%-*}; u=${knobs#*-u}; u=${u%%-*}; mb=${knobs##*-mb}
        for tile in $tiles; do
            for level in $levels; do
                for block in $blocks; do
                    tag=$v-b$b-u$u-mb$mb-t$tile
                    extra=()
                    [ "$level" = - ] || { tag=$tag-r$level; extra+=(-Xptxas "--register-usage-level=$level"); }
                    [ "$block" = - ] || { tag=$tag-k$block; extra+=(-DBLOCK="$block"); }
                    # shellcheck disable=SC2086
                    nvcc -std=c++17 -arch=sm_90 -Icommon -Ibuild/gen -O3 -lineinfo $flags "${extra[@]}" -DBODIES_PER_THREAD="$b" \
                        -DMIN_BLOCKS="$mb" -DUNROLL="$u" -DTILE="$tile" -c "$src" -o "$work/$tag.o" 2> "$work/$tag.log" &&
                        cuobjdump --dump-sass "$work/$tag.o" > "$work/$tag.sass" &
                    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 0.1; done
                done
            done
        done
    done
done
wait
echo "variants.sh: $(find "$work" -name '*.sass' | wc -l) builds at $(date +%T)"
python3 report/explore/sass-model.py "$work"/*.sass > "$out/model.txt" || exit 1

libs=(build/obj/step06_soa/main.o build/obj/common/device.o build/lib/libnbody.a -Xcompiler -fopenmp -lz -lm -lpthread)
[ -d .deps/root ] && libs+=(-L"$PWD/.deps/root/usr/lib/x86_64-linux-gnu")
chosen=$( (sed -n "2,$((top + 1))p" "$out/model.txt" | awk '{ print $NF }'
    [ -f "$work/a-b4-u8-mb0-t256.o" ] && echo a-b4-u8-mb0-t256) | sort -u)
# Builds whose instructions are the same (e.g. two register-usage levels that give one schedule) are timed once.
chosen=$(for tag in $chosen; do echo "$(grep -E '^ +/\*[0-9a-f]{4}\*/' "$work/$tag.sass" | md5sum | cut -c1-32) $tag"; done |
    sort -k1,1 -u | awk '{ print $2 }')
for tag in $chosen; do nvcc -arch=sm_90 -o "$work/$tag" "$work/$tag.o" "${libs[@]}" & done
wait
rate() { # the G interactions/s a run prints
    "$@" 2>&1 | grep -oE '^ *[0-9.]+ G interactions/s' | grep -oE '[0-9.]+' | head -n 1
}
cache=build/ref-cache
mkdir -p "$cache"
csv="$out/variants.csv"
for tag in $chosen; do
    exe=$work/$tag
    "$exe" -q --validate-only -n 4099 -S 3 --ref-cache "$cache" > /dev/null 2>&1 || echo "FAIL: $tag does not validate"
    echo "$tag $(rate "$exe" --csv "$csv" --tag "$tag" --ref-cache "$cache" -n 131072 --steps 10 --repeat 5) $(grep " $tag\$" "$out/model.txt" | cut -d' ' -f1-3)"
done | sort -k2 -g -r | tee "$out/rank.txt"
echo "--- the best 8 again (N = 131072, 20 steps) and at N = 16384"
for tag in $(head -n 8 "$out/rank.txt" | awk '{ print $1 }'); do
    exe=$work/$tag
    echo "$tag 131072: $(rate "$exe" --csv "$csv" --tag "$tag-again" --ref-cache "$cache" -n 131072 --steps 20 --repeat 5)" \
        "16384: $(rate "$exe" --csv "$csv" --tag "$tag-16k" --ref-cache "$cache" -n 16384 --steps 50 --repeat 5)"
done | tee "$out/again.txt"
