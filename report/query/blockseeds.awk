# blockseeds.awk: step13 against step12 about the black hole over several draws of the sphere
# (report/sweeps/blocksteps.sh, BS_SEED), one line a run that has an energy error for every seed asked.
#
#   awk -v seeds="42 1 2" -f report/query/blockruns.awk -f report/query/blockseeds.awk ENERGY.csv... RESULTS.csv...
#
# ENERGY files are build/tools/diag's rows (the last row of a label is t = 1), RESULTS files the judge's
# (tags bs-1M-LABEL and bs-8M-LABEL), told apart by their headers. A label's seed is its "-seedN" (none:
# 42). step13's scheme is the file's name's: in the blocksteps-* files "finer" (a body may go finer inside
# a dt_max step) or "held" (the scheme before it: levels held for the whole dt_max step); in the blockcap-*
# files LEVELS:DT_MAX, "7:1/20" for a name with "-L7dt20-", "7:1/16" for "-L7-" (dt_max 1/16 unless named),
# "8:1/16" for a name with neither (the first recordings). step12 has one
# scheme. A later file's row of a run and seed replaces an earlier one's. A RESULTS file's step12 run is
# also the partner of that file's step13 runs at the same N (the same call). Prints, in the order first
# seen: step,scheme,param,value,error at each seed (|relative|, t = 1),largest,time_1M_s,device,date,commit,
# step12_1M_s,time_8M_s,step12_8M_s (the partners: the file's step12 time at that N)
BEGIN { FS = ","; OFS = ","; ns = split(seeds == "" ? "42 1 2" : seeds, seed, " ") }
FNR == 1 { header(); next }
{ sub(/\r$/, "") }
kind == "energy" && $c["label"] ~ /-bh-/ {
    k = run($c["label"]); e = $c["rel_energy_error"] + 0
    err[k, s] = e < 0 ? -e : e
    if (!(k in seen)) { seen[k] = 1; order[++n] = k }
}
kind == "res" && $c["tag"] ~ /^bs-[18]M-/ && $c["tag"] ~ /-bh-/ {
    size = substr($c["tag"], 4, 2); label = substr($c["tag"], 7); gsub(/_/, "/", label)
    k = run(label)
    t[k, size] = $c["kernel_s"]; dev[k] = $c["device"]; day[k] = substr($c["date"], 1, 10); com[k] = $c["commit"]
    if (k ~ /^12\|/) partner[FILENAME, size] = $c["kernel_s"]; else file[k, size] = FILENAME
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
        print f[1], f[2], f[3], f[4] line, sprintf("%.3e", worst), t[k, "1M"], dev[k], day[k], com[k], p1, t[k, "8M"], p8
    }
}
