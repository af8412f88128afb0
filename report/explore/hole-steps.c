/* INSTRUCTORS ONLY: step13's scheme in fp64 (an answer); grading/handout.sh keeps it out of the handout. */
/* hole-steps.c: the energy error of step13's scheme about a black hole, in fp64 on the CPU (no tree, no
 * float): which of the block steps' choices the error at t = 1 follows.
 *
 *   hole-steps N SEED shared K               step12's scheme: K steps of dt = 1/K
 *   hole-steps N SEED blocks ETA PIN M [L [C]]  step13's: M steps of dt_max = 1/M, L levels (12), eta ETA;
 *       PIN 1 puts the hole on the deepest level in use at every step (nb_block_params); C the criterion:
 *       accel (step13's, the default), tidal or sum (nb_criterion)
 *
 * The sphere is --model hernquist-bh (eps 0.0025, equal masses, seed SEED), drawn at t = 0 and set half
 * the run's step back with its own fp64 forces (v - a dt/2, dt = 1/K or 1/M), so every run starts from
 * the drawn bodies; at t = 1 the velocities are brought forward the same way and the energy compared
 * with the drawn sphere's. One CSV line: n,seed,run,rel_energy_error,deepest,levels_pct (levels 0 ...
 * deepest, colon-separated),forces_per_body (the forces computed to t = 1 over N; K for shared steps).
 *
 *   hole-steps N SEED split ETA M L S R RIN   step13's scheme (as blocks, ETA 0 M L accel), but a substep where
 *       only levels above S start (a deep one) takes its forces another way (exercise 1's split): at the
 *       first deep substep of each level-S step the fast bodies (levels > S, and the hole) and the slow
 *       ones within R of the hole (the near) are set apart, and the rest (the far, which no kick moves
 *       until the level-S step ends: their path is straight) go into a Taylor expansion of their field
 *       about the hole's place then, to second order (field, tidal tensor, its gradient), made for the
 *       block's first and last deep substep and interpolated in time. A deep body's force: fast and near
 *       summed directly where they are, plus the expansion where the body is if within RIN of the centre
 *       (else the far summed directly too). The line gets five more fields: fast and near (mean bodies a
 *       block), expanded_pct (of the deep forces), force_err_rms and force_err_max (each deep force
 *       against the exact one, relative to its size).
 * Built and run by report/explore/hole-steps.sh. */
#include "init.h"
#include "nbody.h"
#include "reference.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS 0.0025
#define LEVELS 12 /* unless the run names its own */

static double energy(const nb_state64 *s)
{
    nb_diag d;
    nb_diagnostics(s, EPS * EPS, &d);
    return d.energy;
}

/* The split's state: who is fast, near or far in this block, and the far bodies' expansions. */
typedef struct split {
    int slow_top;                     /* S: levels above it are fast */
    double radius, inner, dt_max;     /* R, RIN */
    unsigned char *kind;              /* per body: 0 far, 1 near, 2 fast */
    double centre[3];
    double field[2][3], tidal[2][3][3], grad[2][3][3][3]; /* at the block's first and last deep substep */
    int first, last;                  /* those substeps */
    double fast, near, blocks, expanded, deep, err2, err_max;
} split;

/* Add body (x, y, z, m)'s field at the centre, to second order, into expansion e. */
static void expand(split *sp, int e, double x, double y, double z, double m)
{
    const double d[3] = {x - sp->centre[0], y - sp->centre[1], z - sp->centre[2]};
    const double inv = 1.0 / sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + EPS * EPS);
    const double i3 = m * inv * inv * inv, i5 = i3 * inv * inv, i7 = i5 * inv * inv;
    for (int i = 0; i < 3; ++i) {
        sp->field[e][i] += d[i] * i3;
        for (int k = 0; k < 3; ++k) {
            sp->tidal[e][i][k] += 3.0 * d[i] * d[k] * i5 - (i == k) * i3;
            for (int l = 0; l < 3; ++l)
                sp->grad[e][i][k][l] += 15.0 * d[i] * d[k] * d[l] * i7 -
                                        3.0 * i5 * ((i == l) * d[k] + (k == l) * d[i] + (i == k) * d[l]);
        }
    }
}

/* Body j's pull on the point (x, y, z) into a. */
static void pull(const nb_state64 *s, size_t j, double x, double y, double z, double *a)
{
    const double dx = s->x[j] - x, dy = s->y[j] - y, dz = s->z[j] - z;
    const double inv = 1.0 / sqrt(dx * dx + dy * dy + dz * dz + EPS * EPS), f = s->m[j] * inv * inv * inv;
    a[0] += dx * f, a[1] += dy * f, a[2] += dz * f;
}

static int split_forces(void *ctx, const nb_state64 *s, int sub, int deepest, const int *level,
                        const size_t *active, size_t count, double *ax, double *ay, double *az)
{
    split *sp = (split *)ctx;
    const size_t n = s->bodies;
    const int block = deepest > sp->slow_top ? 1 << (deepest - sp->slow_top) : 1; /* substeps a level-S step */
    if (block == 1 || sub % block == 0)
        return 0; /* a coarse substep: the exact forces */
    const double dt = ldexp(sp->dt_max, -deepest);
    if (sub % block == 1) { /* a new block: the kinds, and the far bodies' expansions at its ends */
        sp->first = sub, sp->last = sub + block - 2;
        sp->centre[0] = s->x[0], sp->centre[1] = s->y[0], sp->centre[2] = s->z[0];
        memset(sp->field, 0, sizeof sp->field), memset(sp->tidal, 0, sizeof sp->tidal);
        memset(sp->grad, 0, sizeof sp->grad);
        sp->blocks += 1;
        const double ahead = (sp->last - sp->first) * dt; /* from the first deep substep to the last */
        for (size_t j = 0; j < n; ++j) {
            const double dx = s->x[j] - sp->centre[0], dy = s->y[j] - sp->centre[1], dz = s->z[j] - sp->centre[2];
            sp->kind[j] = j == 0 || level[j] > sp->slow_top ? 2 : dx * dx + dy * dy + dz * dz < sp->radius * sp->radius;
            sp->fast += sp->kind[j] == 2, sp->near += sp->kind[j] == 1;
            if (sp->kind[j] == 0) { /* not kicked before the block ends: where it will be is known */
                expand(sp, 0, s->x[j], s->y[j], s->z[j], s->m[j]);
                expand(sp, 1, s->x[j] + s->vx[j] * ahead, s->y[j] + s->vy[j] * ahead, s->z[j] + s->vz[j] * ahead,
                       s->m[j]);
            }
        }
    }
    const double w = sp->last > sp->first ? (double)(sub - sp->first) / (sp->last - sp->first) : 0.0;
    double *exact = (double *)nb_malloc(3 * count * sizeof(double), "the exact deep forces");
    if (!exact)
        return 0;
    nb_ref_accel(s, EPS * EPS, active, count, exact, exact + count, exact + 2 * count); /* for the error */
    double err2 = 0.0, err_max = 0.0, expanded = 0.0;
#pragma omp parallel for schedule(dynamic, 4) reduction(+ : err2, expanded) reduction(max : err_max)
    for (size_t k = 0; k < count; ++k) {
        const size_t i = active[k];
        const double x = s->x[i], y = s->y[i], z = s->z[i];
        const double d[3] = {x - sp->centre[0], y - sp->centre[1], z - sp->centre[2]};
        const int inside = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < sp->inner * sp->inner;
        double a[3] = {0.0, 0.0, 0.0};
        for (size_t j = 0; j < n; ++j)
            if (j != i && (sp->kind[j] || !inside))
                pull(s, j, x, y, z, a);
        for (int c = 0; inside && c < 3; ++c) {
            double v = 0.0;
            for (int e = 0; e < 2; ++e) {
                double t = sp->field[e][c];
                for (int q = 0; q < 3; ++q) {
                    t += sp->tidal[e][c][q] * d[q];
                    for (int r = 0; r < 3; ++r)
                        t += 0.5 * sp->grad[e][c][q][r] * d[q] * d[r];
                }
                v += (e ? w : 1.0 - w) * t;
            }
            a[c] += v;
        }
        expanded += inside;
        const double e[3] = {exact[k], exact[count + k], exact[2 * count + k]};
        const double ex = a[0] - e[0], ey = a[1] - e[1], ez = a[2] - e[2];
        const double rel2 = (ex * ex + ey * ey + ez * ez) / (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
        err2 += rel2;
        err_max = rel2 > err_max ? rel2 : err_max;
        ax[k] = a[0], ay[k] = a[1], az[k] = a[2];
    }
    free(exact);
    sp->deep += (double)count, sp->expanded += expanded, sp->err2 += err2;
    sp->err_max = err_max > sp->err_max ? err_max : sp->err_max;
    return 1;
}

int main(int argc, char **argv)
{
    nb_set_progname("hole-steps");
    const int shared = argc == 5 && strcmp(argv[3], "shared") == 0;
    const int splitting = argc == 11 && strcmp(argv[3], "split") == 0;
    const int blocks = (argc >= 7 && argc <= 9 && strcmp(argv[3], "blocks") == 0) || splitting;
    if (!shared && !blocks) {
        nb_error("usage: hole-steps N SEED shared K | hole-steps N SEED blocks ETA PIN M [LEVELS [accel|tidal|sum]] | "
                 "hole-steps N SEED split ETA PIN M LEVELS S R RIN");
        return NB_EXIT_ERROR;
    }
    const char *const criteria[] = {"accel", "tidal", "sum"}; /* nb_criterion's order */
    int criterion = argc == 9 ? -1 : NB_CRITERION_ACCEL;
    for (int c = 0; argc == 9 && c < 3; ++c)
        if (strcmp(argv[8], criteria[c]) == 0)
            criterion = c;
    if (criterion < 0) {
        nb_error("no criterion '%s' (accel, tidal or sum)", argv[8]);
        return NB_EXIT_ERROR;
    }
    const long n = atol(argv[1]), seed = atol(argv[2]), k = atol(argv[shared ? 4 : 6]);
    const double eta = blocks ? atof(argv[4]) : 0.0;
    const int pin = blocks ? atoi(argv[5]) : 0;
    const long levels = argc >= 8 ? atol(argv[7]) : LEVELS;
    if (n < 2 || n > 1 << 20 || seed < 0 || k < 1 || k > 1 << 16 || (blocks && !(eta > 0.0)) || levels < 1 ||
        levels > NB_LEVELS_MAX) {
        nb_error("N in 2..2^20, SEED >= 0, K or M in 1..65536, ETA > 0, LEVELS in 1..%d", NB_LEVELS_MAX);
        return NB_EXIT_ERROR;
    }
    split sp;
    memset(&sp, 0, sizeof sp);
    if (splitting) {
        sp.slow_top = atoi(argv[8]), sp.radius = atof(argv[9]), sp.inner = atof(argv[10]), sp.dt_max = 1.0 / (double)k;
        if (sp.slow_top < 0 || sp.slow_top >= levels - 1 || !(sp.radius >= 0.0) || !(sp.inner >= 0.0)) {
            nb_error("split: S in 0..LEVELS-2, R >= 0, RIN >= 0");
            return NB_EXIT_ERROR;
        }
        if (!(sp.kind = (unsigned char *)nb_malloc((size_t)n, "the split's kinds")))
            return NB_EXIT_ERROR;
    }
    nb_state drawn;
    nb_state64 s;
    if (nb_state_alloc(&drawn, 1, (size_t)n) != NB_EXIT_OK || nb_state64_alloc(&s, 1, (size_t)n) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    nb_init(&drawn, NB_MODEL_HERNQUIST_BH, NB_MASSES_EQUAL, (uint64_t)seed);
    nb_state64_from(&s, &drawn);
    const double e0 = energy(&s), dt = 1.0 / (double)k;
    if (nb_ref_kick(&s, EPS * EPS, -0.5 * dt) != NB_EXIT_OK) /* half a step back */
        return NB_EXIT_ERROR;
    nb_block_stats stats;
    memset(&stats, 0, sizeof stats);
    const nb_block_params p = {(unsigned)levels, eta, EPS, 0, 0.0, pin, (nb_criterion)criterion,
                               splitting ? split_forces : NULL, splitting ? &sp : NULL};
    const int rc = shared ? nb_ref_run(&s, (uint64_t)k, dt, EPS * EPS)
                          : nb_ref_run_blocks(&s, (uint64_t)k, dt, EPS * EPS, &p, NULL, &stats);
    if (rc != NB_EXIT_OK || nb_ref_kick(&s, EPS * EPS, 0.5 * dt) != NB_EXIT_OK) /* and to t = 1 */
        return NB_EXIT_ERROR;
    const double e1 = energy(&s);
    char name[256]; /* the run, in words */
    int len = snprintf(name, sizeof name, "%s%s%s%s%s%s%s%s%s", argv[3], blocks ? " eta " : " 1/", argv[4],
                       blocks ? (pin ? " pinned 1/" : " 1/") : "", blocks ? argv[6] : "", argc >= 8 ? " levels " : "",
                       argc >= 8 ? argv[7] : "", argc == 9 ? " " : "", argc == 9 ? argv[8] : "");
    if (splitting && len > 0 && (size_t)len < sizeof name)
        snprintf(name + len, sizeof name - (size_t)len, " slow<=%s R %s RIN %s", argv[8], argv[9], argv[10]);
    printf("%ld,%ld,%s,%.6e,%u,", n, seed, name, (e1 - e0) / fabs(e0), stats.deepest);
    const double total = blocks ? (double)n * (double)k : 1.0;
    for (unsigned l = 0; l <= stats.deepest; ++l)
        printf(l ? ":%.3g" : "%.3g", blocks ? 100.0 * (double)stats.on_level[l] / total : 100.0);
    printf(",%.1f", blocks ? (double)stats.forces / (double)n : (double)k);
    if (splitting) {
        const double blocks_seen = sp.blocks > 0.0 ? sp.blocks : 1.0, deep = sp.deep > 0.0 ? sp.deep : 1.0;
        printf(",%.1f,%.1f,%.2f,%.3e,%.3e", sp.fast / blocks_seen, sp.near / blocks_seen, 100.0 * sp.expanded / deep,
               sqrt(sp.err2 / deep), sqrt(sp.err_max));
        free(sp.kind);
    }
    printf("\n");
    nb_state_free(&drawn);
    nb_state64_free(&s);
    return NB_EXIT_OK;
}
