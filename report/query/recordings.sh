#!/usr/bin/env bash
# recordings.sh DATA NAME...: the recorded files DATA/REC/NAME that exist, lowest priority first, on one
# line. Recordings: DATA itself, then DATA/cpu (the development machine), then imported ones
# (DATA/<machine>-<YYYY-MM-DD>, older dates first), then DATA/gpu (what `make report` records on a GPU
# machine). Readers keep the last row of each key (report/query/pick.awk -v key=...), so a recording later
# in this order replaces an earlier one's rows, and one that lacks a file leaves the earlier ones.
set -u
data=${1:?usage: recordings.sh DATA NAME...}
shift
recs=$( { echo "0 ."; echo "1 cpu"
          for d in "$data"/*/; do
              r=$(basename "$d")
              case $r in cpu | gpu) continue ;; esac
              day=$(printf '%s\n' "$r" | grep -oE '[0-9]{4}-[0-9]{2}-[0-9]{2}$' || echo 0000-00-00)
              echo "2 $day $r"
          done
          echo "3 gpu"; } | sort -k1,1n -k2,2 -k3,3 | awk '{ print $NF }')
out=""
for r in $recs; do
    for name in "$@"; do
        f=$data/$r/$name
        [ "$r" = . ] && f=$data/$name
        [ -s "$f" ] && out="$out $f"
    done
done
echo "${out# }"
