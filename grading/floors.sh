#!/usr/bin/env bash
# grading/floors.sh: check that the grader's files stand on floors. The floor of each file is read from
# grading/README.md's table ("Which file does what": rows "| N | `file.c` | ..."; a header x.h is on the
# floor of x.c, types.h on its own row). A file may include only grading/ headers of its own floor or
# below, so that no file includes or calls one above it. Prints each upward edge; exit 1 if any, 2 if a
# file has no floor.   bash grading/floors.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
declare -A floor
while IFS='|' read -r _ n file _; do
    n=${n// /}
    file=${file//[ \`]/}
    [[ $n =~ ^[0-9]+$ ]] || continue
    floor[$file]=$n
done < "$here/README.md"
for file in "${!floor[@]}"; do # x.h on the floor of x.c, unless the table names it (types.h)
    if [[ $file == *.c && -z ${floor[${file%.c}.h]:-} ]]; then
        floor[${file%.c}.h]=${floor[$file]}
    fi
done
bad=0
for path in "$here"/*.c "$here"/*.h; do
    f=${path##*/}
    if [ -z "${floor[$f]:-}" ]; then
        echo "floors: grading/$f has no floor in grading/README.md" >&2
        exit 2
    fi
    while read -r inc; do
        [ -f "$here/$inc" ] || continue # common/'s headers and the system's: below every floor
        if [ -z "${floor[$inc]:-}" ]; then
            echo "floors: grading/$inc (included by $f) has no floor in grading/README.md" >&2
            exit 2
        fi
        if [ "${floor[$inc]}" -gt "${floor[$f]}" ]; then
            echo "floors: grading/$f (floor ${floor[$f]}) includes $inc (floor ${floor[$inc]}): upward"
            bad=1
        fi
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$path")
done
[ "$bad" -eq 0 ] && echo "floors: every include of grading/ goes down or across (${#floor[@]} files)"
exit "$bad"
