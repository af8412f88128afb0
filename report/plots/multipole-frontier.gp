# multipole-frontier.gp: step12_multipole against step10_barnes_hut: rms acceleration error against
# time per step over theta (multipole.csv of report/sweeps/multipole.sh: tags mp-frontier10, mp-frontier12 at
# N = 1048576, mp-big10, mp-big12 at N = 16777216), on one device, tree build included; ECL-BH (Burtscher and
# Pingali's GPU Barnes-Hut, a scratch build measured by the same error measure: ecl-bh.csv) beside them.
W = 900; H = 560
load 'report/plots/lib.gp'

mp = file('multipole.csv')
set title "{/:Bold step12\\_multipole against step10\\_barnes\\_hut: accuracy against time per step}"
if (strlen(mp) == 0) {
    why = "no recorded multipole runs yet: bash report/sweeps/multipole.sh OUT on a GPU"
    eval NODATA
    exit
}
s10 = pickany('kernel_s,steps,acc_rms,theta', 'tag=mp-frontier10;bodies=1048576', 'kernel_s', mp)
s12 = pickany('kernel_s,steps,acc_rms,theta', 'tag=mp-frontier12;bodies=1048576', 'kernel_s', mp)
b10 = pickany('kernel_s,steps,acc_rms,theta', 'tag=mp-big10;bodies=16777216', 'kernel_s', mp)
b12 = pickany('kernel_s,steps,acc_rms,theta', 'tag=mp-big12;bodies=16777216', 'kernel_s', mp)
ecl = file('ecl-bh.csv')
e1 = strlen(ecl) ? pickany('ms_per_step,rms,theta', 'peer=ecl-bh;n=1048576', 'ms_per_step', ecl) : 'true'
e16 = strlen(ecl) ? pickany('ms_per_step,rms,theta', 'peer=ecl-bh;n=16777216', 'ms_per_step', ecl) : 'true'
set title sprintf("{/:Bold step12\\_multipole against step10\\_barnes\\_hut: accuracy against time per step (Plummer)}\n{/*0.8 %s}", origin(mp, 'tag=mp-frontier12'))
set xlabel 'time per step, tree build included (ms)'
set ylabel 'rms relative acceleration error (fp64 direct sum, 4096 bodies)'
set logscale xy
set format y '10^{%L}'
set key top right
plot '< '.s10.' | sort -g' using (1e3 * $1 / $2):3 with linespoints lt 10 title 'step10, N = 1 M', \
     '< '.s12.' | sort -g' using (1e3 * $1 / $2):3 with linespoints lt 1 title 'step12 (quadrupoles), N = 1 M', \
     '< '.s12 using (1e3 * $1 / $2):3:(strcol(4)) with labels offset 1.2, 0.6 font ',8' notitle, \
     '< '.b10.' | sort -g' using (1e3 * $1 / $2):3 with points lt 10 pt 5 ps 1.3 title 'step10, N = 16 M', \
     '< '.b12.' | sort -g' using (1e3 * $1 / $2):3 with linespoints lt 1 pt 5 ps 1.3 dt 2 title 'step12, N = 16 M', \
     '< '.e1.' | sort -g' using 1:2 with linespoints lt 3 pt 9 title 'ECL-BH, N = 1 M (its softening 0.05)', \
     '< '.e16.' | sort -g' using 1:2 with linespoints lt 3 pt 7 dt 2 title 'ECL-BH, N = 16 M', \
     4e-4 with lines lt 11 dt 3 title 'rms 4·10^{-4}', \
     1e-3 with lines lt 11 title 'rms 10^{-3}'
