# throughput.gp: G interactions/s vs N for every step, log-log, with each GPU step's issue-bound
# ceiling where its instructions per interaction are recorded (figure 2).
W = 900; H = 600
load 'report/lib.gp'

src = files2('ladder-cpu.csv', 'throughput-cpu.csv').' '.files2('ladder.csv', 'throughput.csv')
all = pickany('step,name,bodies,ginteractions_s', 'tag~^(ladder|throughput)$;systems=1', 'kernel_s', src)
# Step numbers as plain integers: gnuplot reads "08" as a bad octal number.
steps = system(all." 2>/dev/null | awk -F, '{ print $1 + 0 }' | sort -nu | tr '\\n' ' '")
names = system(all." 2>/dev/null | cut -d, -f1,2 | sort -u | cut -d, -f2 | tr '\\n' ' '")
if (words(steps) == 0) {
    why = "no recorded throughput data yet: make report"
    eval NODATA
    exit
}
ngpu = count(all." | awk -F, '$1 + 0 >= 2'")
ceil = ceiling(file('ladder.csv'))
nceil = count(ceil)

set title sprintf("{/:Bold Throughput vs N, one system}\n{/*0.8 %s}", origin(src, 'tag~^(ladder|throughput)$'))
set xlabel 'bodies N'
set ylabel 'G interactions/s'
set logscale xy 2
set format x '2^{%L}'
set format y '%g'
set logscale y 10
set key outside right center vertical noenhanced spacing 1.2
set xrange [2048:*]
msg = (ngpu == 0) ? "no recorded GPU data yet" : (nceil == 0) ? "ceiling not drawn: no instructions.csv or gpu.csv recorded" : ""
if (strlen(msg) > 0) { set label 1 msg at graph 0.02, 0.96 left tc rgb '#a00000' }
stepline(s) = sprintf("%s | awk -F, '$1 + 0 == %s' | sort -t, -k3,3n", all, s)
# One dashed line per GPU step with a recorded instruction count, in the step's colour.
cstep = system(ceil." 2>/dev/null | awk -F, '{ print $1 + 0 }' | tr '\\n' ' '")
cname = system(ceil." 2>/dev/null | awk -F, '{ print substr($2, 1, 6) }' | tr '\\n' ' '")
cipi = system(ceil." 2>/dev/null | awk -F, '{ print $8 }' | tr '\\n' ' '")
crow(j) = sprintf("< %s | sed -n %dp", ceil, j)
if (nceil > 0) {
    plot for [i = 1:words(steps)] '< '.stepline(word(steps, i)) using 3:4 with linespoints lt (dec(word(steps, i)) + 1) title word(names, i), \
         for [j = 1:nceil] crow(j) using (2048):9:(2**21):(0) with vectors nohead dt 2 lw 1.5 lt (dec(word(cstep, j)) + 1) \
             title sprintf("%s ceiling, %s instr./interaction", word(cname, j), word(cipi, j))
} else {
    plot for [i = 1:words(steps)] '< '.stepline(word(steps, i)) using 3:4 with linespoints lt (dec(word(steps, i)) + 1) title word(names, i)
}
