#!/usr/bin/env bash
# blockcap.sh OUT: step13 with its finest level capped, against step12 at dt 1/1280, about the black hole
# (hernquist-bh, eps 0.0025), in one GPU call (about 8 minutes for the two default schemes on an H200): for
# each scheme LEVELS:DTMAX:ETA of BLOCKCAP_SCHEMES, the relative energy error at t = 1 over the draws of
# BLOCKCAP_SEEDS (N = BLOCKCAP_ENERGY_N, 131072) and the time to t = 1 at 1 M and at 8 M (the first seed).
# step12 runs once at each size, with the first scheme; its rows are copied into every scheme's CSV, since
# the table pairs a step13 time with the step12 time of its own file (report/query/blockseeds.awk) and all
# ran in this call. With BLOCKCAP_DRAWS12=1 step12 at each step of BLOCKCAP_DT12S takes every draw too
# (with the first scheme), for a comparison of the two errors over many draws (report/tables/tables.sh's
# blockdraws table).
#
# Leaves, per scheme, OUT/blockcap-L<LEVELS>dt<DTMAX>-<BLOCKCAP_TAG>[-eta<ETA>].csv (the judge's rows),
# ...-energy.csv (build/tools/diag's) and ...-levels.csv and .log; the names say the scheme the way
# report/tables/tables.sh's blockcap table reads it (add them to its blockcap_files). OUT/blockcap.tgz holds
# them all, packed again after every run, so a call cut short still returns what had finished.
#   BLOCKCAP_SCHEMES="7:20:0.125 8:20:0.125"  BLOCKCAP_TAG=cap (a word: what the names say besides the
#   scheme)  BLOCKCAP_BIG=1 (0: no 8 M runs)  BLOCKCAP_SEEDS="42 1 2"  BLOCKCAP_DRAWS12=0
#   BLOCKCAP_ENERGY_N=131072 (more: the energies by build/tools/diag-gpu, seconds a run at 1 M; at
#   1048576 report/tables/tables.sh's blockequal tables read them, add the files to its blockequal_files)
#   BLOCKCAP_DT12S=1280 (with BLOCKCAP_DRAWS12=1: step12's steps 1/k over the draws)
#   COMMIT=... (as report/sweeps/blocksteps.sh)
set -u -o pipefail
[ $# -eq 1 ] && [ "${1#-}" = "$1" ] || { echo "usage: report/sweeps/blockcap.sh OUT" >&2; exit 2; }
mkdir -p "$1" || { echo "blockcap.sh: cannot create $1" >&2; exit 2; }
out=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.." || exit 2
schemes=${BLOCKCAP_SCHEMES:-7:20:0.125 8:20:0.125}
tag=${BLOCKCAP_TAG:-cap}
big=${BLOCKCAP_BIG:-1}
seeds=${BLOCKCAP_SEEDS:-42 1 2}
draws12=${BLOCKCAP_DRAWS12:-0}
energy_n=${BLOCKCAP_ENERGY_N:-131072}
dt12s=${BLOCKCAP_DT12S:-1280}
[[ $tag =~ ^[a-z0-9]+$ ]] || { echo "blockcap.sh: BLOCKCAP_TAG '$tag': letters and digits only" >&2; exit 2; }
[[ $big =~ ^[01]$ ]] || { echo "blockcap.sh: BLOCKCAP_BIG '$big': 0 or 1" >&2; exit 2; }
[[ $draws12 =~ ^[01]$ ]] || { echo "blockcap.sh: BLOCKCAP_DRAWS12 '$draws12': 0 or 1" >&2; exit 2; }
[[ $dt12s =~ ^[[:space:]]*[1-9][0-9]*([[:space:]]+[1-9][0-9]*)*[[:space:]]*$ ]] ||
    { echo "blockcap.sh: BLOCKCAP_DT12S '$dt12s': whole numbers k (steps 1/k), separated by spaces" >&2; exit 2; }
[[ $energy_n =~ ^[1-9][0-9]*$ ]] || { echo "blockcap.sh: BLOCKCAP_ENERGY_N '$energy_n': a whole number from 1" >&2; exit 2; }
[[ $seeds =~ ^[[:space:]]*[0-9]+([[:space:]]+[0-9]+)*[[:space:]]*$ ]] ||
    { echo "blockcap.sh: BLOCKCAP_SEEDS '$seeds': whole numbers, separated by spaces" >&2; exit 2; }
[ "$(printf '%s\n' $seeds | sort | uniq -d)" = "" ] || { echo "blockcap.sh: BLOCKCAP_SEEDS '$seeds': a seed twice" >&2; exit 2; }
[ -n "${schemes//[[:space:]]/}" ] || { echo "blockcap.sh: BLOCKCAP_SCHEMES is empty" >&2; exit 2; }
for s in $schemes; do
    [[ $s =~ ^[1-9][0-9]?:[1-9][0-9]*:[0-9.]+$ ]] ||
        { echo "blockcap.sh: scheme '$s' is not LEVELS:DTMAX:ETA (e.g. 7:20:0.125)" >&2; exit 2; }
done

work=$out/work
mkdir -p "$work"
# packed into work/ first: a tar that writes into the folder it reads sees the folder change
pack() { (cd "$out" && tar czf work/blockcap.tgz --exclude=work --exclude=blockcap.tgz . && mv work/blockcap.tgz .); }
fails=0
first=1
for s in $schemes; do
    IFS=: read -r levels dtmax eta <<< "$s"
    name=blockcap-L${levels}dt$dtmax-$tag
    [ "$eta" = 0.125 ] || name=$name-eta${eta//./}
    common=(BS_MODEL=hernquist-bh BS_EPS=0.0025 BS_TIMING=call BS_LEVELS="$levels" BS_DTMAX="$dtmax" BS_DT12=" "
        BS_ETAS="$eta" BS_TIME_ETAS="$eta" BS_BIG_ETAS="$eta" BS_LEVEL_ETAS="$eta" BS_ENERGY_N="$energy_n")
    [ "$energy_n" -gt 131072 ] && common+=(BS_DIAG=gpu)
    # step12 at 1/1280 with the first scheme only (" ": none)
    if [ $first = 1 ]; then dt12=1280; else dt12=" "; fi
    energy12=" "
    [ $first = 1 ] && [ "$draws12" = 1 ] && energy12=$dt12s
    phases="energy time levels"
    [ "$big" = 1 ] && phases="$phases big"
    runs=()
    for seed in $seeds; do runs+=("$seed:energy"); done
    runs[0]="${runs[0]%%:*}:$phases" # the times with the first draw
    for r in "${runs[@]}"; do
        seed=${r%%:*}
        dir=$work/$name-seed$seed
        env "${common[@]}" BS_SEED="$seed" BS_PHASES="${r#*:}" BS_TIME_DT12="$dt12" BS_BIG_DT12="$dt12" BS_DT12="$energy12" \
            bash report/sweeps/blocksteps.sh "$dir" > /dev/null 2>&1 || fails=$((fails + 1))
        grep -h "FAIL\|relative energy error\|^[18]M-s1" "$dir/blocksteps.log" | sed "s|^|$name seed $seed: |"
        # the scheme's files: the runs' rows under one header each, the logs one after the other
        for kind in .csv -energy.csv -levels.csv; do
            f=$dir/blocksteps$kind
            [ -s "$f" ] || continue
            if [ -s "$out/$name$kind" ]; then tail -n +2 "$f" >> "$out/$name$kind"; else cp "$f" "$out/$name$kind"; fi
        done
        cat "$dir/blocksteps.log" >> "$out/$name.log"
        pack
    done
    if [ $first = 1 ]; then
        step12_rows=$(grep -h ',bs-[18]M-s12-' "$out/$name.csv")
        first=0
    elif [ -n "${step12_rows:-}" ] && [ -s "$out/$name.csv" ]; then
        printf '%s\n' "$step12_rows" >> "$out/$name.csv"
        pack
    fi
done
echo "blockcap.sh: done, $fails failed sweep runs; files in $out (and blockcap.tgz)"
[ $fails = 0 ]
