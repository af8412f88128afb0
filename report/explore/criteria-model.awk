# criteria-model.awk: what a criterion's level shares would cost step13 on the GPU, from one measured run's
# cost of each level (report/explore/README.md, "Which criterion"). A model, not a measurement.
#
#   awk -f report/explore/criteria-model.awk LEVELS.csv CRITERIA.csv
#
# LEVELS.csv: report/sweeps/blocksteps.sh's level report (label,level,dt,bodies_pct,substeps,evaluations,
# direct,ms); its rows of label LABEL (default 1M-eta0.125-bh-eps0.0025) whose level 0 took STEPS (16)
# substeps, one run of 16 dt_max steps. A substep's cost against the share f of the bodies active there:
# level 0's as measured (every body, and the levels assigned); above REFIT (0.10), the least-squares line
# through the partial levels there (the tree rebuilt); at or below, the line through the two levels there
# with the fewest active (the tree refitted). CRITERIA.csv: report/explore/hole-steps.c's rows
# (n,seed,run,rel_energy_error,deepest,levels_pct,forces_per_body). For each of its block-step rows: the
# time to t = 1 of 16 dt_max steps of 1/16 with those level shares, at the measured run's N. Prints
# seed,run,rel_energy_error,forces_per_body,model_s, and first, as "# ", the lines and the measured run's
# own time beside the model's for its own shares.
BEGIN { FS = ","; label = label == "" ? "1M-eta0.125-bh-eps0.0025" : label; steps = steps == "" ? 16 : steps
        refit = refit == "" ? 0.10 : refit }
FNR == 1 { file++; next }
file == 1 && $1 == label && $2 == "0" { block = ($5 == steps); if (block) { n = $6 / $5; full = $8 / $5; total = 0 } }
file == 1 && $1 == label && block && $2 ~ /^[0-9]+$/ {
    lv = $2 + 0; share[lv] = $4 / 100; total += $8
    if (lv > 0 && $5 > 0) { f = $6 / $5 / n; c = $8 / $5; fs[lv] = f; cs[lv] = c; top = lv > top ? lv : top }
}
file == 1 && $1 == label && block && $2 == "close" { total += $8; closing = $8 }
function cost(f) {
    if (f >= 1) return full
    return f > refit ? ra + rb * f : fa + fb * f
}
function model(sh, deep,    k, l, f, t) { # the time of `steps` dt_max steps, ms, for level shares sh[0..deep]
    t = 0
    for (k = 0; k <= deep; ++k) {
        f = 0
        for (l = k; l <= deep; ++l) f += sh[l]
        t += (k == 0 ? 1 : 2 ^ (k - 1)) * cost(k == 0 ? 1 : f)
    }
    return steps * t + closing
}
file == 2 && FNR == 2 {
    if (n == 0) { print "criteria-model: no run of label " label " with " steps " substeps at level 0" > "/dev/stderr"; exit 2 }
    for (k = 1; k <= top; ++k) if (fs[k] > refit) { m++; sx += fs[k]; sy += cs[k]; sxx += fs[k] ^ 2; sxy += fs[k] * cs[k] }
    rb = (m * sxy - sx * sy) / (m * sxx - sx ^ 2); ra = (sy - rb * sx) / m
    lo1 = lo2 = -1
    for (k = 1; k <= top; ++k) if (fs[k] <= refit) { if (lo1 < 0 || fs[k] < fs[lo1]) { lo2 = lo1; lo1 = k } else if (lo2 < 0 || fs[k] < fs[lo2]) lo2 = k }
    fb = (cs[lo2] - cs[lo1]) / (fs[lo2] - fs[lo1]); fa = cs[lo1] - fb * fs[lo1]
    printf "# %s, N = %d: level 0 %.3f ms a substep; rebuilt %.3f + %.3f f ms; refitted %.3f + %.3f f ms\n", label, n, full, ra, rb, fa, fb
    printf "# its own shares: measured %.3f s, model %.3f s\n", total / 1000, model(share, top) / 1000
    print "seed,run,rel_energy_error,forces_per_body,model_s"
}
file == 2 && $3 ~ /^blocks/ {
    deep = split($6, p, ":") - 1
    delete sh
    for (k = 0; k <= deep; ++k) sh[k] = p[k + 1] / 100
    printf "%s,%s,%s,%s,%.3f\n", $2, $3, $4, $7, model(sh, deep) / 1000
}
