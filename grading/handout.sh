#!/usr/bin/env bash
# handout.sh: the student version of the lab, generated from the solutions.
#
#   grading/handout.sh OUT           write the student tree to OUT, a new folder outside the lab, where
#                                    the student keeps it (`make handout DEST=../nbody-lab`)
#   grading/handout.sh --scratch OUT a throw-away handout under the lab's build/ (the tests'); an earlier
#                                    handout there is replaced
#   grading/handout.sh --strip FILE  print FILE with its solutions stripped (to see what students get)
#   grading/handout.sh --check       check the markers of every step source, write nothing
#
# In the step sources (the folders of steps.list: *.c *.cu *.h *.cuh) a solution region is
#
#       /* BEGIN SOLUTION */
#       ...the solution...
#       /* STUB
#       ...what students get instead (optional; it is a comment in the solution)...
#       END SOLUTION */
#
# or, with no stub, the solution between /* BEGIN SOLUTION */ and /* END SOLUTION */. Markers stand
# alone on their lines. The handout keeps the stub lines and drops the solution and the markers;
# every other file of the tree is copied as it is, except the instructors' (a comment line that opens
# with the marker among a file's first 10 lines, or a name in grading/handout.exclude). Its README.md is the student's front
# door, grading/handout-README.md, followed by the lab README's reference sections (the ladder on).
# OUT is never a folder that holds anything else, and never an earlier handout outside build/ (it
# holds a student's work): remove it yourself, or name another.
# Mistakes (nested or unbalanced markers, a stray marker, */ inside a stub) name the file and line,
# and leave OUT untouched: exit status 2. See grading/HANDOUT.md.
set -u -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
me=handout.sh
die() { echo "$me: $*" >&2; exit 2; }

# strip FILE: the handout version of FILE on stdout; errors as FILE:LINE: message on stderr, status 2.
strip() {
    awk -v file="$1" '
    function fail(msg) { printf "%s:%d: %s\n", file, FNR, msg > "/dev/stderr"; bad = 1; exit 2 }
    /^[ \t]*\/\* BEGIN SOLUTION \*\/[ \t]*$/ {
        if (state) fail("BEGIN SOLUTION inside the region opened at line " open " (regions do not nest)")
        state = 1; open = FNR; regions++; next
    }
    /^[ \t]*\/\* STUB[ \t]*$/ {
        if (!state) fail("STUB outside a solution region (it follows /* BEGIN SOLUTION */ and the solution)")
        if (state == 2) fail("a second STUB in the region opened at line " open)
        state = 2; next
    }
    /^[ \t]*\/\* END SOLUTION \*\/[ \t]*$/ {
        if (!state) fail("END SOLUTION without a BEGIN SOLUTION before it")
        if (state == 2) fail("the STUB of the region opened at line " open " is a comment: close it with END SOLUTION */")
        state = 0; next
    }
    /^[ \t]*END SOLUTION \*\/[ \t]*$/ {
        if (state != 2) fail("END SOLUTION */ closes a STUB, and none is open here (write /* END SOLUTION */)")
        state = 0; next
    }
    /\/\*[ \t]*STUB[ \t]*\*\// { fail("write the stub as a comment, /* STUB on its own line ... END SOLUTION */, so that the solution does not compile it") }
    /(BEGIN|END)[ \t]+SOLUTION|\/\*[ \t]*STUB([^A-Za-z0-9_]|$)/ { fail("malformed marker: a marker stands alone on its line, exactly as in grading/HANDOUT.md") }
    state == 2 && index($0, "*/") { fail("a stub line contains */, which would end the comment that hides the stub (use // comments in stubs)") }
    state == 1 { next }
    { print }
    END {
        if (bad) exit 2
        if (state) { printf "%s:%d: BEGIN SOLUTION is never closed\n", file, open > "/dev/stderr"; exit 2 }
    }' "$1"
}

# File names go from here on NUL-terminated (read -r -d ''): a name may hold a space, a tab, a quote or a
# letter git would print quoted, and is handed out all the same.

# The step sources: every C/CUDA source in the folders that steps.list names.
step_sources() {
    local folder f
    while read -r folder; do
        [ -d "$here/$folder" ] || continue
        for f in "$here/$folder"/*.c "$here/$folder"/*.cu "$here/$folder"/*.h "$here/$folder"/*.cuh; do
            [ -f "$f" ] && printf '%s\0' "${f#"$here"/}"
        done
    done < <(STEPS_LIST=$here/steps.list bash "$here/common/steps.sh" registry_ids folder)
}

# Every file of the tree, relative to it: tracked and untracked-but-not-ignored where git knows the tree.
tree_files() {
    if git -C "$here" rev-parse --show-toplevel > /dev/null 2>&1 &&
        [ "$(git -C "$here" rev-parse --show-toplevel)" = "$here" ]; then
        git -C "$here" ls-files -z --cached --others --exclude-standard
    else
        (cd "$here" && find . \( -path ./build -o -path ./.git -o -path ./.deps \) -prune -o -type f -printf '%P\0')
    fi
}

# Instructors' material stays out of the handout, decided by what a file says of itself: a file with a
# line among its first 10 that opens a comment with the marker, `/* INSTRUCTORS ONLY: why */`,
# `// INSTRUCTORS ONLY: why` or `# INSTRUCTORS ONLY: why` (a worked answer, a bench that holds a step's
# kernel, the check of the exercises' answers). grading/handout.exclude names what is the instructors'
# by its name alone (every INSTRUCTORS.md, the engineers' notes). grading/handout-test.sh checks the
# result by content: no file outside the stripped steps holds a solution region's code.
instructors_only() { head -n 10 "$here/$1" 2> /dev/null | grep -qE '^[[:space:]]*(/\*|//|#) INSTRUCTORS ONLY:'; }

excluded() {
    local pattern
    instructors_only "$1" && return 0
    [ -f "$here/grading/handout.exclude" ] || return 1
    while read -r pattern; do
        case $pattern in '' | '#'*) continue ;; esac
        # shellcheck disable=SC2053 # the pattern is a glob on purpose
        [[ $1 == $pattern ]] && return 0
    done < "$here/grading/handout.exclude"
    return 1
}

[ -f "$here/.handout" ] && die "this tree is already a handout (it has no solutions to strip)"

case ${1:-} in
--strip)
    [ $# -eq 2 ] || die "usage: grading/handout.sh --strip FILE"
    { [ -f "$2" ] && [ -r "$2" ]; } || die "cannot read $2"
    strip "$2"
    exit $?
    ;;
--check)
    [ $# -eq 1 ] || die "usage: grading/handout.sh --check"
    status=0
    while IFS= read -r -d '' f; do
        strip "$here/$f" > /dev/null || status=2
    done < <(step_sources)
    exit $status
    ;;
-h | --help)
    sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
--scratch) ;;
-* | '') die "usage: grading/handout.sh OUT (or --strip FILE, --check; see --help)" ;;
esac
scratch=0
if [ "${1:-}" = --scratch ]; then
    scratch=1
    shift
fi
[ $# -eq 1 ] || die "usage: grading/handout.sh [--scratch] OUT (one folder)"
out=$1

# OUT is a folder of its own, outside the lab (the student keeps it: `make clean` removes build/), and
# never a folder that holds something else; --scratch: under build/, for the tests.
mkdir -p "$(dirname "$out")" 2> /dev/null || die "cannot create the folder of $out"
parent=$(cd "$(dirname "$out")" && pwd) || die "cannot use $out"
abs="$parent/$(basename "$out")"
case $abs/ in
"$here"/) die "$out is the lab itself: name a folder of its own, outside it (e.g. DEST=../nbody-lab)" ;;
"$here"/build/* | "$here"/.deps/*)
    [ $scratch -eq 1 ] || die "$out is under build/, which make clean deletes: keep your copy outside the lab (e.g. DEST=../nbody-lab)" ;;
"$here"/*) die "$out is inside the lab's sources: keep your copy outside the lab (e.g. DEST=../nbody-lab)" ;;
*) [ $scratch -eq 0 ] || die "--scratch writes under the lab's build/ only, not $out" ;;
esac
case $here/ in "$abs"/*) die "$out contains the lab: name a folder of its own" ;; esac
if [ -e "$abs" ] && { [ ! -d "$abs" ] || { [ ! -f "$abs/.handout" ] && [ -n "$(ls -A "$abs")" ]; }; }; then
    die "$out exists and is not an earlier handout: will not overwrite it"
fi
if [ -e "$abs" ] && [ $scratch -eq 0 ] && [ -n "$(ls -A "$abs")" ]; then
    die "$out is an earlier handout and may hold your work: will not overwrite it (remove it yourself, or name another folder)"
fi

# Everything goes into a temporary folder beside OUT, renamed over it only once complete.
tmp=$(mktemp -d "$parent/.handout.XXXXXX") || die "cannot write in $parent"
trap 'rm -rf "$tmp"' EXIT
declare -A is_step
while IFS= read -r -d '' f; do is_step[$f]=1; done < <(step_sources)

status=0 files=0 stripped=0 unmarked=()
while IFS= read -r -d '' f; do
    [ -f "$here/$f" ] || continue # deleted from the work tree, still in the index
    excluded "$f" && continue
    mkdir -p "$tmp/$(dirname "$f")" || die "cannot write in $tmp"
    if [ -n "${is_step[$f]:-}" ]; then
        if ! strip "$here/$f" > "$tmp/$f"; then
            status=2
            continue
        fi
        if cmp -s "$here/$f" "$tmp/$f"; then
            unmarked+=("$f")
        else
            stripped=$((stripped + 1))
        fi
    else
        cp -p "$here/$f" "$tmp/$f" || die "cannot copy $f"
    fi
    files=$((files + 1))
done < <(tree_files)
[ $status -eq 0 ] || die "no handout written: fix the markers above"

# The handout's README.md: the student's front door (grading/handout-README.md), then the lab README's
# reference sections: from "## The ladder" on, without the instructors' section.
if [ -f "$here/README.md" ] && [ -f "$here/grading/handout-README.md" ]; then
    grep -q '^## The ladder' "$here/README.md" || die "README.md has no '## The ladder' section to hand out after the front door"
    {
        cat "$here/grading/handout-README.md"
        echo
        awk '/^## / { if ($0 ~ /^## The ladder/) started = 1; skip = ($0 ~ /^## For instructors/) } started && !skip' "$here/README.md"
    } > "$tmp/README.md" || die "cannot write the handout's README.md"
fi

commit=$(git -C "$here" rev-parse --short=12 HEAD 2> /dev/null || echo unknown)
git -C "$here" diff --quiet HEAD -- 2> /dev/null || commit="$commit-dirty"
printf 'handout of the N-body lab, from commit %s, %s: solutions stripped by grading/handout.sh\n' \
    "$commit" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$tmp/.handout"
for f in "${unmarked[@]}"; do
    echo "$me: warning: $f has no solution markers: it goes out with its solution" >&2
done
chmod 755 "$tmp" # mktemp made it private
{ rm -rf "$abs" && mv "$tmp" "$abs"; } || die "cannot move the handout into $out"
trap - EXIT
echo "$me: $out: $files files, $stripped step sources stripped of their solutions"
