#!/usr/bin/env bash
# ladder-check.sh GRADER WORK: the grader's ladder drawer on a results CSV assembled from recorded data, as
# report/plots/figures.sh assembles it, with no GPU here: --gpu-info (a recorded gpu.csv) gives the SM count,
# so each GPU step with a recorded instruction count gets its issue bound, the same number that
# report/query/ceiling.awk computes; a bad --gpu-info is one line on stderr with exit status 2.
# Prints one line per check; exits 1 if one failed, 2 on bad usage.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
[ $# -eq 2 ] || { echo "ladder-check.sh: usage: tests/ladder-check.sh GRADER WORK" >&2; exit 2; }
grader=$1 work=$2
[ -x "$grader" ] || { echo "ladder-check.sh: no grader at $grader (make $grader builds it)" >&2; exit 2; }
rm -rf "$work" && mkdir -p "$work/out" || { echo "ladder-check.sh: cannot make $work" >&2; exit 2; }
fails=0
pass() { echo "PASS ladder: $*"; }
fail() { echo "FAIL ladder: $*"; fails=$((fails + 1)); }

# One H100 recording: its ladder rows (steps 02-08, older than some of the header's columns), its SM count
# and its instruction counts.
rec=report/data/h100-2026-11-22
for f in ladder.csv instructions.csv gpu.csv; do
    [ -s "$rec/$f" ] || { echo "SKIP ladder: no $rec/$f in this copy"; exit 0; }
done
csv=$work/ladder.csv
"$grader" --results-header > "$csv" &&
    awk -f report/query/pick.awk -v cols="$(cat "$csv")" -v where='tag=ladder;bodies=65536' -v need=kernel_s \
        -v key=step -v absent=empty "$rec/ladder.csv" >> "$csv" ||
    { echo "ladder-check.sh: cannot assemble $csv" >&2; exit 2; }
"$grader" --plot "$csv" --out "$work/out" --probe /nonexistent --instructions "$rec/instructions.csv" \
    --gpu-info "$rec/gpu.csv" > "$work/plot.log" 2>&1
rc=$?
dat=$work/out/ladder.dat
# ladder.dat: x "label" G_int/s "speedup" gpu own_issue_bound "value"; labels hold no quotes or commas.
bound=$(awk -F'"' 'NR > 1 && $2 ~ /^02 / { split($5, f, " "); print f[2] }' "$dat" 2>/dev/null)
if [[ $bound =~ ^[0-9.]+(e[-+]?[0-9]+)?$ ]]; then
    pass "--gpu-info $rec/gpu.csv: step 02's own issue bound is $bound G int/s"
else
    fail "--gpu-info $rec/gpu.csv: step 02's own_issue_bound in $dat is '$bound', not a number (exit $rc: $(tail -n 1 "$work/plot.log"))"
fi
# The same formula: ceiling.awk on the same row and the same recorded files.
want=$(awk -f report/query/pick.awk -v header=1 -v cols=step,name,build,bodies,ginteractions_s,clock_mhz,device,gpus \
           -v where='step=02' -v need=clock_mhz "$csv" |
       awk -f report/query/ceiling.awk "$rec/gpu.csv" "$rec/instructions.csv" - | awk -F, '{ print $9 }')
if [ -n "$want" ] && awk -v a="$bound" -v b="$want" 'BEGIN { exit !(a > 0 && (a - b) ^ 2 < (1e-5 * b) ^ 2) }'; then
    pass "the drawn bound is ceiling.awk's ($want G int/s)"
else
    fail "the drawn bound '$bound' is not ceiling.awk's '$want'"
fi
if grep -q 'title_text = "The N-body ladder: N = 65536, S = 1 (recorded sweeps, commit 9becd57b5f15)"' "$work/out/ladder-vars.gp"; then
    pass "the title names the rows' source and commit, not make grade"
else
    fail "the title: $(grep title_text "$work/out/ladder-vars.gp")"
fi
if ! command -v gnuplot > /dev/null 2>&1; then
    echo "SKIP ladder: no gnuplot here: ladder.png not drawn (bash common/deps.sh gnuplot installs it)"
elif [ $rc -eq 0 ] && [ -s "$work/out/ladder.png" ] && [ -s "$work/out/ladder.svg" ]; then
    pass "ladder.png and ladder.svg drawn"
else
    fail "no ladder.png/.svg (exit $rc): $(tail -n 1 "$work/plot.log")"
fi

# A bad --gpu-info: one line on stderr, exit 2, nothing drawn.
for bad in "$work/missing.csv" "$rec/instructions.csv"; do
    rm -rf "$work/bad"
    err=$("$grader" --plot "$csv" --out "$work/bad" --gpu-info "$bad" 2>&1 > /dev/null)
    rc=$?
    if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [ -n "$err" ] && [ ! -e "$work/bad" ]; then
        pass "--gpu-info $bad -> exit 2: $err"
    else
        fail "--gpu-info $bad: exit $rc, not 2 with one line (or it made $work/bad): $err"
    fi
done
[ $fails -eq 0 ] || exit 1
