# tree-frontier.gp: step10_barnes_hut at N = 1048576: rms acceleration error against time per step over
# theta (tree-theta.csv, tag tree-frontier), with the direct sum (step06) as the exact end.
W = 900; H = 560
load 'report/plots/lib.gp'

tree = file('tree-theta.csv')
set title "{/:Bold step10\\_barnes\\_hut: accuracy against time per step, N = 1 048 576}"
if (strlen(tree) == 0) {
    why = "no recorded tree runs yet: bash report/sweeps/treecode.sh OUT on a GPU"
    eval NODATA
    exit
}
frontier = pickany('kernel_s,steps,acc_rms,theta', 'tag=tree-frontier;bodies=1048576', 'kernel_s', tree)
direct = pickany('step,kernel_s,steps,acc_rms', 'tag=tree-step06;bodies=1048576', 'kernel_s', tree)
set title sprintf("{/:Bold step10\\_barnes\\_hut: accuracy against time per step, N = 1 048 576 (Plummer)}\n{/*0.8 %s}", origin(tree, 'tag=tree-frontier'))
set xlabel 'time per step, tree build included (ms)'
set ylabel 'rms relative acceleration error (fp64 direct sum, 4096 bodies)'
set logscale xy
set format y '10^{%L}'
set key top right
plot '< '.frontier using (1e3 * $1 / $2):3 with linespoints lt 10 title 'step10, θ = 0.2 … 1.0', \
     '< '.frontier using (1e3 * $1 / $2):3:(strcol(4)) with labels offset 1.2, 0.6 font ',8', \
     '< '.direct using (1e3 * $2 / $3):4 with points lt 7 ps 1.5 title 'step06, the direct sum (fp32 rounding only)', \
     1e-3 with lines lt 11 title 'rms 10^{-3}'
