# ceiling.awk: each GPU step's issue-bound ceiling and how close it comes, from recorded data.
#
#   awk -f report/query/ceiling.awk gpu.csv... instructions.csv... RESULTS.csv...   (RESULTS may be - : stdin)
#
# ceiling (G interactions/s) = GPUs x SMs x 4 schedulers x 32 lanes x SM clock / instructions per
# interaction: a kernel that issues one instruction per scheduler per clock and executes I
# thread-instructions per interaction can do no better. GPUs: the row's gpus column, those the run used
# (1 if empty), because its rate counts the interactions of all of them. It is the same formula as the one
# the ladder figure draws, grading/ladder_plot.c (ceilings()), the one drawn: change both together
# (tests/ladder-check.sh checks they agree). SMs from gpu.csv (report/tools/gpuinfo.cu), instructions per interaction
# from instructions.csv (ncu, recorded on the GPU), the clock and the rate from each results row
# (clock_mhz: the highest SM clock by NVML, or in rows before 2026-12-01 the one measured right after the
# timed loop; only GPU rows have one). All three
# are matched by device name (a row's "2x NVIDIA H200" as "NVIDIA H200"), so a count recorded on one
# GPU is never applied to another.
# Files are told apart by their headers. Prints, for each GPU results row whose device and build
# (else the default build) have a recorded instruction count:
#   step,name,build,bodies,ginteractions_s,clock_mhz,sms,instructions_per_interaction,ceiling_gis,percent,device
BEGIN { FS = ","; OFS = "," }
FNR == 1 {
    delete c
    for (i = 1; i <= NF; ++i) { h = $i; sub(/\r$/, "", h); c[h] = i }
    kind = ("sms" in c) ? "gpu" : ("instructions_per_interaction" in c) ? "inst" : ("ginteractions_s" in c) ? "res" : "?"
    next
}
{ sub(/\r$/, "") }
kind == "gpu" { sms[$c["name"]] = $c["sms"] + 0 }
kind == "inst" && $c["instructions_per_interaction"] != "" {
    ipi[$c["device"] SUBSEP $c["step"] SUBSEP $c["build"]] = $c["instructions_per_interaction"] + 0
}
kind == "res" && $c["clock_mhz"] != "" && $c["ginteractions_s"] != "" {
    d = $c["device"]
    sub(/^[0-9]+x /, "", d) # a machine of several GPUs names them "2x NAME": one GPU's name
    k = d SUBSEP $c["step"] SUBSEP $c["build"]
    if (!(k in ipi)) k = d SUBSEP $c["step"] SUBSEP "default"
    if (!(k in ipi) || !(sms[d] > 0)) next
    gpus = ("gpus" in c) && $c["gpus"] + 0 > 0 ? $c["gpus"] + 0 : 1
    ceiling = gpus * sms[d] * 4 * 32 * $c["clock_mhz"] / ipi[k] / 1000
    print $c["step"], $c["name"], $c["build"], $c["bodies"], $c["ginteractions_s"], $c["clock_mhz"], sms[d], ipi[k], \
        sprintf("%.6g", ceiling), sprintf("%.4g", 100 * $c["ginteractions_s"] / ceiling), d
}
