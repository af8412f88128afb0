# ladder_plot.gp: the speedup ladder of `make grade`, one bar per step on a log scale.
# grading/ladder_plot.c writes the data (ladder.dat) and the variables (ladder-vars.gp: datafile, png_out,
# svg_out, title_text, subtitle_text, bars, cpu_bars, gpu_bars, ymin, ymax, roof) and runs
#     gnuplot ladder-vars.gp grading/ladder_plot.gp
# Data columns: 1 x, 2 label, 3 G interactions/s, 4 speedup text, 5 gpu (0/1), 6 the step's own issue
# bound (NaN: unknown), 7 G interactions/s as text.

cpu(col) = (column(5) == 0 ? column(col) : 1/0)
gpu(col) = (column(5) == 1 ? column(col) : 1/0)
ladder = "datafile using 1:(column(3) * 1.75):4:xtic(2) with labels font ',11' notitle, " . \
         "datafile using 1:(column(3) * 1.3):7 with labels font ',9' tc rgb '#555555' notitle"
if (cpu_bars > 0) { ladder = ladder . ", datafile using 1:(cpu(3)) with boxes lc rgb '#4477aa' title 'CPU step'" }
if (gpu_bars > 0) { ladder = ladder . ", datafile using 1:(gpu(3)) with boxes lc rgb '#ee6677' title 'GPU step'" }
if (roof > 0) {
    ladder = ladder . ", datafile using ($1 - 0.4):6:(0.8):(0) with vectors nohead lc rgb '#aa3377' lw 2 title 'the step''s own issue bound'" . \
             ", roof with lines lc rgb '#aa3377' lw 2 dt 2 title sprintf('issue-bound ceiling, %.4g G int/s', roof)"
}

set title title_text . "\n" . subtitle_text font ",10" noenhanced
set ylabel "G interactions/s (log scale)"
set logscale y
set yrange [ymin:ymax]
set format y "%g"
set xrange [-0.6:bars - 0.4]
set grid ytics lc rgb "#dddddd"
set style fill solid 0.85 border rgb "#333333"
set boxwidth 0.7
set xtics rotate by -25 left nomirror noenhanced
set key outside bottom center horizontal noenhanced
set samples 2

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1100, 700 font "sans,11" noenhanced
} else {
    set terminal png size 1100, 700 noenhanced
}
set output png_out
eval("plot " . ladder)
set terminal svg size 1100, 700 font "sans,11" background rgb "white" noenhanced
set output svg_out
eval("plot " . ladder)
set output
