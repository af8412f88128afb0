#!/usr/bin/env bash
# registry-check.sh: the readers of steps.list read it by column name. A copy of the registry with a new
# column in the middle must read the same for every other column, through the shell's reader
# (common/steps.sh) and through make's (the Makefile's registry functions); a flag written with "\,"
# is one compiler word with a comma; a registry without its header line, or a column it does not
# have, is one line on stderr and exit status 2. Run by make test-registry.
set -u -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here" || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "PASS registry: $*"; }
fail() { echo "FAIL registry: $*"; fails=$((fails + 1)); }
. common/steps.sh
cols=$(registry_table | head -n 1 | tr '\t' ' ')

# A copy with a column "extra" after lang: the header names it, every step has a value (the fixture is
# written by editing the file; what is read from it is read by the readers under test).
mkdir -p "$tmp/wide/common"
cp Makefile "$tmp/wide/" && cp common/steps.sh "$tmp/wide/common/" || exit 2
awk '/^#id[ \t]/ { sub(/ lang /, " lang extra ") } $1 ~ /^[0-9]+$/ { $3 = $3 " x" $1 } { print }' steps.list > "$tmp/wide/steps.list"
mkdir -p "$tmp/narrow/common"
cp Makefile steps.list "$tmp/narrow/" && cp common/steps.sh "$tmp/narrow/common/" || exit 2

# The shell's reader: every column of every step, in both.
a=$(for c in $cols; do registry_ids id "$c"; done)
b=$(for c in $cols; do STEPS_LIST=$tmp/wide/steps.list registry_ids id "$c"; done)
x=$(STEPS_LIST=$tmp/wide/steps.list registry_field 05 extra)
if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$x" = x05 ]; then
    pass "common/steps.sh reads the $(echo $cols | wc -w) columns the same with a new column among them"
else
    fail "common/steps.sh: a new column changed what it reads (extra of 05: '$x')"
fi

# make's reader: every function of every step, in both trees.
printf '%s\n' 'show:' \
    '	@$(foreach s,$(STEP_IDS),echo "$(s)|$(call folder_of,$(s))|$(call lang_of,$(s))|$(call flags_of,$(s))|$(call from_of,$(s))|$(call check_of,$(s))|$(call launch_of,$(s))|$(call summary_of,$(s))";)' \
    > "$tmp/show.mk"
for t in narrow wide; do
    make -s -C "$tmp/$t" -f Makefile -f "$tmp/show.mk" BUILD="$tmp/$t/build" NVCC=/nonexistent show > "$tmp/$t.txt" 2>&1
done
if [ -s "$tmp/narrow.txt" ] && cmp -s "$tmp/narrow.txt" "$tmp/wide.txt" && grep -q '^01|step01_omp|c|.* -mrecip=!vec-div,!vec-sqrt|00|' "$tmp/narrow.txt"; then
    pass "the Makefile reads the registry the same with a new column; 01's -mrecip=!vec-div\\,!vec-sqrt is one flag"
else
    fail "the Makefile's registry functions: $(diff "$tmp/narrow.txt" "$tmp/wide.txt" | head -n 3)"
fi
f=$(registry_field 01 flags)
[[ " $f " == *" -mrecip=!vec-div,!vec-sqrt "* ]] && pass "common/steps.sh: 01's flags are '$f'" ||
    fail "common/steps.sh: 01's flags are '$f'"

# Errors: one line, exit 2.
grep -v '^#id' steps.list > "$tmp/noheader.list"
for case in "no header:STEPS_LIST=$tmp/noheader.list registry_ids" "no column:registry_ids nosuch" \
    "no step:registry_field 99 folder" "no file:STEPS_LIST=$tmp/none.list registry_ids"; do
    out=$(eval "${case#*:}" 2>&1 > /dev/null)
    rc=$?
    if [ $rc = 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && [[ $out == steps.sh:* ]]; then
        pass "${case%%:*}: exit 2, '$out'"
    else
        fail "${case%%:*}: exit $rc, '$out'"
    fi
done
[ $fails = 0 ]
