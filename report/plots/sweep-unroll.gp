# sweep-unroll.gp: step04 built with UNROLL (the inner loop's unroll factor) x BODIES_PER_THREAD
# (bodies held in registers by each thread), N = 131072 (figure 4b).
W = 960; H = 500
load 'report/plots/lib.gp'

src = file('unroll.csv')
all = pickany('config.unroll,config.bodies/thread,ginteractions_s', 'tag=unroll', 'kernel_s', src)
bpts = system(all." | cut -d, -f2 | sort -nu | tr '\\n' ' '")
set title "{/:Bold step04: unroll factor × bodies per thread}"
# Without the sweep, the shorter "tuning" phase (a few builds of a later step; runs.csv of older
# gpu-run.sh recordings, tuning.csv of report/sweeps/measure.sh), if recorded.
tun = files('runs.csv tuning.csv')
tsel = 'tag=tuning'
trows = pickk('build,bodies,ginteractions_s,config.unroll,config.bodies/thread,block,name', tsel, 'kernel_s', 'build,bodies', tun)
if (words(bpts) == 0 && count(trows) > 0) {
    tsizes = system(trows." | cut -d, -f2 | sort -nu | tr '\\n' ' '")
    builds = system(trows." | cut -d, -f1 | awk '!seen[$0]++' | tr '\\n' ' '")
    tname = firstline(trows." | cut -d, -f7 | sed 's/_/\\\\_/g'")
    set title sprintf("{/:Bold %s: UNROLL U, BODIES\\_PER\\_THREAD B, BLOCK T (a few builds: the step04 sweep is not recorded yet)}\n{/*0.8 %s}", \
        tname, origink(tun, tsel, 'build,bodies'))
    set ylabel 'G interactions/s'
    set yrange [0:*]
    set offsets 0, 0, graph 0.12, 0
    set style fill solid 0.85 border -1
    set boxwidth 0.8 / words(tsizes)
    set xrange [-0.6:words(builds) - 0.4]
    set key top right
    bidx(b) = sum [k = 1:words(builds)] (word(builds, k) eq b ? k - 1 : 0)
    knob(u, b, t) = sprintf("U=%s B=%s T=%s", u, b, t)
    eval 'set xtics ('.system(trows." | awk -F, '!seen[$1]++ { printf \"%s\\\"U=%s B=%s T=%s\\\" %d\", (k ? \", \" : \"\"), $4, $5, $6, k; k++ }'").') rotate by -20 left noenhanced'
    w = 0.8 / words(tsizes)
    plot for [j = 1:words(tsizes)] '< '.trows." | awk -F, '$2 == ".word(tsizes, j)."'" using (bidx(strcol(1)) + (j - 0.5 - words(tsizes) / 2.0) * w):3 \
             with boxes lt (j + 5) title sprintf("N = %s", word(tsizes, j)), \
         for [j = 1:words(tsizes)] '< '.trows." | awk -F, '$2 == ".word(tsizes, j)."'" using (bidx(strcol(1)) + (j - 0.5 - words(tsizes) / 2.0) * w):3:(sprintf("%.0f", $3)) \
             with labels offset 0, 0.7 font ',8' notitle
    exit
}
if (words(bpts) == 0) {
    why = "no recorded unroll sweep yet: make report on a GPU machine"
    eval NODATA
    exit
}
size = firstline(pickany('bodies', 'tag=unroll', 'kernel_s', src))
best = firstline(all." | sort -t, -k3,3gr | head -n 1")
set title sprintf("{/:Bold step04: unroll factor × bodies per thread, N = %s}\n{/*0.8 %s}", size, origin(src, 'tag=unroll'))
set xlabel 'UNROLL (the loop over a tile, unrolled by the compiler)'
set ylabel 'G interactions/s'
set logscale x 2
set xrange [0.8:40]
set yrange [0:*]
set offsets 0, 0, graph 0.1, 0
set key bottom right title 'bodies per thread' noenhanced
# word() splits on spaces: turn the CSV line into words for the label above.
best = system("echo '".best."' | tr ',' ' '")
set label 1 sprintf("best: UNROLL=%s with %s bodies/thread, %.4g G int/s", word(best, 1), word(best, 2), real(word(best, 3))) \
    at graph 0.02, 0.97 left
bptline(b) = sprintf("%s | awk -F, '$2 == %s' | sort -t, -k1,1n", all, b)
plot for [i = 1:words(bpts)] '< '.bptline(word(bpts, i)) using 1:3 with linespoints lt (i + 2) title word(bpts, i)
