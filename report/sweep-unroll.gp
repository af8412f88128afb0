# sweep-unroll.gp: step04 built with UNROLL (the inner loop's unroll factor) x BODIES_PER_THREAD
# (bodies held in registers by each thread), N = 131072 (figure 4b).
W = 800; H = 480
load 'report/lib.gp'

src = file('unroll.csv')
all = pickany('config.unroll,config.bodies/thread,ginteractions_s', 'tag=unroll', 'kernel_s', src)
bpts = system(all." | cut -d, -f2 | sort -nu | tr '\\n' ' '")
set title "{/:Bold step04: unroll factor × bodies per thread}"
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
