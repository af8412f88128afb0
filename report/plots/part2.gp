# part2.gp: part two of the ladder, "change the algorithm", at N = 1048576 (one system), where each pair
# once (step09) and the tree code (step10) show what they buy; step06 is part one's best, the bar to beat.
# G interactions/s is N²-equivalent (the harness's S·N²·steps / time loop, whatever the algorithm
# computes), so the bars compare time per step. A step with no recorded row gets "not measured yet".
# Rows of throughput.csv, newton.csv, tree.csv (default theta), mpi-runs.csv (2 ranks, ring) and
# multipole.csv (step12's frontier at its default theta 0.35), any recording; step09's default sums, not
# --deterministic. Bars are of one device, step06's: a step measured only on another device is not drawn
# beside them (its label says so). step13 has no such row: its runs are of a Hernquist sphere, timed to
# t = 1 against step12 on one device (figures blockequal and blockcap).
W = 1000; H = 520
load 'report/plots/lib.gp'

big = 1048576
src = files('throughput.csv newton.csv tree.csv mpi-runs.csv multipole.csv')
sel = sprintf('bodies=%d;systems=1;config!~deterministic;tag!~^(time-np1|time-np2-allgather|time-step08|mp-frontier10|mp-vote);config.theta~^(0[.]35)?$', big)
rows = (strlen(src) > 0) ? pickk('step,name,ginteractions_s,device', sel, 'kernel_s', 'step', src) : 'true'
# x, label, G int/s (NaN: not measured), device, the bar's text, its height: one line per rung of part two, measured or not.
bars = sprintf("{ %s; } 2>/dev/null | awk -F, 'BEGIN { n = split(\"06 step06_soa 09 step09_newton 10 step10_barnes_hut 11 step11_mpi 12 step12_multipole 13 step13_block_steps\", w, \" \") } { v[$1] = $3; d[$1] = $4 } END { for (i = 1; i < n; i += 2) { id = w[i]; if ((id in v) && d[id] != d[\"06\"]) { delete v[id]; other[id] = 1 }; print (i - 1) / 2 \",\" w[i + 1] \",\" ((id in v) ? v[id] : \"NaN\") \",\" ((id in d) ? d[id] : \"\") \",\" ((id in v) ? sprintf(\"%%.0f\", v[id]) : (id == \"13\") ? \"other model (blockequal)\" : (id in other) ? \"another device\" : \"not measured yet\") \",\" ((id in v) ? v[id] : 0) } }'", rows)
measured = count(sprintf("%s | awk -F, '$3 != \"NaN\"'", bars))
top = (measured > 0) ? num(firstline(sprintf("%s | awk -F, '$3 != \"NaN\" && $3 + 0 > m { m = $3 + 0 } END { print m }'", bars))) : 1

set title sprintf("{/:Bold Part two: change the algorithm, N = %d (one system)}\n{/*0.8 %s}", big, \
    (measured > 0) ? origink(src, sel, 'step') : 'nothing recorded yet')
set ylabel 'G interactions/s, N²-equivalent (higher: less time per step)'
set yrange [0:top * 1.3]
set xrange [-0.6:5.6]
set boxwidth 0.6
set style fill solid 0.85 border -1
set xtics ('step06\_soa (part one)' 0, 'step09\_newton' 1, 'step10\_barnes\_hut' 2, 'step11\_mpi' 3, 'step12\_multipole' 4, 'step13\_block\_steps' 5)
plot '< '.bars using 1:3:($1 + 7) with boxes lc variable, \
     '' using 1:6:5 with labels offset 0, 1 font ',10'
