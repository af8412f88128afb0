# lib.gp: what every figure script shares. A figure script sets W and H (pixels of the PNG), then
#   load 'report/lib.gp'
# and draws. report/figures.sh runs each script once per format, with -e setting:
#   fmt     'png' or 'vec' (print: PDF, or SVG where pdfcairo is missing)
#   out     the output path without extension (report/figures/NAME)
#   data    the recordings' folder (report/data): files are looked up in data/gpu, then data/cpu
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

# The first of data/gpu/NAME, data/cpu/NAME that exists and is not empty, or "".
file(name) = system(sprintf("for d in '%s/gpu' '%s/cpu'; do if [ -s \"$d/%s\" ]; then printf '%%s' \"$d/%s\"; exit; fi; done", data, data, name, name))
# Several names, the found ones joined by spaces (for pick.awk, which takes several files).
files2(a, b) = file(a).' '.file(b)
# Rows of pick.awk: pick(cols, where, files) is the shell command, for plot '< ...' and system().
pick(cols, where, files) = sprintf("awk -f report/pick.awk -v cols='%s' -v where='%s' -v need=%s %s", cols, where, 'kernel_s', files)
pickany(cols, where, need, files) = sprintf("awk -f report/pick.awk -v cols='%s' -v where='%s' -v need='%s' %s", cols, where, need, files)
num(s) = (strlen(s) > 0) ? real(s) : 0
count(cmd) = (strlen(cmd) > 0) ? int(system('{ '.cmd.'; } 2>/dev/null | wc -l')) : 0
firstline(cmd) = system('{ '.cmd.'; } 2>/dev/null | head -n 1')
# "NVIDIA H100 80GB HBM3, 2026-11-22, commit 334fbe160883": where a set of rows came from.
origin(files, where) = firstline(sprintf("awk -f report/pick.awk -v cols=device,date,commit -v where='%s' %s | sort -u | awk -F, '{ d[$1] = 1; day = substr($2, 1, 10); c = $3 } END { for (k in d) s = s (s == \"\" ? \"\" : \" + \") k; print s \", \" day \", commit \" c }'", where, files))

# An empty panel that says why: eval NODATA after setting `why`.
why = ''
NODATA = "unset xtics; unset ytics; unset border; unset grid; unset key; set xrange [0:1]; set yrange [0:1]; set label 99 why at 0.5, 0.5 center font ',12' tc rgb '#606060'; plot NaN notitle; unset label 99; set border 3; set xtics; set ytics; set grid; set autoscale"

# The ceiling's inputs: SMs (gpu.csv, report/gpuinfo.cu) and instructions per interaction (instructions.csv,
# recorded with ncu on the GPU; looked up in data/gpu, data/cpu, then data itself).
instfile = file('instructions.csv')
if (strlen(instfile) == 0 && system(sprintf("[ -s '%s/instructions.csv' ] && echo y", data)) eq 'y') instfile = data.'/instructions.csv'
gpufile = file('gpu.csv')
ceiling(results) = (strlen(instfile) > 0 && strlen(gpufile) > 0 && strlen(results) > 1) ? \
    sprintf("awk -f report/ceiling.awk %s %s %s", gpufile, instfile, results) : ''
# A decimal integer from a string: gnuplot's real("08") reads octal and fails.
dec(s) = (strlen(s) > 1 && s[1:1] eq '0') ? dec(s[2:*]) : real(s)
