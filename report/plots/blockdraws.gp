# blockdraws.gp: step13 with its finest level capped against step12 at 1/1280, draw by draw: the energy error
# at t = 1 (N = 131072) of each draw of the sphere about the black hole, both steps on the same draws, and
# each run's mean over the draws (report/query/blockseeds.awk on the files report/tables/tables.sh names in
# blockdraws_files, its seeds blockdraws_seeds: the draws table).
W = 1000; H = 520
load 'report/plots/lib.gp'

setting(name) = system(sprintf("sed -n 's/^%s=\"\\(.*\\)\"$/\\1/p' report/tables/tables.sh", name))
seeds = setting('blockdraws_seeds')
src = files(setting('blockdraws_files'))
# one line a run and draw: draw number, seed, error, step, the run's label (no comma: the data's separator), the run's mean
rows = (strlen(src) > 0) ? 'awk -v seeds="'.seeds.'" -f report/query/blockruns.awk -f report/query/blockseeds.awk '.src." | awk -F, -v OFS=, -v seeds=\"".seeds."\" '{ ns = split(seeds, s, \" \"); split($2, lv, \":\"); m = 0; for (j = 1; j <= ns; ++j) m += $(4 + j) / ns; label = ($1 == 12 ? \"step12 · dt \" $4 : \"step13 · \" lv[1] \" levels of \" lv[2] \" · η \" $4); for (j = 1; j <= ns; ++j) print j, s[j], $(4 + j), $1, label, m, NR }'" : ''
set title "{/:Bold step13 against step12 at the same finest step, draw by draw}"
if (count(rows) == 0) {
    why = "no recorded comparison over many draws yet (report/sweeps/blockcap.sh, BLOCKCAP_SEEDS)"
    eval NODATA
    exit
}
runs = real(system(rows." | awk -F, '{ print $7 }' | sort -u | wc -l"))
draws = words(seeds)
where = system("awk -v seeds=\"".seeds."\" -f report/query/blockruns.awk -f report/query/blockseeds.awk ".src." | awk -F, '{ k = $(".(draws + 7).") \" (\" $(".(draws + 8).") \", \" $(".(draws + 9).") \")\"; if (!(k in s)) { s[k] = 1; o = o (o ? \"; \" : \"\") k } } END { print o }'")
set title sprintf("{/:Bold step13 against step12 at the same finest step, draw by draw}\n{/*0.8 Hernquist sphere about a black hole, ε = 0.0025, N = 131072, t = 0 to 1; a dashed line: the run's mean over the draws}\n{/*0.8 %s}", where)
set xlabel 'draw of the sphere (its seed)'
set ylabel '|relative energy error| at t = 1 (log scale)'
set logscale y
set format y '10^{%L}'
set xrange [0.5:draws + 0.5]
set for [j = 1:draws] xtics (word(seeds, j) j)
set key top left
set arrow 1 from graph 0, first 1e-4 to graph 1, first 1e-4 nohead lt 11
set label 1 'the issue''s 1e-4' at graph 0.99, first 1e-4 right offset 0, 0.6 tc rgb '#404040' font ',8'
run(r) = sprintf("< %s | awk -F, '$7 == %d'", rows, r)
label(r) = system(sprintf("%s | awk -F, '$7 == %d { print $5; exit }'", rows, r))
step(r) = real(system(sprintf("%s | awk -F, '$7 == %d { print $4; exit }'", rows, r)))
shift(r) = (r - (runs + 1) / 2.0) * 0.12 # the runs side by side at each draw
colour(r) = (step(r) == 12) ? 4 : 9
plot for [r = 1:runs] run(r) using ($1 + shift(r)):3 with points lt colour(r) pt 5 + 2 * r ps 1.2 title label(r), \
     for [r = 1:runs] run(r) using ($1 + shift(r)):6 with lines lt colour(r) dt 2 lw 1 notitle
