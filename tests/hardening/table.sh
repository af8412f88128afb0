#!/usr/bin/env bash
# tests/hardening/table.sh: the hardening table of tests/hardening/README.md, between
#   <!-- BEGIN hardening-table ... -->  and  <!-- END hardening-table -->
#
#   table.sh --write README TABLE   replace the section's body with TABLE (written by run.sh)
#   table.sh --check README TABLE   exit 1 if the README's table is stale against TABLE: another set of
#                                   cases, commands or expectations, or another outcome or exit status
#                                   where both ran (SKIPs and the machine's own words may differ)
# Touches nothing else in README; writes it through a temporary file. Exit 2 on bad usage.
set -u -o pipefail
me=hardening/table.sh
die() { echo "$me: $*" >&2; exit 2; }
[ $# -eq 3 ] || die "usage: tests/hardening/table.sh --write|--check README TABLE"
mode=$1 readme=$2 table=$3
[ -f "$readme" ] && [ -r "$readme" ] || die "cannot read $readme"
[ -f "$table" ] && [ -r "$table" ] || die "cannot read $table (run tests/hardening/run.sh first)"
begin='^<!-- BEGIN hardening-table.*-->$'
end='^<!-- END hardening-table -->$'
[ "$(grep -cE "$begin" "$readme")" -eq 1 ] && [ "$(grep -cE "$end" "$readme")" -eq 1 ] ||
    die "$readme: needs exactly one <!-- BEGIN hardening-table ... --> and one <!-- END hardening-table --> line"
[ "$(grep -nE "$begin" "$readme" | cut -d: -f1)" -lt "$(grep -nE "$end" "$readme" | cut -d: -f1)" ] ||
    die "$readme: <!-- END hardening-table --> comes before its BEGIN"

# The rows of the markdown tables as tab-separated fields (escaped pipes kept inside their field), each
# with its table's expectation (the "**Expected: ...**" line above it) as the last field.
rows() {
    awk -v b="$begin" -v e="$end" -v whole="$2" '
        whole != "" || $0 ~ b { inside = 1 }
        whole == "" && $0 ~ e { inside = 0 }
        inside && /^\*\*Expected: / { expected = $0; sub(/^\*\*Expected: /, "", expected); sub(/\*\*.*/, "", expected) }
        inside && /^\| [A-Z][0-9]+ \|/ {
            line = $0; gsub(/\\\|/, "\001", line)
            n = split(line, f, / \| /)
            sub(/^\| /, "", f[1]); sub(/ \|$/, "", f[n])
            out = f[1]; for (i = 2; i <= n; ++i) out = out "\t" f[i]
            gsub("\001", "\\|", out); print out "\t" expected
        }' "$1"
}

case $mode in
--write)
    tmp=$(mktemp "$readme.tmp.XXXXXX") || die "cannot write beside $readme"
    trap 'rm -f "$tmp"' EXIT
    awk -v b="$begin" -v e="$end" -v table="$table" '
        $0 ~ b { print; while ((getline line < table) > 0) print line; skip = 1; next }
        $0 ~ e { skip = 0 }
        !skip' "$readme" > "$tmp" || die "cannot write $tmp"
    chmod --reference="$readme" "$tmp" 2> /dev/null
    mv "$tmp" "$readme" || die "cannot replace $readme"
    trap - EXIT
    echo "$me: $readme: hardening table rewritten ($(rows "$table" whole | wc -l) cases)"
    ;;
--check)
    # Columns: id what command steps outcome message expected (the steps run depend on the machine; an
    # outcome "ok" is its expectation met, so its exit status is the expectation's)
    stale=$(awk -F'\t' '
        function class(o) { return o ~ /^SKIP/ ? "SKIP" : o ~ /^FAIL/ ? "FAIL" : o }
        NR == FNR { what[$1] = $2 FS $3 FS $7; out[$1] = class($5); seen[$1] = 1; order[++n] = $1; next }
        {
            if (!($1 in seen)) { printf "%s: in the README, no longer run\n", $1; next }
            done[$1] = 1
            if (what[$1] != $2 FS $3 FS $7) printf "%s: the case changed (%s)\n", $1, $2
            else if (out[$1] != "SKIP" && class($5) != "SKIP" && out[$1] != class($5))
                printf "%s: README says %s; now %s\n", $1, class($5), out[$1]
        }
        END { for (i = 1; i <= n; ++i) if (!(order[i] in done)) printf "%s: new, not in the README\n", order[i] }
    ' <(rows "$table" whole) <(rows "$readme" ""))
    if [ -n "$stale" ]; then
        echo "$me: the hardening table in $readme is stale (run make hardening-table):"
        printf '%s\n' "$stale" | head -n 20 | sed 's/^/  /'
        exit 1
    fi
    echo "$me: the hardening table in $readme matches what the cases do now"
    ;;
*) die "usage: tests/hardening/table.sh --write|--check README TABLE" ;;
esac
