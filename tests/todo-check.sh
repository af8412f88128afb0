#!/usr/bin/env bash
# todo-check.sh: grading/todo.awk reads a stub's whole TODO message, a message split over lines as C's
# adjacent strings too (step12's and step13's were cut at the first line's end once). Every step's
# stub, as the handout gives it (grading/handout.sh --strip; in a handout, the sources as they are,
# a step already written passed over), must give a message that ends as the lessons' do, with the
# lesson's README and its closing parenthesis. Run by make test-todo.
set -u -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here" || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "PASS todo: $*"; }
fail() { echo "FAIL todo: $*"; fails=$((fails + 1)); }
. common/steps.sh

# A fixture: a message in three strings over three lines, then code.
printf '%s\n' '    nb_error("TODO: a() and b() "' '             "are yours to write "' \
    '             "(see x/README.md)");' '    return 2;' '    f("not this");' > "$tmp/split.c"
m=$(awk -f grading/todo.awk "$tmp/split.c")
[ "$m" = "TODO: a() and b() are yours to write (see x/README.md)" ] && pass "a message in three strings is read whole" ||
    fail "a message in three strings read as '$m'"
printf '%s\n' '    nb_die(2, "TODO: one line (see y/README.md)");' '    "not a continuation";' > "$tmp/one.c"
m=$(awk -f grading/todo.awk "$tmp/one.c")
[ "$m" = "TODO: one line (see y/README.md)" ] && pass "a one-line message stops at its line" ||
    fail "a one-line message read as '$m'"

# Every step's stub.
n=0
for id in $(registry_ids id); do
    src=$(registry_field "$id" folder)/nbody.$(registry_field "$id" lang)
    [ -f "$src" ] || continue
    if [ -f .handout ]; then
        cp "$src" "$tmp/stub" || exit 2
        awk -f grading/todo.awk "$tmp/stub" > /dev/null || continue
    else
        bash grading/handout.sh --strip "$src" > "$tmp/stub" || { fail "$src: cannot strip"; continue; }
    fi
    m=$(awk -f grading/todo.awk "$tmp/stub")
    case $m in
    TODO:*README.md\)) n=$((n + 1)) ;;
    *) fail "$src: its stub's message is cut: '$m'" ;;
    esac
done
pass "$n stubs' messages read whole, to their lesson's README"
[ "$fails" -eq 0 ]
