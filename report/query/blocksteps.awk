# blocksteps.awk: step13 against step12 on the Hernquist sphere (report/sweeps/blocksteps.sh), one line a run
# of the energy study: the time to t = 1 and the relative energy error at t = 1, joined by the run's label.
#
#   awk [-v runs=1M-] -f report/query/blocksteps.awk ENERGY.csv... RESULTS.csv...
#
# ENERGY files (header with rel_energy_error: build/tools/diag's rows, the last row of a label is t = 1)
# and RESULTS files (the judge's rows, tag bs-energy-LABEL with / written _) are told apart by their
# headers. runs (default energy-) picks the timed runs joined to the energies: 1M- joins the time phase's
# runs at 1 M (tags bs-1M-LABEL) to the energies of the same LABEL at the energy phase's N. A later file's row of a label replaces an earlier one's. Prints, in the order first seen:
#   step,eps,param,value,bodies,time_s,energy_error,device,date,commit
# step 12 or 13; param dt (value 1/k) or eta; energy_error |relative error| at t = 1; eps "0.0025 + hole" for
# the sphere about a black hole (labels with -bh-, --model hernquist-bh).
BEGIN { FS = ","; OFS = ","; if (runs == "") runs = "energy-" }
FNR == 1 {
    delete c
    for (i = 1; i <= NF; ++i) { h = $i; sub(/\r$/, "", h); c[h] = i }
    kind = ("rel_energy_error" in c) ? "energy" : ("kernel_s" in c) ? "res" : "?"
    next
}
{ sub(/\r$/, "") }
kind == "energy" { err[$c["label"]] = $c["rel_energy_error"]; eps[$c["label"]] = $c["eps"] }
kind == "res" && index($c["tag"], "bs-" runs) == 1 {
    label = substr($c["tag"], 4 + length(runs))
    gsub(/_/, "/", label)
    if (!(label in seen)) { seen[label] = 1; order[++n] = label }
    t[label] = $c["kernel_s"]; N[label] = $c["bodies"]; dev[label] = $c["device"]
    day[label] = substr($c["date"], 1, 10); com[label] = $c["commit"]
}
END {
    for (i = 1; i <= n; ++i) {
        l = order[i]
        if (!(l in err)) continue
        step = (l ~ /^s12/) ? 12 : 13
        if (l ~ /-dt1\//) { param = "dt"; value = l; sub(/.*-dt/, "", value) }
        else { param = "eta"; value = l; sub(/.*-eta/, "", value) }
        e = err[l] + 0; if (e < 0) e = -e
        print step, eps[l] (l ~ /-bh-/ ? " + hole" : ""), param, value, N[l], t[l], sprintf("%.3e", e), dev[l], day[l], com[l]
    }
}
