# blockequal.awk: step13 against step12 about the black hole at one N, energy and time from the same runs
# (report/sweeps/blockcap.sh with BLOCKCAP_ENERGY_N: each draw's run to t = 1 is timed and its energy taken
# by build/tools/diag-gpu), one line a run that has every seed asked.
#
#   awk -v seeds="42 1 2 3" -v n=1048576 -f report/query/blockruns.awk -f report/query/blockequal.awk ENERGY.csv... RESULTS.csv...
#
# ENERGY files are diag's rows (the last row of a label is t = 1; only rows of n bodies are read), RESULTS
# files the judge's: a draw's time is its energy run's (tag bs-energy-LABEL, n bodies), and a run's time at
# 8 M its bs-8M-LABEL row (seed 42). Runs, seeds and step13's scheme from the labels and file names as
# report/query/blockseeds.awk reads them ("-L7dt24-" is 7 levels of dt_max 1/24). A later file's row of a
# run and seed replaces an earlier one's. Prints, step12's runs first, each by its error: step,scheme,param,
# value,draws,mean error,median,largest,draws over 1e-4,mean time (s),time at 8 M (s),device,date,commit
# (those of its draws' rows: several commits joined by "+").
BEGIN { FS = ","; OFS = ","; ns = split(seeds == "" ? "42 1 2 3" : seeds, seed, " "); if (n == "") n = 1048576 }
FNR == 1 { header(); next }
{ sub(/\r$/, "") }
kind == "energy" && $c["label"] ~ /-bh-/ && $c["bodies"] == n {
    k = run($c["label"]); e = $c["rel_energy_error"] + 0
    err[k, s] = e < 0 ? -e : e
    if (!(k in seen)) { seen[k] = 1; order[++runs] = k }
}
kind == "res" && $c["tag"] ~ /^bs-energy-/ && $c["tag"] ~ /-bh-/ && $c["bodies"] == n {
    label = substr($c["tag"], 11); gsub(/_/, "/", label)
    k = run(label)
    t[k, s] = $c["kernel_s"]; dev[k, s] = $c["device"]; day[k, s] = substr($c["date"], 1, 10); com[k, s] = $c["commit"]
}
kind == "res" && $c["tag"] ~ /^bs-8M-/ && $c["tag"] ~ /-bh-/ {
    label = substr($c["tag"], 7); gsub(/_/, "/", label)
    k = run(label)
    if (s == 42) big[k] = $c["kernel_s"]
}
END {
    for (i = 1; i <= runs; ++i) {
        k = order[i]; sum = 0; tsum = 0; over = 0; worst = 0; delete v; devs = ""; days = ""; coms = ""
        for (j = 1; j <= ns; ++j) {
            if (!((k, seed[j]) in err) || !((k, seed[j]) in t)) break
            v[j] = err[k, seed[j]]; sum += v[j]; over += v[j] > 1e-4; if (v[j] > worst) worst = v[j]
            tsum += t[k, seed[j]]
            devs = join(devs, dev[k, seed[j]]); days = join(days, day[k, seed[j]]); coms = join(coms, com[k, seed[j]])
        }
        if (j <= ns) continue
        for (a = 2; a <= ns; ++a) for (b = a; b > 1 && v[b - 1] > v[b]; --b) { x = v[b]; v[b] = v[b - 1]; v[b - 1] = x }
        median = ns % 2 ? v[(ns + 1) / 2] : (v[ns / 2] + v[ns / 2 + 1]) / 2
        split(k, f, "|")
        out[++m] = sprintf("%s,%s,%s,%s,%d,%.3e,%.3e,%.3e,%d,%.3f,%s,%s,%s,%s", f[1], f[2], f[3], f[4], ns, sum / ns, median, worst,
            over, tsum / ns, ((k in big) ? big[k] : ""), devs, days, coms)
        key[m] = (f[1] == 12 ? 0 : 1) sprintf("%012.6f", 1e6 * sum / ns)
    }
    for (a = 2; a <= m; ++a) for (b = a; b > 1 && key[b - 1] > key[b]; --b) {
        x = key[b]; key[b] = key[b - 1]; key[b - 1] = x; x = out[b]; out[b] = out[b - 1]; out[b - 1] = x }
    for (a = 1; a <= m; ++a) print out[a]
}
# join(LIST, WORD): LIST with WORD added once, "+" between
function join(list, word) { return list == "" ? word : index("+" list "+", "+" word "+") ? list : list "+" word }
