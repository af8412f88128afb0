# mpi-scaling.gp: the model of step11_mpi over 1 ... 1024 GPUs (report/query/mpi-model.awk): strong scaling
# of N = 1M, 16M and 256M bodies, and weak scaling (N1 sqrt(P): the same pairs per GPU), for an NVLink
# domain and for 400 Gb/s InfiniBand. One GPU's rate is step08's measured on the H100 (throughput.csv).
# The black points: measured on two GPUs (multigpu-runs.csv, report/sweeps/multigpu.sh), where a recording has them.
W = 1100; H = 480
load 'report/plots/lib.gp'
rates = data.'/h100-2026-11-22/throughput.csv'
feed = "< grep -h '^08,step08_multigpu,default,throughput,' ".rates." | awk -F, '{ print $8 \",\" $20 }' | sort -t, -k1,1n | awk -f report/query/mpi-model.awk"
model(net, what, n) = feed.' -v net='.net.' -v what='.what.' -v N='.n
sizes = "1048576 16777216 268435456"
label(n) = n == 1048576 ? '1M' : n == 16777216 ? '16M' : '256M'
set multiplot layout 1, 2 title "{/:Bold step11\\_mpi: predicted scaling of the ring} {/*0.8 (model: report/query/mpi-model.awk; one GPU = step08 on the H100, 2026-11-22, commit 9becd57b5f15)}"
set logscale x 2
set xrange [1:1024]
set yrange [0:1.05]
set xlabel 'GPUs'
set ylabel 'parallel efficiency'
set key bottom left noenhanced font ',8'
set grid
set title 'strong: N fixed'
# Measured (report/sweeps/multigpu.sh, the latest recording): step11's ring on 2 ranks, one GPU each, against
# step08 on one of those GPUs at the same N: efficiency = rate(2 ranks) / (2 rate(1 GPU)).
runs = file('multigpu-runs.csv')
measured = (strlen(runs) > 0) ? "< awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next } $c[\"systems\"] == 1 && $c[\"pass\"] == \"PASS\" { r[$c[\"bodies\"], $c[\"tag\"]] = $c[\"ginteractions_s\"]; n[$c[\"bodies\"]] = 1; d = $c[\"device\"] } END { for (b in n) if (r[b, \"time-step08-1gpu\"] > 0 && r[b, \"time-np2-ring\"] > 0) printf \"2,%s,%.4f,%s\\n\", b, r[b, \"time-np2-ring\"] / (2 * r[b, \"time-step08-1gpu\"]), d }' ".runs." | sort -t, -k2,2n" : ''
mnote = (strlen(runs) > 0) ? system("awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next } $c[\"tag\"] == \"time-np2-ring\" { d = $c[\"device\"] \", \" substr($c[\"date\"], 1, 10) \", commit \" $c[\"commit\"] } END { print d }' ".runs) : ''
mvalues = (strlen(runs) > 0) ? system(measured[3:]." | awk -F, '{ s = s sprintf(\"%sN = %.0fK: %.3f\", s == \"\" ? \"\" : \"\\n\", $2 / 1024, $3) } END { print s }'") : ''
if (strlen(runs) > 0) {
set label 10 sprintf("{/:Bold ▲ measured}: step11's ring on 2 ranks, one GPU each,\nagainst step08 on one GPU (%s)\n%s", mnote, mvalues) at graph 0.03, 0.62 left font ',8'
plot for [i = 1:3] model('nvlink', 'strong', word(sizes, i)) using 1:5 with linespoints lt i pt 7 title sprintf('N = %s, NVLink', label(word(sizes, i) + 0)), \
     for [i = 1:3] model('ib', 'strong', word(sizes, i)) using 1:5 with linespoints lt i pt 6 dt 2 title sprintf('N = %s, 400 Gb/s IB', label(word(sizes, i) + 0)), \
     measured using 1:3 with points pt 9 ps 1.4 lc rgb '#000000' notitle
unset label 10
} else {
plot for [i = 1:3] model('nvlink', 'strong', word(sizes, i)) using 1:5 with linespoints lt i pt 7 title sprintf('N = %s, NVLink', label(word(sizes, i) + 0)), \
     for [i = 1:3] model('ib', 'strong', word(sizes, i)) using 1:5 with linespoints lt i pt 6 dt 2 title sprintf('N = %s, 400 Gb/s IB', label(word(sizes, i) + 0))
}
set title 'weak: N = N_1 √P (the same pairs per GPU)'
set key bottom left
plot for [i = 1:3] model('nvlink', 'weak', word(sizes, i)) using 1:5 with linespoints lt i pt 7 title sprintf('N1 = %s, NVLink', label(word(sizes, i) + 0)), \
     for [i = 1:3] model('ib', 'weak', word(sizes, i)) using 1:5 with linespoints lt i pt 6 dt 2 title sprintf('N1 = %s, 400 Gb/s IB', label(word(sizes, i) + 0))
unset multiplot
