# plummer.gp: a Plummer sphere (N = 4096) seen along z and along y at three times (figure 7a): in
# equilibrium it keeps its shape, while every body moves. Positions from report/tools/snap2txt.c.
W = 1000; H = 700
load 'report/plots/lib.gp'

src = file('proj-plummer.txt')
set title "{/:Bold A Plummer sphere}"
if (strlen(src) == 0) {
    why = "no recorded snapshots yet: make report PHASES=physics"
    eval NODATA
    exit
}
set datafile separator whitespace
times = system(sprintf("awk '/^# step/ { print $5 }' %s | tr '\\n' ' '", src))
info = system(sprintf("awk '/^# step/ { print $7; exit }' %s", src))
nt = words(times)
set multiplot layout 2, nt title sprintf("{/:Bold A Plummer sphere of %s bodies: projections on x–y (top) and x–z (bottom)}\n{/*0.8 %s}", \
    info, origin(file('physics.csv'), 'tag=physics-dt0.002'))
set size ratio -1
set xrange [-2.5:2.5]
set yrange [-2.5:2.5]
set xtics 1
set ytics 1
set grid
unset key
do for [k = 1:nt] {
    set title sprintf("t = %s", word(times, k))
    set xlabel 'x'
    set ylabel 'y'
    plot src index (k - 1) using 1:2 with points pt 7 ps 0.12 lc rgb '#601f77b4'
}
do for [k = 1:nt] {
    set title ''
    set xlabel 'x'
    set ylabel 'z'
    plot src index (k - 1) using 1:3 with points pt 7 ps 0.12 lc rgb '#601f77b4'
}
unset multiplot
