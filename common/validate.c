/* validate.c: the comparisons behind every PASS and FAIL of the lab. */
#include "validate.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void nb_check_init(nb_check *c)
{
    memset(c, 0, sizeof *c);
    c->tol_state = NB_TOL_STATE;
    c->state_steps = NB_CHECK_STEPS;
}

void nb_check_tree_limits(nb_check *c, double theta)
{
    /* Measured on the H100 (common/README.md, Tree codes): the error grows about as theta^3.8. */
    const double r = theta / NB_TOL_TREE_THETA, scale = r > 1.0 ? r * r * r * r : 1.0;
    c->theta = theta;
    c->tol_rms = NB_TOL_TREE_RMS * scale;
    c->tol_max = NB_TOL_TREE_MAX * scale;
    c->tol_state = NB_TOL_TREE_STATE * scale;
}

static double growth(size_t bodies) { return bodies > 16384 ? sqrt((double)bodies / 16384.0) : 1.0; }
double nb_tol_acc_max(size_t bodies) { return NB_TOL_ACC_MAX * growth(bodies); }
double nb_tol_acc_rms(size_t bodies) { return NB_TOL_ACC_RMS * growth(bodies); }

static double norm3(double a, double b, double c) { return sqrt(a * a + b * b + c * c); }

/* err replaces the worst so far if larger, or NaN; once the worst is NaN it stays. */
static int worse(double err, double worst) { return !(err <= worst) && !isnan(worst); }

/* Note the first non-finite value the step returned. */
static void scan_finite(nb_check *c, const nb_state *s)
{
    const size_t n = nb_state_count(s);
    for (int k = 0; k < NB_FIELDS - 1 && !c->nonfinite; ++k) {
        const float *f = nb_state_field(s, k);
        for (size_t i = 0; i < n; ++i)
            if (!isfinite(f[i])) {
                c->nonfinite = 1;
                c->nonfinite_body = i;
                break;
            }
    }
}

/* What a comparison of vectors reads: the step's vector of body i, and the reference's of the k-th
 * compared body. The accelerations' check reads v after one step from rest; the timed runs' check
 * reads each body's velocity change over the run (its mean acceleration times the run's length). */
typedef struct vectors {
    const nb_state *before, *after;
    const double *want[3]; /* [k] */
    int change;            /* 0: got = after's v; 1: got = after's v - before's v ... */
    double kicks;          /* ... rounded once per kick: that much is forgiven (2^-23 |v| a kick) */
} vectors;

static void got_of(const vectors *v, size_t i, double got[3])
{
    const float *a[3] = {v->after->vx, v->after->vy, v->after->vz}, *b[3] = {v->before->vx, v->before->vy, v->before->vz};
    for (int d = 0; d < 3; ++d)
        got[d] = v->change ? (double)a[d][i] - (double)b[d][i] : a[d][i];
}

/* Relative errors body by body, each over max(|want|, NB_ACC_FLOOR x its system's rms |want|), into
 * c->acc_*; with `order`, also the kick-then-drift check of one step from rest with dt = 1. */
static int compare_vectors(nb_check *c, const vectors *v, const size_t *index, size_t count, int order)
{
    const size_t n = v->before->bodies, systems = v->before->systems;
    double *floor_of = (double *)calloc(systems, sizeof(double));
    size_t *seen = (size_t *)calloc(systems, sizeof(size_t));
    if (!floor_of || !seen) {
        free(floor_of);
        free(seen);
        nb_error("out of host memory for validation");
        return NB_EXIT_ERROR;
    }
    for (size_t k = 0; k < count; ++k) {
        const size_t sys = (index ? index[k] : k) / n;
        floor_of[sys] += v->want[0][k] * v->want[0][k] + v->want[1][k] * v->want[1][k] + v->want[2][k] * v->want[2][k];
        seen[sys] += 1;
    }
    for (size_t s = 0; s < systems; ++s) {
        const double rms = seen[s] ? sqrt(floor_of[s] / (double)seen[s]) : 0.0;
        /* A system with no force at all (N = 1) must come back with exactly zero (its tolerance, below);
         * its error is the absolute one, readable, not the error / DBL_MIN ~ 1e308. */
        floor_of[s] = rms > 0.0 ? NB_ACC_FLOOR * rms : 1.0;
    }

    double sum2 = 0.0, got2 = 0.0, want2 = 0.0;
    c->acc_max = 0.0;
    c->order_max = 0.0;
    for (size_t k = 0; k < count; ++k) {
        const size_t i = index ? index[k] : k;
        const double want[3] = {v->want[0][k], v->want[1][k], v->want[2][k]};
        double got[3];
        got_of(v, i, got);
        const double scale = fmax(norm3(want[0], want[1], want[2]), floor_of[i / n]);
        double miss = norm3(got[0] - want[0], got[1] - want[1], got[2] - want[2]);
        if (v->change) {
            const nb_state *b = v->before, *a = v->after;
            const double rounding = 0x1p-23 * v->kicks *
                                    (norm3(b->vx[i], b->vy[i], b->vz[i]) + norm3(a->vx[i], a->vy[i], a->vz[i]));
            miss = miss > rounding ? miss - rounding : isnan(miss) ? miss : 0.0;
        }
        const double err = miss / scale;
        sum2 += err * err;
        got2 += got[0] * got[0] + got[1] * got[1] + got[2] * got[2];
        want2 += want[0] * want[0] + want[1] * want[1] + want[2] * want[2];
        if (worse(err, c->acc_max) || k == 0) {
            c->acc_max = err;
            c->acc_worst = i;
            memcpy(c->acc_got, got, sizeof got);
            memcpy(c->acc_want, want, sizeof want);
        }
        if (!order)
            continue;
        /* Kick then drift: x1 = x0 + v1 * 1, rounded once (2^-24 |x1| per component, twice that allowed).
         * Drift-then-kick leaves x1 = x0: an error of 1. */
        const nb_state *before = v->before, *after = v->after;
        const double x0[3] = {before->x[i], before->y[i], before->z[i]};
        const double x1[3] = {after->x[i], after->y[i], after->z[i]};
        const double rounding = 0x1p-23 * (norm3(x0[0], x0[1], x0[2]) + norm3(x1[0], x1[1], x1[2]));
        const double slip = norm3(x1[0] - x0[0] - got[0], x1[1] - x0[1] - got[1], x1[2] - x0[2] - got[2]);
        const double wrong = (slip > rounding ? slip - rounding : isnan(slip) ? slip : 0.0) / scale;
        if (worse(wrong, c->order_max)) {
            c->order_max = wrong;
            c->order_worst = i;
        }
    }
    c->acc_rms = count ? sqrt(sum2 / (double)count) : 0.0;
    c->acc_ratio = want2 > 0.0 ? sqrt(got2 / want2) : -1.0; /* no force at all (N = 1): no ratio */
    c->compared = count;
    if (c->theta > 0.0) {
        nb_check_tree_limits(c, c->theta);
    } else {
        c->tol_max = n == 1 ? 0.0 : nb_tol_acc_max(n); /* N = 1: no force, exactly zero */
        c->tol_rms = n == 1 ? 0.0 : nb_tol_acc_rms(n);
    }
    c->acc_done = 1;
    scan_finite(c, v->after);
    free(floor_of);
    free(seen);
    return NB_EXIT_OK;
}

int nb_check_accel(nb_check *c, const nb_state *before, const nb_state *after, const size_t *index,
                   size_t count, const double *ax, const double *ay, const double *az)
{
    const vectors v = {before, after, {ax, ay, az}, 0, 0.0};
    return compare_vectors(c, &v, index, index ? count : before->systems * before->bodies, 1);
}

/* Per system: the larger of the rms distance from the mean and the rms distance from the origin,
 * so a single body or a system at rest still has a scale. */
static void system_scale(const double *x, const double *y, const double *z, size_t first, size_t n, double *scale)
{
    double mean[3] = {0, 0, 0}, around = 0.0, origin = 0.0;
    for (size_t i = first; i < first + n; ++i) {
        mean[0] += x[i];
        mean[1] += y[i];
        mean[2] += z[i];
    }
    for (int d = 0; d < 3; ++d)
        mean[d] /= (double)n;
    for (size_t i = first; i < first + n; ++i) {
        const double a = x[i] - mean[0], b = y[i] - mean[1], c = z[i] - mean[2];
        around += a * a + b * b + c * c;
        origin += x[i] * x[i] + y[i] * y[i] + z[i] * z[i];
    }
    *scale = fmax(sqrt(around / (double)n), sqrt(origin / (double)n));
    if (!(*scale > 0.0))
        *scale = 1.0; /* everything at zero (N = 1 at rest): the absolute error, readable, not / DBL_MIN */
}

/* The worst body's error of one quantity (positions or velocities), over its system's scale. */
typedef struct state_error {
    double max;
    size_t worst;
    double got[3], want[3];
} state_error;

/* Positions and velocities of `got` against `want`, each body over its system's scale; bodies flagged in
 * `skip` (NULL: none) are left out. */
static void state_errors(const nb_state *got, const nb_state64 *want, const unsigned char *skip, state_error *pos,
                         state_error *vel)
{
    const size_t n = got->bodies;
    memset(pos, 0, sizeof *pos);
    memset(vel, 0, sizeof *vel);
    for (size_t s = 0; s < got->systems; ++s) {
        const size_t first = s * n;
        double rs, vs;
        system_scale(want->x, want->y, want->z, first, n, &rs);
        system_scale(want->vx, want->vy, want->vz, first, n, &vs);
        for (size_t i = first; i < first + n; ++i) {
            if (skip && skip[i])
                continue;
            const double pg[3] = {got->x[i], got->y[i], got->z[i]}, pw[3] = {want->x[i], want->y[i], want->z[i]};
            const double vg[3] = {got->vx[i], got->vy[i], got->vz[i]}, vw[3] = {want->vx[i], want->vy[i], want->vz[i]};
            const double pe = norm3(pg[0] - pw[0], pg[1] - pw[1], pg[2] - pw[2]) / rs;
            const double ve = norm3(vg[0] - vw[0], vg[1] - vw[1], vg[2] - vw[2]) / vs;
            if (worse(pe, pos->max)) {
                pos->max = pe;
                pos->worst = i;
                memcpy(pos->got, pg, sizeof pg);
                memcpy(pos->want, pw, sizeof pw);
            }
            if (worse(ve, vel->max)) {
                vel->max = ve;
                vel->worst = i;
                memcpy(vel->got, vg, sizeof vg);
                memcpy(vel->want, vw, sizeof vw);
            }
        }
    }
}

int nb_check_state(nb_check *c, const nb_state *got, const nb_state64 *want)
{
    state_error pos, vel;
    state_errors(got, want, NULL, &pos, &vel);
    c->pos_max = pos.max;
    c->pos_worst = pos.worst;
    memcpy(c->pos_got, pos.got, sizeof pos.got);
    memcpy(c->pos_want, pos.want, sizeof pos.want);
    c->vel_max = vel.max;
    c->vel_worst = vel.worst;
    memcpy(c->vel_got, vel.got, sizeof vel.got);
    memcpy(c->vel_want, vel.want, sizeof vel.want);
    c->state_done = 1;
    scan_finite(c, got);
    return NB_EXIT_OK;
}

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double nb_block_check_dt(const nb_state64 *s, double eta, double eps, double eps2)
{
    const size_t n = s->systems * s->bodies;
    double *acc = (double *)nb_malloc(3 * n * sizeof(double), "the fp64 accelerations");
    if (!acc)
        return -1.0;
    nb_ref_accel(s, eps2, NULL, 0, acc, acc + n, acc + 2 * n);
    for (size_t i = 0; i < n; ++i)
        acc[i] = sqrt(acc[i] * acc[i] + acc[n + i] * acc[n + i] + acc[2 * n + i] * acc[2 * n + i]);
    qsort(acc, n, sizeof(double), compare_doubles);
    const double median = acc[n / 2];
    free(acc);
    /* (dt^2 |a|) / (eta^2 eps) = 4^0.5 for the median body */
    return median > 0.0 ? sqrt(2.0 * eta * eta * eps / median) : NB_CHECK_DT;
}

int nb_check_blocks(nb_check *c, const nb_state *initial, const nb_state *got, const nb_state64 *want,
                    const unsigned char *boundary, const nb_block_stats *stats, double eps2)
{
    c->block_deepest = stats->deepest;
    memcpy(c->block_on_level, stats->on_level, sizeof c->block_on_level);
    c->block_boundary = stats->boundary_bodies;
    state_error pos, vel;
    state_errors(got, want, boundary, &pos, &vel);
    c->block_pos = pos.max;
    c->block_vel = vel.max;
    c->block_worst_is_vel = worse(vel.max, pos.max); /* the worse of the two names the body shown */
    const state_error *w = c->block_worst_is_vel ? &vel : &pos;
    c->block_worst = w->worst;
    memcpy(c->block_got, w->got, sizeof w->got);
    memcpy(c->block_want, w->want, sizeof w->want);
    /* The energy of all systems together, in fp64, with the same softening. */
    nb_state64 wide;
    if (nb_state64_alloc(&wide, got->systems, got->bodies) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    nb_diag d0, d1, dr;
    nb_state64_from(&wide, initial);
    nb_diagnostics(&wide, eps2, &d0);
    nb_state64_from(&wide, got);
    nb_diagnostics(&wide, eps2, &d1);
    nb_diagnostics(want, eps2, &dr);
    nb_state64_free(&wide);
    const double scale = fabs(d0.energy) > 0.0 ? fabs(d0.energy) : 1.0;
    c->block_energy = fabs(d1.energy - d0.energy) / scale;
    c->block_energy_ref = fabs(dr.energy - d0.energy) / scale;
    c->block_done = 1;
    scan_finite(c, got);
    return NB_EXIT_OK;
}

static nb_run trial_run(const nb_run *tmpl, uint64_t steps, float dt)
{
    nb_run r = *tmpl;
    r.steps = steps;
    r.dt = dt;
    r.extra.snapshot_every = 0;
    r.extra.sink = NULL; /* the clock stays: a step cannot tell a checked run from a timed one by it */
    return r;
}

int nb_trial_accel(nb_step_fn step, void *ctx, const nb_run *tmpl, const nb_state *initial, nb_state *trial)
{
    const size_t total = nb_state_count(initial);
    nb_state_copy(trial, initial);
    memset(trial->vx, 0, total * sizeof(float));
    memset(trial->vy, 0, total * sizeof(float));
    memset(trial->vz, 0, total * sizeof(float));
    const nb_run r = trial_run(tmpl, 1, 1.0f);
    return step(ctx, trial, &r);
}

int nb_trial_state(nb_step_fn step, void *ctx, const nb_run *tmpl, const nb_state *initial, float dt,
                   nb_state *trial)
{
    nb_state_copy(trial, initial);
    const nb_run r = trial_run(tmpl, NB_CHECK_STEPS, dt);
    return step(ctx, trial, &r);
}

int nb_trial_blocks(nb_step_fn step, void *ctx, const nb_run *tmpl, const nb_state *initial, float dt, uint64_t steps,
                    nb_state *trial)
{
    nb_state_copy(trial, initial);
    const nb_run r = trial_run(tmpl, steps, dt);
    return step(ctx, trial, &r);
}

int nb_check_timed(nb_check *c, const nb_state *initial, const nb_state *got, const nb_state64 *want,
                   uint64_t steps, double dt)
{
    const size_t count = nb_state_count(initial);
    double *change = (double *)malloc(3 * count * sizeof(double));
    if (!change) {
        nb_error("out of host memory for the check of the timed runs");
        return NB_EXIT_ERROR;
    }
    const double *const wv[3] = {want->vx, want->vy, want->vz};
    const float *const v0[3] = {initial->vx, initial->vy, initial->vz};
    for (int d = 0; d < 3; ++d)
        for (size_t i = 0; i < count; ++i)
            change[d * count + i] = wv[d][i] - (double)v0[d][i];
    const vectors v = {initial, got, {change, change + count, change + 2 * count}, 1, (double)steps};
    int rc = compare_vectors(c, &v, NULL, count, 0);
    free(change);
    if (rc != NB_EXIT_OK)
        return rc;
    rc = nb_check_state(c, got, want);
    /* Errors grow with the simulated time, and a run also carries what fp32 rounding of the positions
     * does to the forces along the way (bodies that start together and fly apart: 1e-4): the limits are
     * the validation's, NB_TIMED_ROOM times wider, times how much longer this run is than the
     * validation's NB_CHECK_STEPS steps of min(dt, NB_CHECK_DT). */
    const double widen = NB_TIMED_ROOM * fmax(1.0, (double)steps * dt / (NB_CHECK_STEPS * fmin(dt, NB_CHECK_DT)));
    c->tol_max *= widen;
    c->tol_rms *= widen;
    c->tol_state *= widen;
    c->state_steps = steps;
    c->timed = 1;
    return rc;
}

int nb_check_passed(const nb_check *c)
{
    if (c->nonfinite)
        return 0;
    if (c->acc_done && (!(c->acc_max <= c->tol_max) || !(c->acc_rms <= c->tol_rms) ||
                        !(c->order_max <= NB_TOL_ORDER)))
        return 0;
    if (c->state_done && (!(c->pos_max <= c->tol_state) || !(c->vel_max <= c->tol_state)))
        return 0;
    if (c->block_done && (!(c->block_pos <= NB_TOL_BLOCK_STATE) || !(c->block_vel <= NB_TOL_BLOCK_STATE) ||
                          !(c->block_energy <= c->block_energy_ref + NB_TOL_BLOCK_ENERGY)))
        return 0;
    return 1;
}

static const char *ok_or_fail(double err, double tol) { return err <= tol ? "ok" : "FAIL"; }

static void body_line(FILE *f, const char *what, size_t body, size_t bodies, const double got[3], const double want[3])
{
    fprintf(f, "    worst %s: body %zu of system %zu: got (%.9g, %.9g, %.9g), want (%.9g, %.9g, %.9g)\n", what,
            body % bodies, body / bodies, got[0], got[1], got[2], want[0], want[1], want[2]);
}

void nb_check_print(FILE *f, const nb_check *c, size_t bodies)
{
    if (c->theta > 0.0)
        fprintf(f, "  tolerance class tree at theta = %g (an approximation: common/README.md, Tree codes)\n", c->theta);
    if (c->acc_done && c->timed) {
        fprintf(f, "  velocity change over the run (%zu bodies): rms %.2e (tol %.1e) %s, max %.2e (tol %.1e) %s\n",
                c->compared, c->acc_rms, c->tol_rms, ok_or_fail(c->acc_rms, c->tol_rms), c->acc_max, c->tol_max,
                ok_or_fail(c->acc_max, c->tol_max));
        if (!(c->acc_max <= c->tol_max))
            body_line(f, "velocity change", c->acc_worst, bodies, c->acc_got, c->acc_want);
    } else if (c->acc_done) {
        fprintf(f, "  acceleration (%zu bodies): rms %.2e (tol %.1e) %s, max %.2e (tol %.1e) %s; kick-then-drift %.2e (tol %.0e) %s\n",
                c->compared, c->acc_rms, c->tol_rms, ok_or_fail(c->acc_rms, c->tol_rms), c->acc_max, c->tol_max,
                ok_or_fail(c->acc_max, c->tol_max), c->order_max, NB_TOL_ORDER, ok_or_fail(c->order_max, NB_TOL_ORDER));
        if (!(c->acc_max <= c->tol_max))
            body_line(f, "acceleration", c->acc_worst, bodies, c->acc_got, c->acc_want);
        if (!(c->order_max <= NB_TOL_ORDER))
            fprintf(f, "    worst kick-then-drift: body %zu of system %zu moved by something else than its new velocity\n",
                    c->order_worst % bodies, c->order_worst / bodies);
    }
    if (c->state_done) {
        fprintf(f, "  state after %llu steps: positions %.2e %s, velocities %.2e %s (tol %.1e of the system's scale)\n",
                (unsigned long long)c->state_steps, c->pos_max, ok_or_fail(c->pos_max, c->tol_state), c->vel_max,
                ok_or_fail(c->vel_max, c->tol_state), c->tol_state);
        if (!(c->pos_max <= c->tol_state))
            body_line(f, "position", c->pos_worst, bodies, c->pos_got, c->pos_want);
        if (!(c->vel_max <= c->tol_state))
            body_line(f, "velocity", c->vel_worst, bodies, c->vel_got, c->vel_want);
    }
    if (c->block_done) {
        fprintf(f, "  block steps, %u levels (deepest used %u; bodies a step on levels 0...: ", c->block_levels,
                c->block_deepest);
        for (unsigned k = 0; k <= c->block_deepest && k < NB_LEVELS_MAX; ++k)
            fprintf(f, "%s%llu", k ? " " : "", (unsigned long long)c->block_on_level[k] / NB_BLOCK_CHECK_STEPS);
        fprintf(f, "), %d steps of dt_max %.3g at theta 0, against the fp64 run of the scheme%s:\n",
                NB_BLOCK_CHECK_STEPS, c->block_dt, c->block_boundary ? "" : ", every body compared");
        if (c->block_boundary)
            fprintf(f, "    %zu bodies on a level's boundary not compared (float32 may put them on either level)\n",
                    c->block_boundary);
        fprintf(f, "    positions %.2e %s, velocities %.2e %s (tol %.1e of the system's scale); energy error %.2e "
                   "against the fp64 run's %.2e (tol +%.0e) %s\n",
                c->block_pos, ok_or_fail(c->block_pos, NB_TOL_BLOCK_STATE), c->block_vel,
                ok_or_fail(c->block_vel, NB_TOL_BLOCK_STATE), NB_TOL_BLOCK_STATE, c->block_energy, c->block_energy_ref,
                NB_TOL_BLOCK_ENERGY, ok_or_fail(c->block_energy, c->block_energy_ref + NB_TOL_BLOCK_ENERGY));
        if (!(c->block_pos <= NB_TOL_BLOCK_STATE) || !(c->block_vel <= NB_TOL_BLOCK_STATE))
            body_line(f, c->block_worst_is_vel ? "velocity (block steps)" : "position (block steps)", c->block_worst,
                      bodies, c->block_got, c->block_want);
    }
    if (c->nonfinite)
        fprintf(f, "  non-finite value (NaN or inf) returned for body %zu of system %zu\n",
                c->nonfinite_body % bodies, c->nonfinite_body / bodies);
}
