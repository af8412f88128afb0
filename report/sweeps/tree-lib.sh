# tree-lib.sh: what report/sweeps/treecode.sh and multipole.sh share (sourced). They set `csv` (the run's
# results CSV), `cache` (the reference cache), `tag_prefix` (their rows' tags) and `fails`, which timed,
# validate_grid and energy_runs count up.

# row: the last run of $csv in one line (columns by name).
row() { awk -F, -v fmt="%-18s N=%-9s steps=%-4s %10.3f ms/step  rms %.2e  max %.2e  %s\n" 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i } { last = $0 } END { split(last, f, ","); printf fmt, f[c["name"]], f[c["bodies"]], f[c["steps"]], 1e3 * f[c["kernel_s"]] / f[c["steps"]], f[c["acc_rms"]], f[c["acc_max"]], f[c["config"]] }' "$csv"; } # columns by name

# timed LABEL EXE ARGS...: one validated, timed run appending to $csv, tagged $tag_prefix-LABEL.
timed() {
    local label=$1 exe=$2 line
    shift 2
    if line=$("$exe" -q --csv "$csv" --tag "$tag_prefix-$label" --ref-cache "$cache" "$@" 2>&1); then row; else
        echo "FAIL $label $*: $(echo "$line" | tail -n 2 | tr '\n' ' ')"
        fails=$((fails + 1))
    fi
}

# energy_runs CSV "LABEL EXE [ARGS...]"...: each run 1000 steps of a Plummer sphere of 16384 bodies with a
# snapshot every 100, its energy through build/tools/diag appended to CSV, the relative error printed.
energy_runs() {
    local csv_out=$1 r label exe args dir opt
    shift
    for r in "$@"; do
        read -r label exe args <<< "$r"
        dir=build/energy-$label
        rm -rf "$dir" && mkdir -p "$dir"
        # shellcheck disable=SC2086
        $exe -q --validate off -n 16384 -k 1000 -r 1 --snapshot-every 100 --snapshot-dir "$dir" $args >/dev/null 2>&1 ||
            { echo "FAIL energy run $label"; fails=$((fails + 1)); continue; }
        opt=()
        [ -s "$csv_out" ] && opt=(--no-header)
        build/tools/diag "${opt[@]}" --label "$label" "$dir"/snap-*.nbs >> "$csv_out" ||
            { echo "FAIL diag $label"; fails=$((fails + 1)); }
        awk -F, -v l="$label" '$1 == l { e = $11 } END { printf "%-17s relative energy error after 1000 steps: %.3e\n", l, e }' "$csv_out"
    done
}

# validate_grid EXE THETA: EXE --validate-only at the grader's sizes (a grid at the default theta, spot
# checks at N = 4099 and 16384 at others), S = 1 and 3, two models; each failure printed and counted.
validate_grid() {
    local exe=$1 theta=$2 sizes="1 2 31 257 1000 4099 16384" n sys mm line
    [ "$theta" = 0.35 ] || sizes="4099 16384"
    for n in $sizes; do
        for sys in 1 3; do
            for mm in "--model plummer --masses equal" "--model uniform --masses random"; do
                # shellcheck disable=SC2086
                if ! line=$($exe --validate-only --ref-cache "$cache" -n "$n" -S "$sys" $mm --theta "$theta" 2>&1); then
                    echo "FAIL theta=$theta -n $n -S $sys $mm:"
                    echo "$line" | tail -n 6
                    fails=$((fails + 1))
                fi
            done
        done
    done
}
