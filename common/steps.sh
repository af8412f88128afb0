# steps.sh: the shell's one reader of steps.list (the registry), sourced: . common/steps.sh
# It finds each column by its name in the registry's header line (#id folder lang gpus flags ...), so
# a new column moves nothing; the last column (summary) is the rest of the line. Every shell script,
# the Makefile (through registry_table: $(BUILD)/gen/steps.tsv) and the figures (through a table
# written by report/plots/figures.sh) read the registry here; C reads it in grading/registry.c.
#   registry_table            the registry as a table: the column names, then one line per step, tab-separated;
#                             flags as compiler words ("\," in steps.list is a comma inside one flag: read here,
#                             and nowhere else), or none; and, last, the column check, derived here from the
#                             features (tree for a step with theta, else exact)
#   registry_field STEP COL   column COL of STEP (its id or its folder)
#   registry_where COL VALUE [OUT...]   columns OUT (default id), tab-separated, of every step whose COL is
#                             VALUE, one line each, in the registry's order
#   registry_ids [OUT...]     columns OUT (default id), tab-separated, of every step, in order
#                             (while read -r id folder lang; do ...; done < <(registry_ids id folder lang))
# The registry read is $STEPS_LIST, default steps.list beside common/. A missing file, a missing header
# or an unknown column name: one line on stderr, status 2.
STEPS_LIST=${STEPS_LIST:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/steps.list}

registry_table() {
    [ -r "$STEPS_LIST" ] || { echo "steps.sh: cannot read $STEPS_LIST" >&2; return 2; }
    awk -v OFS='\t' -v list="$STEPS_LIST" '
        !n && /^#id[ \t]/ { n = split(substr($0, 2), name); $0 = substr($0, 2); $1 = $1
                            for (k = 1; k <= n; ++k) if (name[k] == "features") fcol = k
                            print $0 (fcol ? OFS "check" : ""); next }
        $1 ~ /^[0-9]+$/ {
            if (!n) exit
            rest = $0; row = ""
            for (k = 1; k < n; ++k) {
                sub(/^[ \t]+/, "", rest); match(rest, /^[^ \t]*/)
                f = substr(rest, 1, RLENGTH); rest = substr(rest, RLENGTH + 1)
                if (name[k] == "flags") { gsub(/\\,/, "\001", f); gsub(/,/, " ", f); gsub(/\001/, ",", f) }
                row = row f OFS
            }
            gsub(/[ \t]+/, " ", rest); sub(/^ /, "", rest); sub(/ $/, "", rest)
            if (fcol) { split(row, cell, OFS); rest = rest OFS ((("," cell[fcol] ",") ~ /,theta,/) ? "tree" : "exact") }
            print row rest
        }
        END { if (!n) { print "steps.sh: " list ": no header line (#id folder ...) before the steps" > "/dev/stderr"; exit 2 } }
    ' "$STEPS_LIST"
}

# registry_select KEY VALUE COL...: columns COL (tab-separated) of the steps whose column KEY is VALUE
# (every step where KEY is empty).
registry_select() {
    local key=$1 value=$2 t
    shift 2
    t=$(registry_table) || return 2
    awk -F'\t' -v OFS='\t' -v key="$key" -v value="$value" -v cols="$*" '
        NR == 1 { for (k = 1; k <= NF; ++k) c[$k] = k
                  n = split(cols, out, " ")
                  if (key != "") out[0] = key
                  for (k = (key != "") ? 0 : 1; k <= n; ++k)
                      if (!(out[k] in c)) { print "steps.sh: steps.list has no column " out[k] > "/dev/stderr"; exit 2 }
                  next }
        key == "" || $c[key] == value { line = $c[out[1]]; for (k = 2; k <= n; ++k) line = line OFS $c[out[k]]; print line }
    ' <<< "$t"
}

registry_field() {
    local key=id out
    case $1 in [0-9]*) ;; *) key=folder ;; esac
    out=$(registry_select "$key" "$1" "$2") || return 2
    [ -n "$out" ] || { echo "steps.sh: no step $1 in $STEPS_LIST" >&2; return 2; }
    printf '%s\n' "$out"
}
registry_where() {
    local key=$1 value=$2
    shift 2
    registry_select "$key" "$value" "${@:-id}"
}
registry_ids() { registry_select "" "" "${@:-id}"; }

# Run, not sourced: bash common/steps.sh registry_table (the Makefile), registry_field 01 flags, ...
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    case ${1:-} in
    registry_table | registry_field | registry_where | registry_ids) "$@" ;;
    *) echo "usage: bash common/steps.sh registry_table | registry_field STEP COL | registry_where COL VALUE [OUT...] | registry_ids [OUT...]" >&2; exit 2 ;;
    esac
fi
