# tree-energy.gp: what the tree's approximation costs physically: the relative energy error of a
# Plummer sphere (N = 16384, dt = 0.001, 1000 steps) for step10 at theta 0.3, 0.5, 0.7 and step06.
W = 900; H = 520
load 'report/plots/lib.gp'

src = file('tree-energy.csv')
set title "{/:Bold Energy with a tree code}"
if (strlen(src) == 0) {
    why = "no recorded tree energy runs yet: bash report/sweeps/treecode.sh OUT on a GPU"
    eval NODATA
    exit
}
first = firstline(pickany('bodies,eps,dt', '', '', src))
set title sprintf("{/:Bold Energy with a tree code: Plummer sphere, N = %s, dt = %s, ε = %s, kick-drift in fp32, energy in fp64}", \
    word(system("echo '".first."' | tr ',' ' '"), 1), word(system("echo '".first."' | tr ',' ' '"), 3), word(system("echo '".first."' | tr ',' ' '"), 2))
line(l) = pickany('time,rel_energy_error', 'label='.l, '', src)
set xlabel 'time (Hénon units)'
set ylabel '|ΔE / E|'
set logscale y
set format y '10^{%L}'
set key top left
plot '< '.line('direct') using 1:(abs($2) > 0 ? abs($2) : 1/0) with linespoints lt 6 title 'step06, the direct sum', \
     '< '.line('theta0.3') using 1:(abs($2) > 0 ? abs($2) : 1/0) with linespoints lt 8 title 'step10, θ = 0.3', \
     '< '.line('theta0.5') using 1:(abs($2) > 0 ? abs($2) : 1/0) with linespoints lt 10 title 'step10, θ = 0.5', \
     '< '.line('theta0.7') using 1:(abs($2) > 0 ? abs($2) : 1/0) with linespoints lt 3 title 'step10, θ = 0.7'
