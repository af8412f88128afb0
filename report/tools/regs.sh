#!/usr/bin/env bash
# regs.sh: what ptxas gave each kernel of a GPU step (registers, spills, shared memory, stack), beside
# the step it grows from. `make regs STEP=NN` runs it with the step's compile line from the Makefile:
#
#   report/tools/regs.sh OUT ID FOLDER LANG 'NVCC COMMAND' [FROM_ID FROM_FOLDER FROM_LANG 'NVCC COMMAND']
#
# Each step is compiled once more, with -Xptxas -v, into OUT/FOLDER.o (the build's objects stay as they
# are); ptxas's lines go to OUT/FOLDER.ptxas and one row per kernel to OUT/FOLDER.tsv. Needs nvcc only
# (no GPU, no cuobjdump). A CPU step, an unknown one or a failed compile: one line on stderr, exit 2.
set -u -o pipefail
me=regs.sh
die() { echo "$me: $*" >&2; exit 2; }
[ $# -eq 5 ] || [ $# -eq 9 ] || die "usage: report/tools/regs.sh OUT ID FOLDER LANG 'NVCC COMMAND' [FROM_ID FROM_FOLDER FROM_LANG 'NVCC COMMAND']"
out=$1
id=$2 folder=$3 lang=$4 cmd=$5
[ -n "$id" ] || die "usage: make regs STEP=NN (a GPU step of steps.list, e.g. STEP=04)"
[ -n "$folder" ] || die "no step $id in steps.list"
[ "$lang" = cu ] || die "step $id ($folder) is a CPU step: make regs is for the GPU steps (ptxas reports their kernels)"
[ -f "$folder/nbody.cu" ] || die "$folder/nbody.cu is missing"
from_id=${6:-} from_folder=${7:-} from_lang=${8:-} from_cmd=${9:-}
mkdir -p "$out" || die "cannot make $out"
# c++filt turns _Z9force_kickP... into force_kick(...); without it the mangled names are shown.
demangle() { if command -v c++filt > /dev/null; then c++filt; else cat; fi; }

# ptxas FOLDER 'COMMAND': compile with -Xptxas -v, then the table OUT/FOLDER.tsv: mangled name, short
# name, registers, spill stores, spill loads, shared memory (bytes), stack frame (bytes).
ptxas_table() {
    local f=$1 command=$2
    # shellcheck disable=SC2086 # the command is the Makefile's, split into words on purpose
    if ! $command -Xptxas -v -c "$f/nbody.cu" -o "$out/$f.o" > "$out/$f.ptxas" 2>&1; then
        echo "$me: $f/nbody.cu does not compile: $(grep -m 1 -E 'error' "$out/$f.ptxas" || tail -n 1 "$out/$f.ptxas")" >&2
        return 2
    fi
    # Only entry functions (kernels): a non-inlined device function has properties but no "Used" line.
    awk -v OFS='\t' '
        /Compiling entry function/ { match($0, /'\''[^'\'']*'\''/); k = substr($0, RSTART + 1, RLENGTH - 2); order[++n] = k; next }
        /Function properties for/ { cur = $NF; next }
        /bytes stack frame/ { if (cur in seen) next; seen[cur] = 1
            stack[cur] = $1; st[cur] = $5; ld[cur] = $9; next }
        /Used [0-9]+ registers/ {
            match($0, /Used [0-9]+ registers/); r = substr($0, RSTART + 5, RLENGTH - 15)
            s = 0; if (match($0, /[0-9]+ bytes smem/)) s = substr($0, RSTART, RLENGTH - 11)
            regs[order[n]] = r; smem[order[n]] = s
        }
        END { for (i = 1; i <= n; ++i) { k = order[i]; print k, regs[k], st[k] + 0, ld[k] + 0, smem[k] + 0, stack[k] + 0 } }
    ' "$out/$f.ptxas" > "$out/$f.raw" || return 2
    # The short name: the demangled one without its parameters and template arguments, and for a
    # library's kernel (cub's) its namespace and its last name only.
    paste <(cut -f1 "$out/$f.raw") <(cut -f1 "$out/$f.raw" | demangle | sed -E \
        -e 's/^void //' -e ':a; s/<[^<>]*>/@targs@/; ta' -e 's/\(.*$//' -e 's/@targs@/<...>/g' \
        -e 's/^([A-Za-z_]+)::.*::([^:]+)$/\1::\2/') <(cut -f2- "$out/$f.raw") > "$out/$f.tsv"
    rm -f "$out/$f.raw"
}

ptxas_table "$folder" "$cmd" &
cur_job=$!
from_note=""
if [ -z "$from_id" ]; then
    from_note="step $id grows from no other step (steps.list, column from)"
elif [ "$from_lang" != cu ]; then
    from_note="step $from_id ($from_folder) is a CPU step: no kernels to set beside"
    from_id=""
elif [ ! -f "$from_folder/nbody.cu" ]; then
    from_note="$from_folder/nbody.cu is missing"
    from_id=""
else
    ptxas_table "$from_folder" "$from_cmd" &
    from_job=$!
fi
wait "$cur_job" || exit 2
if [ -n "$from_id" ]; then wait "$from_job" || exit 2; fi

echo "make regs STEP=$id: ptxas -v of $folder$([ -n "$from_id" ] && echo ", beside $from_folder (from)")"
[ -z "$from_note" ] || echo "  ($from_note)"
# One row per kernel name, this step's order first; a kernel in one step only shows - in the other.
awk -F'\t' -v id="$id" -v from="$from_id" '
    function cols(t, k) { return ((t, k) in R) ? sprintf("%5s %6s %6s %7s %6s", R[t, k], S[t, k], L[t, k], M[t, k], K[t, k]) \
                                             : sprintf("%5s %6s %6s %7s %6s", "-", "-", "-", "-", "-") }
    FNR == 1 { t++ }
    !((t, $2) in R) { if (!($2 in known)) { known[$2] = 1; names[++n] = $2 }
        R[t, $2] = $3; S[t, $2] = $4; L[t, $2] = $5; M[t, $2] = $6; K[t, $2] = $7 }
    END {
        head = sprintf("%5s %6s %6s %7s %6s", "regs", "spillS", "spillL", "smem B", "stack")
        printf "  %-34s %-35s", "kernel", "step " id ": " head
        if (from != "") printf "   %s", "from " from ": " head
        printf "\n"
        for (i = 1; i <= n; ++i) {
            k = names[i]; shown = length(k) > 34 ? substr(k, 1, 31) "..." : k
            printf "  %-34s %9s%s", shown, "", cols(1, k)
            if (from != "") printf "   %9s%s", "", cols(2, k)
            printf "\n"
        }
    }' "$out/$folder.tsv" $([ -n "$from_id" ] && echo "$out/$from_folder.tsv")
echo "  (bytes; smem: static shared memory, not what a launch asks for; spillS/spillL: spill stores/loads; ptxas lines: $out/$folder.ptxas)"
