# scaling.gp: step08 (GPUs of one process) and step11 (one MPI rank a GPU) on 1, 2, 4 ... GPUs, the same
# problem split across them (strong scaling): left, one system with its bodies split; right, many systems
# shared out (figure 5b).
W = 900; H = 480
load 'report/plots/lib.gp'

# measure.sh's scaling.csv, or the same tags in report/sweeps/gpu-run.sh's runs.csv; a later recording's row wins.
src = files('runs.csv scaling.csv')
sel = 'tag~^scaling-'
raw = pickk('tag,gpus,kernel_s,ginteractions_s,systems,bodies', sel, 'kernel_s', 'tag,systems,bodies,gpus', src)
# One series per step, split and shape, "scaling-mpi-bodies:1:262144"; its rows: GPUs, speedup over its
# 1-GPU run, G int/s. The speedup is the rate's (the timed loop's steps grow with the GPUs, so loops do not compare).
series(split) = system(raw." | awk -F, '$1 ~ /-".split."$/ { print $1 \":\" $5 \":\" $6 }' | sort -u -t: -k1,1 -k2,2n -k3,3n | tr '\\n' ' '")
rows(k) = raw." | awk -F, -v k=".k." '$1 \":\" $5 \":\" $6 == k { r[$2] = $0; if ($2 == 1) b = $4 } END { for (g in r) { split(r[g], f, \",\"); if (b > 0) print g \",\" f[4] / b \",\" f[4] } }' | sort -t, -k1,1n"
last(k) = rows(k)." | tail -n 1"
maxg = int(num(system(raw." | cut -d, -f2 | sort -n | tail -n 1")))
part(k, i) = system("echo '".k."' | cut -d: -f".i)
stepof(k) = (strstrt(k, 'scaling-mpi-') > 0) ? 'step11' : 'step08'
# step08 in its colour, step11 in its own; one point shape a shape of problem.
steplt(k) = (stepof(k) eq 'step08') ? 9 : 2
dashof(k) = (stepof(k) eq 'step08') ? 1 : 2
shapept(k) = 5 + 2 * int(system("echo '".k."' | awk -F: '{ print ($3 >= 1048576) + ($3 >= 4194304) }'"))
# The recordings, one line: devices, then days and commits.
who = (strlen(src) > 0) ? system(sprintf("awk -f report/query/pick.awk -v cols=device,date,commit,tag,systems,bodies,gpus -v where='%s' -v need=kernel_s -v key='tag,systems,bodies,gpus' %s | awk -F, '{ d = $1; sub(/^[0-9]+x /, \"\", d); if (!sd[d]++) ds = ds (ds == \"\" ? \"\" : \", \") d; c = substr($3, 1, 7) \" (\" substr($2, 1, 10) \")\"; if (!sc[c]++) cs = cs (cs == \"\" ? \"\" : \", \") c } END { print ds \"; commits \" cs }'", sel, src)) : ''

set title "{/:Bold step08 and step11: strong scaling over GPUs}"
if (words(series('bodies')) + words(series('systems')) == 0) {
    why = "no recorded GPU data yet (step08 on 2 GPUs: make report PHASES=scaling)"
    eval NODATA
    exit
}
top = (maxg < 2 ? 2 : maxg) + 0.5
set multiplot layout 1, 2 title sprintf("{/:Bold step08 and step11: strong scaling over GPUs} {/*0.8 (speedup over the same run on 1 GPU; step08 solid, step11 dashed)}\n{/*0.75 %s}", who)
set xlabel 'GPUs'
set xrange [0.5:top + 0.8]
set yrange [0:top]
set xtics 1
set key top left noenhanced font ',8' samplen 2 spacing 1.1
if (maxg < 2) {
    set label 1 "only 1 GPU measured: run make report PHASES=scaling on a machine with 2 GPUs" at graph 0.5, 0.5 center tc rgb '#a00000'
}
do for [split in 'bodies systems'] {
    s = series(split)
    set title (split eq 'bodies' ? 'the bodies split (one system, or each system across the GPUs)' : 'the systems shared out (whole systems a GPU)') font ',10'
    set ylabel (split eq 'bodies' ? 'speedup over 1 GPU' : '')
    if (words(s) == 0) {
        why = 'not recorded'
        eval NODATA
    } else {
        plot x with lines lt 11 title 'ideal', \
             for [i = 1:words(s)] '< '.rows(word(s, i)) using 1:2 with linespoints lt steplt(word(s, i)) \
                 dt dashof(word(s, i)) pt shapept(word(s, i)) \
                 title sprintf("%s, %s × %s", stepof(word(s, i)), part(word(s, i), 2), part(word(s, i), 3)), \
             for [i = 1:words(s)] '< '.last(word(s, i)) using 1:2:(sprintf("%.2f×", $2)) \
                 with labels left offset 0.8, (stepof(word(s, i)) eq 'step08' ? 0.5 : -0.5) font ',8' tc lt steplt(word(s, i)) notitle
    }
}
unset multiplot
