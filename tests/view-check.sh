#!/usr/bin/env bash
# view-check.sh WORK SNAP2HTML ID BIN: make test-view (run by .ci/run, not part of make test: it installs
# chromium). The page of make view (report/tools/snap2html.c) is made and opened in a real headless
# chromium with its software GL (SwiftShader through ANGLE), and checked from its screenshots:
#   1. make view RUN=ID (a small collision run of step ID, whose program is BIN: 6 frames) writes one page with no external
#      resource (no src=, href=, url(), @import, http: or https:) and the run's frames in it;
#   2. snap2html refuses bad input (no file, a corrupt file, snapshots of two runs, --levels without
#      --eta, a NaN eta) with exit 2 and writes no page;
#   2b. with --levels 4 --eta 0.05 the small run's page holds a level a body (8 bytes a body, not 7),
#      more than one level in frame 0, each the one step13's rule gives (python3 recomputes them);
#   3. a million-body snapshot (1048576, step BIN --steps 0 -o) makes a page of at most 200000 drawn
#      bodies that says so, under 3 MB, and its levels (174763 x 2^20 pair forces) are refused;
#   4. in chromium: the small page at #frame=0 and at its last frame (#frame=5, ui=0: no overlay) each
#      has bodies drawn (at least 300 lit pixels on black: 1024 bodies of 3 px) and the two differ (at
#      least 200 pixels: the spheres moved); the page says it drew (body data-state) the frame asked
#      (data-frame); the million-body page draws (at least 20000 lit pixels) within the time limit; the
#      level page at #colour=level draws in other colours than by speed (at least 200 pixels differ).
# chromium is installed with apt-get where it can be (root), as grading/class/test-class.sh does; without
# it, or without python3 (which reads the PNGs), the browser checks are SKIP with the reason.
# Prints one line per check; exit 1 if any failed, 2 on bad usage.
set -u -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 4 ] || { echo "usage: tests/view-check.sh WORK SNAP2HTML ID BIN" >&2; exit 2; }
work=$1 tool=$2 run_id=$3 bin=$4
rm -rf "$work" && mkdir -p "$work" || { echo "view-check.sh: cannot make $work" >&2; exit 2; }
work=$(cd "$work" && pwd)
fails=0
pass() { echo "PASS view: $*"; }
fail() { echo "FAIL view: $*"; fails=$((fails + 1)); }
check() { # check WHAT COMMAND...
    local what=$1
    shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}

# ---- 1. make view ---------------------------------------------------------------------------------
page=$work/small.html
make -C "$here" --no-print-directory view RUN="$run_id" VIEW_OUT="$page" VIEW_SNAPS="$work/snaps" VIEW_N=1024 VIEW_STEPS=250 VIEW_EVERY=50 \
    VIEW_ARGS="--model collision --dt 0.02" > "$work/make-view.log" 2>&1
check "make view (1024 bodies, 250 steps, a frame every 50) writes the page: $(tail -n 2 "$work/make-view.log" | head -n 1)" test -s "$page"
check "the page is self-contained: no src=, href=, url(), @import, http: or https:" \
    bash -c "! grep -qiE 'src=|href=|url\\(|@import|https?:' '$page'"
check "the page holds the 6 frames (steps 0 to 250) and its WebGL code" \
    bash -c "[ \$(grep -c 'type=\"application/octet-stream\" id=\"f[0-9]*\"' '$page') -eq 6 ] && grep -q '\"step\": 250' '$page' && grep -q 'getContext(\"webgl\"' '$page'"

# ---- 2. bad input -------------------------------------------------------------------------------
refused() { # refused WHAT ARGS...: exit 2, one line on stderr, no page
    local what=$1
    shift
    rm -f "$work/bad.html"
    "$tool" --out "$work/bad.html" "$@" > /dev/null 2> "$work/bad.err"
    local rc=$?
    if [ $rc = 2 ] && [ "$(wc -l < "$work/bad.err")" = 1 ] && [ ! -e "$work/bad.html" ]; then
        pass "snap2html refuses $what: exit 2, '$(cat "$work/bad.err")', no page"
    else
        fail "snap2html given $what: exit $rc, stderr '$(head -c 300 "$work/bad.err")', page $([ -e "$work/bad.html" ] && echo written || echo none)"
    fi
}
first=$(ls "$work"/snaps/*.nbs 2> /dev/null | head -n 1)
refused "no file" 
head -c 100 "$first" > "$work/cut.nbs"
refused "a truncated snapshot" "$first" "$work/cut.nbs"
"$bin" -q -n 31 --steps 0 --repeat 1 --validate off -o "$work/other.nbs" > /dev/null 2>&1
refused "snapshots of two runs (1024 and 31 bodies)" "$first" "$work/other.nbs"
refused "an empty folder" "$(mkdir -p "$work/empty" && echo "$work/empty")"
refused "--levels without --eta" --levels 4 "$first"
refused "a NaN eta" --levels 4 --eta nan "$first"

# ---- 2b. levels ---------------------------------------------------------------------------------
levels=$work/levels.html
"$tool" --out "$levels" --levels 4 --eta 0.05 "$work/snaps" > "$work/levels.log" 2>&1
check "--levels 4 --eta 0.05 writes the page with its levels: $(cat "$work/levels.log")" \
    bash -c "grep -q '\"levels\": 4, \"eta\": 0.05' '$levels'"
if command -v python3 > /dev/null 2>&1; then
    # The levels recomputed here from frame 0's snapshot (its header's eps and dt, the fp64 sum over all
    # bodies, the same halving rule), against the page's bytes.
    said=$(python3 "$here/tests/view-levels.py" "$levels" "$first" 0.05 4)
    read -r distinct off <<< "$said"
    check "frame 0's levels: ${distinct:-?} distinct levels (more than 1), ${off:-?} bodies not at the level recomputed here (0)" \
        test "${distinct:-0}" -gt 1 -a "${off:-1}" = 0
fi

# ---- 3. a million bodies ------------------------------------------------------------------------
big=$work/big.html
if "$bin" -q -n 1048576 --steps 0 --repeat 1 --validate off -o "$work/million.nbs" > "$work/million.log" 2>&1 &&
    "$tool" --out "$big" "$work/million.nbs" > "$work/big.log" 2>&1; then
    size=$(stat -c %s "$big")
    check "1048576 bodies: $(cat "$work/big.log"); the page says it ($size bytes < 3 MB)" \
        bash -c "grep -q '\"bodies\": 1048576' '$big' && grep -q '\"shown\": 174763, \"stride\": 6, \"max_points\": 200000' '$big' && [ $size -lt 3000000 ]"
    refused "levels for 174763 drawn of 1048576 bodies (more than 2^35 pair forces)" --levels 4 --eta 0.1 "$work/million.nbs"
else
    fail "1048576 bodies: no page: $(tail -n 1 "$work/million.log" "$work/big.log" | tr '\n' ' ')"
fi
rm -f "$work/million.nbs"

# ---- 4. in a real browser -----------------------------------------------------------------------
bash "$here/common/deps.sh" chromium > "$work/apt.log" 2>&1 # installed as Check is, where it can be
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "SKIP view: the page in a browser: chromium is not installed and could not be (not root, or apt-get failed: $work/apt.log)"
elif ! command -v python3 > /dev/null 2>&1; then
    echo "SKIP view: the page in a browser: no python3 to read the screenshots"
else
    # SwiftShader, chromium's software GL, through ANGLE: WebGL without a GPU (it needs the unsafe flag
    # since chromium 130). The virtual time budget lets the page load and draw before the screenshot.
    # shellcheck disable=SC2054 # --window-size=800,600 is one argument
    flags=(--headless --no-sandbox --hide-scrollbars --use-angle=swiftshader --enable-unsafe-swiftshader
        --user-data-dir="$work/chromium-profile" --window-size=800,600 --virtual-time-budget=4000)
    shot() { # shot PAGE HASH PNG
        timeout 120 "$browser" "${flags[@]}" --screenshot="$3" "file://$1#$2" >> "$work/chromium.log" 2>&1 && [ -s "$3" ]
    }
    dom() { timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$1#$2" 2>> "$work/chromium.log" | grep -o '<body[^>]*>'; }
    # lit PNG: pixels brighter than the black background (any channel above 40); lit A B: pixels that differ.
    lit() { python3 - "$@" << 'EOF'
import struct, sys, zlib
def pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path + ": not a PNG"
    at, idat = 8, b""
    while at < len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"IHDR":
            w, h, depth, colour = struct.unpack(">IIBB", data[at + 8:at + 18])
            assert depth == 8 and colour in (2, 6), f"{path}: depth {depth}, colour type {colour}"
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += data[at + 8:at + 8 + n]
        at += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return [tuple(r[i:i + 3]) for r in rows for i in range(0, stride, bpp)]
a = pixels(sys.argv[1])
if len(sys.argv) == 2:
    print(sum(1 for p in a if max(p) > 40))
else:
    b = pixels(sys.argv[2])
    print(sum(1 for p, q in zip(a, b) if max(abs(p[k] - q[k]) for k in range(3)) > 40) if len(a) == len(b) else -1)
EOF
    }
    if shot "$page" "frame=0&ui=0" "$work/frame0.png" && shot "$page" "frame=5&ui=0" "$work/frame5.png" &&
        shot "$page" "frame=5" "$work/frame5-ui.png"; then
        n0=$(lit "$work/frame0.png") n5=$(lit "$work/frame5.png") moved=$(lit "$work/frame0.png" "$work/frame5.png")
        check "chromium draws frame 0 and frame 5: $n0 and $n5 lit pixels of 800 x 600 (at least 300 each)" \
            test "${n0:-0}" -ge 300 -a "${n5:-0}" -ge 300
        check "the bodies move between frame 0 and frame 5: $moved pixels differ (at least 200)" test "${moved:-0}" -ge 200
    else
        fail "chromium took no screenshot: $(tail -n 2 "$work/chromium.log" | tr '\n' ' ')"
    fi
    if shot "$levels" "frame=0&ui=0&colour=level" "$work/levels0.png"; then
        recoloured=$(lit "$work/frame0.png" "$work/levels0.png")
        body=$(dom "$levels" "frame=0&colour=level")
        check "the level page at #colour=level: $recoloured pixels differ from frame 0 by speed (at least 200), drawn by level: $body" \
            bash -c "[ '${recoloured:-0}' -ge 200 ] && [[ '$body' == *'data-colour=\"level\"'* && '$body' == *'data-state=\"drawn\"'* ]]"
    else
        fail "chromium took no screenshot of the level page: $(tail -n 2 "$work/chromium.log" | tr '\n' ' ')"
    fi
    body=$(dom "$page" "frame=3")
    check "the page drew the frame its URL asked for (#frame=3): $body" \
        bash -c "[[ '$body' == *'data-frame=\"3\"'* && '$body' == *'data-state=\"drawn\"'* ]]"
    if [ -s "$big" ]; then
        t0=$(date +%s%N)
        if shot "$big" "ui=0" "$work/big.png"; then
            ms=$((($(date +%s%N) - t0) / 1000000))
            nb=$(lit "$work/big.png")
            body=$(dom "$big" "")
            first_ms=$(sed -n 's/.*data-first-draw-ms="\([0-9]*\)".*/\1/p' <<< "$body")
            check "the million-body page draws: $nb lit pixels (at least 20000); its first draw took ${first_ms:-?} ms in the page, chromium's whole run $ms ms" \
                bash -c "[ '${nb:-0}' -ge 20000 ] && [[ '$body' == *'data-state=\"drawn\"'* ]]"
        else
            fail "chromium took no screenshot of the million-body page: $(tail -n 2 "$work/chromium.log" | tr '\n' ' ')"
        fi
    fi
    echo "     (screenshots: $work/frame0.png $work/frame5.png $work/frame5-ui.png $work/big.png)"
fi

echo "test-view: $fails failed"
[ $fails = 0 ]
