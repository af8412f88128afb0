# blockruns.awk: how report/query/blockseeds.awk and blockequal.awk read a file's header and a run from its
# label and its file's name (loaded before either: awk -f report/query/blockruns.awk -f report/query/blockseeds.awk ...).

# header(): at a file's first line, sets the globals c (a column's number by its name), kind ("energy" for
# diag's rows, "res" for the judge's, "?") and scheme (step13's, from the file's name: blockseeds.awk says how)
function header(   i, h) {
    delete c
    for (i = 1; i <= NF; ++i) { h = $i; sub(/\r$/, "", h); c[h] = i }
    kind = ("rel_energy_error" in c) ? "energy" : ("kernel_s" in c) ? "res" : "?"
    if (FILENAME ~ /blockcap/)
        scheme = match(FILENAME, /-L[0-9]+(dt[0-9]+)?[-.]/) ? cap(substr(FILENAME, RSTART + 2, RLENGTH - 3)) : "8:1/16"
    else
        scheme = FILENAME ~ /finer/ ? "finer" : "held"
}

# cap(NAME): step13's levels and dt_max from a blockcap file's "-L<NAME>-": "7dt20" -> "7:1/20", "8" -> "8:1/16"
function cap(name,   p) { p = index(name, "dt"); return p ? substr(name, 1, p - 1) ":1/" substr(name, p + 2) : name ":1/16" }

# run LABEL: the run's key (seed taken out) as step|scheme|param|value, step13's scheme the global `scheme`;
# sets the global s (its seed: the label's "-seedN", none: 42)
function run(label,   step, p, v) {
    s = 42
    if (match(label, /-seed[0-9]+-/)) { s = substr(label, RSTART + 5, RLENGTH - 6) + 0; sub(/-seed[0-9]+-/, "-", label) }
    step = (label ~ /^s12/) ? 12 : 13
    if (label ~ /-dt1\//) { p = "dt"; v = label; sub(/.*-dt/, "", v) } else { p = "eta"; v = label; sub(/.*-eta/, "", v) }
    return step "|" (step == 12 ? "" : scheme) "|" p "|" v
}
