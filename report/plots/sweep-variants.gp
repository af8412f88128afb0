# sweep-variants.gp: two small choices of the source write-ups (REFERENCES.md) measured again (figure 4d):
#   step03 with float4 tiles (x, y, z, m in one 16-byte load; the default) or float3 + a float (-DTILE_FLOAT3)
#   step05 with -ftz=true (its flags in steps.list), without it, and with --use_fast_math
W = 900; H = 460
load 'report/plots/lib.gp'

f3 = file('float3.csv')
fz = file('ftz.csv')
rows3 = pickany('bodies,build,ginteractions_s', 'tag=float3', 'kernel_s', f3)
rowsz = pickany('build,ginteractions_s,bodies', 'tag=ftz', 'kernel_s', fz)
n3 = count(rows3)
nz = count(rowsz)
set title "{/:Bold Tile layout and denormal flushing}"
if (n3 + nz == 0) {
    why = "no recorded GPU data yet: make report on a GPU machine"
    eval NODATA
    exit
}
set multiplot layout 1, 2 title sprintf("{/:Bold Tile layout and denormal flushing}\n{/*0.8 %s}", origin(f3.' '.fz, 'tag~^(float3|ftz)$'))
set style fill solid 0.85 border -1
set ylabel 'G interactions/s'
set yrange [0:*]
set offsets 0, 0, graph 0.12, 0
set xtics noenhanced

set title 'step03: shared-memory tile of float4 or float3 + float'
if (n3 > 0) {
    # x: one group per N, float4 left, float3 right.
    sizes = system(rows3." | cut -d, -f1 | sort -nu | tr '\\n' ' '")
    set boxwidth 0.35
    set xrange [-0.6:words(sizes) - 0.4]
    idx(n) = sum [k = 1:words(sizes)] (real(word(sizes, k)) == n ? k - 1 : 0)
    eval 'set xtics ('.system(rows3." | cut -d, -f1 | sort -nu | awk '{ printf \"%s\\\"N = %s\\\" %d\", (k ? \", \" : \"\"), $1, k; k++ }'").')'
    set key top center horizontal samplen 1.5
    set offsets 0, 0, graph 0.22, 0
    plot '< '.rows3." | awk -F, '$2 != \"float3\"'" using (idx($1) - 0.19):3 with boxes lt 4 title 'float4 (default)', \
         '< '.rows3." | awk -F, '$2 == \"float3\"'" using (idx($1) + 0.19):3 with boxes lt 10 title 'float3 (-DTILE\_FLOAT3)', \
         '< '.rows3 using (idx($1) + (strcol(2) eq 'float3' ? 0.19 : -0.19)):3:(sprintf("%.0f", $3)) with labels offset 0, 0.8 font ',9' notitle
} else {
    why = 'not recorded yet'
    eval NODATA
}

set title 'step05: flushing denormals to zero'
if (nz > 0) {
    set boxwidth 0.6
    set xrange [-0.6:nz - 0.4]
    unset key
    flagname(b) = (b eq 'noftz') ? 'no -ftz' : (b eq 'fastmath') ? '--use\_fast\_math' : '-ftz=true (steps.list)'
    set xtics enhanced
    plot '< '.rowsz using 0:2:(0.6):xtic(flagname(strcol(1))) with boxes lt 6, \
         '' using 0:2:(sprintf("%.0f", $2)) with labels offset 0, 0.8 font ',9'
} else {
    why = 'not recorded yet'
    eval NODATA
}
unset multiplot
