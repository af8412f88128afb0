# kepler.gp: a two-body orbit (a = 1, period 2π) integrated for one period with K steps: the error
# of the final relative position vs dt (figure 6b). Leapfrog is second order: the error falls as dt²
# until fp32 rounding, which grows with the number of steps, takes over; the fp64 reference
# (common/reference.c, the same integrator in double) shows the dt² line on its own.
W = 900; H = 560
load 'report/plots/lib.gp'

src = file('kepler.csv')
runs = file('kepler-runs.csv')
steps = system(pickany('label', '', '', src)." 2>/dev/null | awk '!seen[$0]++' | tr '\\n' ' '")
eccs = system(pickany('ecc', '', '', src)." 2>/dev/null | sort -u | tr '\\n' ' '")
set title "{/:Bold Kepler orbit: error after one period}"
if (words(steps) == 0) {
    why = "no recorded Kepler runs yet: make report PHASES=kepler"
    eval NODATA
    exit
}
set title sprintf("{/:Bold Two bodies, one period: error of the relative position vs the time step}\n{/*0.8 %s}", origin(runs, 'tag~^kepler-'))
set xlabel 'dt (period 2π = K dt)'
set ylabel '|r(P) − r(0)| / a'
set logscale xy
set xrange [5e-5:0.5]
set format x '10^{%L}'
set format y '10^{%L}'
set key outside right top noenhanced
set rmargin 34
krow(s, e) = pickany('dt,pos_error,pos_error_fp64', sprintf('label=%s;ecc=%s', s, e), '', src)
eccpt(j) = (j == 1) ? 7 : 5
# dt² guide, 4x above the fp64 point of the largest K of the first eccentricity
ref = system(krow(word(steps, 1), word(eccs, 1))." | sort -t, -k1,1g | head -n 1 | tr ',' ' '")
c2 = 4 * real(word(ref, 3)) / real(word(ref, 1))**2
plot c2 * x**2 with lines lt 11 title 'dt² (second order)', \
     for [j = 1:words(eccs)] '< '.krow(word(steps, 1), word(eccs, j)) using 1:3 with linespoints lc rgb '#000000' pt eccpt(j) ps 0.7 lw 1 \
         title sprintf("fp64 reference, e = %s", word(eccs, j)), \
     for [i = 1:words(steps)] for [j = 1:words(eccs)] '< '.krow(word(steps, i), word(eccs, j)) using 1:2 with linespoints \
         lt (dec(word(steps, i)[5:6]) + 1) pt eccpt(j) title sprintf("%s (fp32), e = %s", word(steps, i), word(eccs, j))
