# ladder.gp: the speedup ladder, every step of steps.list at N = 65536 over step00_serial (figure 1).
# Rows: tag "ladder" of ladder-cpu.csv and ladder.csv (report/sweeps/measure.sh), "grade-ladder" of
# grade-ladder.csv (make grade on a GPU machine); of each step, the row of the latest recording.
W = 900; H = 520
load 'report/plots/lib.gp'

src = files('ladder-cpu.csv grade-ladder.csv ladder.csv')
sel = 'tag~^(grade-)?ladder$;bodies=65536'
rows = pickk('step,name,ginteractions_s,bodies,device,threads', sel, 'kernel_s', 'step', src)
n = count(rows)
ngpu = count(sprintf("%s | awk -F, '$1 + 0 >= 2'", rows))
base = num(firstline(sprintf("%s | awk -F, '$1 == \"00\" { print $3 }'", rows)))
size = firstline(sprintf("%s | awk -F, '{ print $4 }'", rows))
if (n == 0) {
    why = "no recorded ladder data yet: make report"
    eval NODATA
    exit
}

# Every rung of the registry gets its place, measured or not.
# registry: id and folder of each step, tab-separated (report/plots/figures.sh writes it with common/steps.sh).
tics = system("awk -F'\t' '{ printf \"%s\\\"%s\\\" %d\", (k++ ? \", \" : \"\"), substr($2, 5), $1 + 0 }' ".registry)
last = int(system("awk -F'\t' '{ n = $1 + 0 } END { print n }' ".registry))
xmult(x) = (x >= 100) ? sprintf("%.0f×", x) : sprintf("%.3g×", x)
rate(x) = (x >= 100) ? sprintf("%.0f", x) : sprintf("%.3g", x)
# "H200", "H100", "CPU, 16 threads" or, for the serial step00, "CPU, 1 thread": where each bar ran
# (the CSV's threads column is the OpenMP pool the harness saw, not what a serial step uses).
nv(d) = strstrt(d, 'NVIDIA ')
shortdev(d, t) = (nv(d) > 0) ? d[1:nv(d) - 1].d[nv(d) + 7:nv(d) + 10] : (t == 1) ? "CPU, 1 thread" : sprintf("CPU, %d threads", t)
set title sprintf("{/:Bold The ladder: speedup over step00\\_serial at N = %s}\n{/*0.8 %s}", size, \
    origink(src, sel, 'step'))
set ylabel 'speedup over step00\_serial (log scale)'
set logscale y
set yrange [0.5:*]
set offsets 0, 0, graph 0.12, 0
set format y '10^{%L}×'
set xrange [-0.6:last + 0.6]
set rmargin 8
set bmargin 5
set boxwidth 0.7
set style fill solid 0.85 border -1
eval 'set xtics ('.tics.') rotate by -30 left noenhanced'
if (ngpu == 0) {
    set label 1 "no recorded GPU data yet: the GPU steps appear here after make report on a GPU machine" \
        at graph 0.5, 0.9 center tc rgb '#a00000'
}
if (base > 0) {
    plot '< '.rows using ($1):($3 / base):($1 + 1) with boxes lc variable, \
         '' using ($1):($3 / base):(sprintf("%s\n{/*0.75 %s G int/s}\n{/*0.7 %s}", xmult($3 / base), rate($3), shortdev(strcol(5), ($1 == 0) ? 1 : $6))) with labels offset 0, 2.2 font ',9'
} else {
    set ylabel 'G interactions/s (no step00 row: no speedup)'
    set format y '%g'
    plot '< '.rows using ($1):3:($1 + 1) with boxes lc variable, \
         '' using ($1):3:(sprintf("%.3g", $3)) with labels offset 0, 1 font ',9'
}
