#!/usr/bin/env bash
# figures.sh [NAME...]: draw the report's figures from the recorded data (report/data), then rewrite
# the generated tables of report/REPORT.md and README.md (report/tables/tables.sh). No GPU, no runs:
# gnuplot reads the CSVs. Each report/plots/NAME.gp gives report/figures/NAME.png and NAME.pdf (or .svg);
# the figure "ladder" is the grader's own (grading/ladder_plot.c, ladder.png and ladder.svg), drawn from one
# results CSV assembled here from the recordings (draw_ladder below; GRADER: the grader, built by make figures).
# Default: every report/plots/*.gp but movie.gp (make movie draws that one from a fresh run), and ladder.
set -u -o pipefail
cd "$(dirname "$0")/../.." || exit 2
data=${REPORT_DATA:-report/data}
figdir=${REPORT_FIGURES:-report/figures}
build=${BUILD:-build}
grader=${GRADER:-$build/grading/grade}

if ! command -v gnuplot >/dev/null 2>&1; then
    echo "figures: gnuplot is not installed; 'bash common/deps.sh gnuplot' installs it or prints the command" >&2
    exit 2
fi
mkdir -p "$figdir"
# The registry's steps for the figures (gnuplot's variable registry): id and folder, tab-separated.
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
. common/steps.sh
registry_ids id folder > "$tmp/registry.tsv" || exit 2

# The ladder by the grader's drawer, so that `make grade` and the report draw one figure with one speedup
# and one ceiling formula. Its inputs are kept in $build/report/ (their paths show in the figure):
#   ladder.csv        the results CSV (the grader's header): of each step the latest recording's row of tag
#                     ladder or grade-ladder at the ladder's N (lab.conf's GRADE_N); a column an older
#                     recording lacks is empty
#   instructions.csv  every recorded instructions.csv, oldest first (the drawer keeps a step's last row)
#   gpu.csv           every recorded gpu.csv: the SM counts, for the ceiling without a GPU here
draw_ladder() {
    local in=$build/report out=$build/report/ladder src ins gpus
    [ -x "$grader" ] || { echo "figures: ladder: no grader at $grader (make $grader builds it)" >&2; return 1; }
    mkdir -p "$in" "$out" || return 1
    src=$(bash report/query/recordings.sh "$data" ladder-cpu.csv grade-ladder.csv ladder.csv)
    [ -n "$src" ] || { echo "figures: ladder: no recorded ladder rows in $data (make report records them)" >&2; return 1; }
    "$grader" --results-header > "$in/ladder.csv" || return 1
    # shellcheck disable=SC2086 # $src: file names without spaces (recordings.sh)
    local n keep
    n=$(. grading/lab-conf.sh && lab_conf_file GRADE_N) && [ -n "$n" ] || { echo "figures: ladder: lab.conf has no GRADE_N" >&2; return 1; }
    # One machine's rows only, as the tables' ratios: the speedups are over step00, so a step whose row shares
    # neither step00's device nor its recording (the CPU and GPU of one host) is left out of the figure
    # (the README's table shows it, and says why it is not divided).
    # shellcheck disable=SC2086
    keep=$(awk -f report/query/pick.awk -v cols=step,device,_recording -v where="tag~^(grade-)?ladder\$;bodies=$n" \
        -v need=kernel_s -v key=step $src | awk -F, '{ s[NR] = $1; d[NR] = $2; r[NR] = $3; if ($1 == "00") { bd = $2; br = $3; b = 1 } }
        END { for (i = 1; i <= NR; ++i) if (!b || d[i] == bd || r[i] == br) printf "%s ", s[i] }') || return 1
    # shellcheck disable=SC2086
    awk -f report/query/pick.awk -v cols="$(cat "$in/ladder.csv")" -v where="tag~^(grade-)?ladder\$;bodies=$n" \
        -v need=kernel_s -v key=step -v absent=empty $src | awk -F, -v keep=" $keep" 'index(keep, " " $1 " ")' |
        sort -t, -k1,1 >> "$in/ladder.csv" || return 1
    local args=(--plot "$in/ladder.csv" --out "$out")
    ins=$(bash report/query/recordings.sh "$data" instructions.csv)
    if [ -n "$ins" ]; then
        # shellcheck disable=SC2086
        awk -f report/query/pick.awk -v header=1 -v absent=empty \
            -v cols=step,name,build,instructions_per_interaction,method,device,date,commit $ins > "$in/instructions.csv" || return 1
        args+=(--instructions "$in/instructions.csv")
    fi
    gpus=$(bash report/query/recordings.sh "$data" gpu.csv)
    if [ -n "$gpus" ]; then
        # shellcheck disable=SC2086
        awk -f report/query/pick.awk -v header=1 -v cols=name,sms $gpus > "$in/gpu.csv" || return 1
        args+=(--gpu-info "$in/gpu.csv")
    fi
    if ! "$grader" "${args[@]}" > "$out/grade.log" 2>&1; then
        echo "figures: ladder: $grader ${args[*]} failed:" >&2
        sed 's/^/    /' "$out/grade.log" >&2
        return 1
    fi
    cp "$out/ladder.png" "$out/ladder.svg" "$figdir/" || return 1
    echo "    $figdir/ladder.png and ladder.svg from $in/ladder.csv ($(($(wc -l < "$in/ladder.csv") - 1)) rows)"
}

# The terminals this gnuplot has: cairo where it can, libgd or SVG where not.
terms=$(gnuplot -e 'set terminal' 2>&1 </dev/null)
pngterm=png
vecterm=svg
grep -qw pngcairo <<< "$terms" && pngterm=pngcairo
grep -qw pdfcairo <<< "$terms" && vecterm=pdfcairo
grep -qw "$pngterm" <<< "$terms" || { echo "figures: this gnuplot has no PNG terminal (install gnuplot-nox)" >&2; exit 2; }
# Reproducible PDFs: cairo >= 1.17 stamps SOURCE_DATE_EPOCH instead of now; older cairo stamps now,
# and the date is rewritten below (same length, so the PDF's byte offsets stay right).
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-0}
pdf_date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y%m%d%H%M%S 2>/dev/null || echo 19700101000000)

if [ $# -gt 0 ]; then
    names=("$@")
else
    names=()
    for f in report/plots/*.gp; do
        n=$(basename "$f" .gp)
        case $n in lib | movie) continue ;; esac
        names+=("$n")
    done
    names+=(ladder)
fi

total=${#names[@]}
i=0
failed=0
for n in "${names[@]}"; do
    i=$((i + 1))
    if [ "$n" = ladder ]; then
        printf 'figures: [%d/%d] %s (the grader: %s)\n' "$i" "$total" "$n" "$grader"
        draw_ladder || failed=$((failed + 1))
        continue
    fi
    gp=report/plots/$n.gp
    [ -f "$gp" ] || { echo "figures: no $gp" >&2; failed=$((failed + 1)); continue; }
    printf 'figures: [%d/%d] %s\n' "$i" "$total" "$n"
    for fmt in png vec; do
        log=$(gnuplot -e "fmt='$fmt'; out='$figdir/$n'; data='$data'; registry='$tmp/registry.tsv'; pngterm='$pngterm'; vecterm='$vecterm'" "$gp" 2>&1)
        rc=$?
        # gnuplot returns 0 after many errors inside if-blocks: its messages are the verdict.
        if [ $rc != 0 ] || grep -qE '^(.*line [0-9]+: |.*error)' <<< "$log"; then
            echo "figures: $gp ($fmt) failed:" >&2
            sed 's/^/    /' <<< "$log" >&2
            failed=$((failed + 1))
            break
        elif [ -n "$log" ]; then
            sed 's/^/    /' <<< "$log"
        fi
        if [ $fmt = vec ] && [ -f "$figdir/$n.pdf" ]; then
            LC_ALL=C sed -i "s|/CreationDate (D:[0-9]\{14\}Z)|/CreationDate (D:${pdf_date}Z)|" "$figdir/$n.pdf"
        fi
    done
done

if [ $# = 0 ]; then
    echo "figures: tables of report/REPORT.md and README.md"
    bash report/tables/tables.sh || failed=$((failed + 1))
fi
if [ $failed != 0 ]; then
    echo "figures: $failed failure(s)" >&2
    exit 1
fi
echo "figures: done: $figdir ($pngterm, $vecterm)"
