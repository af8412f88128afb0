# blocksteps.gp: step13 (block steps, eta swept) against step12 (one shared dt swept) on the Hernquist
# sphere, N = 131072, t = 0 to 1: the time to t = 1 against the relative energy error there, at two
# softenings and about a black hole (report/sweeps/blocksteps.sh's energy phase; rows joined by
# report/query/blocksteps.awk, from the files report/tables/tables.sh names in blocksteps_files).
W = 900; H = 540
load 'report/plots/lib.gp'

src = files(system("sed -n 's/^blocksteps_files=\"\\(.*\\)\"$/\\1/p' report/tables/tables.sh"))
rows = (strlen(src) > 0) ? 'awk -f report/query/blocksteps.awk '.src : ''
set title "{/:Bold step13 against step12: the time to t = 1 against the energy error}"
if (count(rows) == 0) {
    why = "no recorded block-step study yet (report/sweeps/blocksteps.sh on a GPU machine)"
    eval NODATA
    exit
}
# Where the rows ran: "device (date, commit)" of each softening's runs.
where = system(rows." | awk -F, '{ k = $8 \" (\" $9 \", \" $10 \")\"; if (!(k in s)) { s[k] = 1; o = o (o ? \"}\\n{/*0.8 \" : \"\") \"ε = \" $2 \": \" k } } END { print o }'")
set title sprintf("{/:Bold step13 against step12: time to t = 1 against the energy error there}\n{/*0.8 Hernquist sphere, N = 131072}\n{/*0.8 %s}", where)
set xlabel '|relative energy error| at t = 1 (log scale)'
set ylabel 'time to t = 1, s (log scale)'
set logscale xy
set format x '10^{%L}'
set format y '%g'
set key top right
set arrow 1 from 1e-4, graph 0 to 1e-4, graph 1 nohead lt 11
set label 1 'the issue''s 1e-4' at 1e-4, graph 0.96 right offset -0.5, 0 tc rgb '#404040' font ',8'
sel(step, eps) = sprintf("< %s | awk -F, '$1 == %d && $2 == %g'", rows, step, eps)
hole(step) = sprintf("< %s | awk -F, '$1 == %d && $2 ~ /hole/'", rows, step)
plot sel(12, 0.01) using 7:6 with linespoints lt 3 title 'step12, one dt (ε = 0.01)', \
     '' using 7:6:('dt '.strcol(4)) with labels left offset 0.6, -0.4 font ',7' tc lt 3, \
     sel(13, 0.01) using 7:6 with linespoints lt 8 title 'step13, η (ε = 0.01)', \
     '' using 7:6:('η '.strcol(4)) with labels right offset -0.6, 0.4 font ',7' tc lt 8, \
     sel(12, 0.0025) using 7:6 with linespoints lt 4 dt 2 title 'step12, one dt (ε = 0.0025)', \
     '' using 7:6:('dt '.strcol(4)) with labels left offset 0.6, -0.4 font ',7' tc lt 4, \
     sel(13, 0.0025) using 7:6 with linespoints lt 9 dt 2 title 'step13, η (ε = 0.0025)', \
     '' using 7:6:('η '.strcol(4)) with labels right offset -0.6, 0.4 font ',7' tc lt 9, \
     hole(12) using 7:6 with linespoints lt 2 dt 3 title 'step12, one dt (ε = 0.0025, about a black hole)', \
     '' using 7:6:('dt '.strcol(4)) with labels left offset 0.6, -0.4 font ',7' tc lt 2, \
     hole(13) using 7:6 with linespoints lt 10 dt 3 title 'step13, η (ε = 0.0025, about a black hole)', \
     '' using 7:6:('η '.strcol(4)) with labels right offset -0.6, 0.4 font ',7' tc lt 10
