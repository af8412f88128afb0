#!/usr/bin/env bash
# deterministic.sh TMPDIR PROGRAM...: every step program that takes --deterministic runs twice from the
# same bodies with --deterministic --output, validated, and the two final snapshots must be the same
# bytes (with atomic adds the last bits follow the schedule; with a fixed order they may not).
# Programs that refuse the option (they always sum in a fixed order) are passed over. Prints one line
# per program; exit status 0 when every one agreed (or SKIP: no GPU), 1 otherwise, 2 bad usage.
set -u
[ $# -ge 1 ] || { echo "usage: tests/deterministic.sh TMPDIR PROGRAM..." >&2; exit 2; }
tmp=$1
shift
if ! nvidia-smi -L 2> /dev/null | grep -q '^GPU'; then
    echo "SKIP deterministic: no GPU here"
    exit 0
fi
mkdir -p "$tmp" || exit 2
fails=0 ran=0
for prog in "$@"; do
    name=$(basename "$prog")
    [ -x "$prog" ] || { echo "FAIL deterministic $name: $prog is not built"; fails=$((fails + 1)); continue; }
    run=(-q -n 12289 -S 2 --model plummer --masses random --steps 4 --repeat 1 --deterministic)
    "$prog" "${run[@]}" -o "$tmp/$name-a.nbs" > "$tmp/$name-a.log" 2>&1
    rc=$?
    if [ $rc = 2 ] && grep -q 'always sums in a fixed order' "$tmp/$name-a.log"; then
        continue # a step without NB_FEATURE_DETERMINISTIC
    fi
    ran=$((ran + 1))
    "$prog" "${run[@]}" -o "$tmp/$name-b.nbs" > "$tmp/$name-b.log" 2>&1
    rb=$?
    if [ $rc != 0 ] || [ $rb != 0 ]; then
        echo "FAIL deterministic $name: exit status $rc and $rb: $(tail -n 1 "$tmp/$name-a.log" "$tmp/$name-b.log" | tr '\n' ' ')"
        fails=$((fails + 1))
    elif ! cmp -s "$tmp/$name-a.nbs" "$tmp/$name-b.nbs"; then
        echo "FAIL deterministic $name: two --deterministic runs wrote different snapshots ($(cmp "$tmp/$name-a.nbs" "$tmp/$name-b.nbs" | head -n 1))"
        fails=$((fails + 1))
    else
        echo "PASS deterministic $name: two --deterministic runs (N = 12289, S = 2, 4 steps, validated) wrote the same $(stat -c %s "$tmp/$name-a.nbs") bytes"
    fi
    rm -f "$tmp/$name-a.nbs" "$tmp/$name-b.nbs"
done
[ $ran -gt 0 ] || echo "SKIP deterministic: no program here takes --deterministic"
[ $fails = 0 ]
