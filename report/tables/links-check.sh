#!/usr/bin/env bash
# links-check.sh [FILE.md ...]: every relative link `[text](path)` or `![alt](path)` in the lab's
# Markdown must point to a file or folder that exists, and a file that goes into the student handout
# must not link to one that grading/handout.exclude keeps out of it (the link would break there).
# Without arguments: README.md, every step's README.md and INSTRUCTORS.md, and the other READMEs and
# REPORT.md. Links to the web (scheme:), to an anchor of the same page (#...) and links inside code
# (fenced blocks, `code spans`) are not checked; of path#anchor only the path is.
# Prints one line per broken link and exits 1 if there is any, 0 otherwise; 2 on a missing FILE.
set -u -o pipefail
cd "$(dirname "$0")/../.." || exit 2

# The handout's exclusions, the same test as grading/handout.sh: bash globs on paths from the root.
excluded() {
    local pattern
    [ -f grading/handout.exclude ] || return 1
    while read -r pattern; do
        case $pattern in '' | '#'*) continue ;; esac
        # shellcheck disable=SC2053 # the pattern is a glob on purpose
        [[ $1 == $pattern ]] && return 0
    done < grading/handout.exclude
    return 1
}

# "path/./a/../b" -> "path/b", relative to the root; a path that climbs above the root stays as it is.
normalize() {
    local IFS=/ part out=()
    for part in $1; do
        case $part in
            '' | .) ;;
            ..) if [ ${#out[@]} -gt 0 ] && [ "${out[-1]}" != .. ]; then unset 'out[-1]'; else out+=(..); fi ;;
            *) out+=("$part") ;;
        esac
    done
    printf '%s' "${out[*]}"
}

# --selftest: the check must be able to fail: a page with one good link, one to nothing and one into
# a file the handout leaves out must give exactly the two broken ones and exit status 1.
if [ "${1:-}" = --selftest ]; then
    mkdir -p build && t=$(mktemp -d build/links-selftest.XXXXXX) || exit 2
    trap 'rm -rf "$t"' EXIT
    mkdir -p "$t/sub" && echo "answers" > "$t/sub/INSTRUCTORS.md" || exit 2
    printf '[ok](../../README.md) [gone](nothing-here.md) `[code](skipped.md)`\n[notes](sub/INSTRUCTORS.md#1)\n' > "$t/page.md"
    out=$(bash "$0" "$t/page.md")
    rc=$?
    if [ $rc = 1 ] && [ "$(grep -c '^BROKEN' <<< "$out")" = 2 ] && grep -q 'nothing-here.md' <<< "$out" && grep -q 'kept out of the student handout' <<< "$out"; then
        echo "PASS links: the check finds a link to nothing and a link into the instructors' files (selftest)"
        exit 0
    fi
    echo "FAIL links: selftest: expected 2 broken links and exit status 1, got $rc:"$'\n'"$out"
    exit 1
fi

if [ $# -gt 0 ]; then
    files=("$@")
else
    files=(README.md report/REPORT.md)
    for f in step*/README.md step*/INSTRUCTORS.md */README.md report/*/README.md; do
        [ -f "$f" ] && files+=("$f")
    done
    mapfile -t files < <(printf '%s\n' "${files[@]}" | awk '!seen[$0]++')
fi

broken=0 checked=0
for f in "${files[@]}"; do
    [ -f "$f" ] || { echo "links-check.sh: no file $f" >&2; exit 2; }
    dir=$(dirname "$f")
    # LINE<TAB>TARGET for every link outside code: fences and `spans` blanked first.
    while IFS=$'\t' read -r line target; do
        case $target in '' | '#'* | *:*) continue ;; esac
        path=${target%%#*}
        path=${path%%\?*}
        [ -n "$path" ] || continue
        checked=$((checked + 1))
        if [ "${path:0:1}" = / ]; then resolved=$(normalize "${path#/}"); else resolved=$(normalize "$dir/$path"); fi
        if [ ! -e "$resolved" ]; then
            echo "BROKEN $f:$line: ($target) -> $resolved does not exist"
            broken=$((broken + 1))
        elif ! excluded "$f" && excluded "$resolved"; then
            echo "BROKEN $f:$line: ($target) -> $resolved is kept out of the student handout (grading/handout.exclude), $f is not"
            broken=$((broken + 1))
        fi
    done < <(awk '
        /^[ \t]*(```|~~~)/ { fence = !fence; next }
        fence { next }
        {
            line = $0
            gsub(/`[^`]*`/, "", line)
            while (match(line, /\]\([^)]*\)/)) {
                t = substr(line, RSTART + 2, RLENGTH - 3)
                sub(/^[ \t]*</, "", t); sub(/>[ \t]*$/, "", t)
                sub(/[ \t]+"[^"]*"[ \t]*$/, "", t)
                printf "%d\t%s\n", FNR, t
                line = substr(line, RSTART + RLENGTH)
            }
        }' "$f")
done
if [ $broken -gt 0 ]; then
    echo "FAIL links: $broken of $checked relative links in ${#files[@]} Markdown files are broken"
    exit 1
fi
echo "PASS links: $checked relative links in ${#files[@]} Markdown files point to files that exist (and stay in the handout where their page does)"
