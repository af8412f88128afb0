# streams.gp: step07, many systems pipelined over CUDA streams: end-to-end time of a run with its
# copies (and snapshot files) overlapped with compute, and with --no-overlap (figure 5a).
W = 900; H = 480
load 'report/lib.gp'

# measure.sh's streams.csv, or the same tags in report/gpu-run.sh's runs.csv; a later recording's row wins.
src = files('runs.csv streams.csv')
sel = 'tag~^streams-(overlap|serial)'
raw = pickk('systems,bodies,tag,e2e_s,steps', sel, 'kernel_s', 'tag,systems,bodies', src)
# One line per shape: group, label, then e2e seconds of serial, overlap (with snapshots), serial, overlap (without).
reshape = "awk -F, '{ k = $1 \"x\" $2; if (!(k in g)) { g[k] = n++; lab[g[k]] = $1 \" × \" $2 } v[g[k], $3] = $4 } END { for (i = 0; i < n; ++i) print i \",\" lab[i] \",\" v[i, \"streams-serial\"] \",\" v[i, \"streams-overlap\"] \",\" v[i, \"streams-serial-nosnap\"] \",\" v[i, \"streams-overlap-nosnap\"] }'"
rows = raw.' | '.reshape
n = count(rows)
set title "{/:Bold step07: copies and snapshots overlapped with compute}"
if (n == 0) {
    why = "no recorded GPU data yet (step07: make report PHASES=streams)"
    eval NODATA
    exit
}
set title sprintf("{/:Bold step07: copies and snapshots overlapped with compute (systems × bodies)}\n{/*0.8 %s}", origink(src, sel, 'tag,systems,bodies'))
set ylabel 'end-to-end time of one run (ms)'
set style fill solid 0.85 border -1
set boxwidth 0.18
set xrange [-0.6:n - 0.4]
set yrange [0:*]
set offsets 0, 0, graph 0.12, 0
set key top left
set xtics noenhanced
ratio(a, b) = (a > 0 && b > 0) ? sprintf("%.2f×", a / b) : ''
plot '< '.rows using ($1 - 0.3):(1e3 * $3):xtic(2) with boxes lc rgb '#d62728' title 'with snapshots, --no-overlap', \
     '' using ($1 - 0.1):(1e3 * $4) with boxes lc rgb '#2ca02c' title 'with snapshots, overlapped', \
     '' using ($1 + 0.1):(1e3 * $5) with boxes lc rgb '#ff9896' title 'no snapshots, --no-overlap', \
     '' using ($1 + 0.3):(1e3 * $6) with boxes lc rgb '#98df8a' title 'no snapshots, overlapped', \
     '' using ($1 - 0.1):(1e3 * $4):(ratio($3, $4)) with labels offset 0, 0.8 font ',9' notitle, \
     '' using ($1 + 0.3):(1e3 * $6):(ratio($5, $6)) with labels offset 0, 0.8 font ',9' notitle
