# energy.gp: the physics of a run (figure 6a), from snapshots through report/tools/diag.c: the relative
# energy error, the drift of the total momentum and the virial ratio -K/W vs time, for a Plummer
# sphere (N = 4096) at three time steps and for a two-sphere collision.
W = 1000; H = 760
load 'report/plots/lib.gp'

src = file('energy.csv')
runs = file('physics.csv')
labels = system(pickany('label', '', '', src)." 2>/dev/null | awk '!seen[$0]++' | tr '\\n' ' '")
set title "{/:Bold Energy, momentum and virial ratio}"
if (words(labels) == 0) {
    why = "no recorded physics runs yet: make report PHASES=physics"
    eval NODATA
    exit
}
first = firstline(pickany('bodies,eps', '', '', src))
first = system("echo '".first."' | tr ',' ' '")
runline(l) = pickany('time,rel_energy_error,momentum_drift,virial_ratio,rel_energy_error_raw', 'label='.l, '', src)
iscoll(l) = strstrt(l, 'collision') > 0
col(i) = iscoll(word(labels, i)) ? 1 : i + 2
lname(l) = iscoll(l) ? sprintf('collision, dt = %s', l[strstrt(l, 'dt') + 2:]) : sprintf('Plummer, dt = %s', l[strstrt(l, 'dt') + 2:])

set multiplot layout 3, 1 title sprintf("{/:Bold A Plummer sphere and a collision: N = %s, ε = %s, kick-drift leapfrog in fp32, diagnostics in fp64}\n{/*0.8 %s}", \
    word(first, 1), word(first, 2), origin(runs, 'tag~^physics-'))
set key outside right top noenhanced
set lmargin 12
set rmargin 36
set xlabel 'time (Hénon units; a crossing time is 2√2 ≈ 2.8)'

set title 'relative energy error |E(t) − E(0)| / |E(0)|, velocities synchronised by half a kick'
set ylabel '|ΔE / E|'
set logscale y
set format y '10^{%L}'
plot for [i = 1:words(labels)] '< '.runline(word(labels, i)) using 1:(abs($2)) with lines lt col(i) title lname(word(labels, i)), \
     '< '.runline(word(labels, 1)) using 1:(abs($5)) with lines lt col(1) dt 3 lw 1 title sprintf("%s (v unsynchronised)", lname(word(labels, 1)))

set title 'momentum drift |P(t) − P(0)| / Σ m|v| (0 in exact arithmetic: fp32 rounding)'
set ylabel '|ΔP| / Σ m|v|'
plot for [i = 1:words(labels)] '< '.runline(word(labels, i)) using 1:3 with lines lt col(i) title lname(word(labels, i))

set title 'virial ratio −K/W (0.5 in equilibrium)'
set ylabel '−K / W'
unset logscale y
set format y '%g'
plot 0.5 with lines lt 11 title 'equilibrium', \
     for [i = 1:words(labels)] '< '.runline(word(labels, i)) using 1:4 with lines lt col(i) title lname(word(labels, i))
unset multiplot
