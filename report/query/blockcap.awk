# blockcap.awk: step13 with its finest level capped against step12 about the black hole, three draws of the
# sphere, the times at 1 M and 8 M beside step12's in the same call (report/data/*/blockcap-*).
#
#   awk -v seeds="42 1 2" -f report/query/blockcap.awk ENERGY.csv... RESULTS.csv...
#
# ENERGY files are build/tools/diag's rows (the last row of a label is t = 1), RESULTS files the judge's
# (tags bs-1M-LABEL, bs-8M-LABEL), told apart by their headers. A label's seed is its "-seedN" (none: 42).
# step13's levels and dt_max are the file's: a name with "L7dt20" ran 7 levels of dt_max = 1/20, "L7" 7 of
# 1/16, any other 8 of 1/16. A later file's row of a run and seed replaces an earlier one's. Prints, in the
# order first seen: step,levels,dt_max,param,value,error at each seed (|relative|, t = 1),largest,
# time_1M_s,step12_1M_s (dt 1/1280, the same call),time_8M_s,step12_8M_s,device,date,commit
BEGIN { FS = ","; OFS = ","; ns = split(seeds == "" ? "42 1 2" : seeds, seed, " ") }
FNR == 1 {
    delete c
    for (i = 1; i <= NF; ++i) { h = $i; sub(/\r$/, "", h); c[h] = i }
    kind = ("rel_energy_error" in c) ? "energy" : ("kernel_s" in c) ? "res" : "?"
    scheme = FILENAME ~ /L7dt20/ ? "7|1/20" : FILENAME ~ /L7/ ? "7|1/16" : "8|1/16"
    next
}
{ sub(/\r$/, "") }
# run LABEL: the run's key (seed taken out) as step|levels|dt_max|param|value; sets the global s (its seed)
function run(label,   step, p, v) {
    s = 42
    if (match(label, /-seed[0-9]+-/)) { s = substr(label, RSTART + 5, RLENGTH - 6) + 0; sub(/-seed[0-9]+-/, "-", label) }
    step = (label ~ /^s12/) ? 12 : 13
    if (label ~ /-dt1\//) { p = "dt"; v = label; sub(/.*-dt/, "", v) } else { p = "eta"; v = label; sub(/.*-eta/, "", v) }
    return step "|" (step == 12 ? "|" : scheme) "|" p "|" v
}
kind == "energy" && $c["label"] ~ /-bh-/ {
    k = run($c["label"]); e = $c["rel_energy_error"] + 0
    err[k, s] = e < 0 ? -e : e
    if (!(k in seen)) { seen[k] = 1; order[++n] = k }
}
kind == "res" && $c["tag"] ~ /^bs-[18]M-s1[23]-bh-/ {
    size = substr($c["tag"], 4, 2); label = substr($c["tag"], 7); gsub(/_/, "/", label)
    k = run(label)
    if (k ~ /^12\|/) { partner[FILENAME, size] = $c["kernel_s"]; if (!((k, size) in t)) t[k, size] = $c["kernel_s"] }
    else { t[k, size] = $c["kernel_s"]; file[k, size] = FILENAME }
    dev[k] = $c["device"]; day[k] = substr($c["date"], 1, 10); com[k] = $c["commit"]
}
END {
    for (i = 1; i <= n; ++i) {
        k = order[i]; line = ""; worst = 0
        for (j = 1; j <= ns; ++j) {
            if (!((k, seed[j]) in err)) break
            line = line OFS sprintf("%.3e", err[k, seed[j]])
            if (err[k, seed[j]] > worst) worst = err[k, seed[j]]
        }
        if (j <= ns) continue
        split(k, f, "|")
        p1 = ((k, "1M") in file) ? partner[file[k, "1M"], "1M"] : ""
        p8 = ((k, "8M") in file) ? partner[file[k, "8M"], "8M"] : ""
        print f[1], f[2], f[3], f[4], f[5] line, sprintf("%.3e", worst), t[k, "1M"], p1, t[k, "8M"], p8, dev[k], day[k], com[k]
    }
}
