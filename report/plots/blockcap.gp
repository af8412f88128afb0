# blockcap.gp: the issue's target about the black hole: step13 with its finest level capped against step12
# at one dt, the time to t = 1 at N = 1 M and 8 M against the largest energy error over three draws at
# N = 131072 (report/query/blockseeds.awk on the files report/tables/tables.sh names in blockcap_files:
# the capped levels' table). A step13 point under the dashed line is 3x step12 at 1/1280.
W = 1200; H = 520
load 'report/plots/lib.gp'

src = files(system("sed -n 's/^blockcap_files=\"\\(.*\\)\"$/\\1/p' report/tables/tables.sh"))
# blockseeds.awk's rows, with a label column (16) for the points: "dt 1/1280" or "η 0.125 · 7 levels of 1/20" (no comma: the data's separator)
rows = (strlen(src) > 0) ? 'awk -v seeds="42 1 2" -f report/query/blockruns.awk -f report/query/blockseeds.awk '.src." | awk -F, -v OFS=, '{ split($2, lv, \":\"); print $0, ($1 == 12 ? \"dt \" $4 : \"η \" $4 \" · \" lv[1] \" levels of \" lv[2]) }'" : ''
set title "{/:Bold step13 with its finest level capped against step12: time to t = 1 against the energy error}"
if (count(rows) == 0) {
    why = "no recorded study of capped levels yet (report/sweeps/blocksteps.sh, BS_LEVELS)"
    eval NODATA
    exit
}
where = system(rows." | awk -F, '$9 != \"\" || $14 != \"\" { k = $10 \" (\" $11 \", \" $12 \")\"; if (!(k in s)) { s[k] = 1; o = o (o ? \"; \" : \"\") k } } END { print o }'")
# step12's time at 1/1280 (the partner every speedup of the table is over), at each size
t12(col) = real(system(rows." | awk -F, '$1 == 12 && $4 == \"1/1280\" && $".col." != \"\" { t = $".col." } END { print (t == \"\" ? 0 : t) }'"))
set multiplot layout 1, 2 title sprintf("{/:Bold step13 with its finest level capped against step12: time to t = 1 against the energy error}\n{/*0.8 Hernquist sphere about a black hole, ε = 0.0025; the error: the largest over three draws at N = 131072; the time: seed 42}\n{/*0.8 %s}", where)
set xlabel 'largest |relative energy error| at t = 1 (log scale)'
set ylabel 'time to t = 1, s (log scale)'
set logscale xy
set format x '10^{%L}'
set format y '%g'
set ytics (1, 2, 3, 5, 10, 20, 30, 50, 100, 200)
set xrange [3e-5:4e-4]
set key bottom left
sel(step, col) = sprintf("< %s | awk -F, '$1 == %d && $%d != \"\"'", rows, step, col)
do for [panel = 1:2] {
    col = (panel == 1) ? 9 : 14
    t = t12(col)
    set title (panel == 1) ? 'N = 1048576' : 'N = 8388608'
    set arrow 1 from 1e-4, graph 0 to 1e-4, graph 1 nohead lt 11
    set label 1 'the issue''s 1e-4' at 1e-4, graph 0.96 right offset -0.5, 0 tc rgb '#404040' font ',8'
    if (t > 0) {
        set arrow 2 from graph 0, first t / 3 to graph 1, first t / 3 nohead lc rgb '#2ca02c' dt 2
        set label 2 sprintf("step12 at 1/1280 ÷ 3: %.3g s", t / 3) at graph 0.02, first t / 3 left offset 0, -0.7 tc rgb '#2ca02c' font ',8'
        set yrange [t / 5:t * 1.6]
    } else {
        unset arrow 2; unset label 2; set autoscale y
    }
    plot sel(12, col) using 8:col with points lt 4 title 'step12, one dt', \
         '' using 8:col:16 with labels left offset 0.8, 0.5 font ',8' tc lt 4, \
         sel(13, col) using 8:col with points lt 9 title 'step13, capped levels', \
         '' using 8:col:16 with labels left offset 0.8, 0.5 font ',8' tc lt 9
}
unset multiplot
