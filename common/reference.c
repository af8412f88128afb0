/* reference.c: fp64 forces, integration and diagnostics. Deliberately plain: this is the truth (accel_of's
 * loop; accel_group does its operations for four bodies at once, bit for bit, only for speed). */
#include "reference.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

int nb_state64_alloc(nb_state64 *s, size_t systems, size_t bodies)
{
    memset(s, 0, sizeof *s);
    uint64_t count, bytes;
    if (nb_mul_overflows(systems, bodies, &count) || nb_mul_overflows(count, NB_FIELDS * sizeof(double), &bytes)) {
        nb_error("%zu systems of %zu bodies do not fit in memory", systems, bodies);
        return NB_EXIT_ERROR;
    }
    double *block = (double *)nb_malloc((size_t)bytes, "the fp64 reference");
    if (!block)
        return NB_EXIT_ERROR;
    s->systems = systems;
    s->bodies = bodies;
    double **field[NB_FIELDS] = {&s->x, &s->y, &s->z, &s->vx, &s->vy, &s->vz, &s->m};
    for (int k = 0; k < NB_FIELDS; ++k)
        *field[k] = block + (size_t)k * count;
    return NB_EXIT_OK;
}

void nb_state64_free(nb_state64 *s)
{
    free(s->x);
    memset(s, 0, sizeof *s);
}

double *nb_state64_field(const nb_state64 *s, int k)
{
    double *const field[NB_FIELDS] = {s->x, s->y, s->z, s->vx, s->vy, s->vz, s->m};
    return field[k];
}

void nb_state64_from(nb_state64 *dst, const nb_state *src)
{
    const size_t n = src->systems * src->bodies;
    for (int k = 0; k < NB_FIELDS; ++k) {
        const float *from = nb_state_field(src, k);
        double *to = nb_state64_field(dst, k);
        for (size_t i = 0; i < n; ++i)
            to[i] = (double)from[i];
    }
    dst->step = src->step;
    dst->time = src->time;
}

void nb_state64_copy(nb_state64 *dst, const nb_state64 *src)
{
    const size_t n = src->systems * src->bodies;
    for (int k = 0; k < NB_FIELDS; ++k)
        memcpy(nb_state64_field(dst, k), nb_state64_field(src, k), n * sizeof(double));
    dst->step = src->step;
    dst->time = src->time;
}

/* Body `body`'s acceleration into out[0..2]; with `rate` (not NULL) also the rate its criterion reads:
 * the Frobenius norm of the tidal tensor (NB_CRITERION_TIDAL) or the sum of m / d^3 (NB_CRITERION_SUM). */
static void accel_of(const nb_state64 *s, double eps2, size_t body, double *out, nb_criterion criterion, double *rate,
                     double *phi)
{
    const size_t n = s->bodies, first = body / n * n;
    const double xi = s->x[body], yi = s->y[body], zi = s->z[body];
    double ax = 0.0, ay = 0.0, az = 0.0, sum = 0.0, t[6] = {0.0}, w = 0.0; /* t: xx yy zz xy xz yz */
    for (size_t j = first; j < first + n; ++j) {
        if (j == body)
            continue;
        const double dx = s->x[j] - xi, dy = s->y[j] - yi, dz = s->z[j] - zi;
        const double d2 = dx * dx + dy * dy + dz * dz + eps2;
        const double inv = 1.0 / sqrt(d2);
        const double f = s->m[j] * inv * inv * inv;
        ax += dx * f;
        ay += dy * f;
        az += dz * f;
        if (phi)
            w -= s->m[j] * inv;
        if (rate) {
            const double g = 3.0 * f * inv * inv; /* d(d_a f)/dx_b = g d_a d_b - f delta_ab */
            sum += f;
            t[0] += g * dx * dx - f, t[1] += g * dy * dy - f, t[2] += g * dz * dz - f;
            t[3] += g * dx * dy, t[4] += g * dx * dz, t[5] += g * dy * dz;
        }
    }
    out[0] = ax;
    out[1] = ay;
    out[2] = az;
    if (phi)
        *phi = w;
    if (rate)
        *rate = criterion == NB_CRITERION_SUM ? sum
                : sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2] + 2.0 * (t[3] * t[3] + t[4] * t[4] + t[5] * t[5]));
}

/* accel_of for GROUP bodies of one system at once, each in a lane of its own: every lane does accel_of's
 * operations in accel_of's order (no fused multiply-add: ISO C mode leaves contraction off), so every
 * result has accel_of's bits (tests/check_physics.c holds it to the plain loop); only the divisions and
 * square roots, most of the time, go two at a time. A lane's own body adds nothing (its sums kept). */
#define GROUP 4 /* bodies a group: two pairs, two independent chains through the divider */
_Static_assert(GROUP == 4, "accel_group's lanes are two pairs, and its test of a lane's own body names four");
typedef double pair_d __attribute__((vector_size(16)));
typedef long long pair_mask __attribute__((vector_size(16)));
static pair_d sqrt_pair(pair_d d)
{
#ifdef __SSE2__
    return (pair_d)_mm_sqrt_pd((__m128d)d); /* sqrt() may not go two at a time: it must be able to set errno */
#else
    return (pair_d){sqrt(d[0]), sqrt(d[1])};
#endif
}

/* `now` where `keep` is clear, `old` where it is set (the lane whose own body this is). */
static pair_d kept_where(pair_mask keep, pair_d old, pair_d now)
{
    return (pair_d)(((pair_mask)old & keep) | ((pair_mask)now & ~keep));
}

static void accel_group(const nb_state64 *s, double eps2, const size_t *body, double *ax, double *ay, double *az,
                        double *phi)
{
    const size_t n = s->bodies, first = body[0] / n * n;
    pair_d xi[2], yi[2], zi[2], sx[2] = {{0.0}}, sy[2] = {{0.0}}, sz[2] = {{0.0}}, w[2] = {{0.0}};
    pair_mask self[2];
    for (int h = 0; h < 2; ++h) {
        xi[h] = (pair_d){s->x[body[2 * h]], s->x[body[2 * h + 1]]};
        yi[h] = (pair_d){s->y[body[2 * h]], s->y[body[2 * h + 1]]};
        zi[h] = (pair_d){s->z[body[2 * h]], s->z[body[2 * h + 1]]};
        self[h] = (pair_mask){(long long)body[2 * h], (long long)body[2 * h + 1]};
    }
    for (size_t j = first; j < first + n; ++j) {
        const int own = j == body[0] || j == body[1] || j == body[2] || j == body[3];
        for (int h = 0; h < 2; ++h) {
            const pair_d dx = s->x[j] - xi[h], dy = s->y[j] - yi[h], dz = s->z[j] - zi[h];
            const pair_d d2 = dx * dx + dy * dy + dz * dz + eps2;
            const pair_d inv = 1.0 / sqrt_pair(d2);
            const pair_d f = s->m[j] * inv * inv * inv;
            const pair_d nx = sx[h] + dx * f, ny = sy[h] + dy * f, nz = sz[h] + dz * f, nw = w[h] - s->m[j] * inv;
            if (own) { /* the lane whose body is j keeps its sums (its term may be 0/0 at eps = 0) */
                const pair_mask keep = self[h] == (long long)j;
                sx[h] = kept_where(keep, sx[h], nx);
                sy[h] = kept_where(keep, sy[h], ny);
                sz[h] = kept_where(keep, sz[h], nz);
                w[h] = kept_where(keep, w[h], nw);
            } else {
                sx[h] = nx, sy[h] = ny, sz[h] = nz, w[h] = nw;
            }
        }
    }
    for (int l = 0; l < GROUP; ++l) {
        ax[l] = sx[l / 2][l % 2];
        ay[l] = sy[l / 2][l % 2];
        az[l] = sz[l / 2][l % 2];
        if (phi)
            phi[l] = w[l / 2][l % 2];
    }
}

/* The accelerations (and with `rate`, the criterion's rates) of the bodies `index` lists, or of all:
 * GROUP at a time where they are of one system and no rate is asked for, else one by one. */
static void accel_all(const nb_state64 *s, double eps2, const size_t *index, size_t count, double *ax, double *ay,
                      double *az, nb_criterion criterion, double *rate, double *phi)
{
    const size_t total = index ? count : s->systems * s->bodies, groups = (total + GROUP - 1) / GROUP;
#pragma omp parallel for schedule(dynamic, 4)
    for (size_t g = 0; g < groups; ++g) {
        const size_t k0 = g * GROUP, in_group = total - k0 < GROUP ? total - k0 : GROUP;
        size_t body[GROUP];
        int one_system = in_group == GROUP && !rate;
        for (size_t l = 0; l < in_group; ++l) {
            body[l] = index ? index[k0 + l] : k0 + l;
            one_system = one_system && body[l] / s->bodies == body[0] / s->bodies;
        }
        if (one_system) {
            accel_group(s, eps2, body, ax + k0, ay + k0, az + k0, phi ? phi + k0 : NULL);
            continue;
        }
        for (size_t l = 0; l < in_group; ++l) {
            const size_t k = k0 + l;
            double a[3];
            accel_of(s, eps2, body[l], a, criterion, rate ? rate + k : NULL, phi ? phi + k : NULL);
            ax[k] = a[0];
            ay[k] = a[1];
            az[k] = a[2];
        }
    }
}

void nb_ref_accel(const nb_state64 *s, double eps2, const size_t *index, size_t count,
                  double *ax, double *ay, double *az)
{
    accel_all(s, eps2, index, count, ax, ay, az, NB_CRITERION_ACCEL, NULL, NULL);
}

int nb_ref_accel_potential(const nb_state64 *s, double eps2, double *ax, double *ay, double *az, double *potential)
{
    const size_t total = s->systems * s->bodies;
    double *phi = (double *)nb_malloc((total ? total : 1) * sizeof(double), "the fp64 potentials");
    if (!phi)
        return NB_EXIT_ERROR;
    accel_all(s, eps2, NULL, 0, ax, ay, az, NB_CRITERION_ACCEL, NULL, phi);
    double sum = 0.0; /* in the bodies' order: the same bits whatever the threads */
    for (size_t i = 0; i < total; ++i)
        sum += s->m[i] * phi[i];
    *potential = 0.5 * sum; /* each pair counted from both ends */
    free(phi);
    return NB_EXIT_OK;
}

/* Body i's kick by its acceleration (acc: x, y, z blocks of n) times w. */
static void kick(nb_state64 *s, size_t i, const double *acc, size_t n, double w)
{
    s->vx[i] += acc[i] * w;
    s->vy[i] += acc[n + i] * w;
    s->vz[i] += acc[2 * n + i] * w;
}

int nb_ref_kick(nb_state64 *s, double eps2, double h)
{
    const size_t n = s->systems * s->bodies;
    double *acc = (double *)nb_malloc(3 * (n ? n : 1) * sizeof(double), "the fp64 accelerations");
    if (!acc)
        return NB_EXIT_ERROR;
    nb_ref_accel(s, eps2, NULL, 0, acc, acc + n, acc + 2 * n);
    nb_ref_kick_by(s, acc, h);
    free(acc);
    return NB_EXIT_OK;
}

void nb_ref_kick_by(nb_state64 *s, const double *acc, double h)
{
    const size_t n = s->systems * s->bodies;
    for (size_t i = 0; i < n; ++i)
        kick(s, i, acc, n, h);
}

/* The kick, then the drift by dt: the contract's order. */
static void kick_drift(nb_state64 *s, size_t i, const double *acc, size_t n, double w, double dt)
{
    kick(s, i, acc, n, w);
    s->x[i] += s->vx[i] * dt;
    s->y[i] += s->vy[i] * dt;
    s->z[i] += s->vz[i] * dt;
}

int nb_ref_run(nb_state64 *s, uint64_t steps, double dt, double eps2)
{
    const size_t n = s->systems * s->bodies;
    double *acc = (double *)nb_malloc(3 * n * sizeof(double), "the fp64 reference accelerations");
    if (!acc)
        return NB_EXIT_ERROR;
    for (uint64_t k = 0; k < steps; ++k) {
        nb_ref_accel(s, eps2, NULL, 0, acc, acc + n, acc + 2 * n);
        for (size_t i = 0; i < n; ++i)
            kick_drift(s, i, acc, n, dt, dt);
        s->step += 1;
        s->time += dt;
    }
    free(acc);
    return NB_EXIT_OK;
}

int nb_block_level(double pull, double bound, double dt_max, unsigned levels)
{
    const int top = levels ? (int)levels - 1 : 0;
    int k = 0;
    double step = dt_max;
    while (k < top && step * step * pull > bound) { /* false for a NaN pull: level 0 */
        step *= 0.5;
        ++k;
    }
    return k;
}

/* A body's level from its acceleration or its criterion's rate (nb_criterion), and whether it lies within
 * p->margin of a boundary. */
static int block_level(const nb_block_params *p, double dt_max, double ax, double ay, double az, double rate,
                       int *near)
{
    const int accel = p->criterion == NB_CRITERION_ACCEL;
    const double pull = accel ? sqrt(ax * ax + ay * ay + az * az) : rate;
    const double bound = p->eta * p->eta * (accel ? p->eps : 1.0);
    const int top = (int)p->levels - 1;
    *near = 0;
    if (!(pull > 0.0)) /* a = 0 (or NaN) stays on level 0 */
        return 0;
    const double u = log(dt_max * dt_max * pull / bound) / log(4.0); /* level k holds u <= k */
    int k = nb_block_level(pull, bound, dt_max, p->levels);
    for (int b = 0; b < top; ++b)
        if (fabs(u - b) < p->margin)
            *near = 1;
    k += p->level_shift;
    return k < 0 ? 0 : k > top ? top : k;
}

/* Whether a body on `level` starts a step (gets a force and a kick) at substep `sub` of 2^deepest. */
static int step_starts(int level, int sub, int deepest) { return (sub & ((1 << (deepest - level)) - 1)) == 0; }

int nb_ref_run_blocks(nb_state64 *s, uint64_t steps, double dt_max, double eps2, const nb_block_params *p,
                      unsigned char *boundary, nb_block_stats *stats)
{
    const size_t n = s->systems * s->bodies;
    /* acc and part: x, y, z blocks of n, then the criterion's rates (not read for the acceleration's) */
    double *acc = (double *)nb_malloc(4 * n * sizeof(double), "the fp64 reference accelerations");
    double *part = (double *)nb_malloc(4 * n * sizeof(double), "the fp64 reference accelerations");
    int *level = (int *)nb_malloc(2 * n * sizeof(int), "the fp64 reference's levels");
    size_t *active = (size_t *)nb_malloc((n ? n : 1) * sizeof(size_t), "the fp64 reference's active bodies");
    if (!acc || !part || !level || !active) {
        free(acc), free(part), free(level), free(active);
        return NB_EXIT_ERROR;
    }
    int *now = level, *old = level + n;
    memset(old, 0, n * sizeof(int)); /* the contract: velocities half a dt_max behind */
    memset(stats, 0, sizeof *stats);
    if (boundary)
        memset(boundary, 0, n);
    const nb_criterion crit = p->criterion;
    double *const rate = crit == NB_CRITERION_ACCEL ? NULL : acc + 3 * n;
    int deepest = 0;
    for (uint64_t step = 0; step < steps; ++step) {
        accel_all(s, eps2, NULL, 0, acc, acc + n, acc + 2 * n, crit, rate, NULL);
        deepest = 0;
        for (size_t i = 0; i < n; ++i) {
            int near;
            now[i] = block_level(p, dt_max, acc[i], acc[n + i], acc[2 * n + i], rate ? rate[i] : 0.0, &near);
            if (near && boundary)
                boundary[i] = 1;
            deepest = now[i] > deepest ? now[i] : deepest;
        }
        for (size_t sys = 0; p->pin_first && sys < s->systems; ++sys)
            now[sys * s->bodies] = deepest;
        stats->forces += n;
        for (size_t i = 0; i < n; ++i)
            stats->on_level[now[i]] += 1;
        stats->deepest = (unsigned)deepest > stats->deepest ? (unsigned)deepest : stats->deepest;
        const double dt = ldexp(dt_max, -deepest);
        for (int sub = 0; sub < 1 << deepest; ++sub) {
            size_t count = 0;
            for (size_t i = 0; sub > 0 && i < n; ++i)
                if (step_starts(now[i], sub, deepest))
                    active[count++] = i;
            stats->forces += count;
            if (count) { /* a new force for the active bodies only */
                if (!p->forces || rate ||
                    !p->forces(p->forces_ctx, s, sub, deepest, now, active, count, part, part + count,
                               part + 2 * count))
                    accel_all(s, eps2, active, count, part, part + count, part + 2 * count, crit,
                              rate ? part + 3 * count : NULL, NULL);
                for (size_t k = 0; k < count; ++k)
                    for (int d = 0; d < (rate ? 4 : 3); ++d)
                        acc[d * n + active[k]] = part[d * count + k];
            }
            for (size_t i = 0; i < n; ++i) {
                const int was = sub == 0 ? old[i] : now[i], ends = sub == 0 || step_starts(was, sub, deepest);
                if (sub > 0 && ends) { /* it may go finer, to at most the deepest */
                    int near;
                    const int want =
                        block_level(p, dt_max, acc[i], acc[n + i], acc[2 * n + i], rate ? rate[i] : 0.0, &near);
                    if (near && boundary)
                        boundary[i] = 1;
                    if (want > was) {
                        now[i] = want < deepest ? want : deepest;
                        stats->finer += 1;
                    }
                }
                const double w = ends ? 0.5 * (ldexp(dt_max, -was) + ldexp(dt_max, -now[i])) : 0.0;
                kick_drift(s, i, acc, n, w, dt);
            }
        }
        int *t = now; /* this step's levels are the next one's old levels */
        now = old;
        old = t;
        s->step += 1;
        s->time += dt_max;
    }
    if (deepest > 0) { /* back to half a dt_max behind */
        nb_ref_accel(s, eps2, NULL, 0, acc, acc + n, acc + 2 * n);
        for (size_t i = 0; i < n; ++i)
            kick(s, i, acc, n, 0.5 * (ldexp(dt_max, -old[i]) - dt_max));
    }
    if (boundary)
        for (size_t i = 0; i < n; ++i)
            stats->boundary_bodies += boundary[i];
    free(acc), free(part), free(level), free(active);
    return NB_EXIT_OK;
}

void nb_diagnostics_with_potential(const nb_state64 *s, double potential, nb_diag *d)
{
    memset(d, 0, sizeof *d);
    const size_t total = s->systems * s->bodies;
    double kinetic = 0.0;
    for (size_t i = 0; i < total; ++i) {
        const double m = s->m[i];
        const double v[3] = {s->vx[i], s->vy[i], s->vz[i]}, x[3] = {s->x[i], s->y[i], s->z[i]};
        d->mass += m;
        kinetic += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        for (int k = 0; k < 3; ++k) {
            d->momentum[k] += m * v[k];
            d->com[k] += m * x[k];
        }
        d->angular[0] += m * (x[1] * v[2] - x[2] * v[1]);
        d->angular[1] += m * (x[2] * v[0] - x[0] * v[2]);
        d->angular[2] += m * (x[0] * v[1] - x[1] * v[0]);
    }
    for (int k = 0; k < 3; ++k)
        d->com[k] = d->mass > 0.0 ? d->com[k] / d->mass : 0.0;
    d->kinetic = kinetic;
    d->potential = potential;
    d->energy = kinetic + potential;
    d->virial_ratio = potential < 0.0 ? -kinetic / potential : 0.0;
}

void nb_diagnostics(const nb_state64 *s, double eps2, nb_diag *d)
{
    const size_t n = s->bodies, total = s->systems * n;
    double potential = 0.0;
    /* Pairs i < j of each system, with the same softening the forces use. */
#pragma omp parallel for reduction(+ : potential) schedule(dynamic, 16)
    for (size_t i = 0; i < total; ++i) {
        const size_t end = i / n * n + n;
        double w = 0.0;
        for (size_t j = i + 1; j < end; ++j) {
            const double dx = s->x[j] - s->x[i], dy = s->y[j] - s->y[i], dz = s->z[j] - s->z[i];
            w -= s->m[j] / sqrt(dx * dx + dy * dy + dz * dz + eps2);
        }
        potential += s->m[i] * w;
    }
    nb_diagnostics_with_potential(s, potential, d);
}
