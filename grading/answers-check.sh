#!/usr/bin/env bash
# answers-check.sh LAB HANDOUT: no file of the handout outside its stripped step sources holds a step's
# solution. Decided by content, not by a list of paths:
#
#   each solution region of LAB's step sources (/* BEGIN SOLUTION */ ... its stub or END SOLUTION) is
#   cut into shingles, every run of 8 consecutive C tokens (comments dropped, spacing ignored); the
#   shingles a student is given anyway (HANDOUT's common/ and its stripped step sources) do not count;
#   a text file of HANDOUT that holds a quarter or more of a region's remaining shingles holds that
#   solution, and is named with the region and the share.
#
# Calibrated on the lab as it was (grading/HANDOUT.md): the force benches of report/explore held 35 to
# 39 % of a step's kernel; every other file at most 15 % (tests/check_validate.c's planted-fault step).
# Prints one line per leak and exits 1 if there is any, 0 if none (with a line saying what was compared),
# 2 on bad usage.
set -u -o pipefail
[ $# -eq 2 ] && [ -d "$1" ] && [ -d "$2" ] || { echo "usage: grading/answers-check.sh LAB HANDOUT" >&2; exit 2; }
lab=$(cd "$1" && pwd) hand=$(cd "$2" && pwd)
. "$lab/common/steps.sh"

regions=() given=() candidates=()
while read -r folder lang; do
    [ -f "$lab/$folder/nbody.$lang" ] && regions+=("$lab/$folder/nbody.$lang")
    [ -f "$hand/$folder/nbody.$lang" ] && given+=("$hand/$folder/nbody.$lang")
done < <(STEPS_LIST=$lab/steps.list registry_ids folder lang)
[ ${#regions[@]} -gt 0 ] || { echo "answers-check.sh: no step source in $lab" >&2; exit 2; }
for f in "$hand"/common/*; do [ -f "$f" ] && given+=("$f"); done
# Every text file of the handout but the stripped step sources (binary files and large data skipped).
while IFS= read -r -d '' f; do
    case " ${given[*]} " in *" $f "*) [[ $f == "$hand"/common/* ]] || continue ;; esac
    grep -Iq . "$f" 2> /dev/null && candidates+=("$f")
done < <(find "$hand" \( -path "$hand/build" -o -path "$hand/.git" \) -prune -o -type f -size -2M -print0)

args=()
for f in "${regions[@]}"; do args+=(kind=region "$f"); done
for f in "${given[@]}"; do args+=(kind=given "$f"); done
for f in "${candidates[@]}"; do args+=(kind=cand "$f"); done

LC_ALL=C awk -v K=8 -v share=0.25 -v hand="$hand/" -v lab="$lab/" '
FNR == 1 { ntok = 0; incomment = 0; region = ""; nreg_here = 0 }
# The solution regions of a step source: the markers of grading/HANDOUT.md.
kind == "region" && /^[ \t]*\/\* BEGIN SOLUTION \*\/[ \t]*$/ { region = FILENAME ":" (++nreg_here); ntok = 0; next }
kind == "region" && (/^[ \t]*\/\* STUB[ \t]*$/ || /^[ \t]*(\/\* )?END SOLUTION \*\/[ \t]*$/) { region = ""; ntok = 0; next }
kind == "region" && region == "" { next }
{
    line = $0
    # comments: /* ... */ (over lines) and // ...
    out = ""
    while (line != "") {
        if (incomment) {
            p = index(line, "*/")
            if (!p) { line = ""; break }
            line = substr(line, p + 2); incomment = 0
        } else {
            p = index(line, "/*"); q = index(line, "//")
            if (q && (!p || q < p)) { out = out substr(line, 1, q - 1); line = ""; break }
            if (!p) { out = out line; line = ""; break }
            out = out substr(line, 1, p - 1) " "; line = substr(line, p + 2); incomment = 1
        }
    }
    while (match(out, /[A-Za-z_][A-Za-z0-9_]*|[0-9][A-Za-z0-9_.]*|[^ \t\r]/)) {
        tok[ntok++ % K] = substr(out, RSTART, RLENGTH)
        out = substr(out, RSTART + RLENGTH)
        if (ntok < K) continue
        sh = tok[(ntok - K) % K]
        for (i = ntok - K + 1; i < ntok; i++) sh = sh " " tok[i % K]
        if (kind == "region") {
            if (!((region, sh) in inreg)) { inreg[region, sh] = 1; regs[sh] = regs[sh] SUBSEP region; regsize[region]++ }
        } else if (kind == "given") {
            given[sh] = 1
        } else if ((sh in regs) && !(sh in given) && !((FILENAME, sh) in counted)) {
            counted[FILENAME, sh] = 1
            n = split(substr(regs[sh], 2), rl, SUBSEP)
            for (r = 1; r <= n; r++) hits[FILENAME SUBSEP rl[r]]++
            files[FILENAME] = 1
        }
    }
}
END {
    # A region counts only the shingles a student is not given anyway.
    for (key in inreg) { split(key, kp, SUBSEP); if (kp[2] in given) regsize[kp[1]]-- }
    leaks = 0; worst = 0
    for (key in hits) {
        split(key, kp, SUBSEP); f = kp[1]; r = kp[2]
        if (regsize[r] < 20) continue # too little of its own to tell
        frac = hits[key] / regsize[r]
        if (frac > worst) { worst = frac; worstname = f " (" r ")" }
        if (frac >= share) {
            size = regsize[r]; sub("^" hand, "", f); sub("^" lab, "", r)
            printf "LEAK %s holds %.0f%% of the solution region %s (%d of its %d shingles)\n", f, 100 * frac, r, hits[key], size
            leaks++
        }
    }
    nfiles = 0; for (f in files) nfiles++
    nreg = 0; for (r in regsize) nreg++
    if (!leaks) {
        w = worstname; gsub(hand, "", w); gsub(lab, "", w)
        printf "%d solution regions against the handout'\''s text files: none holds %.0f%% of one (the most: %.0f%%, %s)\n", nreg, 100 * share, 100 * worst, w
    }
    exit leaks > 0
}' "${args[@]}"
