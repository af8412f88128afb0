# sweep-block.gp: threads per block for the naive kernel (step02) and the tiled one (step03, where the
# block is also the tile of bodies in shared memory), N = 65536 (figure 4a).
W = 800; H = 480
load 'report/plots/lib.gp'

src = file('block.csv')
rows(s) = pickany('block,ginteractions_s,name', sprintf('tag=block;step=%s', s), 'kernel_s', src)." | sort -t, -k1,1n"
n2 = count(rows('02'))
n3 = count(rows('03'))
if (n2 + n3 == 0) {
    why = "no recorded block-size sweep yet: make report on a GPU machine"
    eval NODATA
    exit
}
size = firstline(pickany('bodies', 'tag=block', 'kernel_s', src))
set title sprintf("{/:Bold Threads per block, N = %s}\n{/*0.8 %s}", size, origin(src, 'tag=block'))
set xlabel 'threads per block (step03: also bodies per shared-memory tile)'
set ylabel 'G interactions/s'
set logscale x 2
set xrange [24:1400]
set yrange [0:*]
set key bottom center noenhanced
set offsets 0, 0, graph 0.12, 0
series = (n2 > 0 ? '02 ' : '').(n3 > 0 ? '03' : '')
stepname(s) = (s eq '02') ? 'step02_cuda_naive' : 'step03_tiling'
plot for [s in series] '< '.rows(s) using 1:2 with linespoints lt (s eq '02' ? 3 : 4) title stepname(s), \
     for [s in series] '< '.rows(s) using 1:2:(sprintf("%.0f", $2)) with labels offset 0, 1 font ',8' notitle
