# blockequal.gp: the issue's figure at its own N: time to t = 1 against the mean energy error over the
# draws report/tables/tables.sh names in blockequal_seeds, both at N = 1 M (report/query/blockequal.awk on
# its blockequal_files: the table at the issue's own N), step12 over its shared dt, step13 over eta and its
# levels. The dashed line is step12's times divided by 3: a step13 point below it is 3x step12 at its error.
# The first scheme's labels go left of its points, the others' right, below and above in turn (by error).
W = 1000; H = 560
load 'report/plots/lib.gp'

setting(name) = system(sprintf("sed -n 's/^%s=\"\\([^\"]*\\)\".*$/\\1/p' report/tables/tables.sh", name))
seeds = setting('blockequal_seeds')
src = files(setting('blockequal_files'))
# blockequal.awk's rows, with a label column (15) for the points: "dt 1/1280" or "η 0.15" (no comma: the data's separator)
rows = (strlen(src) > 0) ? 'awk -v seeds="'.seeds.'" -v n=1048576 -f report/query/blockruns.awk -f report/query/blockequal.awk '.src." | awk -F, -v OFS=, '{ print $0, ($1 == 12 ? \"dt \" $4 : \"η \" $4) }'" : ''
set title "{/:Bold step13 against step12 at N = 1 M: time to t = 1 against the energy error}"
if (count(rows) == 0) {
    why = "no recorded comparison at N = 1 M yet (report/sweeps/blockcap.sh, BLOCKCAP_ENERGY_N=1048576)"
    eval NODATA
    exit
}
where = system(rows." | awk -F, '{ split($14, c, \"+\"); for (i in c) if (!(c[i] in s)) { s[c[i]] = 1; o = o (o ? \", \" : \"\") c[i] } d = $12 \" (\" $13 } END { print d \", commits \" o \")\" }'")
set title sprintf("{/:Bold step13 against step12 at N = 1 M: time to t = 1 against the energy error}\n{/*0.8 Hernquist sphere about a black hole, ε = 0.0025; the mean over %d draws of the error (fp64, diag-gpu) and of the time}\n{/*0.8 %s}", words(seeds), where)
set xlabel 'mean |relative energy error| at t = 1 over the draws (log scale)'
set ylabel 'time to t = 1, s (log scale)'
set logscale xy
set format x '10^{%L}'
set format y '%g'
set ytics (2, 2.5, 3, 4, 5, 6, 7, 8, 9, 10)
set xrange [3.5e-5:2.5e-4]
set yrange [2.2:10.5]
set key top right
set arrow 1 from 1e-4, graph 0 to 1e-4, graph 1 nohead lt 11
set label 1 'the issue''s 1e-4' at 1e-4, graph 0.04 left offset 0.5, 0 tc rgb '#404040' font ',8'
sel(step) = sprintf("< %s | awk -F, '$1 == %d' | sort -t, -k6,6g", rows, step)
schemes = system(rows." | awk -F, '$1 == 13 && !s[$2]++ { printf \"%s \", $2 }'")
scheme(k) = sprintf("< %s | awk -F, '$1 == 13 && $2 == \"%s\"' | sort -t, -k6,6g", rows, word(schemes, k))
# each scheme its own colour and point (the first four; more would repeat them)
lts = '9 3 8 6'; pts = '9 5 11 13'
lt_of(k) = word(lts, (k - 1) % 4 + 1) + 0; pt_of(k) = word(pts, (k - 1) % 4 + 1) + 0
named(k) = sprintf("step13, %s levels of %s", substr(word(schemes, k), 1, strstrt(word(schemes, k), ':') - 1), substr(word(schemes, k), strstrt(word(schemes, k), ':') + 1, 9))
plot sel(12) using 6:10 with linespoints lt 4 pt 7 title 'step12, one dt', \
     '' using 6:10:15 with labels left offset 0.8, 0.5 font ',8' tc lt 4 notitle, \
     '' using 6:($10 / 3) with lines lt 4 dt 2 title 'step12 ÷ 3: under it, 3× at the same error', \
     for [k = 1:words(schemes)] scheme(k) using 6:10 with points lt lt_of(k) pt pt_of(k) ps 1.3 title named(k), \
     scheme(1) using 6:($10 * (int($0) % 2 ? 1.035 : 0.965)):15 with labels right offset -0.9, 0 font ',8' tc lt 9 notitle, \
     for [k = 2:words(schemes)] scheme(k) using 6:($10 * (int($0) % 2 ? 1.035 : 0.965)):15 with labels left offset 0.9, 0 font ',8' tc lt lt_of(k) notitle
