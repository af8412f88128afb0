# ceiling.gp: how close each GPU step comes to its issue-bound ceiling at N = 65536, and the
# instructions per interaction behind it (figure 3). Needs gpu.csv (SMs) and instructions.csv (ncu).
W = 1000; H = 460
load 'report/plots/lib.gp'

# The ladder's GPU rows (figure 1): of each step, the latest recording's row at N = 65536.
lad = files('grade-ladder.csv ladder.csv')
sel = 'tag~^(grade-)?ladder$;bodies=65536'
ngpu = count(pickk('step', sel.';clock_mhz~.', 'kernel_s', 'step', lad))
ceil = ceiling(lad, sel, 'step')
rows = (strlen(ceil) > 0) ? ceil." | awk -F, '$3 == \"default\"'" : ''
n = count(rows)
set title "{/:Bold Issue-bound ceiling and instructions per interaction}"
if (ngpu == 0 || n == 0) {
    why = (ngpu == 0) ? "no recorded GPU data yet: make report on a GPU machine" : \
        "ceiling unknown: no instructions.csv (ncu) or gpu.csv (SMs) recorded"
    eval NODATA
    exit
}
size = firstline(rows." | cut -d, -f4")
eval 'set xtics ('.system(rows." | awk -F, '{ printf \"%s\\\"%s\\\" %d\", (k++ ? \", \" : \"\"), substr($2, 5), $1 + 0 }'").') rotate by -30 left noenhanced'
set multiplot layout 1, 2 title sprintf("{/:Bold Issue-bound ceiling = SMs × 4 × 32 × SM clock / instructions per interaction, N = %s}\n{/*0.8 %s}", \
    size, origink(lad, sel.';clock_mhz~.', 'step'))
set boxwidth 0.7
set style fill solid 0.85 border -1
set bmargin 5
set xrange [1.4:*]

set title 'measured / ceiling'
set ylabel '% of the ceiling'
set yrange [0:110]
plot '< '.rows using ($1):10:($1 + 1) with boxes lc variable, \
     '' using ($1):10:(sprintf("%.0f%%\n{/*0.75 %.0f / %.0f}", $10, $5, $9)) with labels offset 0, 1.3 font ',9'

set title 'thread instructions per interaction (ncu)'
set ylabel 'instructions / interaction'
set yrange [0:*]
plot '< '.rows using ($1):8:($1 + 1) with boxes lc variable, \
     '' using ($1):8:(sprintf("%.3g", $8)) with labels offset 0, 0.8 font ',9'
unset multiplot
