#!/usr/bin/env bash
# tests/formats-check.sh: the tipsy and HDF5 formats (common/formats.h) from outside, through a step and
# build/tools/nbconvert.
#
#   formats-check.sh roundtrip STEP NBCONVERT FOREIGN DIR   (make test-formats)
#     lab -> tipsy / HDF5 -> lab gives the same bodies bit for bit (the HDF5 file: the same snapshot
#     bytes), and runs from the three files, or written by --output-format, the same final state bit for
#     bit; files written by hand (FOREIGN, tests/formats_foreign.c: big-endian tipsy, tipsy without the
#     pad, GADGET-2-style HDF5 with float64 coordinates and a MassTable) start a run and read back as
#     their writer's values.
#   formats-check.sh pynbody STEP NBCONVERT DIR VENV        (make test-pynbody)
#     pynbody (PyPI, into the venv VENV, made once and kept) opens the lab's tipsy and HDF5 files and
#     reads the same positions and masses; a tipsy file pynbody writes and an HDF5 file h5py writes
#     start a lab run and read back as written. SKIP, with pip's reason, where PyPI cannot be reached.
# One PASS, FAIL or SKIP line for each part; exit 1 on a FAIL, 2 on bad usage.
set -u -o pipefail
me=formats-check.sh
die() { echo "$me: $*" >&2; exit 2; }
mode=${1:-}
[ "$mode" = roundtrip ] && [ $# -eq 5 ] || [ "$mode" = pynbody ] && [ $# -eq 5 ] ||
    die "usage: formats-check.sh roundtrip STEP NBCONVERT FOREIGN DIR | pynbody STEP NBCONVERT DIR VENV"
step=$(realpath -m "$2") conv=$(realpath -m "$3")
[ -x "$step" ] && [ -x "$conv" ] || die "$step or $conv is not built"
here=$(cd "$(dirname "$0")/.." && pwd)
hdf5=0
[ -s "$(dirname "$conv")/../gen/hdf5.libs" ] && hdf5=1
fails=0
fail() { echo "FAIL formats $*"; fails=$((fails + 1)); }

# The seven arrays of a lab snapshot (between its 64-byte header and its CRC): the bodies, bit for bit.
arrays() { tail -c +65 "$1" | head -c -4; }
same_bodies() { cmp -s <(arrays "$1") <(arrays "$2"); }
run() { "$step" -q -r 1 "$@" > run.log 2>&1 || { echo "exit $?: $(tail -n 1 run.log)"; return 1; }; }

roundtrip() {
    local dir=$1 foreign=$2 why
    rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || die "cannot make $dir"
    run -n 64 --masses random -k 3 -o a.nbs > /dev/null || { fail "roundtrip: the first run failed: $(tail -n 1 run.log)"; return; }
    local f formats=(tipsy) ok=1
    [ $hdf5 -eq 1 ] && formats+=(hdf5)
    for f in "${formats[@]}"; do
        if ! "$conv" -q --to "$f" a.nbs "a.$f" 2> conv.log || ! "$conv" -q --to nbs "a.$f" "back-$f.nbs" 2>> conv.log; then
            fail "roundtrip: nbconvert nbs -> $f -> nbs: $(tail -n 1 conv.log)"; ok=0; continue
        fi
        same_bodies a.nbs "back-$f.nbs" || { fail "roundtrip: nbs -> $f -> nbs changed the bodies"; ok=0; }
        # The same run from each file: --dt given, since a tipsy file holds none.
        why=$(run -i "a.$f" -k 5 --dt 0.001 -o "out-$f.nbs") || { fail "roundtrip: a run from a.$f: $why"; ok=0; continue; }
        why=$(run -i a.nbs -k 5 --dt 0.001 -o "direct-$f" --output-format "$f") || { fail "roundtrip: --output-format $f: $why"; ok=0; continue; }
        "$conv" -q --to nbs "direct-$f" "direct-$f.nbs" 2> conv.log || { fail "roundtrip: reading direct-$f: $(tail -n 1 conv.log)"; ok=0; continue; }
        same_bodies "out-$f.nbs" "direct-$f.nbs" || { fail "roundtrip: --output-format $f wrote other bodies"; ok=0; }
    done
    # HDF5 holds all a snapshot holds (eps, dt and the step counter too): the same bytes.
    [ $hdf5 -eq 0 ] || cmp -s a.nbs back-hdf5.nbs || { fail "roundtrip: nbs -> hdf5 -> nbs is not the same file"; ok=0; }
    why=$(run -i a.nbs -k 5 --dt 0.001 -o out-nbs.nbs) || { fail "roundtrip: a run from a.nbs: $why"; ok=0; }
    for f in "${formats[@]}"; do
        [ ! -f "out-$f.nbs" ] || same_bodies out-nbs.nbs "out-$f.nbs" || { fail "roundtrip: a run from a.$f ends elsewhere than one from a.nbs"; ok=0; }
    done
    # Awkward sizes (STYLE.md 5), through nbconvert alone; and one system of three (--system).
    local n
    for n in 1 2 31 257 1000 4099; do
        why=$(run -n "$n" -k 1 --validate off -o "n$n.nbs") || { fail "roundtrip: N = $n: $why"; ok=0; continue; }
        for f in "${formats[@]}"; do
            "$conv" -q --to "$f" "n$n.nbs" "n$n.$f" 2> conv.log && "$conv" -q --to nbs "n$n.$f" "n$n-$f.nbs" 2>> conv.log &&
                same_bodies "n$n.nbs" "n$n-$f.nbs" || { fail "roundtrip: N = $n through $f: $(tail -n 1 conv.log)"; ok=0; }
        done
    done
    why=$(run -n 31 -S 3 -k 1 --validate off -o s3.nbs) || { fail "roundtrip: S = 3: $why"; ok=0; }
    # Field k of system 1 of the three: 31 floats at (k * 3 + 1) * 31 in the arrays; at k * 31 in system 1's file.
    local k
    "$conv" -q --system 1 --to nbs s3.nbs s3-1.nbs 2> conv.log || { fail "roundtrip: --system 1: $(tail -n 1 conv.log)"; ok=0; }
    for k in 0 1 2 3 4 5 6; do
        cmp -s <(arrays s3.nbs | tail -c +$(((k * 3 + 1) * 31 * 4 + 1)) | head -c $((31 * 4))) \
            <(arrays s3-1.nbs | tail -c +$((k * 31 * 4 + 1)) | head -c $((31 * 4))) || { fail "roundtrip: --system 1 wrote other bodies (field $k)"; ok=0; break; }
    done
    for f in "${formats[@]}"; do
        "$conv" -q --system 1 --to "$f" s3.nbs "s3-1.$f" 2> conv.log && "$conv" -q --to nbs "s3-1.$f" "s3-1-$f.nbs" 2>> conv.log &&
            same_bodies s3-1.nbs "s3-1-$f.nbs" || { fail "roundtrip: system 1 of 3 through $f: $(tail -n 1 conv.log)"; ok=0; }
    done
    [ $ok -eq 0 ] || echo "PASS formats roundtrip: nbs -> ${formats[*]} -> nbs the same bodies bit for bit (N = 1, 2, 31, 64, 257, 1000, 4099; system 1 of 3), and 5 steps from each file the same final state$([ $hdf5 -eq 1 ] || echo ' (HDF5 compiled out: tipsy only)')"

    "$foreign" . || { fail "foreign: tests/formats_foreign.c could not write its files"; return; }
    ok=1
    local files=(foreign-be.tipsy foreign-nopad.tipsy)
    [ $hdf5 -eq 1 ] && files+=(foreign.h5)
    for f in "${files[@]}"; do
        why=$(run -i "$f" -k 3 -o "out-$f.nbs") || { fail "foreign: a run from $f (written by hand): $why"; ok=0; continue; }
        "$conv" -q --to nbs "$f" "$f.nbs" 2> conv.log || { fail "foreign: nbconvert $f: $(tail -n 1 conv.log)"; ok=0; continue; }
        cmp -s <(arrays "$f.nbs") foreign.raw || { fail "foreign: $f read back other values than its writer's"; ok=0; }
    done
    if [ $hdf5 -eq 0 ]; then
        "$step" -q -i foreign-be.tipsy -o x.h5 --output-format hdf5 > /dev/null 2> h5.log
        local rc=$?
        [ $rc -eq 2 ] && [ "$(wc -l < h5.log)" -eq 1 ] && grep -q 'compiled out' h5.log ||
            { fail "foreign: without HDF5, --output-format hdf5 gave exit $rc: $(head -n 1 h5.log)"; ok=0; }
    fi
    [ $ok -eq 0 ] || echo "PASS formats foreign: ${files[*]}, written by hand, start a run and read back as written"
}

pynbody_part() {
    local dir=$1 venv=$2
    [ $hdf5 -eq 1 ] || { echo "SKIP pynbody: HDF5 is compiled out of this build (common/deps.sh hdf5)"; return; }
    if [ ! -f "$venv/.installed" ]; then
        rm -rf "$venv"
        local py
        py=$(command -v python3) || { echo "SKIP pynbody: no python3 here"; return; }
        if ! "$py" -m venv "$venv" > "$dir.venv.log" 2>&1; then
            echo "SKIP pynbody: python3 -m venv failed: $(tail -n 1 "$dir.venv.log") (Debian: apt-get install python3-venv)"
            rm -rf "$venv"; return
        fi
        echo "pynbody: installing pynbody and h5py from PyPI into $venv (once) ..." >&2
        if ! "$venv/bin/pip" install -q --disable-pip-version-check --retries 1 --timeout 20 pynbody h5py > "$dir.venv.log" 2>&1; then
            echo "SKIP pynbody: pip could not install pynbody and h5py: $(grep -m 1 '^ERROR' "$dir.venv.log" || tail -n 1 "$dir.venv.log")"
            rm -rf "$venv"; return
        fi
        touch "$venv/.installed"
    fi
    rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || die "cannot make $dir"
    local why
    why=$(run -n 50 --masses random -k 2 -o a.nbs) || { fail "pynbody: the first run: $why"; return; }
    "$conv" -q --to tipsy a.nbs a.tipsy 2> conv.log && "$conv" -q --to hdf5 a.nbs a.h5 2>> conv.log ||
        { fail "pynbody: nbconvert: $(tail -n 1 conv.log)"; return; }
    if ! "$venv/bin/python" "$here/tests/formats-pynbody.py" a.nbs a.tipsy a.h5 py.tipsy py.h5 > py.log 2>&1; then
        fail "pynbody: $(grep -v Warning py.log | grep -v '^ *warnings.warn' | tail -n 1)"; return
    fi
    local f ok=1
    for f in py.tipsy py.h5; do
        why=$(run -i "$f" -k 2 -o "out-$f.nbs") || { fail "pynbody: a run from $f: $why"; ok=0; continue; }
        "$conv" -q --to nbs "$f" "$f.nbs" 2> conv.log || { fail "pynbody: nbconvert $f: $(tail -n 1 conv.log)"; ok=0; continue; }
        same_bodies a.nbs "$f.nbs" || { fail "pynbody: $f (written by $( [ $f = py.tipsy ] && echo pynbody || echo h5py)) read back other bodies than a.nbs's"; ok=0; }
    done
    [ $ok -eq 0 ] || echo "PASS pynbody: $(tail -n 1 py.log); the lab runs from pynbody's tipsy and h5py's HDF5 files and reads the same bodies bit for bit"
}

case $mode in
roundtrip) roundtrip "$(realpath -m "$5")" "$(realpath "$4")" ;;
pynbody) pynbody_part "$(realpath -m "$4")" "$(realpath -m "$5")" ;;
esac
[ $fails -eq 0 ]
