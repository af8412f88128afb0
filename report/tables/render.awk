# render.awk: the Markdown tables of report/tables/sections.spec, one renderer a table (-v table=NAME).
# Input: the rows report/query/pick.awk selected for the section (the spec's cols, in that order), CSV.
# Variables: registry (id, from, check, summary of each step, tab-separated: common/steps.sh),
# ladder (the ladder's rows), rates (mpimodel: the rows, sorted by N), id (a lesson's step);
# head, align, rowfmt (the spec's head, align and row, for table rows).
# The numbers are printed as the lessons quote them: num, ms, sci, pct, times below.
BEGIN { FS = "," }

function num(x) { return (x >= 1000) ? sprintf("%.0f", x) : sprintf("%.3g", x) }
function ms(x) { return (x >= 100) ? sprintf("%.0f", x) : (x >= 10) ? sprintf("%.1f", x) : sprintf("%.2f", x) }
function sci(x,    s) { s = sprintf("%.1e", x); sub(/e-0/, "e-", s); sub(/e\+0/, "e", s); return s }
function pct(x,    s) { s = (x <= -10 || x >= 10) ? sprintf("%+.0f%%", x) : sprintf("%+.1f%%", x); sub(/^-/, "−", s); return s }
function times(x) { return (x < 1) ? sprintf("%.2f×", x) : sprintf("%.3g×", x) }
function abs(x) { return x < 0 ? -x : x }
# sortn: a[1..n] in ascending numeric order (equal numbers: as strings); sorts the indices ix[1..n] of
# a[] the same way when ix is given instead (sortix), so that parallel arrays follow one key.
function before(x, y) { return x + 0 < y + 0 || (x + 0 == y + 0 && x "" < y "") }
function sortn(a, n,    i, j, t) { for (i = 1; i < n; ++i) for (j = i + 1; j <= n; ++j) if (before(a[j], a[i])) { t = a[i]; a[i] = a[j]; a[j] = t } }
function sortix(a, ix, n,    i, j, t) { for (i = 1; i <= n; ++i) ix[i] = i
    for (i = 1; i < n; ++i) for (j = i + 1; j <= n; ++j) if (before(a[ix[j]], a[ix[i]])) { t = ix[i]; ix[i] = ix[j]; ix[j] = t } }
# first(L, k): k into the list L[1..L[0]] in the order first seen; 1 the first time, 0 after.
function first(L, k) { if (("\001" k) in L) return 0; L["\001" k] = 1; L[++L[0]] = k; return 1 }
# where a row ran: the GPU's name, or the CPU and its threads (step00 is serial whatever the pool)
function on(step, dev, threads) { return (dev ~ /NVIDIA/) ? dev : (step == "00") ? "CPU, 1 thread" : "CPU, " threads " threads" }
function ondev(step, dev, threads) { return (dev ~ /NVIDIA/) ? dev : (step == "00") ? dev " (1 thread)" : dev " (" threads " threads)" }
# a ratio is of two rows of one machine: the same device, or the same recording (a host's CPU and its GPU)
function onemachine(d1, r1, d2, r2) { return d1 == d2 || (r1 != "" && r1 == r2) }
function readregistry(    l, w) { while ((getline l < registry) > 0) { split(l, w, "\t"); ids[++nid] = w[1]; from[w[1]] = w[2]
                                       tree[w[1]] = w[3] == "tree"; what[w[1]] = w[4] } }

# ---- the ladder: step, name, bodies, steps, G int/s, GFLOP/s, pass, device, threads, recording ----
BEGIN { if (table == "ladder") { readregistry()
    print "| step | what changes | N | G interactions/s | GFLOP/s | × serial | × previous | valid | device | recording |"
    print "|---|---|--:|--:|--:|--:|--:|:-:|---|---|" } }
table == "ladder" { row[$1] = $0 }
END { if (table == "ladder") {
    base00 = ("00" in row) ? (split(row["00"], b0, ",") ? b0[5] : 0) : 0
    for (i = 1; i <= nid; ++i) {
        s = ids[i]
        if (!(s in row)) { printf "| %s | %s | | _not measured_ | | | | | | |\n", s, what[s]; continue }
        split(row[s], f, ",")
        # x previous: against the step it grows from (steps.list, column from), named when not the line above
        prev = (from[s] in row) ? (split(row[from[s]], pv, ",") ? pv[5] : 0) : 0
        vs = (prev > 0) ? num(f[5] / prev) "×" ((i > 1 && ids[i - 1] == from[s]) ? "" : " (vs " from[s] ")") : ""
        if (prev > 0 && !onemachine(f[8], f[10], pv[8], pv[10])) vs = "– (" from[s] " ran on another device)"
        ser = (base00 > 0) ? (onemachine(f[8], f[10], b0[8], b0[10]) ? num(f[5] / base00) "×" : "– (another machine)") : ""
        # a tree code does fewer interactions: its rate is the N^2 a direct sum would need per second
        printf "| %s `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", s, f[2], what[s], f[3],
            tree[s] ? num(f[5]) " (N² equivalent)" : num(f[5]), tree[s] ? "–" : num(f[6]),
            ser, vs, f[7], ondev(f[1], f[8], f[9]), f[10]
    } } }

# ---- a lesson's row of the ladder: step, bodies, G int/s, device, threads, date, commit ------------
# (input: step, bodies, G int/s, device, threads, date, commit, recording; a ratio only of one machine's rows)
BEGIN { if (table == "lesson-ladder") { readregistry()
    while ((getline l < ladder) > 0) { split(l, f, ","); rate[f[1]] = f[5]; rdev[f[1]] = f[8]; rrec[f[1]] = f[10] } } }
function over(s) { return !(rate[s] > 0) ? "-" : onemachine($4, $8, rdev[s], rrec[s]) ? num($3 / rate[s]) "×" : "– (step " s " ran on another device)" }
table == "lesson-ladder" { pf = from[id]
    print "| N | G interactions/s | × serial | × previous" ((pf == "-") ? "" : " (step " pf ")") " | device | date | commit |"
    print "|--:|--:|--:|--:|---|---|---|"
    printf "| %s | %s | %s | %s | %s | %s | `%s` |\n", $2, num($3), (rate["00"] > 0) ? over("00") : "",
        (pf == "-") ? "-" : over(pf), ondev($1, $4, $5), substr($6, 1, 10), $7 }

# ---- a lesson's throughput row, where more than one N is recorded: step, bodies, G int/s, device, threads
table == "lesson-throughput" { ++n; lh = lh sprintf(" N = %s |", $2); ld = ld "--:|"; lv = lv sprintf(" %.4g |", $3); ran = on($1, $4, $5) }
END { if (table == "lesson-throughput" && n > 1) printf "| G interactions/s by N | on |%s\n|---|---|%s\n| step %s | %s |%s\n", lh, ld, id, ran, lv }

# ---- throughput: step, name, bodies, G int/s, device, threads; a row a step, a column an N ----------
table == "throughput" { v[$1, $3] = $4; name[$1] = $2; dev[$1] = on($1, $5, $6); first(N, $3); first(S, $1) }
END { if (table == "throughput") {
    sortn(N, N[0]); sortn(S, S[0])
    printf "| G interactions/s | on |"; for (i = 1; i <= N[0]; ++i) printf " N = %s |", N[i]; print ""
    printf "|---|---|"; for (i = 1; i <= N[0]; ++i) printf "--:|"; print ""
    for (k = 1; k <= S[0]; ++k) { s = S[k]; printf "| %s `%s` | %s |", s, name[s], dev[s]
        for (i = 1; i <= N[0]; ++i) printf " %s |", ((s, N[i]) in v) ? sprintf("%.4g", v[s, N[i]]) : ""; print "" } } }

# ---- the ceiling: report/query/ceiling.awk's lines --------------------------------------------------
BEGIN { if (table == "ceiling") {
    print "| step | on | thread instructions / interaction | SM clock (MHz) | SMs | ceiling (G int/s) | measured (G int/s) | % of ceiling |"
    print "|---|---|--:|--:|--:|--:|--:|--:|" } }
table == "ceiling" && $3 == "default" { printf "| %s `%s` | %s | %.3g | %.0f | %s | %.4g | %.4g | %.0f%% |\n", $1, $2, $11, $8, $6, $7, $9, $5, $10 }

# ---- step01 against the peer kernel: cpu, threads, bodies, kernel, G int/s, date, commit, recording --
# Of each machine, thread count and N, the rows of the latest recording that has them; medians of the rounds.
function median(g, k,   m, i, s) { m = cnt[g, k]; for (i = 1; i <= m; ++i) s[i] = v[g, k, i]; sortn(s, m)
    return m ? (s[int((m + 1) / 2)] + s[int(m / 2) + 1]) / 2 : 0 }
function cell(g, k,   q) { if (!cnt[g, k]) return "| |"; q = median(g, "peer-soa")
    return sprintf("| %.3g | %s", median(g, k), q > 0 ? sprintf("**%.2f×**", median(g, k) / q) : "") }
table == "peer" { g = $1 SUBSEP $2 SUBSEP $3
    first(G, g)
    if (rec[g] != $8) { rec[g] = $8; for (k in kinds) cnt[g, k] = 0 }  # a later recording replaces the group
    kinds[$4] = 1; v[g, $4, ++cnt[g, $4]] = $5; day[g] = substr($6, 1, 10); com[g] = $7 }
END { if (table == "peer") {
    print "| machine | threads | N | peer-soa | step01 | step01 × peer | exercise 3 (intrinsics) | × peer | rounds | date | commit |"
    print "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|---|"
    for (i = 1; i <= G[0]; ++i) { g = G[i]; split(g, w, SUBSEP)
        printf "| %s | %s | %s | %.3g %s %s | %d | %s | `%s` |\n", w[1], w[2], w[3], median(g, "peer-soa"),
            cell(g, "step01"), cell(g, "step01-intrinsics"), cnt[g, "peer-soa"], day[g], com[g] } } }

# ---- block: block, step, G int/s; a row a block size, a column a step -------------------------------
table == "block" { v[$1, $2] = $3; first(B, $1); first(S, $2) }
END { if (table == "block") {
    printf "| threads per block |"; for (j = 1; j <= S[0]; ++j) printf " step%s (G int/s) |", S[j]; print ""
    printf "|--:|"; for (j = 1; j <= S[0]; ++j) printf "--:|"; print ""
    for (i = 1; i <= B[0]; ++i) { printf "| %s |", B[i]; for (j = 1; j <= S[0]; ++j) printf " %s |", ((B[i], S[j]) in v) ? sprintf("%.4g", v[B[i], S[j]]) : ""; print "" } } }

# ---- unroll: UNROLL, bodies per thread, G int/s; the best cell in bold ------------------------------
table == "unroll" { v[$1, $2] = $3; first(U, $1); first(B, $2); if ($3 + 0 > best) { best = $3 + 0; bu = $1; bb = $2 } }
END { if (table == "unroll") {
    printf "| UNROLL |"; for (j = 1; j <= B[0]; ++j) printf " %s bodies/thread |", B[j]; print ""
    printf "|--:|"; for (j = 1; j <= B[0]; ++j) printf "--:|"; print ""
    for (i = 1; i <= U[0]; ++i) { printf "| %s |", U[i]
        for (j = 1; j <= B[0]; ++j) { k = (U[i] SUBSEP B[j]); x = (k in v) ? sprintf("%.4g", v[k]) : ""
            if (U[i] == bu && B[j] == bb) x = "**" x "**"; printf " %s |", x }
        print "" }
    printf "\nBest: UNROLL = %s with %s bodies per thread, %.4g G interactions/s.\n", bu, bb, best } }

# ---- rows: the spec's head and align lines, then its row format (printf) filled with each row's columns
BEGIN { if (table == "rows") { print head; print align }
        if (table == "variants") { print "| step | build | N | G interactions/s | config |"; print "|---|---|--:|--:|---|" } }
table == "rows" { printf rowfmt "\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }
table == "variants" { lab = ($3 == "default") ? "default (steps.list flags)" : ($3 == "noftz") ? "without -ftz=true" : ($3 == "fastmath") ? "--use_fast_math" : ($3 == "float3") ? "-DTILE_FLOAT3" : $3
    printf "| %s `%s` | %s | %s | %.4g | %s |\n", $1, $2, lab, $4, $5, $6 }

# ---- streams: systems, bodies, steps, tag, time loop; without and with snapshots --------------------
function streamrow(shape, snap, s, o, k) {
    if (!(s > 0 && o > 0)) return
    hidden = (k > 0 && s - k > 0) ? sprintf("%.0f%%", 100 * (s - o) / (s - k)) : ""
    versus = (k > 0) ? sprintf("%+.2f%%", 100 * (o - k) / k) : ""
    printf "| %s | %s | %s | %s | %.4g | %.4g | %s | %s |\n", shape, steps[shape], snap,
        (k > 0) ? sprintf("%.4g", 1e3 * k) : "", 1e3 * s, 1e3 * o, hidden, versus }
table == "streams" { shape = $1 " × " $2; first(SH, shape)
    steps[shape] = ($4 == "streams-kernel") ? steps[shape] : $3
    v[shape, $4] = $5 }
END { if (table == "streams") {
    print "| systems × bodies | steps | snapshots every | kernel only (ms) | --no-overlap (ms) | overlapped (ms) | copies hidden | overlapped vs kernel only |"
    print "|---|--:|--:|--:|--:|--:|--:|--:|"
    for (i = 1; i <= SH[0]; ++i) { sh = SH[i]; k = v[sh, "streams-kernel"]
        streamrow(sh, "-", v[sh, "streams-serial-nosnap"], v[sh, "streams-overlap-nosnap"], k)
        streamrow(sh, "10", v[sh, "streams-serial"], v[sh, "streams-overlap"], k) } } }

# ---- scaling: tag, systems, bodies, gpus, time loop, G int/s, steps; a step's time against 1 GPU's ---------
# (the time loop's steps grow with the GPUs, so rows compare their time a step, not their loops)
table == "scaling" { rr[++n] = $0; if ($4 == 1) base[$1, $2, $3] = $5 / $7 }
END { if (table == "scaling") {
    print "| step, split | systems × bodies | GPUs | steps timed | ms a step | G interactions/s | speedup | efficiency |"
    print "|---|---|--:|--:|--:|--:|--:|--:|"
    for (i = 1; i <= n; ++i) { split(rr[i], f, ","); b = base[f[1], f[2], f[3]]; per = f[5] / f[7]
        split_of = substr(f[1], 9); split_of = (split_of ~ /^mpi-/) ? "step11 (ranks), " substr(split_of, 5) : "step08, " split_of
        printf "| %s | %s × %s | %s | %s | %.4g | %.4g | %s | %s |\n", split_of, f[2], f[3], f[4], f[7], 1e3 * per, f[6],
            (b > 0) ? sprintf("%.2f×", b / per) : "", (b > 0) ? sprintf("%.0f%%", 100 * b / per / f[4]) : "" } } }

# ---- physics: label, bodies, dt, step, time, energy error, unsynchronised, momentum drift, virial ratio
table == "physics" { if (first(L, $1)) v0[$1] = $9
    e[$1] = $6; er[$1] = $7; if (abs($6) > me[$1]) me[$1] = abs($6); if ($8 > mp[$1]) mp[$1] = $8
    N[$1] = $2; dt[$1] = $3; st[$1] = $4; t[$1] = $5; v1[$1] = $9 }
END { if (table == "physics") {
    print "| run | N | dt | steps | t end | max \\|ΔE/E\\| | \\|ΔE/E\\| at the end | same, unsynchronised v | max momentum drift | virial ratio (start → end) |"
    print "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|"
    for (i = 1; i <= L[0]; ++i) { l = L[i]
        printf "| %s | %s | %s | %s | %s | %.2e | %.2e | %.2e | %.2e | %.3f → %.3f |\n", l, N[l], dt[l], st[l], t[l],
            me[l], e[l], er[l], mp[l], v0[l], v1[l] } } }

# ---- kepler: label, ecc, steps, dt, position errors (fp32, fp64), energy error; the fp64 order ---------
BEGIN { if (table == "kepler") {
    print "| step | e | K (steps per period) | dt | position error (fp32 step) | position error (fp64 reference) | energy error (fp32 step) |"
    print "|---|--:|--:|--:|--:|--:|--:|" } }
table == "kepler" && ($3 == 32 || $3 == 128 || $3 == 512 || $3 == 2048 || $3 == 8192 || $3 == 32768 || $3 == 65536) {
    printf "| %s | %s | %s | %.3g | %.2e | %.2e | %.2e |\n", $1, $2, $3, $4, $5, $6, $7 }
table == "kepler" { k = $1 "," $2; if (first(K, k)) { d1[k] = $4; e1[k] = $6 } else if (!(k in d2)) { d2[k] = $4; e2[k] = $6 } }
END { if (table == "kepler") {
    print ""
    for (i = 1; i <= K[0]; ++i) { k = K[i]; if (k in d2 && e1[k] > 0 && e2[k] > 0) {
        split(k, kp, ","); l = sprintf("Order of the fp64 reference from its two largest time steps (e = %s): %.2f (leapfrog: 2).", kp[2], log(e1[k] / e2[k]) / log(d1[k] / d2[k]))
        if (!seen[l]++) print l } } } }

# ---- newton: step, bodies, G int/s, config, pass, clock, repeat; the last row of each (step, N, --deterministic)
table == "newton" { d = ($4 ~ /(^| )deterministic( |$)/) ? "d" : ""; k = $1 d SUBSEP $2; v[k] = $3; ok[k] = $5; clk[k] = $6; rep[k] = $7
    first(N, $2)
    # the build of step09 these rows measured (its knobs have changed since: say which)
    if ($1 == "09") { b = ""; nw = split($4, w, " "); for (j = 1; j <= nw; ++j) if (w[j] ~ /^(block|bodies\/lane|unroll|group)=/) b = b (b == "" ? "" : " ") w[j]
                      bk[k] = b } }
END { if (table == "newton") {
    sortn(N, N[0])
    print "| N | step06 | step09 | × step06 | step09 `--deterministic` | its cost |"
    print "|--:|--:|--:|--:|--:|--:|"
    for (i = 1; i <= N[0]; ++i) { n = N[i]; s6 = v["06", n]; s9 = v["09", n]; s9d = v["09d", n]
        printf "| %s | %s | %s | %s | %s | %s |\n", n, (s6 > 0) ? sprintf("%.0f", s6) : "", (s9 > 0) ? sprintf("**%.0f**", s9) : "",
            (s6 > 0 && s9 > 0) ? sprintf("%.2f", s9 / s6) : "", (s9d > 0) ? sprintf("%.0f", s9d) : "",
            (s9 > 0 && s9d > 0) ? pct(100 * (s9d / s9 - 1)) : "" }
    for (i = 1; i <= N[0]; ++i) for (d = 0; d < 2; ++d) { k = (d ? "09d" : "09") SUBSEP N[i]; b = bk[k]
        if (b != "" && !(b in built)) { built[b] = 1; builds = builds (builds == "" ? "" : "; ") "`" b "`" } }
    for (k in v) { ++rows; if (ok[k] == "PASS") ++pass; if (lo == "" || clk[k] + 0 < lo) lo = clk[k] + 0; if (clk[k] + 0 > hi) hi = clk[k] + 0; r = rep[k] }
    printf "\nG interactions/s = S·N²·steps / time loop, median of %s repeats; validated: %d of %d rows PASS; SM clock %.0f–%.0f MHz; step09 as built then: %s.", r, pass, rows, lo, hi, builds } }

# ---- tree: step, bodies, steps, time loop, rms and worst error, theta, pass; step10 against step06 ------
table == "tree" { t[$1, $2] = 1e3 * $4 / $3; rms[$1, $2] = $5; mx[$1, $2] = $6; th[$1, $2] = $7; ++rows; if ($8 == "PASS") ++pass
    first(N, $2) }
END { if (table == "tree") {
    sortn(N, N[0])
    print "| N | θ | step10 (ms a step) | rms error | worst body | step06, direct (ms a step) | step10 against step06 |"
    print "|--:|--:|--:|--:|--:|--:|--:|"
    for (i = 1; i <= N[0]; ++i) { n = N[i]; a = t["10", n]; b = t["06", n]
        if (!(("10", n) in t)) continue
        printf "| %s | %s | %s | %s | %s | %s | %s |\n", n, th["10", n], ms(a), sci(rms["10", n]), sci(mx["10", n]),
            (b > 0) ? ms(b) : "not run", (b > 0) ? times(b / a) : "" }
    printf "\nTime loop per step, median of the repeats; errors: the accelerations against the fp64 direct sum; validated: %d of %d rows PASS.", pass, rows } }

# ---- frontier: theta, bodies, steps, time loop, rms and worst error; a column a theta ------------------
table == "frontier" { th[++n] = $1; t[n] = 1e3 * $4 / $3; rms[n] = $5; mx[n] = $6; N[$2] = 1 }
END { if (table == "frontier") {
    sortix(th, ix, n)
    printf "| θ |"; for (i = 1; i <= n; ++i) printf " %s |", th[ix[i]]; print ""
    printf "|---|"; for (i = 1; i <= n; ++i) printf "--:|"; print ""
    printf "| ms a step |"; for (i = 1; i <= n; ++i) printf " %.1f |", t[ix[i]]; print ""
    printf "| rms error |"; for (i = 1; i <= n; ++i) printf " %s |", sci(rms[ix[i]]); print ""
    printf "| worst body |"; for (i = 1; i <= n; ++i) printf " %s |", sci(mx[ix[i]]); print ""
    s = ""; for (k in N) s = s (s == "" ? "" : ", ") k
    printf "\nstep10 at N = %s, one system, over the opening angle θ.", s } }

# ---- treeenergy: label, bodies, dt, step, energy error, momentum drift --------------------------------
table == "treeenergy" { first(L, $1)
    N[$1] = $2; dt[$1] = $3; st[$1] = $4; e[$1] = $5; pd[$1] = $6; if (abs($5) > me[$1]) me[$1] = abs($5) }
END { if (table == "treeenergy") {
    print "| run | N | dt | steps | \\|ΔE/E\\| at the end | max \\|ΔE/E\\| | momentum drift at the end |"
    print "|---|--:|--:|--:|--:|--:|--:|"
    for (i = 1; i <= L[0]; ++i) { l = L[i]; nm = l
        if (nm ~ /^theta/) { sub(/^theta/, "", nm); nm = "step10, θ = " nm } else if (nm == "direct") nm = "step06, the direct sum"
        printf "| %s | %s | %s | %s | %s | %s | %s |\n", nm, N[l], dt[l], st[l], sci(abs(e[l])), sci(me[l]), sci(pd[l]) } } }

# ---- mpi: tag, step, name, bodies, steps, G int/s, ranks, config, pass; a row a run, against step08 ----
table == "mpi" { first(T, $1); first(N, $4)
    v[$1, $4] = $6; st[$4] = $5; ++rows; if ($9 == "PASS") ++pass
    if ($2 == "08") { base[$4] = $6; label[$1] = "`" $3 "`, one process, `--gpus 1`" }
    else label[$1] = sprintf("`%s`, %s rank%s%s%s", $3, $7, ($7 == 1) ? "" : "s", ($8 ~ / ring( |$)/) ? ", ring" : ($8 ~ / allgather( |$)/) ? ", one `MPI_Allgatherv` a step" : "",
                             ($8 ~ /host-staged/) ? ", host-staged" : ($8 ~ /cuda-aware/) ? ", CUDA-aware" : "") }
END { if (table == "mpi") {
    sortn(N, N[0])
    printf "| run |"; for (i = 1; i <= N[0]; ++i) printf " N = %s (G int/s) | × step08 |", N[i]; print ""
    printf "|---|"; for (i = 1; i <= N[0]; ++i) printf "--:|--:|"; print ""
    for (k = 1; k <= T[0]; ++k) { g = T[k]; printf "| %s |", label[g]
        for (i = 1; i <= N[0]; ++i) { x = v[g, N[i]]; b = base[N[i]]
            printf " %s | %s |", (x > 0) ? sprintf("%.0f", x) : "", (x > 0 && b > 0) ? sprintf("%.2f", x / b) : "" }
        print "" }
    s = ""; for (i = 1; i <= N[0]; ++i) if (!(st[N[i]] in said)) { said[st[N[i]]] = 1; s = s (s == "" ? "" : " or ") st[N[i]] }
    printf "\nOne system; %s steps; every rank on the one GPU of the machine; time loop of the slowest rank, median of the repeats; validated: %d of %d rows PASS.", s, pass, rows } }

# ---- mpi-validation: tag, systems, bodies, ranks, split, pass; one line -------------------------------
function list(a, sep,    k, s, m, i, x) { m = 0; for (k in a) x[++m] = k; sortn(x, m)
    for (i = 1; i <= m; ++i) s = s (i > 1 ? sep : "") x[i]; return s }
table == "mpi-validation" { ++n; if ($6 == "PASS") ++np; NS[$3] = 1; SS[$2] = 1; RK[$4] = 1; sp[$5] = 1 }
END { if (table == "mpi-validation" && n) printf "Validation (tags `validate-*`): %d runs, %d PASS: N = %s; S = %s; %s ranks; split %s.\n", n, np, list(NS, ", "), list(SS, " and "), list(RK, " and "), list(sp, " and ") }

# ---- pingpong: bytes, one way (µs), GB/s; a column a message size -------------------------------------
function size(x) { return (x >= 1048576) ? (x / 1048576) " MiB" : (x >= 1024) ? (x / 1024) " KiB" : x " B" }
table == "pingpong" { by[++n] = $1; t[n] = $2; gb[n] = $3 }
END { if (table == "pingpong") {
    printf "| message |"; for (i = 1; i <= n; ++i) printf " %s |", size(by[i]); print ""
    printf "|---|"; for (i = 1; i <= n; ++i) printf "--:|"; print ""
    printf "| one way (µs) |"; for (i = 1; i <= n; ++i) printf " %s |", t[i]; print ""
    printf "| GB/s |"; for (i = 1; i <= n; ++i) printf " %s |", gb[i]; print "" } }

# ---- mpimodel: bodies, G int/s of step08 (the file rates); report/query/mpi-model.awk over P GPUs -----
function model(net, what, n,    cmd, l, f, out) {
    cmd = "awk -f report/query/mpi-model.awk -v net=" net " -v what=" what " -v N=" n " " rates; out = ""
    t1 = ""; eff = ""
    while ((cmd | getline l) > 0) { split(l, f, ",")
        if (what == "strong") { if (f[1] == 1) t1 = f[3]; if (f[1] == 16 || f[1] == 64 || f[1] == 256 || f[1] == 1024) eff = eff sprintf(" %.2f |", f[5]) }
        else if (f[1] == 1024) out = out sprintf("%.2f from N1 = %s", f[5], n) }
    close(cmd)
    return out }
END { if (table == "mpimodel") {
    print "| model: the ring, strong scaling | link | one GPU, a step | 16 GPUs | 64 | 256 | 1024 |"
    print "|---|---|--:|--:|--:|--:|--:|"
    split("1048576 16777216 268435456", NN, " "); split("nvlink ib", NET, " ")
    for (i = 1; i <= 3; ++i) for (j = 1; j <= 2; ++j) { model(NET[j], "strong", NN[i])
        printf "| N = %s | %s | %s |%s\n", NN[i], (NET[j] == "ib") ? "400 Gb/s IB" : "NVLink",
            (t1 >= 3600) ? sprintf("%.1f h", t1 / 3600) : sprintf("%.3g s", t1), eff }
    print ""
    printf "Efficiency = T(1) / (P·T(P)). Weak scaling (N = N1·√P, the same pairs per GPU) on 1024 GPUs, NVLink: %s, %s. A model, not a measurement: the links' latency and bandwidth and the time of a ring turn are assumed in `report/query/mpi-model.awk`; one GPU's rate at each n is step08's throughput row:", model("nvlink", "weak", 1048576), model("nvlink", "weak", 16777216) } }

# ---- nscan: bodies, gpus, steps, time loop, G int/s, exchange; a column an N, rows for 1 and 2 GPUs ----
table == "nscan" { first(N, $1); gi[$1, $2] = $5; us[$1, $2] = 1e6 * $4 / $3; if ($2 == 2) ex[$1] = $6 }
END { if (table == "nscan") {
    sortn(N, N[0])
    printf "| N |"; for (i = 1; i <= N[0]; ++i) printf " %s |", N[i]; print ""
    printf "|---|"; for (i = 1; i <= N[0]; ++i) printf "--:|"; print ""
    printf "| 1 GPU, G/s |"; for (i = 1; i <= N[0]; ++i) printf " %.0f |", gi[N[i], 1]; print ""
    printf "| 2 GPUs, G/s |"; for (i = 1; i <= N[0]; ++i) printf " %.0f |", gi[N[i], 2]; print ""
    printf "| × |"; for (i = 1; i <= N[0]; ++i) printf " %s |", (gi[N[i], 1] > 0) ? sprintf("%.2f", gi[N[i], 2] / gi[N[i], 1]) : ""; print ""
    printf "| a step on 1 GPU, µs |"; for (i = 1; i <= N[0]; ++i) printf " %.0f |", us[N[i], 1]; print ""
    printf "| a step on 2 GPUs, µs |"; for (i = 1; i <= N[0]; ++i) printf " %.0f |", us[N[i], 2]; print ""
    printf "| exchange, µs |"; for (i = 1; i <= N[0]; ++i) printf " %s |", ex[N[i]]; print "" } }
