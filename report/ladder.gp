# ladder.gp: the speedup ladder, every step of steps.list at N = 65536 over step00_serial (figure 1).
# Rows: tag "ladder" of ladder-cpu.csv (serial and OpenMP) and ladder.csv (the GPU steps).
W = 900; H = 520
load 'report/lib.gp'

src = files2('ladder-cpu.csv', 'ladder.csv')
rows = pickany('step,name,ginteractions_s,bodies,device', 'tag=ladder', 'kernel_s', src)
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
tics = system("awk '$1 ~ /^[0-9]+$/ { printf \"%s\\\"%s\\\" %d\", (k++ ? \", \" : \"\"), substr($2, 5), $1 + 0 }' steps.list")
last = int(system("awk '$1 ~ /^[0-9]+$/ { n = $1 + 0 } END { print n }' steps.list"))
xmult(x) = (x >= 100) ? sprintf("%.0f×", x) : sprintf("%.3g×", x)
rate(x) = (x >= 100) ? sprintf("%.0f", x) : sprintf("%.3g", x)
set title sprintf("{/:Bold The ladder: speedup over step00\\_serial at N = %s}\n{/*0.8 %s}", size, \
    origin(src, 'tag=ladder'))
set ylabel 'speedup over step00\_serial (log scale)'
set logscale y
set yrange [0.5:*]
set offsets 0, 0, graph 0.08, 0
set format y '%g×'
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
         '' using ($1):($3 / base):(sprintf("%s\n{/*0.8 %s G int/s}", xmult($3 / base), rate($3))) with labels offset 0, 1.6 font ',9'
} else {
    set ylabel 'G interactions/s (no step00 row: no speedup)'
    set format y '%g'
    plot '< '.rows using ($1):3:($1 + 1) with boxes lc variable, \
         '' using ($1):3:(sprintf("%.3g", $3)) with labels offset 0, 1 font ',9'
}
