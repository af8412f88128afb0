# throughput.gp: G interactions/s vs N for every step, log-log, with each GPU step's issue-bound
# ceiling where its instructions per interaction are recorded (figure 2).
W = 1000; H = 600
load 'report/plots/lib.gp'

# measure.sh's rows only: make grade's ladder ran its CPU steps on another machine than these sweeps.
src = files('ladder-cpu.csv throughput-cpu.csv ladder.csv throughput.csv')
sel = 'tag~^(ladder|throughput)$;systems=1'
all = pickk('step,name,bodies,ginteractions_s,device,threads', sel, 'kernel_s', 'step,bodies', src)
# Step numbers as plain integers: gnuplot reads "08" as a bad octal number.
steps = system(all." 2>/dev/null | awk -F, '{ print $1 + 0 }' | sort -nu | tr '\\n' ' '")
# "step01_omp(CPU~2~threads)": each series' name and where it ran (words: no spaces inside).
names = system(all." 2>/dev/null | awk -F, '{ d = $5; i = index(d, \"NVIDIA \"); w = i ? substr(d, 1, i - 1) substr(d, i + 7) : \"CPU \" $6 \" threads\"; gsub(/ /, \"~\", w); print $1 \",\" $2 \"(\" w \")\" }' | sort -u -t, -k1,1 | cut -d, -f2 | tr '\\n' ' '")
if (words(steps) == 0) {
    why = "no recorded throughput data yet: make report"
    eval NODATA
    exit
}
ngpu = count(all." | awk -F, '$1 + 0 >= 2'")
# The ceiling at N = 65536, from the ladder rows shown in figure 1.
ceil = ceiling(files('grade-ladder.csv ladder.csv'), 'tag~^(grade-)?ladder$;bodies=65536', 'step')
nceil = count(ceil)

set title sprintf("{/:Bold Throughput vs N, one system}\n{/*0.8 %s}", origink(src, sel, 'step,bodies'))
set xlabel 'bodies N'
set ylabel 'G interactions/s'
set logscale xy 2
set format x '2^{%L}'
set format y '%g'
set logscale y 10
set key outside right center vertical noenhanced spacing 1.2
set xrange [2048:*]
msg = (ngpu == 0) ? "no recorded GPU data yet" : (nceil == 0) ? "ceiling not drawn: no instructions.csv or gpu.csv recorded for this GPU" : ""
if (strlen(msg) > 0) { set label 1 msg at graph 0.02, 0.96 left tc rgb '#a00000' }
stitle(w) = system("echo '".w."' | sed 's/(/ (/; s/~/ /g'")
stepline(s) = sprintf("%s | awk -F, '$1 + 0 == %s' | sort -t, -k3,3n", all, s)
# One dashed line per GPU step with a recorded instruction count, in the step's colour.
cstep = system(ceil." 2>/dev/null | awk -F, '{ print $1 + 0 }' | tr '\\n' ' '")
cname = system(ceil." 2>/dev/null | awk -F, '{ print substr($2, 1, 6) }' | tr '\\n' ' '")
cipi = system(ceil." 2>/dev/null | awk -F, '{ print $8 }' | tr '\\n' ' '")
crow(j) = sprintf("< %s | sed -n %dp", ceil, j)
if (nceil > 0) {
    plot for [i = 1:words(steps)] '< '.stepline(word(steps, i)) using 3:4 with linespoints lt (dec(word(steps, i)) + 1) title stitle(word(names, i)), \
         for [j = 1:nceil] crow(j) using (2048):9:(2**21):(0) with vectors nohead dt 2 lw 1.5 lt (dec(word(cstep, j)) + 1) \
             title sprintf("%s ceiling, %s instr./interaction", word(cname, j), word(cipi, j))
} else {
    plot for [i = 1:words(steps)] '< '.stepline(word(steps, i)) using 3:4 with linespoints lt (dec(word(steps, i)) + 1) title stitle(word(names, i))
}
