#!/usr/bin/env bash
# tables-check.sh: the generated tables of README.md, report/REPORT.md and every lesson's measured
# block must be what report/tables/tables.sh writes from report/data today. It regenerates copies in a
# temporary folder and compares: a number typed into a generated block, or a CSV changed without
# `make figures`, fails with the diff. (The prose outside the blocks is not checked: lessons quote
# their measured numbers from these blocks.)
set -u -o pipefail
cd "$(dirname "$0")/../.." || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/report"
cp README.md "$tmp/README.md" && cp report/REPORT.md "$tmp/report/REPORT.md" || exit 2
blocks=0
. common/steps.sh
while read -r id folder; do
    [ -f "$folder/README.md" ] || continue
    mkdir -p "$tmp/$folder" && cp "$folder/README.md" "$tmp/$folder/README.md" || exit 2
    grep -q '^<!-- BEGIN measured[ >-]' "$folder/README.md" && blocks=$((blocks + 1))
done < <(registry_ids id folder)
if ! README_MD="$tmp/README.md" REPORT_MD="$tmp/report/REPORT.md" LESSONS_DIR="$tmp" bash report/tables/tables.sh > "$tmp/log" 2>&1; then
    echo "FAIL tables: report/tables/tables.sh failed: $(tail -n 1 "$tmp/log")"
    exit 1
fi
fails=0
for f in README.md report/REPORT.md $(cd "$tmp" && ls step*/README.md 2>/dev/null); do
    if ! diff -u "$f" "$tmp/$f" > "$tmp/diff" 2>&1; then
        echo "FAIL tables: $f is not what make figures writes from report/data:"
        grep -E '^[-+][^-+]' "$tmp/diff" | head -n 6 | sed 's/^/    /'
        fails=$((fails + 1))
    fi
done
[ $fails = 0 ] || exit 1
echo "PASS tables: README.md, report/REPORT.md and $blocks lessons' measured blocks match report/data"
