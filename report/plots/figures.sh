#!/usr/bin/env bash
# figures.sh [NAME...]: draw the report's figures from the recorded data (report/data), then rewrite
# the generated tables of report/REPORT.md and README.md (report/tables/tables.sh). No GPU, no runs:
# gnuplot reads the CSVs. Each report/plots/NAME.gp gives report/figures/NAME.png and NAME.pdf (or .svg).
# Default: every report/plots/*.gp but movie.gp (make movie draws that one from a fresh run).
set -u -o pipefail
cd "$(dirname "$0")/../.." || exit 2
data=${REPORT_DATA:-report/data}
figdir=${REPORT_FIGURES:-report/figures}

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
fi

total=${#names[@]}
i=0
failed=0
for n in "${names[@]}"; do
    i=$((i + 1))
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
