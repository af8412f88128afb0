# movie.gp: an animated GIF of a collision run, one frame per snapshot (report/plots/movie.sh calls this
# with frames = the text of report/tools/snap2txt.c, out = the GIF, run = the run's results CSV).
set terminal gif animate delay 5 loop 0 optimize size 720, 440 font 'DejaVu Sans,10' background '#0b0b14'
set output out
set datafile separator whitespace
nframes = int(system(sprintf("grep -c '^# step' %s", frames)))
times = system(sprintf("awk '/^# step/ { print $5 }' %s | tr '\\n' ' '", frames))
bodies = system(sprintf("awk '/^# step/ { print $7; exit }' %s", frames))
device = system(sprintf("awk -f report/query/pick.awk -v cols=device,date,commit %s | awk -F, '{ print $1 \", \" substr($2, 1, 10) \", commit \" $3 }'", run))
set size ratio -1
set xrange [-6:6]
set yrange [-3.6:3.6]
set xtics 2
set ytics 2
set border lc rgb '#707080'
set tics textcolor rgb '#a0a0b0'
set title textcolor rgb '#e0e0e8'
set xlabel textcolor rgb '#a0a0b0'
set ylabel textcolor rgb '#a0a0b0'
unset key
set xlabel 'x'
set ylabel 'y'
colour(h) = (h == 0) ? 0x6cb6ff : 0xffa040
do for [k = 1:nframes] {
    set title sprintf("Two Plummer spheres, %s bodies: t = %5.2f\n%s", bodies, real(word(times, k)), device) noenhanced
    plot frames index (k - 1) using 1:2:(colour($4)) with points pt 7 ps 0.25 lc rgb variable
}
