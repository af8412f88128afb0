#!/usr/bin/env bash
# tables.sh: rewrite the generated sections of report/REPORT.md, README.md and the lessons from the
# recorded CSVs. A section is everything between "<!-- BEGIN name ..." and "<!-- END name -->";
# nothing else in the files is touched. What each section shows is its spec in
# report/tables/sections.spec (which recordings, which rows, what it says when there are none, the
# line under it); its table is drawn by report/tables/render.awk. Every number comes from a CSV and
# is printed with the device, date and commit of its rows; where nothing is recorded, the section says so.
set -u -o pipefail
cd "$(dirname "$0")/../.." || exit 2
data=${REPORT_DATA:-report/data}
report=${REPORT_MD:-report/REPORT.md}
readme=${README_MD:-README.md}
lessons=${LESSONS_DIR:-.} # where the step folders' lesson READMEs are (report/tables/tables-check.sh points it elsewhere)
specs=report/tables/sections.spec
# The ladder's N: lab.conf's GRADE_N, its one home (the environment's is a grade's, not the recordings').
. grading/lab-conf.sh
ladder_n=$(lab_conf_file GRADE_N)
[ -n "$ladder_n" ] || { echo "tables: lab.conf has no GRADE_N" >&2; exit 2; }
pick() { awk -f report/query/pick.awk "$@"; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
# The registry, as the renderers read it: id, from, check, summary, tab-separated (common/steps.sh).
. common/steps.sh
registry_ids id from check summary > "$tmp/registry" || exit 2
render() { awk -f report/tables/render.awk -v registry="$tmp/registry" -v ladder="$tmp/ladder" "$@"; }

# The recorded files of those names, lowest priority first (report/query/recordings.sh); readers keep the
# last row of each key, so a later recording's row replaces an earlier one's. find_file: the last.
files() { bash report/query/recordings.sh "$data" "$@"; }
find_file() { local f; f=$(files "$@"); [ -n "$f" ] && echo "${f##* }"; }

# "device (date, commit `c`)" of the rows of FILES that WHERE selects and KEY keeps, one per device and day.
origin_of() {
    local where=$1 key=$2
    shift 2
    [ $# -gt 0 ] || return 0
    pick -v cols="device,date,commit,$key" -v where="$where" -v need=kernel_s -v key="$key" "$@" 2>/dev/null |
        awk -F, '{ k = $1 " (" substr($2, 1, 10) ", commit `" $3 "`)"; if (!seen[k]++) s = s (s == "" ? "" : "; ") k } END { printf "%s", s }'
}

# Replace the section NAME of FILE with the contents of stdin.
replace_section() {
    local file=$1 name=$2 body=$tmp/body
    cat > "$body"
    if ! grep -q "^<!-- BEGIN $name[ >-]" "$file" || ! grep -q "^<!-- END $name -->" "$file"; then
        echo "tables: $file has no section '$name' (<!-- BEGIN $name ... --> ... <!-- END $name -->)" >&2
        return 1
    fi
    awk -v name="$name" -v body="$body" '
        $0 ~ "^<!-- BEGIN " name "[ >-]" { print; while ((getline line < body) > 0) print line; skip = 1; next }
        $0 == "<!-- END " name " -->" { skip = 0 }
        !skip { print }' "$file" > "$tmp/new" && cat "$tmp/new" > "$file"
}

none() { printf '_%s_\n' "$1"; }

# ---- the specs: spec[NAME.FIELD] ---------------------------------------------------------------------
declare -A spec
sections=()
while IFS= read -r line; do
    [[ $line =~ ^[[:space:]]*(#|$) ]] && continue
    if [[ $line =~ ^(section|part)\ +([a-z0-9-]+)$ ]]; then
        cur=${BASH_REMATCH[2]}
        [ "${BASH_REMATCH[1]}" = section ] && sections+=("$cur")
    elif [[ $line =~ ^[[:space:]]+([a-z+-]+)[[:space:]]+(.*)$ ]] && [ -n "${cur:-}" ]; then
        spec[$cur.${BASH_REMATCH[1]}]=${BASH_REMATCH[2]//@LADDER_N@/$ladder_n} # the spec's @LADDER_N@: lab.conf's
    else
        echo "tables: $specs: cannot read '$line'" >&2
        exit 2
    fi
done < "$specs"

# The spec being shown: S, its files F (resolved by use), and its fields.
S='' F=()
field() { printf '%s' "${spec[$S.$1]-}"; }
use() { # SPEC: make it the one being shown, its recorded files in F
    local n f
    S=$1 F=()
    [ -n "$(field files)" ] && read -r -a F <<< "$(files $(field files))"
    for n in $(field latest); do f=$(find_file "$n") && F+=("$f"); done
}
has_data() {
    [ ${#F[@]} -gt 0 ] || return 1
    [ "$(field rows)" != yes ] || [ -n "$(pick -v cols=tag -v where="$(field where)" "${F[@]}")" ]
}
# The helpers a note calls (sections.spec says what each does).
origin() { # KEY [WHERE [NAME...]]
    local key=$1 where=${2-$(field where)} n f fs=()
    if [ $# -gt 2 ]; then
        shift 2
        for n in "$@"; do f=$(find_file "$n") && fs+=("$f"); done
    else
        fs=("${F[@]}")
    fi
    origin_of "$where" "$key" "${fs[@]}"
}
quoted() { # SEP [NAME...]
    local sep=$1 fs=("${F[@]}")
    shift
    [ $# -gt 0 ] && read -r -a fs <<< "$(files "$@")"
    printf '`%s`'"$sep" "${fs[@]}" | sed "s/$sep\$//"
}
first() { pick -v cols="$1" -v where="$(field where)" "${F[@]}" | head -n 1; }
cell() { awk -F, -v r="$1" -v c="$2" 'NR == r { print $c }' "$(find_file "$3")"; }
expand() { # TEXT: its $(...) run, everything else as written
    local t=$1
    t=${t//\\/\\\\} t=${t//\`/\\\`} t=${t//\"/\\\"}
    eval "printf '%s' \"$t\""
}
# The lines a warn field may add.
no_gpu_rows() { [ "$(awk -F, '$1 + 0 >= 2' "$tmp/ladder" | wc -l)" = 0 ]; }
one_gpu_only() { local g; g=$(pick -v cols=gpus -v where="$(field where)" "${F[@]}" | sort -n | tail -n 1); ! [ "${g:-0}" -ge 2 ] 2> /dev/null; }

table() { # the rows of spec S through its sort and pipe, drawn by its renderer
    local rows=$tmp/rows-$S
    pick -v cols="$(field cols)" -v where="$(field where)" -v need="$(field need)" -v key="$(field key)" \
        -v header="$(field header)" "${F[@]}" > "$rows"
    if [ -n "$(field sort)" ]; then sort $(field sort) "$rows" > "$rows.s" && mv "$rows.s" "$rows"; fi
    if [ -n "$(field pipe)" ]; then eval "$(field pipe)" < "$rows" > "$rows.p" && mv "$rows.p" "$rows"; fi
    [ -n "$(field save)" ] && cp "$rows" "$tmp/$(field save)"
    local name
    name=$(field table)
    render -v table="${name:-$S}" -v rates="$rows" -v head="$(field head)" -v align="$(field align)" -v rowfmt="$(field row)" < "$rows" ||
        { echo "tables: section $S: $rows did not render" >&2; return 1; }
}

body() { # SPEC: the section's lines
    use "$1"
    if [ -n "$(field like)" ]; then cat "$tmp/body-$(field like)"; return; fi
    if [ -n "$(field shell)" ]; then "$(field shell)"; return; fi
    local other empty n w
    if ! has_data; then
        other=$(field else) empty=$(field empty)
        if [ -n "$other" ] && use "$other" && has_data; then body "$other"; return; fi
        none "$empty"
        return
    fi
    for n in $(field also); do
        [ -n "$(files "$n")" ] || { none "$(field also-empty)"; return; }
    done
    [ -n "$(field lead)" ] && { none "$(field lead)"; echo; }
    table || return 1
    if [ -n "$(field note+)" ]; then
        echo " $(expand "$(field note+)")"
    elif [ -n "$(field note)" ]; then
        echo
        w=$(field warn)
        if [ -n "$w" ] && ${w%% *}; then none "${w#* }"; echo; fi
        expand "$(field note)"
        echo
    fi
    if [ -n "$(field then)" ]; then
        echo
        use "$(field then)"
        table || return 1
    fi
    return 0
}

section() { # NAME: its body, with the lines around it, into its file
    local name=$1 file=$report
    body "$name" > "$tmp/body-$name" || return 1
    S=$name
    [ "$(field into)" = readme ] && file=$readme
    {
        echo
        [ -n "$(field above)" ] && { echo "$(field above)"; echo; }
        cat "$tmp/body-$name"
        [ -n "$(field below)" ] && { echo; echo "$(field below)"; }
        echo
    } > "$tmp/sec-$name"
    # into lesson: only the lessons show it (their measured block, or <!-- BEGIN report-NAME -->), once
    [ "$(field into)" = lesson ] && return 0
    replace_section "$file" "$name" < "$tmp/sec-$name"
}

machines_block() {
    local m any=0
    [ -s "$data/PROVENANCE.md" ] && echo "Where each recording comes from: [report/data/PROVENANCE.md](data/PROVENANCE.md)." && echo
    # each machine.txt once, by a link and the hosts it names (the file holds the dates, compilers, loads)
    for m in $(files machine.txt); do
        any=1
        printf -- '- [`%s`](%s): %s\n' "$m" "${m#report/}" \
            "$(awk -F': ' '$1 == "host cpu" && !seen[$2]++ { printf "%s%s", (n++ ? ", " : ""), $2 }
            END { if (!n) { getline l < FILENAME; printf "%s", l } }' "$m")"
    done
    [ $any = 1 ] && echo
    [ $any = 1 ] || none "no recordings yet"
}

# "device (date, commit `c`)" of report/query/blocksteps.awk's rows on stdin, one per device, day and commit.
blocksteps_origin() {
    awk -F, '{ k = $8 " (" $9 ", commit `" $10 "`)"; if (!(k in s)) { s[k] = 1; o = o (o ? "; " : "") k } } END { print o }'
}

# step13 against step12 (report/query/blocksteps.awk): each run of the energy study, at each softening.
# The files it joins, report/plots/blocksteps.gp's too (it reads this line).
# About the hole, only the runs from the drawn sphere (-bhs-: every start set half its own step back); the
# earlier -bh- runs began from a sphere kicked by half a dt_max (PROVENANCE.md), and stay out.
blocksteps_files="blocksteps-energy.csv blocksteps-eps0.0025-energy.csv blocksteps-bhs-energy.csv blocksteps.csv blocksteps-eps0.0025.csv blocksteps-bhs.csv"
blocksteps_block() {
    local src rows
    # shellcheck disable=SC2086 # a list of names, split on purpose
    src=$(files $blocksteps_files)
    # shellcheck disable=SC2086
    [ -n "$src" ] && rows=$(awk -f report/query/blocksteps.awk $src)
    [ -n "${rows:-}" ] || { none "no recorded block-step study yet (report/sweeps/blocksteps.sh on a GPU machine)"; return; }
    echo "| ε | step | its step | time to t = 1 (s) | \|ΔE/E\| at t = 1 | under 1e-4 | device |"
    echo "|--:|---|---|--:|--:|---|---|"
    awk -F, '{ printf "| %s | step%s | %s %s | %.3g | %s | %s | %s |\n", $2, $1, ($3 == "dt" ? "dt" : "η"), $4, $6, $7,
        ($7 + 0 <= 1e-4 ? "yes" : "no"), $8 }' <<< "$rows"
    echo
    printf 'N = %s, Hernquist (a = 1/3; "+ hole": about a black hole of 1 %% of the mass), t = 0 to 1; step13 at dt_max = 1/16 with 8 levels (12 about the hole); the error of the final state against the start, fp64 (build/tools/diag). The runs without the hole began from the kicked start (below, "Where every run starts"). Recorded: %s.\n' \
        "$(cut -d, -f5 <<< "$rows" | sort -u | tr '\n' ' ' | sed 's/ $//')" \
        "$(blocksteps_origin <<< "$rows")"
}

# step13's levels (blocksteps-levels.csv, blocksteps-big-levels.csv): of each run, its k-step call's rows
# (the second of the judge's three calls: warm-up, k, 2k), per dt_max step.
blocklevels_block() {
    local src
    src=$(files blocksteps-levels.csv blocksteps-big-levels.csv blocksteps-bhs-levels.csv)
    [ -n "$src" ] || { none "no recorded level histogram yet (report/sweeps/blocksteps.sh levels and big phases)"; return; }
    echo "| run | level | its step | bodies | force evaluations a dt_max step | ms a dt_max step |"
    echo "|---|--:|--:|--:|--:|--:|"
    # shellcheck disable=SC2086
    awk -F, 'FNR == 1 { next } $2 == "0" { call[$1]++ } call[$1] == 2 && $2 != "close" && $4 + 0 > 0 {
        printf "| %s | %s | 1/%d | %.2f %% | %.0f | %.2f |\n", $1, $2, 1 / $3 + 0.5, $4, $6 / 16, $8 / 16 }' $src
    echo
    echo "A run's k-step call: 16 steps of dt_max = 1/16 (t = 0 to 1), every substep timed alone (a -DLEVEL_REPORT build, so the sum is above the timed runs'); \"evaluations\": the active bodies' forces, level 0's all N at each step's start."
}

# step13 against step12 on the sphere with a black hole (blocksteps-bhs.csv: the judge's rows of the time
# phase at 1 M and the big phase at 8 M; blocksteps-bhs-energy.csv: diag's, at 131072), joined by
# report/query/blocksteps.awk: each run's time to t = 1 beside its energy error, and step13's speedup over
# step12's fastest shared dt under 1e-4 at the same N.
blockhole_block() {
    local src rows big
    src=$(files blocksteps-bhs-energy.csv blocksteps-bhs.csv)
    # shellcheck disable=SC2086
    [ -n "$src" ] && rows=$(awk -v runs=1M- -f report/query/blocksteps.awk $src | awk -F, '$2 ~ /hole/') &&
        big=$(awk -v runs=8M- -f report/query/blocksteps.awk $src | awk -F, '$2 ~ /hole/')
    [ -n "${rows:-}" ] || { none "no recorded block-step study of the sphere with a black hole yet (report/sweeps/blocksteps.sh, BS_MODEL=hernquist-bh)"; return; }
    echo "| step | its step | \|ΔE/E\| at t = 1, N = 131072 | under 1e-4 | time to t = 1, N = 1 M (s) | speedup | N = 8 M (s) | speedup |"
    echo "|---|---|--:|---|--:|--:|--:|--:|"
    # The 8 M rows first (file 1: step, param, value -> time), then the 1 M rows with them.
    awk -F, 'FNR == 1 { ++file } file == 1 { t8[$1 FS $3 FS $4] = $6; next }
        { l[++n] = $0; if ($1 == 12 && $7 <= 1e-4) { if (best == "" || $6 < best) best = $6
            k = $1 FS $3 FS $4; if ((k in t8) && (best8 == "" || t8[k] < best8)) best8 = t8[k] } }
        END { for (i = 1; i <= n; ++i) { split(l[i], f, ","); k = f[1] FS f[3] FS f[4]; ok = f[7] + 0 <= 1e-4
            printf "| step%s | %s %s | %s | %s | %.3g | %s | %s | %s |\n", f[1], (f[3] == "dt" ? "dt" : "η"), f[4], f[7],
                (ok ? "yes" : "no"), f[6], (f[1] == 13 && ok && best > 0) ? sprintf("%.2f×", best / f[6]) : "",
                (k in t8) ? sprintf("%.3g", t8[k]) : "", (f[1] == 13 && ok && (k in t8) && best8 > 0) ? sprintf("%.2f×", best8 / t8[k]) : "" } }' \
        <(printf '%s\n' "${big:-}") - <<< "$rows"
    echo
    printf 'step13 at dt_max = 1/16 with 12 levels, its levels held for each dt_max step (the scheme before bodies could go finer inside one). The error of the final state against the start, fp64 (build/tools/diag), at N = 131072; a speedup is over the fastest step12 run under 1e-4 at the same N. Recorded: %s.\n' \
        "$(blocksteps_origin <<< "$rows")"
}

# step13 against step12 about the hole over three draws of the sphere (report/query/blockseeds.awk): each
# run's energy error at every seed, the largest, and its time to t = 1 at 1 M; a speedup is over the fastest
# step12 whose largest error is under 1e-4, for a step13 run whose largest is too.
# seed_rows SEEDS NAME...: report/query/blockseeds.awk's rows over the recorded files of these names (none: nothing)
seed_rows() {
    local seeds=$1 src
    shift
    src=$(files "$@")
    # shellcheck disable=SC2086 # a list of names, split on purpose
    [ -z "$src" ] || awk -v seeds="$seeds" -f report/query/blockruns.awk -f report/query/blockseeds.awk $src
}

blockseeds_block() {
    local rows
    rows=$(seed_rows "42 1 2" blocksteps-bhs-energy.csv blocksteps-held-energy.csv blocksteps-finer-energy.csv blocksteps-bhs.csv blocksteps-finer.csv)
    [ -n "${rows:-}" ] || { none "no recorded block-step study over several seeds yet (report/sweeps/blocksteps.sh, BS_SEED)"; return; }
    echo "| step | its step | levels | \|ΔE/E\|, seed 42 | seed 1 | seed 2 | largest | under 1e-4 | time to t = 1, N = 1 M (s) | speedup |"
    echo "|---|---|---|--:|--:|--:|--:|---|--:|--:|"
    awk -F, '{ l[++n] = $0; if ($1 == 12 && $8 <= 1e-4 && $9 != "" && (best == "" || $9 < best)) best = $9 }
        END { for (i = 1; i <= n; ++i) { split(l[i], f, ","); ok = f[8] + 0 <= 1e-4
            printf "| step%s | %s %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[1], (f[3] == "dt" ? "dt" : "η"), f[4],
                (f[2] == "finer" ? "finer inside a step" : f[2] == "held" ? "held a dt_max step" : "one"), f[5], f[6], f[7], f[8],
                (ok ? "yes" : "no"), (f[9] == "" ? "" : sprintf("%.3g", f[9])),
                (f[1] == 13 && ok && best > 0 && f[9] > 0) ? sprintf("%.2f×", best / f[9]) : "" } }' <<< "$rows"
    echo
    printf 'Three draws, at N = 131072 for the energy (fp64, build/tools/diag) and N = 1 M, seed 42, for the time; step13 at dt_max = 1/16 with 12 levels. "Held a dt_max step": the scheme before bodies could go finer inside a dt_max step. Recorded: %s.\n' \
        "$(origin_of 'tag~^bs-(energy|1M)-s1[23]-bh' tag $(files blocksteps-bhs.csv blocksteps-held.csv blocksteps-finer.csv))"
}

# step13 with its finest level capped (report/query/blockseeds.awk on the blockcap-* files): each run's energy error over three draws
# of the sphere, and its times at 1 M and 8 M beside step12's at dt 1/1280 in the same call.
blockcap_files="blockcap-before-energy.csv blockcap-L8-energy.csv blockcap-L7-energy.csv blockcap-L7dt20-energy.csv blockcap-L8-warps-energy.csv blockcap-L7dt20-groups-energy.csv blockcap-L7dt20-gw1024-energy.csv blockcap-L7dt20-eta011-energy.csv blockcap-L8.csv blockcap-L7.csv blockcap-L7dt20.csv blockcap-L8-warps.csv blockcap-L7dt20-groups.csv blockcap-L7dt20-gw1024.csv blockcap-L7dt20-eta011.csv"
blockcap_block() {
    local rows
    # shellcheck disable=SC2086 # a list of names, split on purpose
    rows=$(seed_rows "42 1 2" $blockcap_files)
    [ -n "${rows:-}" ] || { none "no recorded study of capped levels yet (report/sweeps/blocksteps.sh, BS_LEVELS)"; return; }
    echo "| step | levels, dt_max | its step | \|ΔE/E\|, seed 42 | seed 1 | seed 2 | largest | N = 1 M (s) | step12 1/1280, same call (s) | speedup | N = 8 M (s) | step12 1/1280, same call (s) | speedup |"
    echo "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
    awk -F, 'function cell(x) { return x == "" ? "" : sprintf("%.3g", x) }
        function gain(a, b) { return (a == "" || b == "" || a <= 0) ? "" : sprintf("%.2f×", b / a) }
        { ok = $8 + 0 <= 1e-4; split($2, lv, ":") # levels:dt_max
          printf "| step%s | %s | %s %s | %s | %s | %s | %s%s | %s | %s | %s | %s | %s | %s |\n", $1,
            ($1 == 12 ? "one" : lv[1] ", " lv[2]), ($3 == "dt" ? "dt" : "η"), $4, $5, $6, $7, $8, (ok ? "" : " (over 1e-4)"),
            cell($9), cell($13), (ok ? gain($9, $13) : ""), cell($14), cell($15), (ok ? gain($14, $15) : "") }' <<< "$rows"
    echo
    printf 'Three draws, the energy at N = 131072 (fp64, build/tools/diag), the times to t = 1 at N = 1 M and 8 M (seed 42, `BS_TIMING=call`). step13'"'"'s finest step: 1/2048 with 8 levels of dt_max = 1/16, 1/1024 with 7, and 1/1280 (step12'"'"'s) with 7 levels of 1/20. A speedup is over step12 at dt 1/1280 timed in the same call, for a step13 run whose largest error is under 1e-4 (step12 at 1/1152 is over it). Each row'"'"'s commit: report/data/PROVENANCE.md. Recorded: %s.\n' \
        "$(origin_of 'tag~^bs-(energy|1M|8M)-s1[23]-bh' tag $(files blockcap-before.csv blockcap-L7.csv blockcap-L7dt20.csv blockcap-L8-warps.csv blockcap-L7dt20-gw1024.csv blockcap-L7dt20-eta011.csv))"
}

# step13 against step12 over many draws (report/sweeps/blockcap.sh with BLOCKCAP_SEEDS and BLOCKCAP_DRAWS12: the
# blockcap-*-draws files): each run's mean, median and largest error over the draws, and step13's against step12's draw by draw.
blockdraws_seeds="42 1 2 3 4 5 6 7"
blockdraws_files="blockcap-L7dt20-draws-energy.csv blockcap-L8dt10-draws-energy.csv blockcap-L7dt20-draws.csv blockcap-L8dt10-draws.csv"
blockdraws_block() {
    local rows
    # shellcheck disable=SC2086 # a list of names, split on purpose
    rows=$(seed_rows "$blockdraws_seeds" $blockdraws_files)
    [ -n "${rows:-}" ] || { none "no recorded comparison over many draws yet (report/sweeps/blockcap.sh, BLOCKCAP_SEEDS)"; return; }
    echo "| step | levels, dt_max | its step | draws | mean \|ΔE/E\| | median | largest | draws over 1e-4 | step13 / step12, draw by draw: geometric mean (95 %) | N = 1 M (s) | step12 1/1280, same call (s) | speedup |"
    echo "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
    # blockseeds.awk's fields: step, scheme, param, value, an error a seed (ns of them), the largest, the 1 M time, device,
    # date, commit, step12's 1 M time in the same file. The draw-by-draw column: the geometric mean of step13's error
    # over step12's at 1/1280 on the same draw, its 95 % interval (Student's t over the log ratios), and on how many
    # draws step13's was the smaller.
    awk -F, -v ns="$(wc -w <<< "$blockdraws_seeds")" '
        function cell(x) { return x == "" ? "" : sprintf("%.3g", x) }
        BEGIN { split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228", tq, " ") } # t at 97.5 %, 1..10 degrees
        { n++; for (j = 1; j <= ns; ++j) e[n, j] = $(4 + j); line[n] = $0; if ($1 == 12 && $4 == "1/1280") ref = n }
        END { for (i = 1; i <= n; ++i) {
            split(line[i], f, ","); sum = 0; over = 0; delete v
            for (j = 1; j <= ns; ++j) { v[j] = e[i, j] + 0; sum += v[j]; over += v[j] > 1e-4 }
            for (a = 2; a <= ns; ++a) for (b = a; b > 1 && v[b - 1] > v[b]; --b) { t = v[b]; v[b] = v[b - 1]; v[b - 1] = t }
            median = ns % 2 ? v[(ns + 1) / 2] : (v[ns / 2] + v[ns / 2 + 1]) / 2; mean = sum / ns
            pair = ""
            if (f[1] == 13 && ref && ns > 1) { lg = 0; sq = 0; less = 0
                for (j = 1; j <= ns; ++j) { r[j] = log(e[i, j] / e[ref, j]); lg += r[j]; less += e[i, j] < e[ref, j] }
                lg /= ns; for (j = 1; j <= ns; ++j) sq += (r[j] - lg) ^ 2
                df = ns - 1; q = df <= 10 ? tq[df] : 1.96 + 2.4 / df; half = q * sqrt(sq / df / ns)
                pair = sprintf("%.2f (%.2f–%.2f); smaller on %d of %d", exp(lg), exp(lg - half), exp(lg + half), less, ns) }
            split(f[2], lv, ":"); t1 = f[ns + 6]; p1 = f[ns + 10]
            printf "| step%s | %s | %s %s | %d | %.3e | %.3e | %.3e | %d | %s | %s | %s | %s |\n", f[1],
                (f[1] == 12 ? "one" : lv[1] ", " lv[2]), (f[3] == "dt" ? "dt" : "η"), f[4], ns, mean, median, f[ns + 5], over,
                pair, cell(t1), (f[1] == 12 ? "" : cell(p1)),
                (f[1] == 13 && mean <= 1e-4 && t1 > 0 && p1 != "") ? sprintf("%.2f×", p1 / t1) : "" } }' <<< "$rows"
    echo
    printf 'The %d seeds %s, the energy at N = 131072 (fp64, build/tools/diag), the time to t = 1 at N = 1 M (seed 42, `BS_TIMING=call`); both steps take the same draws. A speedup is over step12 at dt 1/1280 timed in the same call, for a step13 run whose mean error is under 1e-4; step12'"'"'s time is the later call'"'"'s. Recorded: %s.\n' \
        "$(wc -w <<< "$blockdraws_seeds")" "$(sed 's/ /, /g' <<< "$blockdraws_seeds")" \
        "$(origin_of 'tag~^bs-(energy|1M)-s1[23]-bh' tag $(files blockcap-L7dt20-draws.csv blockcap-L8dt10-draws.csv))"
}

# step13 against step12 at the issue's own N (report/query/blockequal.awk on the blockequal_files: report/sweeps/
# blockcap.sh with BLOCKCAP_ENERGY_N=1048576, every draw's run timed and its energy taken by build/tools/diag-gpu):
# each run's errors over the draws and its time, and step13's speedup over step12 at the same error.
blockequal_files="blockcap-L7dt20-draws1m-energy.csv blockcap-L7dt20-draws1m-eta01-energy.csv blockcap-L7dt20-draws1m-eta015-energy.csv blockcap-L7dt20-draws1m-eta014-energy.csv blockcap-L7dt24-draws1m-eta015-energy.csv blockcap-L7dt24-draws1m-eta016-energy.csv blockcap-L7dt24-draws1mb-eta015-energy.csv blockcap-L7dt28-draws1m-eta018-energy.csv blockcap-L7dt28-draws1m-eta02-energy.csv blockcap-L7dt20-draws1m.csv blockcap-L7dt20-draws1m-eta01.csv blockcap-L7dt20-draws1m-eta015.csv blockcap-L7dt20-draws1m-eta014.csv blockcap-L7dt24-draws1m-eta015.csv blockcap-L7dt24-draws1m-eta016.csv blockcap-L7dt24-draws1mb-eta015.csv blockcap-L7dt28-draws1m-eta018.csv blockcap-L7dt28-draws1m-eta02.csv blockcap-L7dt24-big8m.csv"
blockequal_seeds="42 1 2 3" # the draws every run of the sweep took (blockequal.gp draws them)
# blockequal_block SEEDS WHAT: the table over the draws SEEDS (a run without all of them is left out)
blockequal_block() {
    local seeds=$1 what=$2 src rows
    # shellcheck disable=SC2086 # a list of names, split on purpose
    src=$(files $blockequal_files)
    # shellcheck disable=SC2086 # a list of names, split on purpose
    [ -n "$src" ] && rows=$(awk -v seeds="$seeds" -v n=1048576 -f report/query/blockruns.awk -f report/query/blockequal.awk $src)
    [ -n "${rows:-}" ] || { none "no recorded comparison at N = 1 M yet (report/sweeps/blockcap.sh, BLOCKCAP_ENERGY_N=1048576)"; return; }
    echo "| step | levels, dt_max | its step | draws | mean \|ΔE/E\| | median | largest | draws over 1e-4 | time to t = 1, N = 1 M (s) | step12 at the same mean error (s) | speedup | every draw under 1e-4: speedup (step12's dt) | N = 8 M (s) | speedup at 8 M (step12's dt) |"
    echo "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
    # blockequal.awk's fields: step, scheme, param, value, draws, mean, median, largest, over 1e-4, mean time, 8 M time,
    # device, date, commit; step12's rows first. Step12 at step13's mean error: its time interpolated, log against log,
    # between the two step12 runs whose mean errors bracket step13's (none: blank).
    awk -F, '
        function cell(x) { return x == "" ? "" : sprintf(x < 10 ? "%.2f" : "%.1f", x) }
        $1 == 12 { m12++; e12[m12] = $6; t12[m12] = $10; ok12[m12] = $9 == 0; b12[m12] = $11; dt12[m12] = $4 }
        { line[++n] = $0 }
        END { for (i = 1; i <= n; ++i) { split(line[i], f, ",")
            same = ""; gain = ""; all = ""; big = ""
            if (f[1] == 13) {
                lo = 0; hi = 0
                for (j = 1; j <= m12; ++j) {
                    if (e12[j] <= f[6] && (!lo || e12[j] > e12[lo])) lo = j
                    if (e12[j] >= f[6] && (!hi || e12[j] < e12[hi])) hi = j }
                if (lo && hi) { x = (lo == hi) ? 0 : log(f[6] / e12[lo]) / log(e12[hi] / e12[lo])
                    same = t12[lo] * exp(x * log(t12[hi] / t12[lo])); if (f[6] <= 1e-4) gain = sprintf("%.2f×", same / f[10]) }
                if (f[9] == 0) { best = 0; for (j = 1; j <= m12; ++j) if (ok12[j] && (!best || t12[j] < t12[best])) best = j
                    if (best) all = sprintf("%.2f× (%s)", t12[best] / f[10], dt12[best]) }
                if (f[11] != "") { best = 0; for (j = 1; j <= m12; ++j) if (b12[j] != "" && e12[j] >= f[6] && (!best || b12[j] < b12[best])) best = j
                    if (best) big = sprintf("%.2f× (%s)", b12[best] / f[11], dt12[best]) } }
            split(f[2], lv, ":")
            printf "| step%s | %s | %s %s | %d | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", f[1],
                (f[1] == 12 ? "one" : lv[1] ", " lv[2]), (f[3] == "dt" ? "dt" : "η"), f[4], f[5], f[6], f[7], f[8], f[9], cell(f[10]),
                cell(same), gain, all, cell(f[11]), big } }' <<< "$rows"
    echo
    if [ "${3:-}" = short ]; then
        printf 'As the table of eight draws below, over the %d seeds %s (%s). Recorded: %s.\n' \
            "$(wc -w <<< "$seeds")" "${seeds// /, }" "$what" "$(blockequal_origin <<< "$rows")"
        return
    fi
    printf 'The sphere about a black hole (`--model hernquist-bh`, ε = 0.0025) at N = 1 M, drawn with the %d seeds %s (%s); every run from the drawn sphere set half its own step back, to t = 1. Each draw'"'"'s run is timed (one call of all its steps, `BS_TIMING=call`) and its energy error taken against its start in fp64 by build/tools/diag-gpu (diag'"'"'s sums and bits on the GPU); the time is the mean over the draws. Step12 at the same mean error: its time interpolated (log against log) between the two step12 runs whose mean errors bracket step13'"'"'s, for a step13 run whose mean error is under 1e-4. Every draw under 1e-4: over the fastest step12 whose every draw is. At 8 M (seed 42, no energy: the fp64 sums of 8 M bodies take minutes a snapshot even on the GPU): over the fastest step12 timed there whose mean error at 1 M is at least step13'"'"'s. Recorded: %s.\n' \
        "$(wc -w <<< "$seeds")" "$(sed 's/ /, /g' <<< "$seeds")" "$what" \
        "$(blockequal_origin <<< "$rows")"
}
# blockequal_origin: "device (date, commit)" of blockequal.awk's rows on stdin
blockequal_origin() {
    awk -F, '{ split($12, d, "+"); split($13, t, "+"); n = split($14, c, "+"); for (i = 1; i <= n; ++i) { k = d[1] " (" t[1] ", commit `" c[i] "`)"; if (!(k in s)) { s[k] = 1; o = o (o == "" ? "" : "; ") k } } } END { printf "%s", o }'
}
blockequal4_block() { blockequal_block "$blockequal_seeds" "every run recorded on these four" short; }
blockequal8_block() { blockequal_block "$blockdraws_seeds" "the runs recorded on all eight"; }

# What the few-body substeps cost, one saving at a time (blocksteps-deep-levels.csv, the deep phase of
# report/sweeps/blocksteps.sh): per level, ms a dt_max step of the k-step call of each variant.
blockdeep_block() {
    local src
    src=$(files blocksteps-deep-levels.csv)
    [ -n "$src" ] || { none "no recorded comparison of the deep substeps yet (report/sweeps/blocksteps.sh deep phase)"; return; }
    echo "| level | its step | bodies | active a substep | rebuilt, a warp per 32 (ms) | refitted (ms) | refitted, a warp per body: step13 (ms) |"
    echo "|--:|--:|--:|--:|--:|--:|--:|"
    # shellcheck disable=SC2086
    awk -F, 'FNR == 1 { next } { v = $1; sub(/.*-/, "", v) } $2 == "0" { call[v]++ } call[v] != 2 || $2 == "close" { next }
        { tot[v] += $8 } $5 + 0 > 0 { ms[v, $2] = $8 / 16; if (!($2 in dt)) { dt[$2] = $3; pct[$2] = $4; act[$2] = $6 / $5; lv[++n] = $2 } }
        END { for (i = 1; i <= n; ++i) { k = lv[i]
            printf "| %s | 1/%d | %.3f %% | %.0f | %.1f | %.1f | %.1f |\n", k, 1 / dt[k] + 0.5, pct[k], act[k], ms["rebuild", k], ms["refit", k], ms["step", k] }
            printf "\nA dt_max step in all (ms): rebuilt %.0f, refitted %.0f, step13 %.0f. ", tot["rebuild"] / 16, tot["refit"] / 16, tot["step"] / 16 }' $src
    printf 'The sphere about a black hole, N = 1 M, ε = 0.0025, η = 0.1, 12 levels, from the drawn sphere; the k-step call (16 steps of dt_max = 1/16) of each -DLEVEL_REPORT build, every substep timed alone; a level'"'"'s row: the substeps whose coarsest active level it is. Refitted: below REFIT_PERCENT (10 %%) of the bodies active; a warp per body: SPREAD_ACTIVE (16384) or fewer; SMALL_ACTIVE (1024) or fewer take the direct sum in all three. step13 has since given a deep walk'"'"'s warp fewer than 32 bodies (at least FEWEST_A_WARP), as many as leave about GROUP_WARPS warps (the capped levels'"'"' table). Recorded: %s.\n' \
        "$(origin_of 'tag~^bs-energy-s13' tag $(files blocksteps-deep.csv))"
}

[ -f "$report" ] || { echo "tables: no $report" >&2; exit 1; }
for name in "${sections[@]}"; do
    section "$name" || exit 1
done

# ---- each lesson's measured block -----------------------------------------------------------------
# Every step README with a "measured" section gets its own row of the ladder and of the throughput,
# printed the same way (same files, same rows, same rounding), so a lesson's number is the README's and
# REPORT's; then the sections whose spec names the step under "lessons" (REPORT's bytes, or with "into lesson" here only).
lesson_block() { # ID: the measured block of step ID
    local id=$1 lad thr sel="tag~^(grade-)?ladder\$;bodies=$ladder_n" tsel='tag~^(ladder|throughput)$;systems=1' sec secs='' row
    read -r -a lad <<< "$(files ladder-cpu.csv grade-ladder.csv ladder.csv)"
    read -r -a thr <<< "$(files ladder-cpu.csv throughput-cpu.csv ladder.csv throughput.csv)"
    for sec in "${sections[@]}"; do
        [[ " ${spec[$sec.lessons]-} " == *" $id "* ]] && secs+="${secs:+ }$sec"
    done
    echo
    if [ ${#lad[@]} = 0 ] || ! grep -q "^$id," "$tmp/ladder" 2>/dev/null; then
        if [ -z "$secs" ]; then
            none "not measured yet: no recorded ladder row of step $id (make report on a GPU machine)"
            echo
            return
        fi
        none "No ladder row of step $id is recorded (N = $ladder_n: make grade on a GPU machine). Its own measurements:"
    else
        pick -v cols=step,bodies,ginteractions_s,device,threads,date,commit,_recording -v where="$sel;step=$id" -v need=kernel_s -v key=step "${lad[@]}" |
            render -v table=lesson-ladder -v id="$id"
        echo
        # the throughput row, where more than the ladder's N is recorded
        row=$(pick -v cols=step,bodies,ginteractions_s,device,threads -v where="$tsel;step=$id" -v need=kernel_s -v key=step,bodies "${thr[@]}" 2>/dev/null |
            sort -t, -k2,2n | render -v table=lesson-throughput -v id="$id")
        if [ -n "$row" ]; then
            printf '%s\n\n' "$row"
            echo "The ladder's row of this step (N = $ladder_n; the whole ladder: README.md) and its throughput row (REPORT, one system); written by \`make figures\` from report/data, checked by \`make test-tables\`."
        else
            echo "The ladder's row of this step (N = $ladder_n; the whole ladder: README.md); written by \`make figures\` from report/data, checked by \`make test-tables\`."
        fi
    fi
    for sec in $secs; do cat "$tmp/sec-$sec"; done
    local shared='' own=''
    for sec in $secs; do if [ "${spec[$sec.into]-}" = lesson ]; then own+="${own:+, }$sec"; else shared+="${shared:+, }$sec"; fi; done
    [ -n "$own" ] && echo "The tables after the ladder's row ($own) are written here only, by \`make figures\` from report/data; report/REPORT.md points to them."
    [ -n "$shared" ] && echo "The tables after the ladder's row ($shared) are report/REPORT.md's part two, the same bytes."
    echo
}

while read -r id folder; do
    f=$lessons/$folder/README.md
    [ -f "$f" ] || continue
    if grep -q '^<!-- BEGIN measured[ >-]' "$f"; then
        lesson_block "$id" | cat -s | replace_section "$f" measured || exit 1
    fi
    # A lesson may also show one of REPORT's generated sections, the same bytes: <!-- BEGIN report-NAME -->.
    for sec in $(grep -o '^<!-- BEGIN report-[a-z]*' "$f" | sed 's/.*report-//'); do
        [ -f "$tmp/sec-$sec" ] || { echo "tables: $f: no REPORT section '$sec' to show" >&2; exit 1; }
        replace_section "$f" "report-$sec" < "$tmp/sec-$sec" || exit 1
    done
done < <(registry_ids id folder)

echo "tables: rewrote the generated sections of $report, $readme and the lessons' measured blocks"
