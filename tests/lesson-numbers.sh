#!/usr/bin/env bash
# lesson-numbers.sh [--selftest] [README.md ...]: a lesson's prose must not contradict its own generated
# blocks (the `<!-- BEGIN name ... -->` … `<!-- END name -->` regions that make figures writes).
#
# A number the prose takes from its lesson's generated blocks is written marked, with an HTML comment
# that Markdown does not show, right before it:
#
#     on Hopper the naive kernel is <!-- measured -->7.19× the 16-thread OpenMP step
#
# Two rules, checked outside the generated blocks and outside fenced code:
#   1. a marked number (digits and a decimal point; a trailing ×, x or % is ignored) must be, as
#      written, a cell of one of the lesson's own generated blocks: when the data changes and the block
#      is regenerated, the prose that quotes it fails here until it is updated;
#   2. a paragraph that names a column of the generated tables ("× previous", "× serial") and states a
#      speed-up (a number followed by ×) must state it marked: that is where a stale copy hides.
# A marker stands whole on the line of its number: one broken across two lines is an error too (Markdown
# hides it all the same, but its number would go unchecked).
# Numbers the prose takes from elsewhere (a source's ×1.6, another recording) are not marked and not
# checked. Without arguments: every step's README.md and report/REPORT.md. Prints one line per problem
# and a PASS or FAIL line; exit status 1 on any problem, 2 on a missing file.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2

check() { # FILE...: prints one line per problem; exit status 1 if any
    awk '
    function cells(line,    before, after) { # the numbers of a block line, as written, into block[FILENAME, number]
        before = ""
        while (match(line, /[0-9]+(\.[0-9]+)?/)) { # whole numbers only: not the 9 of a commit f9b16da
            after = substr(line, RSTART + RLENGTH, 1)
            if (after == "x") after = substr(line, RSTART + RLENGTH + 1, 1) # 7.19x: the x of a speed-up
            if ((RSTART == 1 ? before : substr(line, RSTART - 1, 1)) !~ /[A-Za-z0-9_]/ && after !~ /[A-Za-z0-9_]/)
                block[FILENAME, substr(line, RSTART, RLENGTH)] = 1
            before = substr(line, RSTART + RLENGTH - 1, 1)
            line = substr(line, RSTART + RLENGTH)
        }
    }
    FNR == 1 { if (pass == 2) endpara(); inblock = 0; fence = 0; para = ""; paraline = 0; tail = 0 }
    # First pass (the file read twice): collect the generated blocks numbers.
    pass == 1 {
        if ($0 ~ /^<!-- BEGIN [a-z0-9-]+/) { inblock = 1; next }
        if ($0 ~ /^<!-- END [a-z0-9-]+ -->/) { inblock = 0; next }
        if (inblock) cells($0)
        next
    }
    function endpara() {
        if (para != "" && para ~ /× (previous|serial)/) {
            rest = para
            while (match(rest, /[0-9]+(\.[0-9]+)?×/)) {
                before = substr(rest, 1, RSTART - 1)
                if (before !~ /<!-- measured -->$/) {
                    printf "%s:%d: %s states a speed-up beside a generated column (\"× previous\", \"× serial\"): write it marked, <!-- measured -->%s, or refer to the table\n", parafile, paraline, substr(rest, RSTART, RLENGTH), substr(rest, RSTART, RLENGTH)
                    bad = 1
                }
                rest = substr(rest, RSTART + RLENGTH)
            }
        }
        para = ""; paraline = 0
    }
    {
        if ($0 ~ /^<!-- BEGIN [a-z0-9-]+/) { endpara(); inblock = 1; next }
        if ($0 ~ /^<!-- END [a-z0-9-]+ -->/) { inblock = 0; next }
        if (inblock) next
        if ($0 ~ /^ *(```|~~~)/) { endpara(); fence = !fence; next }
        if (fence) next
        if ($0 ~ /^[ \t]*$/) { endpara(); tail = 0; next }
        line = $0
        # Rule 2 works on paragraphs (a sentence may wrap); code spans are not prose.
        gsub(/`[^`]*`/, "", line)
        if (paraline == 0) { paraline = FNR; parafile = FILENAME }
        para = para " " line
        rest = $0
        while (match(rest, /<!-- measured -->[0-9]+(\.[0-9]+)?/)) {
            n = substr(rest, RSTART + 17, RLENGTH - 17)
            if (!((FILENAME, n) in block)) {
                printf "%s:%d: the marked number %s is not in this lesson'"'"'s generated blocks: update the prose from them\n", FILENAME, FNR, n
                bad = 1
            }
            marked++
            rest = substr(rest, RSTART + RLENGTH)
        }
        if (rest ~ /<!-- measured -->/ && $0 !~ /<!-- measured -->[0-9]/) {
            printf "%s:%d: a <!-- measured --> marker without a number right after it\n", FILENAME, FNR
            bad = 1
        }
        # A marker wrapped across two lines still hides in Markdown, but its number would go unchecked.
        if ((tail == 1 && $0 ~ /^[ \t]*measured[ \t]*-->/) || (tail == 2 && $0 ~ /^[ \t]*-->/)) {
            printf "%s:%d: a <!-- measured --> marker broken across lines: keep it whole, on the line of its number\n", FILENAME, FNR - 1
            bad = 1
        }
        tail = $0 ~ /<!--[ \t]*$/ ? 1 : $0 ~ /<!--[ \t]*measured[ \t]*$/ ? 2 : 0
    }
    END { if (pass == 2) endpara(); printf "marked %d\n", marked; exit bad }
    ' "$@"
}

# The files are read twice by awk (pass=1 collects the blocks, pass=2 checks the prose).
run() {
    local args=() f
    for f in "$@"; do args+=(pass=1 "$f"); done
    for f in "$@"; do args+=(pass=2 "$f"); done
    check "${args[@]}"
}

if [ "${1:-}" = --selftest ]; then
    mkdir -p build && t=$(mktemp -d build/lesson-numbers.XXXXXX) || exit 2
    trap 'rm -rf "$t"' EXIT
    cat > "$t/README.md" <<'EOF'
# a lesson

The naive kernel is <!-- measured -->7.19× the OpenMP step, and <!-- measured -->13.3× too.

<!-- BEGIN measured (generated; do not edit) -->
| N | G interactions/s | × previous |
|--:|--:|--:|
| 65536 | 279 | 7.19× |

Recorded: NVIDIA H200 (commit `f9b16da5f66f`).
<!-- END measured -->

The hash is no cell: <!-- measured -->9× is not in the block.

A stale copy: 13.3× the step before (the "× previous" column). A source's ×1.6 is not checked. A wrapped **<!--
measured -->9.99×** hides its number.

```
7.77× inside code is not prose
```
EOF
    out=$(run "$t/README.md")
    rc=$?
    out=$(printf '%s\n' "$out" | grep -v '^marked ')
    want="$t/README.md:3: the marked number 13.3 is not in this lesson's generated blocks: update the prose from them
$t/README.md:13: the marked number 9 is not in this lesson's generated blocks: update the prose from them
$t/README.md:15: a <!-- measured --> marker broken across lines: keep it whole, on the line of its number
$t/README.md:15: 13.3× states a speed-up beside a generated column (\"× previous\", \"× serial\"): write it marked, <!-- measured -->13.3×, or refer to the table"
    if [ $rc = 1 ] && [ "$out" = "$want" ]; then
        echo "PASS lesson-numbers: the check finds a wrong marked number, an unmarked one beside a generated column and a marker broken across lines"
    else
        echo "FAIL lesson-numbers: the selftest gave exit status $rc and:"
        printf '%s\n' "$out" | sed 's/^/    /'
        exit 1
    fi
    exit 0
fi

if [ $# -eq 0 ]; then
    set -- step*/README.md report/REPORT.md # REPORT's prose quotes its own blocks too (step13's long account)
fi
for f in "$@"; do
    [ -f "$f" ] || { echo "lesson-numbers.sh: cannot read $f" >&2; exit 2; }
done
out=$(run "$@")
rc=$?
marked=$(printf '%s\n' "$out" | sed -n 's/^marked //p')
out=$(printf '%s\n' "$out" | grep -v '^marked ')
if [ $rc = 0 ]; then
    echo "PASS lesson-numbers: ${marked:-0} numbers the lessons quote from their generated blocks match them"
    exit 0
fi
printf '%s\n' "$out"
echo "FAIL lesson-numbers: a lesson's prose contradicts its generated block (tests/lesson-numbers.sh says how to quote one)"
exit 1
