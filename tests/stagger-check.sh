#!/usr/bin/env bash
# tests/stagger-check.sh DIR STAGGER DIAG STEP...: report/tools/stagger sets a drawn state half a step back.
# A sphere about a black hole (N = 2048) drawn with a tiny dt, kicked one step of dt = 1 by the first CPU
# step written, staggered for dt = 1/16: diag must find the staggered file's energy (its velocities synced
# by half a dt) the drawn one's to 1e-6, where the plain copy (the drawn velocities read as v(-dt/2)) is
# off by percents. Bad inputs: one line, exit 2, no file. SKIP where no CPU step is written (a handout).
# With DIAG_GPU (build/tools/diag-gpu) and a GPU: its table is diag's, byte for byte, for these files and
# for three systems of 1000 bodies (the pair sums' tiles end mid-system).
set -u -o pipefail
[ $# -ge 3 ] || { echo "usage: tests/stagger-check.sh DIR STAGGER DIAG STEP..." >&2; exit 2; }
dir=$1 stagger=$2 diag=$3
shift 3
[ $# -ge 1 ] || { echo "SKIP stagger: no CPU step written to draw and kick a sphere with"; exit 0; }
step=$1
rm -rf "$dir" && mkdir -p "$dir" || exit 2
fail() { echo "FAIL stagger: $*"; exit 1; }
"$step" -q --model hernquist-bh -n 2048 --steps 0 --validate off --dt 1e-9 --eps 0.0025 -o "$dir/sync.nbs" ||
    fail "drawing the sphere"
"$step" -q -i "$dir/sync.nbs" --steps 1 --dt 1 --validate off -o "$dir/kicked.nbs" || fail "kicking it"
"$step" -q -i "$dir/sync.nbs" --steps 0 --dt 0.0625 --validate off -o "$dir/plain.nbs" || fail "copying it"
"$stagger" 0.0625 "$dir/sync.nbs" "$dir/kicked.nbs" "$dir/staggered.nbs" || fail "stagger refused good input"
# diag's rows: the drawn sphere, then each file's relative energy error against it (column 11).
errors=$("$diag" --no-header "$dir/sync.nbs" "$dir/staggered.nbs" "$dir/plain.nbs" | awk -F, 'NR > 1 { print $11 }')
read -r staggered plain <<< "$(echo $errors)"
awk -v s="$staggered" -v p="$plain" 'BEGIN { exit !((s < 0 ? -s : s) < 1e-6 && (p < 0 ? -p : p) > 1e-2) }' ||
    fail "energy off the drawn sphere's by $staggered staggered (wanted < 1e-6) and $plain copied (wanted > 1e-2)"
for bad in "abc $dir/sync.nbs $dir/kicked.nbs" "0 $dir/sync.nbs $dir/kicked.nbs" "0.0625 $dir/sync.nbs $dir/sync.nbs" \
    "0.0625 $dir/sync.nbs $dir/nothing.nbs" "0.0625 $dir/sync.nbs"; do
    # shellcheck disable=SC2086
    msg=$("$stagger" $bad "$dir/bad.nbs" 2>&1 >/dev/null)
    rc=$?
    [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$msg" | wc -l)" -eq 1 ] && [ ! -e "$dir/bad.nbs" ] ||
        fail "stagger $bad OUT: exit $rc, '$msg' (wanted exit 2, one line, no file)"
done
gpu_note="diag-gpu not built"
if [ -n "${DIAG_GPU:-}" ] && ! nvidia-smi -L 2> /dev/null | grep -q '^GPU'; then
    gpu_note="diag-gpu not run: no GPU here"
elif [ -n "${DIAG_GPU:-}" ]; then
    "$step" -q --model plummer --masses random -n 1000 -S 3 --steps 2 --dt 0.01 --validate off -o "$dir/three.nbs" ||
        fail "running three systems"
    for files in "$dir/sync.nbs $dir/staggered.nbs $dir/plain.nbs" "$dir/three.nbs $dir/three.nbs"; do
        # shellcheck disable=SC2086
        if ! "$diag" --label same $files > "$dir/diag.csv" || ! "$DIAG_GPU" --label same $files > "$dir/diag-gpu.csv"; then
            fail "diag or diag-gpu refused $files"
        fi
        cmp -s "$dir/diag.csv" "$dir/diag-gpu.csv" || fail "diag-gpu's table is not diag's for $files: $(diff "$dir/diag.csv" "$dir/diag-gpu.csv" | head -n 3 | tr '\n' ' ')"
    done
    gpu_note="diag-gpu's tables are diag's, byte for byte"
fi
echo "PASS stagger: the staggered start's energy is the drawn sphere's to $staggered (the plain copy's: $plain); 5 bad inputs refused; $gpu_note"
