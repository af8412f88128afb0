#!/usr/bin/env bash
# tables.sh: rewrite the generated sections of report/REPORT.md and README.md from the recorded CSVs.
# A section is everything between "<!-- BEGIN name ..." and "<!-- END name -->"; nothing else in
# either file is touched. Every number comes from a CSV and is printed with the device, date and
# commit of its rows; where nothing is recorded, the section says so.
set -u -o pipefail
cd "$(dirname "$0")/../.." || exit 2
data=${REPORT_DATA:-report/data}
report=${REPORT_MD:-report/REPORT.md}
readme=${README_MD:-README.md}
lessons=${LESSONS_DIR:-.} # where the step folders' lesson READMEs are (report/tables/tables-check.sh points it elsewhere)
pick() { awk -f report/query/pick.awk "$@"; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
# The registry, as the awk programs below read it: id, from, check, summary, tab-separated (common/steps.sh).
. common/steps.sh
registry_ids id from check summary > "$tmp/registry" || exit 2

# The recorded files of those names, lowest priority first (report/query/recordings.sh); readers keep the
# last row of each key, so a later recording's row replaces an earlier one's. find_file: the last.
files() { bash report/query/recordings.sh "$data" "$@"; }
find_file() { local f; f=$(files "$@"); [ -n "$f" ] && echo "${f##* }"; }

# "device (date, commit `c`)" of the rows of FILES that WHERE selects and KEY keeps, one per device and day.
origin() {
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

# ---- the ladder: README and REPORT ------------------------------------------------------------
ladder_table() {
    local files sel='tag~^(grade-)?ladder$;bodies=65536'
    read -r -a files <<< "$(files ladder-cpu.csv grade-ladder.csv ladder.csv)"
    if [ ${#files[@]} = 0 ]; then
        none "no recorded ladder data yet: run make report"
        return
    fi
    pick -v cols=step,name,bodies,steps,ginteractions_s,gflops,pass,device,threads,_recording -v where="$sel" -v need=kernel_s \
        -v key=step "${files[@]}" | sort -t, -k1,1n > "$tmp/ladder"
    awk -F, -v registry="$tmp/registry" '
        function num(x) { return (x >= 1000) ? sprintf("%.0f", x) : sprintf("%.3g", x) }
        BEGIN {
            while ((getline l < registry) > 0) { split(l, w, "\t"); id = w[1]
                what[id] = w[4]; from[id] = w[2]; tree[id] = w[3] == "tree"; ids[++nid] = id }
            print "| step | what changes | N | G interactions/s | GFLOP/s | × serial | × previous | valid | device | recording |"
            print "|---|---|--:|--:|--:|--:|--:|:-:|---|---|"
        }
        { row[$1] = $0 }
        END {
            base = ("00" in row) ? (split(row["00"], b, ",") ? b[5] : 0) : 0
            for (i = 1; i <= nid; ++i) {
                id = ids[i]
                if (!(id in row)) { printf "| %s | %s | | _not measured_ | | | | | | |\n", id, what[id]; continue }
                split(row[id], f, ",")
                # x previous: against the step it grows from (steps.list, column from), named when not the line above
                prev = (from[id] in row) ? (split(row[from[id]], p, ",") ? p[5] : 0) : 0
                vs = (prev > 0) ? num(f[5] / prev) "×" ((i > 1 && ids[i - 1] == from[id]) ? "" : " (vs " from[id] ")") : ""
                # a tree code does fewer interactions: its rate is the N^2 a direct sum would need per second
                printf "| %s `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", id, f[2], what[id], f[3],
                    tree[id] ? num(f[5]) " (N² equivalent)" : num(f[5]), tree[id] ? "–" : num(f[6]),
                    (base > 0) ? num(f[5] / base) "×" : "", vs,
                    f[7], (f[8] ~ /NVIDIA/) ? f[8] : (f[1] == "00" ? f[8] " (1 thread)" : f[8] " (" f[9] " threads)"), f[10]
            }
        }' "$tmp/ladder"
    echo
    if [ "$(awk -F, '$1 + 0 >= 2' "$tmp/ladder" | wc -l)" = 0 ]; then
        none "no recorded GPU data yet: the GPU steps are measured by make report on a GPU machine (report/sweeps/measure.sh)."
        echo
    fi
    echo "Of each step, the row of the latest recording among $(printf '`%s`, ' "${files[@]}" | sed 's/, $//'): $(origin "$sel" step "${files[@]}"). The CPU steps and the GPU steps may come from different machines: the device column says which (report/data/PROVENANCE.md). G interactions/s = S·N²·steps / time loop (median of the repeats); 20 flops per interaction."
}

{
    echo
    echo "![The ladder: speedup of every step over step00_serial](report/figures/ladder.png)"
    echo
    ladder_table
    echo
    echo "Drawn by \`make figures\` from \`report/data\` (see [report/REPORT.md](report/REPORT.md) for every figure)."
    echo
} | replace_section "$readme" ladder-table || exit 1

[ -f "$report" ] || { echo "tables: no $report" >&2; exit 1; }
{
    echo
    ladder_table
    echo
} | replace_section "$report" ladder || exit 1

# ---- throughput vs N: one row per step, one column per N ---------------------------------------
{
    echo
    read -r -a files <<< "$(files ladder-cpu.csv throughput-cpu.csv ladder.csv throughput.csv)"
    sel='tag~^(ladder|throughput)$;systems=1'
    if [ ${#files[@]} = 0 ]; then
        none "no recorded throughput data yet"
    else
        pick -v cols=step,name,bodies,ginteractions_s,device,threads -v where="$sel" -v need=kernel_s \
            -v key=step,bodies "${files[@]}" |
            awk -F, '{ v[$1, $3] = $4; name[$1] = $2; dev[$1] = ($5 ~ /NVIDIA/) ? $5 : ($1 == "00") ? "CPU, 1 thread" : "CPU, " $6 " threads"; if (!($3 in seen)) { seen[$3] = 1; ns[++nn] = $3 } if (!($1 in st)) { st[$1] = 1; ss[++nss] = $1 } }
                END {
                    for (i = 1; i < nn; ++i) for (j = i + 1; j <= nn; ++j) if (ns[j] + 0 < ns[i] + 0) { t = ns[i]; ns[i] = ns[j]; ns[j] = t }
                    for (i = 1; i < nss; ++i) for (j = i + 1; j <= nss; ++j) if (ss[j] + 0 < ss[i] + 0) { t = ss[i]; ss[i] = ss[j]; ss[j] = t }
                    printf "| G interactions/s | on |"; for (i = 1; i <= nn; ++i) printf " N = %s |", ns[i]; print ""
                    printf "|---|---|"; for (i = 1; i <= nn; ++i) printf "--:|"; print ""
                    for (k = 1; k <= nss; ++k) { s = ss[k]; printf "| %s `%s` | %s |", s, name[s], dev[s]
                        for (i = 1; i <= nn; ++i) printf " %s |", ((s, ns[i]) in v) ? sprintf("%.4g", v[s, ns[i]]) : ""; print "" }
                }'
        echo
        echo "Recorded (report/sweeps/measure.sh's rows only): $(origin "$sel" step,bodies "${files[@]}")."
    fi
    echo
} | tee "$tmp/sec-throughput" | replace_section "$report" throughput || exit 1

# ---- the ceiling ------------------------------------------------------------------------------
{
    echo
    read -r -a lad <<< "$(files grade-ladder.csv ladder.csv)"
    read -r -a inst <<< "$(files instructions.csv)"
    read -r -a gpu <<< "$(files gpu.csv)"
    sel='tag~^(grade-)?ladder$;bodies=65536'
    if [ ${#lad[@]} = 0 ]; then
        none "no recorded GPU data yet"
    elif [ ${#inst[@]} = 0 ] || [ ${#gpu[@]} = 0 ]; then
        none "no instructions per interaction recorded yet (instructions.csv, from ncu on the GPU) or no SM count (gpu.csv): the ceiling is not computed"
    else
        echo "| step | on | thread instructions / interaction | SM clock (MHz) | SMs | ceiling (G int/s) | measured (G int/s) | % of ceiling |"
        echo "|---|---|--:|--:|--:|--:|--:|--:|"
        pick -v header=1 -v cols=step,name,build,bodies,ginteractions_s,clock_mhz,device -v where="$sel" -v need=clock_mhz,kernel_s \
            -v key=step "${lad[@]}" | awk -f report/query/ceiling.awk "${gpu[@]}" "${inst[@]}" - | awk -F, '$3 == "default" {
            printf "| %s `%s` | %s | %.3g | %.0f | %s | %.4g | %.4g | %.0f%% |\n", $1, $2, $11, $8, $6, $7, $9, $5, $10 }'
        echo
        echo "Instructions: $(printf '`%s` ' "${inst[@]}")($(awk -F, 'NR == 2 { print $5 }' "${inst[-1]}")); SMs: $(printf '`%s` ' "${gpu[@]}"); rates and clocks: the ladder's rows, $(origin "$sel;clock_mhz~." step "${lad[@]}"). A step whose device has no recorded instruction count is left out."
    fi
    echo
} | tee "$tmp/sec-ceiling" | replace_section "$report" ceiling || exit 1

# ---- step01 against the peer CPU kernel (report/sweeps/cpu-peer.sh): medians of the rounds ----------------
{
    echo
    read -r -a f <<< "$(files cpu-peer.csv)"
    if [ ${#f[@]} = 0 ]; then
        none "no side-by-side recording yet: make cpu-peer on the machine, its CSV into report/data/<machine>-<date>/"
    else
        # Of each machine, thread count and N, the rows of the latest recording that has them.
        pick -v cols=cpu,threads,bodies,kernel,ginteractions_s,date,commit,_recording -v need=ginteractions_s "${f[@]}" |
            awk -F, '
            function median(g, k,   m, i, j, t, s) {
                m = n[g, k]; for (i = 1; i <= m; ++i) s[i] = v[g, k, i]
                for (i = 1; i <= m; ++i) for (j = i + 1; j <= m; ++j) if (s[j] + 0 < s[i] + 0) { t = s[i]; s[i] = s[j]; s[j] = t }
                return m ? (s[int((m + 1) / 2)] + s[int(m / 2) + 1]) / 2 : 0 }
            function cell(g, k,   p) { if (!n[g, k]) return "| |"; p = median(g, "peer-soa")
                return sprintf("| %.3g | %s", median(g, k), p > 0 ? sprintf("**%.2f×**", median(g, k) / p) : "") }
            { g = $1 SUBSEP $2 SUBSEP $3
              if (!(g in rec)) order[++ng] = g
              if (rec[g] != $8) { rec[g] = $8; for (k in kinds) n[g, k] = 0 }  # a later recording replaces the group
              kinds[$4] = 1; v[g, $4, ++n[g, $4]] = $5; day[g] = substr($6, 1, 10); com[g] = $7 }
            END {
                print "| machine | threads | N | peer-soa | step01 | step01 × peer | exercise 3 (intrinsics) | × peer | rounds | date | commit |"
                print "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|---|"
                for (i = 1; i <= ng; ++i) { g = order[i]; split(g, w, SUBSEP)
                    printf "| %s | %s | %s | %.3g %s %s | %d | %s | `%s` |\n", w[1], w[2], w[3], median(g, "peer-soa"),
                        cell(g, "step01"), cell(g, "step01-intrinsics"), n[g, "peer-soa"], day[g], com[g] }
            }'
        echo
        echo "G interactions/s = N²·steps / time of the steps, the median of the rounds (each round: one untimed step, then the median of \`repeat\` timed ones; the kernels take turns). peer-soa: report/tools/peer-soa.c, the lab's equivalent of the peer kernel, built with its published flags (\`-O3 -march=native -ffast-math -fopenmp\`); step01 with its steps.list flags; exercise 3: report/explore/omp-intrinsics.c. Recorded by \`report/sweeps/cpu-peer.sh\`: $(printf '`%s` ' "${f[@]}" | sed 's/ $//')."
    fi
    echo
} | tee "$tmp/sec-peer" | replace_section "$report" peer || exit 1

# ---- sweeps -------------------------------------------------------------------------------------
{
    echo
    f=$(find_file block.csv)
    if [ -z "$f" ]; then
        none "no recorded block-size sweep yet (GPU)"
    else
        pick -v cols=block,step,ginteractions_s -v where='tag=block' -v need=kernel_s -v key=step,block "$f" |
            awk -F, '{ v[$1, $2] = $3; if (!($1 in b)) { b[$1] = 1; bs[++nb] = $1 } if (!($2 in s)) { s[$2] = 1; ss[++ns] = $2 } }
                END { printf "| threads per block |"; for (j = 1; j <= ns; ++j) printf " step%s (G int/s) |", ss[j]; print ""
                      printf "|--:|"; for (j = 1; j <= ns; ++j) printf "--:|"; print ""
                      for (i = 1; i <= nb; ++i) { printf "| %s |", bs[i]; for (j = 1; j <= ns; ++j) printf " %s |", ((bs[i], ss[j]) in v) ? sprintf("%.4g", v[bs[i], ss[j]]) : ""; print "" } }'
        echo
        echo "N = $(pick -v cols=bodies -v where=tag=block "$f" | head -n 1). Recorded: $(origin tag=block step,block "$f")."
    fi
    echo
} | tee "$tmp/sec-block" | replace_section "$report" block || exit 1

{
    echo
    f=$(find_file unroll.csv)
    read -r -a runs <<< "$(files runs.csv tuning.csv)"
    if [ -z "$f" ] && [ ${#runs[@]} -gt 0 ] && [ -n "$(pick -v cols=tag -v where=tag=tuning "${runs[@]}")" ]; then
        none "the step04 sweep (make report PHASES=unroll) is not recorded yet; the shorter tuning phase (PHASES=tuning) is:"
        echo
        echo "| step | UNROLL | bodies per thread | BLOCK | N | G interactions/s |"
        echo "|---|--:|--:|--:|--:|--:|"
        pick -v cols=step,name,config.unroll,config.bodies/thread,block,bodies,ginteractions_s -v where=tag=tuning -v need=kernel_s \
            -v key=build,bodies "${runs[@]}" | sort -t, -k6,6n -k7,7gr |
            awk -F, '{ printf "| %s `%s` | %s | %s | %s | %s | %.4g |\n", $1, $2, $3, $4, $5, $6, $7 }'
        echo
        echo "Recorded: $(origin tag=tuning build,bodies "${runs[@]}")."
    elif [ -z "$f" ]; then
        none "no recorded unroll sweep yet (GPU)"
    else
        pick -v cols=config.unroll,config.bodies/thread,ginteractions_s -v where='tag=unroll' -v need=kernel_s "$f" |
            awk -F, '{ v[$1, $2] = $3; if (!($1 in u)) { u[$1] = 1; us[++nu] = $1 } if (!($2 in b)) { b[$2] = 1; bs[++nb] = $2 }
                       if ($3 + 0 > best) { best = $3 + 0; bu = $1; bb = $2 } }
                END { printf "| UNROLL |"; for (j = 1; j <= nb; ++j) printf " %s bodies/thread |", bs[j]; print ""
                      printf "|--:|"; for (j = 1; j <= nb; ++j) printf "--:|"; print ""
                      for (i = 1; i <= nu; ++i) { printf "| %s |", us[i]
                          for (j = 1; j <= nb; ++j) { k = (us[i] SUBSEP bs[j]); x = (k in v) ? sprintf("%.4g", v[k]) : ""
                              if (us[i] == bu && bs[j] == bb) x = "**" x "**"; printf " %s |", x }
                          print "" }
                      printf "\nBest: UNROLL = %s with %s bodies per thread, %.4g G interactions/s.\n", bu, bb, best }'
        echo
        echo "step04 built once per cell (\`STEP_DEFS=-DUNROLL=U -DBODIES_PER_THREAD=B\`), N = $(pick -v cols=bodies -v where=tag=unroll "$f" | head -n 1); G interactions/s. Recorded: $(origin tag=unroll build "$f")."
    fi
    echo
} | tee "$tmp/sec-unroll" | replace_section "$report" unroll || exit 1

{
    echo
    f=$(find_file tile.csv)
    if [ -z "$f" ]; then
        none "no recorded tile-size sweep yet (GPU)"
    else
        echo "| step | bodies per tile (TILE) | G interactions/s | config |"
        echo "|---|--:|--:|---|"
        pick -v cols=step,config.tile,ginteractions_s,config -v where='tag=tile' -v need=kernel_s "$f" |
            sort -t, -k1,1 -k2,2n | awk -F, '{ printf "| %s | %s | %.4g | %s |\n", $1, $2, $3, $4 }'
        echo
        echo "N = $(pick -v cols=bodies -v where=tag=tile "$f" | head -n 1). Recorded: $(origin tag=tile build "$f")."
    fi
    echo
} | tee "$tmp/sec-tile" | replace_section "$report" tile || exit 1

{
    echo
    f3=$(find_file float3.csv)
    fz=$(find_file ftz.csv)
    if [ -z "$f3" ] && [ -z "$fz" ]; then
        none "no recorded float3/float4 or ftz measurements yet (GPU)"
    else
        echo "| step | build | N | G interactions/s | config |"
        echo "|---|---|--:|--:|---|"
        for f in $f3 $fz; do
            pick -v cols=step,name,build,bodies,ginteractions_s,config -v where='tag~^(float3|ftz)$' -v need=kernel_s "$f" |
                awk -F, '{ label = ($3 == "default") ? "default (steps.list flags)" : ($3 == "noftz") ? "without -ftz=true" : ($3 == "fastmath") ? "--use_fast_math" : ($3 == "float3") ? "-DTILE_FLOAT3" : $3
                           printf "| %s `%s` | %s | %s | %.4g | %s |\n", $1, $2, label, $4, $5, $6 }'
        done
        echo
        echo "Recorded: $(origin 'tag~^(float3|ftz)$' build,bodies $f3 $fz)."
    fi
    echo
} | tee "$tmp/sec-variants" | replace_section "$report" variants || exit 1

# ---- streams and scaling ------------------------------------------------------------------------
{
    echo
    read -r -a f <<< "$(files runs.csv streams.csv)"
    sel='tag~^streams-(overlap|serial|kernel)'
    if [ ${#f[@]} = 0 ] || [ -z "$(pick -v cols=tag -v where="$sel" "${f[@]}")" ]; then
        none "no recorded streams measurements yet (GPU, step07)"
    else
        echo "| systems × bodies | steps | snapshots every | kernel only (ms) | --no-overlap (ms) | overlapped (ms) | copies hidden | overlapped vs kernel only |"
        echo "|---|--:|--:|--:|--:|--:|--:|--:|"
        pick -v cols=systems,bodies,steps,tag,kernel_s -v where="$sel" -v need=kernel_s -v key=tag,systems,bodies "${f[@]}" |
            awk -F, '{ shape = $1 " × " $2; if (!(shape in seen)) { seen[shape] = 1; order[++n] = shape }
                       steps[shape] = ($4 == "streams-kernel") ? steps[shape] : $3
                       v[shape, $4] = $5 }
                function row(shape, snap, s, o, k) {
                    if (!(s > 0 && o > 0)) return
                    hidden = (k > 0 && s - k > 0) ? sprintf("%.0f%%", 100 * (s - o) / (s - k)) : ""
                    versus = (k > 0) ? sprintf("%+.2f%%", 100 * (o - k) / k) : ""
                    printf "| %s | %s | %s | %s | %.4g | %.4g | %s | %s |\n", shape, steps[shape], snap,
                        (k > 0) ? sprintf("%.4g", 1e3 * k) : "", 1e3 * s, 1e3 * o, hidden, versus }
                END { for (i = 1; i <= n; ++i) { sh = order[i]; k = v[sh, "streams-kernel"]
                      row(sh, "-", v[sh, "streams-serial-nosnap"], v[sh, "streams-overlap-nosnap"], k)
                      row(sh, "10", v[sh, "streams-serial"], v[sh, "streams-overlap"], k) } }'
        echo
        echo "Median time loop of 7 runs; step07's loop holds its copies in and out (and the snapshot copies), step06's (kernel only) does not. Copies hidden = (--no-overlap − overlapped) / (--no-overlap − kernel only). Recorded: $(origin "$sel" tag,systems,bodies "${f[@]}")."
    fi
    echo
} | tee "$tmp/sec-streams" | replace_section "$report" streams || exit 1

{
    echo
    read -r -a f <<< "$(files runs.csv scaling.csv)"
    sel='tag~^scaling-'
    if [ ${#f[@]} = 0 ] || [ -z "$(pick -v cols=tag -v where="$sel" "${f[@]}")" ]; then
        none "no recorded multi-GPU measurements yet (step08, make report PHASES=scaling on a 2-GPU machine)"
    else
        echo "| split | systems × bodies | GPUs | time loop (ms) | G interactions/s | speedup | efficiency |"
        echo "|---|---|--:|--:|--:|--:|--:|"
        pick -v cols=tag,systems,bodies,gpus,kernel_s,ginteractions_s -v where="$sel" -v need=kernel_s -v key=tag,systems,bodies,gpus "${f[@]}" |
            sort -t, -k1,1 -k2,2n -k3,3n -k4,4n |
            awk -F, '{ r[++n] = $0; if ($4 == 1) base[$1, $2, $3] = $5 }
                END { for (i = 1; i <= n; ++i) { split(r[i], f, ","); b = base[f[1], f[2], f[3]]
                      printf "| %s | %s × %s | %s | %.4g | %.4g | %s | %s |\n", substr(f[1], 9), f[2], f[3], f[4], 1e3 * f[5], f[6],
                          (b > 0) ? sprintf("%.2f×", b / f[5]) : "", (b > 0) ? sprintf("%.0f%%", 100 * b / f[5] / f[4]) : "" } }'
        echo
        [ "$(pick -v cols=gpus -v where="$sel" "${f[@]}" | sort -n | tail -n 1)" -ge 2 ] ||
            { none "only 1 GPU recorded: the scaling needs a run on a 2-GPU machine (make report PHASES=scaling)"; echo; }
        echo "Recorded: $(origin "$sel" tag,systems,bodies,gpus "${f[@]}")."
    fi
    echo
} | tee "$tmp/sec-scaling" | replace_section "$report" scaling || exit 1

# ---- physics -----------------------------------------------------------------------------------
{
    echo
    f=$(find_file energy.csv)
    runs=$(find_file physics.csv)
    if [ -z "$f" ]; then
        none "no recorded physics runs yet: make report PHASES=physics"
    else
        echo "| run | N | dt | steps | t end | max \|ΔE/E\| | \|ΔE/E\| at the end | same, unsynchronised v | max momentum drift | virial ratio (start → end) |"
        echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|"
        pick -v cols=label,bodies,dt,step,time,rel_energy_error,rel_energy_error_raw,momentum_drift,virial_ratio "$f" |
            awk -F, 'function abs(x) { return x < 0 ? -x : x }
                { if (!($1 in seen)) { seen[$1] = 1; ls[++n] = $1; v0[$1] = $9 }
                  e[$1] = $6; er[$1] = $7; if (abs($6) > me[$1]) me[$1] = abs($6); if ($8 > mp[$1]) mp[$1] = $8
                  N[$1] = $2; dt[$1] = $3; st[$1] = $4; t[$1] = $5; v1[$1] = $9 }
                END { for (i = 1; i <= n; ++i) { l = ls[i]
                      printf "| %s | %s | %s | %s | %s | %.2e | %.2e | %.2e | %.2e | %.3f → %.3f |\n", l, N[l], dt[l], st[l], t[l],
                          me[l], e[l], er[l], mp[l], v0[l], v1[l] } }'
        echo
        echo "From the snapshots of each run through \`report/tools/diag.c\` (fp64, velocities synchronised by half a kick). Runs: $(origin 'tag~^physics-' tag "$runs")."
    fi
    echo
} | replace_section "$report" physics || exit 1

{
    echo
    f=$(find_file kepler.csv)
    runs=$(find_file kepler-runs.csv)
    if [ -z "$f" ]; then
        none "no recorded Kepler runs yet: make report PHASES=kepler"
    else
        echo "| step | e | K (steps per period) | dt | position error (fp32 step) | position error (fp64 reference) | energy error (fp32 step) |"
        echo "|---|--:|--:|--:|--:|--:|--:|"
        pick -v cols=label,ecc,steps,dt,pos_error,pos_error_fp64,energy_error "$f" |
            awk -F, '$3 == 32 || $3 == 128 || $3 == 512 || $3 == 2048 || $3 == 8192 || $3 == 32768 || $3 == 65536 {
                printf "| %s | %s | %s | %.3g | %.2e | %.2e | %.2e |\n", $1, $2, $3, $4, $5, $6, $7 }'
        echo
        pick -v cols=label,ecc,dt,pos_error_fp64 "$f" |
            awk -F, '{ k = $1 "," $2; if (!(k in d1)) { d1[k] = $3; e1[k] = $4; ks[++n] = k } else if (!(k in d2)) { d2[k] = $3; e2[k] = $4 } }
                END { for (i = 1; i <= n; ++i) { k = ks[i]; if (k in d2 && e1[k] > 0 && e2[k] > 0) {
                      split(k, p, ","); printf "Order of the fp64 reference from its two largest time steps (e = %s): %.2f (leapfrog: 2).\n", p[2], log(e1[k] / e2[k]) / log(d1[k] / d2[k]) } } }' |
            awk '!seen[$0]++'
        echo
        echo "Runs: $(origin 'tag~^kepler-' tag,steps "$runs")."
    fi
    echo
} | replace_section "$report" kepler || exit 1

# ---- part two: each pair once (step09), the tree code (step10), MPI ranks (step11) ---------------
# REPORT shows these sections; each part-two lesson's measured block shows its own (lesson_sections).
# Shared awk: fixed-width numbers as the lessons print them.
fmt_awk='function ms(x) { return (x >= 100) ? sprintf("%.0f", x) : (x >= 10) ? sprintf("%.1f", x) : sprintf("%.2f", x) }
    function sci(x,    s) { s = sprintf("%.1e", x); sub(/e-0/, "e-", s); sub(/e\+0/, "e", s); return s }
    function pct(x,    s) { s = (x <= -10 || x >= 10) ? sprintf("%+.0f%%", x) : sprintf("%+.1f%%", x); sub(/^-/, "−", s); return s }
    function times(x) { return (x < 1) ? sprintf("%.2f×", x) : sprintf("%.3g×", x) }
    function sortn(a, n,    i, j, t) { for (i = 1; i < n; ++i) for (j = i + 1; j <= n; ++j) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t } }'

{
    echo
    read -r -a f <<< "$(files newton.csv)"
    sel='tag=newton'
    if [ ${#f[@]} = 0 ] || [ -z "$(pick -v cols=tag -v where="$sel" "${f[@]}")" ]; then
        none "no recorded step09 measurements yet (report/sweeps/newton.sh on a GPU machine)"
    else
        # all rows in recording order; the last of each (step, N, --deterministic or not) counts
        pick -v cols=step,bodies,ginteractions_s,config,pass,clock_mhz,repeat -v where="$sel" -v need=kernel_s "${f[@]}" |
            awk -F, "$fmt_awk"'
            { d = ($4 ~ /(^| )deterministic( |$)/) ? "d" : ""; k = $1 d SUBSEP $2; v[k] = $3; ok[k] = $5; clk[k] = $6; rep[k] = $7
              if (!($2 in seen)) { seen[$2] = 1; ns[++nn] = $2 }
              # the build of step09 these rows measured (its knobs have changed since: say which)
              if ($1 == "09") { b = ""; nw = split($4, w, " "); for (j = 1; j <= nw; ++j) if (w[j] ~ /^(block|bodies\/lane|unroll|group)=/) b = b (b == "" ? "" : " ") w[j]
                                bk[k] = b } }
            END {
                sortn(ns, nn)
                print "| N | step06 | step09 | × step06 | step09 `--deterministic` | its cost |"
                print "|--:|--:|--:|--:|--:|--:|"
                for (i = 1; i <= nn; ++i) { n = ns[i]; s6 = v["06", n]; s9 = v["09", n]; s9d = v["09d", n]
                    printf "| %s | %s | %s | %s | %s | %s |\n", n, (s6 > 0) ? sprintf("%.0f", s6) : "", (s9 > 0) ? sprintf("**%.0f**", s9) : "",
                        (s6 > 0 && s9 > 0) ? sprintf("%.2f", s9 / s6) : "", (s9d > 0) ? sprintf("%.0f", s9d) : "",
                        (s9 > 0 && s9d > 0) ? pct(100 * (s9d / s9 - 1)) : "" }
                for (i = 1; i <= nn; ++i) for (d = 0; d < 2; ++d) { k = (d ? "09d" : "09") SUBSEP ns[i]; b = bk[k]
                    if (b != "" && !(b in built)) { built[b] = 1; builds = builds (builds == "" ? "" : "; ") "`" b "`" } }
                for (k in v) { ++rows; if (ok[k] == "PASS") ++pass; if (lo == "" || clk[k] + 0 < lo) lo = clk[k] + 0; if (clk[k] + 0 > hi) hi = clk[k] + 0; r = rep[k] }
                printf "\nG interactions/s = S·N²·steps / time loop, median of %s repeats; validated: %d of %d rows PASS; SM clock %.0f–%.0f MHz; step09 as built then: %s.", r, pass, rows, lo, hi, builds
            }'
        echo " Recorded (\`newton.csv\`): $(origin "$sel" step,bodies,config "${f[@]}")."
    fi
    echo
} | tee "$tmp/sec-newton" | replace_section "$report" newton || exit 1

{
    echo
    read -r -a f <<< "$(files tree.csv)"
    sel='tag~^tree-(n|step06)$'
    if [ ${#f[@]} = 0 ] || [ -z "$(pick -v cols=tag -v where="$sel" "${f[@]}")" ]; then
        none "no recorded step10 measurements yet (report/sweeps/treecode.sh on a GPU machine)"
    else
        pick -v cols=step,bodies,steps,kernel_s,acc_rms,acc_max,config.theta,pass -v where="$sel" -v need=kernel_s -v key=step,bodies "${f[@]}" |
            awk -F, "$fmt_awk"'
            { t[$1, $2] = 1e3 * $4 / $3; rms[$1, $2] = $5; mx[$1, $2] = $6; th[$1, $2] = $7; ++rows; if ($8 == "PASS") ++pass
              if (!($2 in seen)) { seen[$2] = 1; ns[++nn] = $2 } }
            END {
                sortn(ns, nn)
                print "| N | θ | step10 (ms a step) | rms error | worst body | step06, direct (ms a step) | step10 against step06 |"
                print "|--:|--:|--:|--:|--:|--:|--:|"
                for (i = 1; i <= nn; ++i) { n = ns[i]; a = t["10", n]; b = t["06", n]
                    if (!(("10", n) in t)) continue
                    printf "| %s | %s | %s | %s | %s | %s | %s |\n", n, th["10", n], ms(a), sci(rms["10", n]), sci(mx["10", n]),
                        (b > 0) ? ms(b) : "not run", (b > 0) ? times(b / a) : "" }
                printf "\nTime loop per step, median of the repeats; errors: the accelerations against the fp64 direct sum; validated: %d of %d rows PASS.", pass, rows
            }'
        echo " Recorded (\`tree.csv\`): $(origin "$sel" step,bodies "${f[@]}")."
    fi
    echo
} | tee "$tmp/sec-tree" | replace_section "$report" tree || exit 1

{
    echo
    read -r -a f <<< "$(files tree-theta.csv)"
    sel='tag=tree-frontier'
    if [ ${#f[@]} = 0 ] || [ -z "$(pick -v cols=tag -v where="$sel" "${f[@]}")" ]; then
        none "no recorded accuracy-time frontier of step10 yet (report/sweeps/treecode.sh on a GPU machine)"
    else
        pick -v cols=config.theta,bodies,steps,kernel_s,acc_rms,acc_max -v where="$sel" -v need=kernel_s -v key=config.theta,bodies "${f[@]}" |
            awk -F, "$fmt_awk"'
            { th[++n] = $1; t[n] = 1e3 * $4 / $3; rms[n] = $5; mx[n] = $6; N[$2] = 1 }
            END {
                for (i = 1; i < n; ++i) for (j = i + 1; j <= n; ++j) if (th[j] + 0 < th[i] + 0) {
                    x = th[i]; th[i] = th[j]; th[j] = x; x = t[i]; t[i] = t[j]; t[j] = x; x = rms[i]; rms[i] = rms[j]; rms[j] = x; x = mx[i]; mx[i] = mx[j]; mx[j] = x }
                printf "| θ |"; for (i = 1; i <= n; ++i) printf " %s |", th[i]; print ""
                printf "|---|"; for (i = 1; i <= n; ++i) printf "--:|"; print ""
                printf "| ms a step |"; for (i = 1; i <= n; ++i) printf " %.1f |", t[i]; print ""
                printf "| rms error |"; for (i = 1; i <= n; ++i) printf " %s |", sci(rms[i]); print ""
                printf "| worst body |"; for (i = 1; i <= n; ++i) printf " %s |", sci(mx[i]); print ""
                s = ""; for (k in N) s = s (s == "" ? "" : ", ") k
                printf "\nstep10 at N = %s, one system, over the opening angle θ.", s
            }'
        echo " Recorded (\`tree-theta.csv\`): $(origin "$sel" config.theta,bodies "${f[@]}")."
    fi
    echo
} | tee "$tmp/sec-frontier" | replace_section "$report" frontier || exit 1

{
    echo
    f=$(find_file tree-energy.csv)
    if [ -z "$f" ]; then
        none "no recorded energy runs of step10 yet (report/sweeps/treecode.sh on a GPU machine)"
    else
        echo "| run | N | dt | steps | \|ΔE/E\| at the end | max \|ΔE/E\| | momentum drift at the end |"
        echo "|---|--:|--:|--:|--:|--:|--:|"
        pick -v cols=label,bodies,dt,step,rel_energy_error,momentum_drift "$f" |
            awk -F, "$fmt_awk"'function abs(x) { return x < 0 ? -x : x }
                { if (!($1 in seen)) { seen[$1] = 1; ls[++n] = $1 }
                  N[$1] = $2; dt[$1] = $3; st[$1] = $4; e[$1] = $5; p[$1] = $6; if (abs($5) > me[$1]) me[$1] = abs($5) }
                END { for (i = 1; i <= n; ++i) { l = ls[i]; name = l
                      if (name ~ /^theta/) { sub(/^theta/, "", name); name = "step10, θ = " name } else if (name == "direct") name = "step06, the direct sum"
                      printf "| %s | %s | %s | %s | %s | %s | %s |\n", name, N[l], dt[l], st[l], sci(abs(e[l])), sci(me[l]), sci(p[l]) } }'
        echo
        echo "A Plummer sphere run with snapshots every 100 steps, each through \`report/tools/diag.c\` (fp64 energies). \`$f\` has no device or commit in its rows: report/data/PROVENANCE.md names the call."
    fi
    echo
} | tee "$tmp/sec-treeenergy" | replace_section "$report" treeenergy || exit 1

{
    echo
    read -r -a f <<< "$(files mpi-runs.csv)"
    sel='tag~^time-'
    if [ ${#f[@]} = 0 ] || [ -z "$(pick -v cols=tag -v where="$sel" "${f[@]}")" ]; then
        none "no recorded step11 measurements yet (report/sweeps/mpi.sh on a GPU machine)"
    else
        pick -v cols=tag,step,name,bodies,steps,ginteractions_s,config.ranks,config,pass -v where="$sel" -v need=kernel_s -v key=tag,bodies "${f[@]}" |
            awk -F, "$fmt_awk"'
            { if (!($1 in seen)) { seen[$1] = 1; tags[++nt] = $1 }
              if (!($4 in seenN)) { seenN[$4] = 1; ns[++nn] = $4 }
              v[$1, $4] = $6; st[$4] = $5; ++rows; if ($9 == "PASS") ++pass
              if ($2 == "08") { base[$4] = $6; label[$1] = "`" $3 "`, one process, `--gpus 1`" }
              else label[$1] = sprintf("`%s`, %s rank%s%s%s", $3, $7, ($7 == 1) ? "" : "s", ($8 ~ / ring( |$)/) ? ", ring" : ($8 ~ / allgather( |$)/) ? ", one `MPI_Allgatherv` a step" : "",
                                       ($8 ~ /host-staged/) ? ", host-staged" : ($8 ~ /cuda-aware/) ? ", CUDA-aware" : "") }
            END {
                sortn(ns, nn)
                printf "| run |"; for (i = 1; i <= nn; ++i) printf " N = %s (G int/s) | × step08 |", ns[i]; print ""
                printf "|---|"; for (i = 1; i <= nn; ++i) printf "--:|--:|"; print ""
                for (k = 1; k <= nt; ++k) { g = tags[k]; printf "| %s |", label[g]
                    for (i = 1; i <= nn; ++i) { x = v[g, ns[i]]; b = base[ns[i]]
                        printf " %s | %s |", (x > 0) ? sprintf("%.0f", x) : "", (x > 0 && b > 0) ? sprintf("%.2f", x / b) : "" }
                    print "" }
                s = ""; for (i = 1; i <= nn; ++i) if (!(st[ns[i]] in said)) { said[st[ns[i]]] = 1; s = s (s == "" ? "" : " or ") st[ns[i]] }
                printf "\nOne system; %s steps; every rank on the one GPU of the machine; time loop of the slowest rank, median of the repeats; validated: %d of %d rows PASS.", s, pass, rows
            }'
        echo " Recorded (\`mpi-runs.csv\`): $(origin "$sel" tag,bodies "${f[@]}")."
        echo
        pick -v cols=tag,systems,bodies,config.ranks,config.split,pass -v where='tag~^validate-' -v key=tag,systems,bodies "${f[@]}" |
            awk -F, '{ ++n; if ($6 == "PASS") ++p; N[$3] = 1; S[$2] = 1; R[$4] = 1; sp[$5] = 1 }
                function list(a, sep,    k, s, m, i, j, t, x) { m = 0; for (k in a) x[++m] = k
                    for (i = 1; i < m; ++i) for (j = i + 1; j <= m; ++j) if (x[j] + 0 < x[i] + 0 || (x[j] + 0 == x[i] + 0 && x[j] < x[i])) { t = x[i]; x[i] = x[j]; x[j] = t }
                    for (i = 1; i <= m; ++i) s = s (i > 1 ? sep : "") x[i]; return s }
                END { if (n) printf "Validation (tags `validate-*`): %d runs, %d PASS: N = %s; S = %s; %s ranks; split %s.\n", n, p, list(N, ", "), list(S, " and "), list(R, " and "), list(sp, " and ") }'
    fi
    echo
} | tee "$tmp/sec-mpi" | replace_section "$report" mpi || exit 1

{
    echo
    f=$(find_file pingpong.csv)
    if [ -z "$f" ]; then
        none "no recorded MPI ping-pong yet (report/sweeps/mpi.sh on a GPU machine)"
    else
        pick -v cols=bytes,one_way_us,gbytes_s "$f" |
            awk -F, '{ b[++n] = $1; t[n] = $2; g[n] = $3 }
                function size(x) { return (x >= 1048576) ? (x / 1048576) " MiB" : (x >= 1024) ? (x / 1024) " KiB" : x " B" }
                END { printf "| message |"; for (i = 1; i <= n; ++i) printf " %s |", size(b[i]); print ""
                      printf "|---|"; for (i = 1; i <= n; ++i) printf "--:|"; print ""
                      printf "| one way (µs) |"; for (i = 1; i <= n; ++i) printf " %s |", t[i]; print ""
                      printf "| GB/s |"; for (i = 1; i <= n; ++i) printf " %s |", g[i]; print "" }'
        echo
        echo "Two ranks on one host (\`tests/mpi_exchange.c pingpong\`). \`$f\` has no device or commit in its rows: report/data/PROVENANCE.md names the call."
    fi
    echo
} | tee "$tmp/sec-pingpong" | replace_section "$report" pingpong || exit 1

{
    echo
    read -r -a f <<< "$(files throughput.csv)"
    sel='tag=throughput;step=08;systems=1'
    if [ ${#f[@]} = 0 ] || [ -z "$(pick -v cols=tag -v where="$sel" "${f[@]}")" ]; then
        none "no recorded step08 throughput yet: the scaling model of step11 needs one GPU's rate (make report on a GPU machine)"
    else
        pick -v cols=bodies,ginteractions_s -v where="$sel" -v need=kernel_s -v key=bodies "${f[@]}" | sort -t, -k1,1n > "$tmp/rates"
        echo "| model: the ring, strong scaling | link | one GPU, a step | 16 GPUs | 64 | 256 | 1024 |"
        echo "|---|---|--:|--:|--:|--:|--:|"
        for n in 1048576 16777216 268435456; do
            for net in nvlink ib; do
                awk -f report/query/mpi-model.awk -v net=$net -v what=strong -v N=$n "$tmp/rates" |
                    awk -F, -v n=$n -v net=$net '$1 == 1 { t1 = $3 } $1 == 16 || $1 == 64 || $1 == 256 || $1 == 1024 { e = e sprintf(" %.2f |", $5) }
                        END { printf "| N = %s | %s | %s |%s\n", n, (net == "ib") ? "400 Gb/s IB" : "NVLink",
                                  (t1 >= 3600) ? sprintf("%.1f h", t1 / 3600) : sprintf("%.3g s", t1), e }'
            done
        done
        echo
        weak=$(for n in 1048576 16777216; do
            awk -f report/query/mpi-model.awk -v net=nvlink -v what=weak -v N=$n "$tmp/rates" | awk -F, -v n=$n '$1 == 1024 { printf "%.2f from N1 = %s", $5, n }'
            echo; done | paste -sd ';' | sed 's/;/, /')
        echo "Efficiency = T(1) / (P·T(P)). Weak scaling (N = N1·√P, the same pairs per GPU) on 1024 GPUs, NVLink: $weak. A model, not a measurement: the links' latency and bandwidth and the time of a ring turn are assumed in \`report/query/mpi-model.awk\`; one GPU's rate at each n is step08's throughput row: $(origin "$sel" bodies "${f[@]}")."
    fi
    echo
} | tee "$tmp/sec-mpimodel" | replace_section "$report" mpimodel || exit 1

# ---- step08 over N on 1 and 2 GPUs: when do two GPUs pay? (REPORT section 4, step08's lesson) ----
{
    echo
    read -r -a f <<< "$(files runs.csv)"
    sel='tag=nscan-bodies;step=08;systems=1'
    if [ ${#f[@]} = 0 ] || [ -z "$(pick -v cols=tag -v where="$sel" "${f[@]}")" ]; then
        none "no recorded scan over N of step08 on 1 and 2 GPUs yet (a 2-GPU machine)"
    else
        pick -v cols=bodies,gpus,steps,kernel_s,ginteractions_s,config.exchange_us -v where="$sel" -v need=kernel_s -v key=bodies,gpus "${f[@]}" |
            awk -F, "$fmt_awk"'
            { if (!($1 in seen)) { seen[$1] = 1; ns[++nn] = $1 }
              g[$1, $2] = $5; us[$1, $2] = 1e6 * $4 / $3; if ($2 == 2) ex[$1] = $6 }
            END {
                sortn(ns, nn)
                printf "| N |"; for (i = 1; i <= nn; ++i) printf " %s |", ns[i]; print ""
                printf "|---|"; for (i = 1; i <= nn; ++i) printf "--:|"; print ""
                printf "| 1 GPU, G/s |"; for (i = 1; i <= nn; ++i) printf " %.0f |", g[ns[i], 1]; print ""
                printf "| 2 GPUs, G/s |"; for (i = 1; i <= nn; ++i) printf " %.0f |", g[ns[i], 2]; print ""
                printf "| × |"; for (i = 1; i <= nn; ++i) printf " %s |", (g[ns[i], 1] > 0) ? sprintf("%.2f", g[ns[i], 2] / g[ns[i], 1]) : ""; print ""
                printf "| a step on 1 GPU, µs |"; for (i = 1; i <= nn; ++i) printf " %.0f |", us[ns[i], 1]; print ""
                printf "| a step on 2 GPUs, µs |"; for (i = 1; i <= nn; ++i) printf " %.0f |", us[ns[i], 2]; print ""
                printf "| exchange, µs |"; for (i = 1; i <= nn; ++i) printf " %s |", ex[ns[i]]; print "" }'
        echo
        echo "One system, \`--decompose bodies\`; a step = time loop / steps (median of the repeats); exchange: \`exchange_us\` in \`config\`, timed by events on the last step. Recorded (\`runs.csv\`, tag \`nscan-bodies\`): $(origin "$sel" bodies,gpus "${f[@]}")."
    fi
    echo
} | tee "$tmp/sec-nscan" | replace_section "$report" nscan || exit 1

# ---- each lesson's measured block -----------------------------------------------------------------
# Every step README with a "measured" section gets its own rows of the tables above, printed the same
# way (same files, same rows, same rounding), so a lesson's number is the README's and REPORT's.
# The part-two lessons also show their own tables of REPORT's part two, the same bytes.
lesson_sections() { case $1 in 09) echo newton ;; 10) echo tree frontier treeenergy ;; 11) echo mpi pingpong mpimodel ;; esac; }

lesson_block() { # ID: the measured block of step ID
    local id=$1 lad thr sel='tag~^(grade-)?ladder$;bodies=65536' tsel='tag~^(ladder|throughput)$;systems=1' sec secs
    read -r -a lad <<< "$(files ladder-cpu.csv grade-ladder.csv ladder.csv)"
    read -r -a thr <<< "$(files ladder-cpu.csv throughput-cpu.csv ladder.csv throughput.csv)"
    secs=$(lesson_sections "$id")
    echo
    if [ ${#lad[@]} = 0 ] || ! grep -q "^$id," "$tmp/ladder" 2>/dev/null; then
        if [ -z "$secs" ]; then
            none "not measured yet: no recorded ladder row of step $id (make report on a GPU machine)"
            echo
            return
        fi
        none "No ladder row of step $id is recorded (N = 65536: make grade on a GPU machine). Its own measurements:"
    else
        pick -v cols=step,bodies,ginteractions_s,device,threads,date,commit -v where="$sel;step=$id" -v need=kernel_s -v key=step "${lad[@]}" |
            awk -F, -v id="$id" -v ladder="$tmp/ladder" -v registry="$tmp/registry" '
            function num(x) { return (x >= 1000) ? sprintf("%.0f", x) : sprintf("%.3g", x) }
            BEGIN { while ((getline l < registry) > 0) { split(l, w, "\t"); from[w[1]] = w[2] }
                    while ((getline l < ladder) > 0) { split(l, f, ","); rate[f[1]] = f[5] } }
            { dev = ($4 ~ /NVIDIA/) ? $4 : ($1 == "00" ? $4 " (1 thread)" : $4 " (" $5 " threads)")
              p = from[id]
              print "| N | G interactions/s | × serial | × previous" ((p == "-") ? "" : " (step " p ")") " | device | date | commit |"
              print "|--:|--:|--:|--:|---|---|---|"
              printf "| %s | %s | %s | %s | %s | %s | `%s` |\n", $2, num($3), (rate["00"] > 0) ? num($3 / rate["00"]) "×" : "",
                  (p in rate && rate[p] > 0) ? num($3 / rate[p]) "×" : "-", dev, substr($6, 1, 10), $7 }'
        echo
        local row
        # the throughput row, where more than the ladder's N is recorded
        row=$(pick -v cols=step,bodies,ginteractions_s,device,threads -v where="$tsel;step=$id" -v need=kernel_s -v key=step,bodies "${thr[@]}" 2>/dev/null |
            sort -t, -k2,2n | awk -F, '{ ++n; h = h sprintf(" N = %s |", $2); d = d "--:|"; v = v sprintf(" %.4g |", $3)
                                         on = ($4 ~ /NVIDIA/) ? $4 : ($1 == "00") ? "CPU, 1 thread" : "CPU, " $5 " threads" }
                END { if (n > 1) printf "| G interactions/s by N | on |%s\n|---|---|%s\n| step %s | %s |%s\n", h, d, "'"$id"'", on, v }')
        if [ -n "$row" ]; then
            printf '%s\n\n' "$row"
            echo "The ladder's row of this step (N = 65536, README.md and report/REPORT.md show the same) and its throughput row (REPORT, one system); written by \`make figures\` from report/data, checked by \`make test-tables\`."
        else
            echo "The ladder's row of this step (N = 65536, README.md and report/REPORT.md show the same); written by \`make figures\` from report/data, checked by \`make test-tables\`."
        fi
    fi
    for sec in $secs; do
        [ -f "$tmp/sec-$sec" ] || { echo "tables: no REPORT section '$sec' for step $id" >&2; return 1; }
        cat "$tmp/sec-$sec"
    done
    [ -n "$secs" ] && echo "The tables after the ladder's row are report/REPORT.md's part two ($(echo $secs | sed 's/ /, /g')), the same bytes."
    echo
}

while read -r id folder; do
    f=$lessons/$folder/README.md
    [ -f "$f" ] || continue
    if grep -q '^<!-- BEGIN measured[ >-]' "$f"; then
        lesson_block "$id" | cat -s | replace_section "$f" measured || exit 1
    fi
    # A lesson may also show one of REPORT's generated tables, the same bytes: <!-- BEGIN report-NAME -->.
    for sec in $(grep -o '^<!-- BEGIN report-[a-z]*' "$f" | sed 's/.*report-//'); do
        [ -f "$tmp/sec-$sec" ] || { echo "tables: $f: no REPORT section '$sec' to show" >&2; exit 1; }
        replace_section "$f" "report-$sec" < "$tmp/sec-$sec" || exit 1
    done
done < <(registry_ids id folder)

# ---- where the numbers come from -----------------------------------------------------------------
{
    echo
    any=0
    [ -s "$data/PROVENANCE.md" ] && echo "Where each recording comes from: [report/data/PROVENANCE.md](data/PROVENANCE.md)." && echo
    for m in $(files machine.txt); do
        any=1
        echo "\`$m\`:"
        echo
        echo '```'
        cat "$m"
        echo '```'
        echo
    done
    [ $any = 1 ] || none "no recordings yet"
    echo
} | replace_section "$report" machines || exit 1

echo "tables: rewrote the generated sections of $report, $readme and the lessons' measured blocks"
