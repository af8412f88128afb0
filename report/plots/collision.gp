# collision.gp: two Plummer spheres (N = 4096 in all) falling together, passing through each other
# and merging (figure 7b), seen along z and along y at six times; one colour per sphere.
W = 1400; H = 470
load 'report/plots/lib.gp'

src = file('proj-collision.txt')
set title "{/:Bold Two Plummer spheres colliding}"
if (strlen(src) == 0) {
    why = "no recorded snapshots yet: make report PHASES=physics"
    eval NODATA
    exit
}
set datafile separator whitespace
times = system(sprintf("awk '/^# step/ { print $5 }' %s | tr '\\n' ' '", src))
info = system(sprintf("awk '/^# step/ { print $7; exit }' %s", src))
nt = words(times)
set multiplot layout 2, nt title sprintf("{/:Bold Two Plummer spheres of %d bodies each, 6 apart, closing at 0.5: x–y (top) and x–z (bottom)}\n{/*0.8 %s}", \
    int(info) / 2, origin(file('physics.csv'), 'tag=physics-collision'))
set size ratio -1
set xrange [-4.5:4.5]
set yrange [-3:3]
set xtics 2
set ytics 2
unset key
colour(h) = (h == 0) ? 0x701f77b4 : 0x70ff7f0e
do for [k = 1:nt] {
    set title sprintf("t = %s", word(times, k))
    set ylabel (k == 1) ? 'y' : ''
    plot src index (k - 1) using 1:2:(colour($4)) with points pt 7 ps 0.1 lc rgb variable
}
do for [k = 1:nt] {
    set title ''
    set xlabel 'x'
    set ylabel (k == 1) ? 'z' : ''
    plot src index (k - 1) using 1:3:(colour($4)) with points pt 7 ps 0.1 lc rgb variable
}
unset multiplot
