# pick.awk: select rows and columns of CSV files by column name (the figures' and tables' one filter).
#
#   awk -f report/query/pick.awk -v cols=step,bodies,ginteractions_s [-v where='tag=ladder;step!=00']
#       [-v need=ginteractions_s] [-v key=step,build] [-v header=1] [-v sep=,] [-v absent=empty] FILE...
#
# where  conditions joined by ';': col=value, col!=value, col~regex, col!~regex (all must hold)
# need   columns that must not be empty (rows without a measurement are dropped)
# key    keep only the last row of each key (re-runs replace earlier rows), in first-seen order
# header 1: print the chosen column names first
# Each file has its own header line, so files with the same columns in another order mix safely.
# A column that a file lacks reads as empty; "config.KEY" reads KEY=value out of column config;
# "_recording" is the name of the folder the row's file is in (report/data/<recording>/FILE).
# The judge's columns theta, levels, eta and decompose (common/results.h): a file recorded before them
# (its header lacks the column) has the step's own words for them in config, which are read instead
# (theta=0.5 in config is column theta 0.5), so old and new recordings select and print alike.
# A column in cols that no file has is an error (exit 2), unless absent=empty: then it reads as empty too
# (to write a fixed header, e.g. the results CSV's, from recordings older than some of its columns).
BEGIN {
    FS = ","
    if (sep == "") sep = ","
    split("theta levels eta decompose", judged_list, " ")
    for (i in judged_list) judged[judged_list[i]] = 1
    ncols = split(cols, want, ",")
    if (ncols == 0) { print "pick.awk: no columns asked for (-v cols=a,b)" > "/dev/stderr"; bad = 1; exit 2 }
    nconds = 0
    n = split(where, parts, ";")
    for (i = 1; i <= n; ++i) {
        c = parts[i]
        if (c == "") continue
        if (match(c, /!=|!~|=|~/) == 0) { print "pick.awk: bad condition '" c "'" > "/dev/stderr"; bad = 1; exit 2 }
        ++nconds
        cname[nconds] = substr(c, 1, RSTART - 1)
        cop[nconds] = substr(c, RSTART, RLENGTH)
        cval[nconds] = substr(c, RSTART + RLENGTH)
    }
    nneed = split(need, needed, ",")
    nkeys = split(key, keys, ",")
    rows = 0
}
FNR == 1 {
    delete col
    for (i = 1; i <= NF; ++i) { h = $i; sub(/\r$/, "", h); col[h] = i }
    for (i = 1; i <= ncols; ++i)
        if (base(want[i]) in col || want[i] == "_recording" || (want[i] in judged && "config" in col)) known[want[i]] = 1
    next
}
# "config.unroll": the value of unroll=... among the space-separated key=value words of column config.
function base(name) { return index(name, ".") ? substr(name, 1, index(name, ".") - 1) : name }
function field(name,    b, k, nw, w, i) {
    if (name == "_recording") { b = FILENAME; sub(/\/[^\/]*$/, "", b); sub(/^.*\//, "", b); return b }
    b = base(name)
    if (b == name && name in judged && !(name in col)) return field("config." name) # an older file
    if (!(b in col)) return ""
    if (b == name) return $(col[b])
    k = substr(name, length(b) + 2) "="
    nw = split($(col[b]), w, " ")
    for (i = 1; i <= nw; ++i) if (index(w[i], k) == 1) return substr(w[i], length(k) + 1)
    return ""
}
{
    sub(/\r$/, "")
    if ($0 == "") next
    for (i = 1; i <= nconds; ++i) {
        v = field(cname[i]); op = cop[i]; x = cval[i]
        if (op == "=" && v != x) next
        if (op == "!=" && v == x) next
        if (op == "~" && v !~ x) next
        if (op == "!~" && v ~ x) next
    }
    for (i = 1; i <= nneed; ++i) if (field(needed[i]) == "") next
    line = ""
    for (i = 1; i <= ncols; ++i) line = line (i > 1 ? sep : "") field(want[i])
    k = ""
    for (i = 1; i <= nkeys; ++i) k = k SUBSEP field(keys[i])
    if (nkeys == 0) k = ++rows
    if (!(k in out)) order[++norder] = k
    out[k] = line
}
END {
    if (bad) exit 2
    for (i = 1; i <= ncols; ++i)
        if (!(want[i] in known) && NR > 0 && absent != "empty") { print "pick.awk: no column '" want[i] "' in " FILENAME > "/dev/stderr"; exit 2 }
    if (header) { line = ""; for (i = 1; i <= ncols; ++i) line = line (i > 1 ? sep : "") want[i]; print line }
    for (i = 1; i <= norder; ++i) print out[order[i]]
}
