# sweep-tile.gp: step04 built with BLOCK = 64 ... 1024 threads, which is also the number of bodies per
# shared-memory tile, at its default unroll factor and bodies per thread, N = 131072 (figure 4c).
W = 800; H = 480
load 'report/lib.gp'

src = file('tile.csv')
rows = pickany('block,ginteractions_s,config', 'tag=tile', 'kernel_s', src)." | sort -t, -k1,1n"
set title "{/:Bold step04: bodies per tile}"
if (count(rows) == 0) {
    why = "no recorded tile-size sweep yet: make report on a GPU machine"
    eval NODATA
    exit
}
size = firstline(pickany('bodies', 'tag=tile', 'kernel_s', src))
knobs = firstline(pickany('config.unroll,config.bodies/thread', 'tag=tile', 'kernel_s', src))
knobs = system("echo '".knobs."' | tr ',' ' '")
set title sprintf("{/:Bold step04: bodies per tile (= threads per block), UNROLL=%s, %s bodies/thread, N = %s}\n{/*0.8 %s}", \
    word(knobs, 1), word(knobs, 2), size, origin(src, 'tag=tile'))
set xlabel 'BLOCK: threads per block = bodies per shared-memory tile'
set ylabel 'G interactions/s'
set logscale x 2
set xrange [48:1400]
set yrange [0:*]
set offsets 0, 0, graph 0.12, 0
plot '< '.rows using 1:2 with linespoints lt 5, \
     '' using 1:2:(sprintf("%.0f", $2)) with labels offset 0, 1 font ',8'
