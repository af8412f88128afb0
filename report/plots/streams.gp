# streams.gp: step07, copies in and out (and snapshots) overlapped with compute: the time its loop takes
# beyond step06's kernel-only loop, with --no-overlap and overlapped, per shape (figure 5a).
W = 900; H = 480
load 'report/plots/lib.gp'

# measure.sh's streams.csv, or the same tags in report/sweeps/gpu-run.sh's runs.csv; a later recording's row wins.
src = files('runs.csv streams.csv')
sel = 'tag~^streams-(overlap|serial|kernel)'
raw = pickk('systems,bodies,tag,kernel_s', sel, 'kernel_s', 'tag,systems,bodies', src)
# One line per shape: index, label, kernel-only s, then serial, overlap (with snapshots), serial, overlap (without).
reshape = "awk -F, '{ k = $1 \"x\" $2; if (!(k in g)) { g[k] = n++; lab[g[k]] = $1 \" × \" $2 } v[g[k], $3] = $4 } END { for (i = 0; i < n; ++i) if (v[i, \"streams-kernel\"] > 0) print i \",\" lab[i] \",\" v[i, \"streams-kernel\"] \",\" v[i, \"streams-serial\"] \",\" v[i, \"streams-overlap\"] \",\" v[i, \"streams-serial-nosnap\"] \",\" v[i, \"streams-overlap-nosnap\"] }'"
rows = raw.' | '.reshape
n = count(rows)
set title "{/:Bold step07: copies and snapshots overlapped with compute}"
if (n == 0) {
    why = "no recorded GPU data yet (step07: make report PHASES=streams)"
    eval NODATA
    exit
}
set title sprintf("{/:Bold step07: time beyond the kernels (step06's loop), systems × bodies}\n{/*0.8 %s}", origink(src, sel, 'tag,systems,bodies'))
set ylabel 'loop time minus kernel-only loop time (ms)'
set style fill solid 0.85 border -1
set boxwidth 0.18
set xrange [-0.6:n - 0.4]
set yrange [0:*]
set offsets 0, 0, graph 0.15, 0
set key top right
set xtics noenhanced
extra(t, k) = (t > 0) ? 1e3 * (t - k) : NaN
hidden(s, o, k) = (s > k && o > 0) ? sprintf("%.0f%% hidden", 100 * (s - o) / (s - k)) : ''
plot '< '.rows using ($1 - 0.3):(extra($6, $3)):xtic(2) with boxes lc rgb '#ff9896' title 'no snapshots, --no-overlap', \
     '' using ($1 - 0.1):(extra($7, $3)) with boxes lc rgb '#98df8a' title 'no snapshots, overlapped', \
     '' using ($1 + 0.1):(extra($4, $3)) with boxes lc rgb '#d62728' title 'a snapshot every 10 steps, --no-overlap', \
     '' using ($1 + 0.3):(extra($5, $3)) with boxes lc rgb '#2ca02c' title 'a snapshot every 10 steps, overlapped', \
     '' using ($1 - 0.1):(extra($7, $3) > 0 ? extra($7, $3) : 0):(hidden($6, $7, $3)) with labels offset 0, 0.8 font ',9' notitle, \
     '' using ($1 + 0.3):(extra($5, $3) > 0 ? extra($5, $3) : 0):(hidden($4, $5, $3)) with labels offset 0, 0.8 font ',9' notitle
