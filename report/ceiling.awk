# ceiling.awk: each GPU step's issue-bound ceiling and how close it comes, from recorded data.
#
#   awk -f report/ceiling.awk gpu.csv instructions.csv RESULTS.csv...
#
# ceiling (G interactions/s) = SMs x 4 schedulers x 32 lanes x SM clock / instructions per interaction:
# a kernel that issues one instruction per scheduler per clock and executes I thread-instructions per
# interaction can do no better. SMs from gpu.csv (report/gpuinfo.cu), instructions per interaction
# from instructions.csv (ncu, recorded on the GPU), the clock and the rate from each results row
# (clock_mhz: the SM clock measured right after the timed loop).
# Files are told apart by their headers. Prints, for each results row of a GPU step whose build has a
# recorded instruction count (else the default build's):
#   step,name,build,bodies,ginteractions_s,clock_mhz,sms,instructions_per_interaction,ceiling_gis,percent
BEGIN { FS = ","; OFS = "," }
FNR == 1 {
    delete c
    for (i = 1; i <= NF; ++i) { h = $i; sub(/\r$/, "", h); c[h] = i }
    kind = ("sms" in c) ? "gpu" : ("instructions_per_interaction" in c) ? "inst" : ("ginteractions_s" in c) ? "res" : "?"
    next
}
{ sub(/\r$/, "") }
kind == "gpu" && $c["index"] == 0 { sms = $c["sms"] + 0; gpu_name = $c["name"] }
kind == "inst" && $c["instructions_per_interaction"] != "" { ipi[$c["step"] SUBSEP $c["build"]] = $c["instructions_per_interaction"] + 0 }
kind == "res" && $c["gpus"] + 0 >= 1 && $c["ginteractions_s"] != "" && $c["clock_mhz"] != "" {
    k = $c["step"] SUBSEP $c["build"]
    if (!(k in ipi)) k = $c["step"] SUBSEP "default"
    if (!(k in ipi) || sms <= 0) next
    ceiling = sms * 4 * 32 * $c["clock_mhz"] / ipi[k] / 1000
    print $c["step"], $c["name"], $c["build"], $c["bodies"], $c["ginteractions_s"], $c["clock_mhz"], sms, ipi[k], \
        sprintf("%.6g", ceiling), sprintf("%.4g", 100 * $c["ginteractions_s"] / ceiling)
}
