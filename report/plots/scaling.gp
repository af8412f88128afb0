# scaling.gp: step08 on 1, 2, ... GPUs, the same problem split across them (strong scaling): one
# large system with its bodies split, and many systems split between GPUs (figure 5b).
W = 800; H = 480
load 'report/plots/lib.gp'

# measure.sh's scaling.csv, or the same tags in report/sweeps/gpu-run.sh's runs.csv; a later recording's row wins.
src = files('runs.csv scaling.csv')
sel = 'tag~^scaling-'
raw = pickk('tag,gpus,kernel_s,ginteractions_s,systems,bodies', sel, 'kernel_s', 'tag,systems,bodies,gpus', src)
# One series per split and shape, "scaling-bodies:1:262144"; its rows: GPUs, speedup over its 1-GPU run, G int/s.
series = system(raw." | awk -F, '{ print $1 \":\" $5 \":\" $6 }' | sort -u -t: -k1,1 -k2,2n -k3,3n | tr '\\n' ' '")
rows(k) = raw." | awk -F, -v k=".k." '$1 \":\" $5 \":\" $6 == k { r[$2] = $0; if ($2 == 1) b = $3 } END { for (g in r) { split(r[g], f, \",\"); if (b > 0) print g \",\" b / f[3] \",\" f[4] } }' | sort -t, -k1,1n"
maxg = int(num(system(raw." | cut -d, -f2 | sort -n | tail -n 1")))
part(k, i) = system("echo '".k."' | cut -d: -f".i)
set title "{/:Bold step08: strong scaling over GPUs}"
if (words(series) == 0) {
    why = "no recorded GPU data yet (step08 on 2 GPUs: make report PHASES=scaling)"
    eval NODATA
    exit
}
set title sprintf("{/:Bold step08: strong scaling over GPUs}\n{/*0.8 %s}", origink(src, sel, 'tag,systems,bodies,gpus'))
set xlabel 'GPUs'
set ylabel 'speedup over 1 GPU'
set xrange [0.5:(maxg < 2 ? 2 : maxg) + 0.5]
set yrange [0:(maxg < 2 ? 2 : maxg) + 0.5]
set xtics 1
set key top left noenhanced
set offsets 0, 0, graph 0.1, 0
if (maxg < 2) {
    set label 1 "only 1 GPU measured: run make report PHASES=scaling on a machine with 2 GPUs" at graph 0.5, 0.5 center tc rgb '#a00000'
}
plot x with lines lt 11 title 'ideal', \
     for [i = 1:words(series)] '< '.rows(word(series, i)) using 1:2 with linespoints lt (i + 7) \
         title sprintf("%s split, %s × %s", part(word(series, i), 1)[9:], part(word(series, i), 2), part(word(series, i), 3)), \
     for [i = 1:words(series)] '< '.rows(word(series, i)) using 1:2:(sprintf("%.2f× (%.0f G int/s)", $2, $3)) \
         with labels left offset 1, -0.6 + 1.0 * (i - 1) font ',8' tc lt (i + 7) notitle
