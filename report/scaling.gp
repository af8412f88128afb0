# scaling.gp: step08 on 1, 2, ... GPUs, the same problem split across them (strong scaling): one
# large system with its bodies split, and many systems split between GPUs (figure 5b).
W = 800; H = 480
load 'report/lib.gp'

src = file('scaling.csv')
raw = pickany('tag,gpus,kernel_s,ginteractions_s,systems,bodies', 'tag~^scaling-', 'kernel_s', src)
# speedup over the same tag's 1-GPU run
rows(t) = raw." | awk -F, -v t=".t." '$1 == t { r[$2] = $0; if ($2 == 1) b = $3 } END { for (g in r) { split(r[g], f, \",\"); if (b > 0) print g \",\" b / f[3] \",\" f[4] \",\" f[5] \",\" f[6] } }' | sort -t, -k1,1n"
tags = system(raw." | cut -d, -f1 | sort -u | tr '\\n' ' '")
maxg = int(num(system(raw." | cut -d, -f2 | sort -n | tail -n 1")))
set title "{/:Bold step08: strong scaling over GPUs}"
if (words(tags) == 0) {
    why = "no recorded multi-GPU measurements yet: make report PHASES=scaling on a 2-GPU machine (needs step08)"
    eval NODATA
    exit
}
set title sprintf("{/:Bold step08: strong scaling over GPUs}\n{/*0.8 %s}", origin(src, 'tag~^scaling-'))
set xlabel 'GPUs'
set ylabel 'speedup over 1 GPU'
set xrange [0.5:(maxg < 2 ? 2 : maxg) + 0.5]
set yrange [0:(maxg < 2 ? 2 : maxg) + 0.5]
set xtics 1
set key top left noenhanced
if (maxg < 2) {
    set label 1 "only 1 GPU measured: run make report PHASES=scaling on a machine with 2 GPUs" at graph 0.5, 0.5 center tc rgb '#a00000'
}
shape(t) = system(rows(t)." | head -n 1 | awk -F, '{ print $4 \" × \" $5 }'")
plot x with lines lt 11 title 'ideal', \
     for [t in tags] '< '.rows(t) using 1:2 with linespoints lt (t eq 'scaling-bodies' ? 8 : 9) \
         title sprintf("%s split (systems × bodies = %s)", t[9:], shape(t)), \
     for [t in tags] '< '.rows(t) using 1:2:(sprintf("%.2f× (%.0f G int/s)", $2, $3)) with labels offset 0, 1 font ',8' notitle
