# lib.gp: what every figure script shares. A figure script sets W and H (pixels of the PNG), then
#   load 'report/plots/lib.gp'
# and draws. report/plots/figures.sh runs each script once per format, with -e setting:
#   fmt     'png' or 'vec' (print: PDF, or SVG where pdfcairo is missing)
#   out     the output path without extension (report/figures/NAME)
#   data    the recordings' folder (report/data; report/query/recordings.sh orders its recordings)
#   registry  the steps' id and folder, tab-separated, one line each (common/steps.sh: registry_ids id folder)
#   pngterm, vecterm   the terminals this gnuplot has (pngcairo or png; pdfcairo or svg)
if (!exists("fmt")) fmt = 'png'
if (!exists("data")) data = 'report/data'
if (!exists("pngterm")) pngterm = 'pngcairo'
if (!exists("vecterm")) vecterm = 'pdfcairo'
if (!exists("W")) W = 900
if (!exists("H")) H = 540

if (fmt eq 'png') {
    if (pngterm eq 'pngcairo') {
        set terminal pngcairo size W, H enhanced font 'Sans,10' linewidth 1.2 background '#ffffff'
    } else {
        set terminal png size W, H enhanced
    }
    set output out.'.png'
} else {
    if (vecterm eq 'pdfcairo') {
        set terminal pdfcairo size W/90.0, H/90.0 enhanced font 'Sans,8' linewidth 1.0
        set output out.'.pdf'
    } else {
        set terminal svg size W, H enhanced font 'Sans,10' linewidth 1.2 background '#ffffff'
        set output out.'.svg'
    }
}

set datafile separator ','
set datafile missing ''
set encoding utf8

# One colour per step, the same in every figure: line type 1 + step number.
set linetype 1 lc rgb '#7f7f7f' lw 2 pt 7 ps 0.8
set linetype 2 lc rgb '#8c564b' lw 2 pt 7 ps 0.8
set linetype 3 lc rgb '#d62728' lw 2 pt 5 ps 0.8
set linetype 4 lc rgb '#ff7f0e' lw 2 pt 5 ps 0.8
set linetype 5 lc rgb '#bcbd22' lw 2 pt 9 ps 0.9
set linetype 6 lc rgb '#2ca02c' lw 2 pt 9 ps 0.9
set linetype 7 lc rgb '#17becf' lw 2 pt 11 ps 0.9
set linetype 8 lc rgb '#1f77b4' lw 2 pt 13 ps 0.9
set linetype 9 lc rgb '#9467bd' lw 2 pt 13 ps 0.9
set linetype 10 lc rgb '#e377c2' lw 2 pt 7 ps 0.8
set linetype 11 lc rgb '#000000' lw 1 dt 2
set linetype cycle 11
set style line 100 lc rgb '#d0d0d0' lw 0.5 dt 3
set grid back ls 100
set border 3 lc rgb '#404040'
set tics nomirror out scale 0.6
set key noautotitle

# The recorded files of those names, lowest priority first (report/query/recordings.sh: data/cpu, then the
# imported recordings data/<machine>-<date>, then data/gpu); pick.awk's key keeps the last row of each key.
files(names) = system(sprintf("bash report/query/recordings.sh '%s' %s", data, names))
lastword(s) = (words(s) > 0) ? word(s, words(s)) : ''
# The highest-priority file of that name, or "".
file(name) = lastword(files(name))
# Rows of pick.awk: pick(cols, where, files) is the shell command, for plot '< ...' and system().
pick(cols, where, files) = sprintf("awk -f report/query/pick.awk -v cols='%s' -v where='%s' -v need=%s %s", cols, where, 'kernel_s', files)
pickany(cols, where, need, files) = sprintf("awk -f report/query/pick.awk -v cols='%s' -v where='%s' -v need='%s' %s", cols, where, need, files)
# The same, keeping the last row of each key (a later recording replaces an earlier one's row).
pickk(cols, where, need, key, files) = sprintf("awk -f report/query/pick.awk -v cols='%s' -v where='%s' -v need='%s' -v key='%s' %s", cols, where, need, key, files)
num(s) = (strlen(s) > 0) ? real(s) : 0
count(cmd) = (strlen(cmd) > 0) ? int(system('{ '.cmd.'; } 2>/dev/null | wc -l')) : 0
firstline(cmd) = system('{ '.cmd.'; } 2>/dev/null | head -n 1')
# "NVIDIA H200, 2026-11-22, commit 2ac575e48491", one line per device and day: where the rows a figure
# shows came from (selected as the figure selects them: where, and the key that keeps the last row of
# each). Lines are joined for a title's "{/*0.8 %s}".
originfmt = "awk -F, '!seen[$0]++ { s = s (s == \"\" ? \"\" : \"}\\n{/*0.8 \") $1 \", \" substr($2, 1, 10) \", commit \" $3 } END { print s }'"
origink(files, where, key) = (strlen(files) > 0) ? system(sprintf("awk -f report/query/pick.awk -v cols=device,date,commit,%s -v where='%s' -v need=kernel_s -v key='%s' %s | cut -d, -f1-3 | awk -F, '{ $2 = substr($2, 1, 10); print $1 \",\" $2 \",\" $3 }' | %s", key, where, key, files, originfmt)) : ''
origin(files, where) = origink(files, where, 'device')

# An empty panel that says why: eval NODATA after setting `why`.
why = ''
NODATA = "unset xtics; unset ytics; unset border; unset grid; unset key; set xrange [0:1]; set yrange [0:1]; set label 99 why at 0.5, 0.5 center font ',12' tc rgb '#606060'; plot NaN notitle; unset label 99; set border 3; set xtics; set ytics; set grid; set autoscale"

# The ceiling's inputs: SMs (gpu.csv, report/tools/gpuinfo.cu) and instructions per interaction (instructions.csv,
# recorded with ncu on the GPU), matched to the results rows by device name (report/query/ceiling.awk).
instfiles = files('instructions.csv')
gpufiles = files('gpu.csv')
# ceiling(results files, where, key): one line per GPU row with a recorded instruction count.
ceiling(results, where, key) = (strlen(instfiles) > 0 && strlen(gpufiles) > 0 && strlen(results) > 0) ? \
    sprintf("awk -f report/query/pick.awk -v header=1 -v cols=step,name,build,bodies,ginteractions_s,clock_mhz,device,gpus -v where='%s' -v need=clock_mhz,kernel_s -v key='%s' %s | awk -f report/query/ceiling.awk %s %s -", \
        where, key, results, gpufiles, instfiles) : ''

# A decimal integer from a string: gnuplot's real("08") reads octal and fails.
dec(s) = (strlen(s) > 1 && s[1:1] eq '0') ? dec(s[2:*]) : real(s)
