# sweep-tile.gp: step04 and step06 built with TILE = 128 ... 2048 bodies per shared-memory tile (BLOCK
# threads each load TILE / BLOCK of them between two barriers), N = 131072 (figure 4c).
W = 800; H = 480
load 'report/plots/lib.gp'

src = file('tile.csv')
set title "{/:Bold bodies per shared-memory tile}"
rows04 = pickany('config.tile,ginteractions_s', 'tag=tile;step=04', 'kernel_s', src)." | sort -t, -k1,1n"
rows06 = pickany('config.tile,ginteractions_s', 'tag=tile;step=06', 'kernel_s', src)." | sort -t, -k1,1n"
if (count(rows04) + count(rows06) == 0) {
    why = "no recorded tile-size sweep yet: make report on a GPU machine"
    eval NODATA
    exit
}
size = firstline(pickany('bodies', 'tag=tile', 'kernel_s', src))
set title sprintf("{/:Bold bodies per shared-memory tile (BLOCK = 128 threads), N = %s}\n{/*0.8 %s}", size, origin(src, 'tag=tile'))
set xlabel 'TILE: bodies per tile (each thread loads TILE / BLOCK between two barriers)'
set ylabel 'G interactions/s'
set logscale x 2
set xrange [96:2800]
set yrange [0:*]
set key bottom right
set offsets 0, 0, graph 0.12, 0
plot '< '.rows04 using 1:2 with linespoints lt 3 title 'step04 (1/sqrtf)', \
     '' using 1:2:(sprintf("%.0f", $2)) with labels offset 0, 1 font ',8' notitle, \
     '< '.rows06 using 1:2 with linespoints lt 5 title 'step06 (rsqrtf, SoA)', \
     '' using 1:2:(sprintf("%.0f", $2)) with labels offset 0, 1 font ',8' notitle
