/* check_physics.c: the fp64 reference (common/reference.c) against the laws it must obey: exact
 * forces and diagnostics for configurations solvable by hand, a circular two-body orbit with the
 * analytic period, and conservation of energy, momentum and angular momentum. Every step is judged
 * against this code, so it is checked against physics, not against itself. */
#include "init.h"
#include "reference.h"
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static const double PI = 3.14159265358979323846;

static double norm3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* Two bodies of mass 1/2 at (+-1/2, 0, 0) moving at (0, +-v, 0): the circular orbit when v = 1/2. */
static void pair(nb_state64 *s, double v)
{
    ck_assert_int_eq(nb_state64_alloc(s, 1, 2), NB_EXIT_OK);
    for (int b = 0; b < 2; ++b) {
        const double side = b ? -1.0 : 1.0;
        s->x[b] = 0.5 * side;
        s->y[b] = s->z[b] = s->vx[b] = s->vz[b] = 0.0;
        s->vy[b] = v * side;
        s->m[b] = 0.5;
    }
    s->step = 0;
    s->time = 0.0;
}

START_TEST(pair_force_by_hand)
{
    /* a_0 = m_1 (x_1 - x_0) / (d^2 + eps^2)^(3/2): with d = 1, m = 1/2: -1/2 (1 + eps^2)^(-3/2) along x,
     * and the opposite for body 1. eps = 0 is allowed (j = i is skipped). */
    nb_state64 s;
    pair(&s, 0.5);
    const double eps2s[2] = {0.0, 0.01};
    for (int e = 0; e < 2; ++e) {
        double ax[2], ay[2], az[2];
        nb_ref_accel(&s, eps2s[e], NULL, 0, ax, ay, az);
        const double want = -0.5 / pow(1.0 + eps2s[e], 1.5);
        ck_assert_msg(fabs(ax[0] - want) <= 1e-15 && ax[1] == -ax[0], "eps^2 %g: a = %.17g, %.17g, want %.17g", eps2s[e],
                      ax[0], ax[1], want);
        ck_assert(ay[0] == 0.0 && az[0] == 0.0 && ay[1] == 0.0 && az[1] == 0.0);
        /* The same through an index list, in another order. */
        const size_t index[2] = {1, 0};
        double bx[2], by[2], bz[2];
        nb_ref_accel(&s, eps2s[e], index, 2, bx, by, bz);
        ck_assert(bx[0] == ax[1] && bx[1] == ax[0]);
    }
    nb_state64_free(&s);
}
END_TEST

START_TEST(systems_do_not_interact)
{
    /* S = 3: each system's accelerations are the bits it gets when it is alone (S = 1). */
    nb_state f;
    ck_assert_int_eq(nb_state_alloc(&f, 3, 100), NB_EXIT_OK);
    nb_init(&f, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 4);
    nb_state64 all, one;
    ck_assert_int_eq(nb_state64_alloc(&all, 3, 100), NB_EXIT_OK);
    ck_assert_int_eq(nb_state64_alloc(&one, 1, 100), NB_EXIT_OK);
    nb_state64_from(&all, &f);
    double a[3 * 300], b[3 * 100];
    nb_ref_accel(&all, 1e-4, NULL, 0, a, a + 300, a + 600);
    for (size_t sys = 0; sys < 3; ++sys) {
        for (int k = 0; k < NB_FIELDS; ++k)
            memcpy(nb_state64_field(&one, k), nb_state64_field(&all, k) + 100 * sys, 100 * sizeof(double));
        nb_ref_accel(&one, 1e-4, NULL, 0, b, b + 100, b + 200);
        for (int d = 0; d < 3; ++d)
            for (size_t i = 0; i < 100; ++i)
                nbt_require(a[300 * d + 100 * sys + i] == b[100 * d + i], "system %zu body %zu feels other systems",
                            sys, i);
    }
    nb_state64_free(&one);
    nb_state64_free(&all);
    nb_state_free(&f);
}
END_TEST

START_TEST(accel_independent_of_threads)
{
    /* Each body's sum runs in j order, so the result is the same bits with 1 thread or several. */
    nb_state f;
    ck_assert_int_eq(nb_state_alloc(&f, 3, 777), NB_EXIT_OK);
    nb_init(&f, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 5);
    nb_state64 s;
    ck_assert_int_eq(nb_state64_alloc(&s, 3, 777), NB_EXIT_OK);
    nb_state64_from(&s, &f);
    const size_t n = 3 * 777;
    double *a = malloc(6 * n * sizeof(double));
#ifdef _OPENMP
    omp_set_num_threads(1);
#endif
    nb_ref_accel(&s, 1e-4, NULL, 0, a, a + n, a + 2 * n);
#ifdef _OPENMP
    omp_set_num_threads(3);
#endif
    nb_ref_accel(&s, 1e-4, NULL, 0, a + 3 * n, a + 4 * n, a + 5 * n);
    ck_assert(memcmp(a, a + 3 * n, 3 * n * sizeof(double)) == 0);
    free(a);
    nb_state64_free(&s);
    nb_state_free(&f);
}
END_TEST

START_TEST(diagnostics_by_hand)
{
    /* The circular pair: K = 2 * 1/2 * 1/2 * (1/2)^2 = 1/8, W = -m m / sqrt(d^2 + eps^2) = -1/4 at eps = 0,
     * E = -1/8, -K/W = 1/2, L = 2 * 1/2 * (1/2 * 1/2) = 1/4 along z, p = 0, centre of mass at 0. */
    nb_state64 s;
    pair(&s, 0.5);
    nb_diag d;
    nb_diagnostics(&s, 0.0, &d);
    ck_assert(d.mass == 1.0 && d.kinetic == 0.125 && d.potential == -0.25 && d.energy == -0.125);
    ck_assert(d.virial_ratio == 0.5);
    ck_assert(d.angular[0] == 0.0 && d.angular[1] == 0.0 && d.angular[2] == 0.25);
    ck_assert(norm3(d.momentum) == 0.0 && norm3(d.com) == 0.0);
    nb_diagnostics(&s, 0.21, &d); /* W = -1/4 / sqrt(1.21) = -1/4.4 */
    ck_assert(fabs(d.potential + 0.25 / 1.1) <= 1e-16);
    /* Three systems are summed: three copies give three times everything but the centre of mass. */
    nb_state64 t;
    ck_assert_int_eq(nb_state64_alloc(&t, 3, 2), NB_EXIT_OK);
    for (int k = 0; k < NB_FIELDS; ++k)
        for (int c = 0; c < 3; ++c)
            memcpy(nb_state64_field(&t, k) + 2 * c, nb_state64_field(&s, k), 2 * sizeof(double));
    nb_diagnostics(&t, 0.0, &d);
    ck_assert(d.mass == 3.0 && d.kinetic == 0.375 && d.potential == -0.75 && d.angular[2] == 0.75);
    nb_state64_free(&t);
    nb_state64_free(&s);
}
END_TEST

START_TEST(accel_potential_one_pass)
{
    /* build/tools/diag's one pass: the accelerations nb_ref_accel's, bit for bit, and the potential
     * nb_diagnostics' (by hand for the pair: -1/4 at eps = 0, -1/4.4 at eps^2 = 0.21; each pair once). */
    nb_state64 s;
    pair(&s, 0.5);
    double a[6], w = 0.0;
    ck_assert_int_eq(nb_ref_accel_potential(&s, 0.0, a, a + 2, a + 4, &w), NB_EXIT_OK);
    ck_assert(w == -0.25);
    ck_assert_int_eq(nb_ref_accel_potential(&s, 0.21, a, a + 2, a + 4, &w), NB_EXIT_OK);
    ck_assert(fabs(w + 0.25 / 1.1) <= 1e-16);
    nb_state64_free(&s);
    nb_state f;
    ck_assert_int_eq(nb_state_alloc(&f, 3, 777), NB_EXIT_OK);
    nb_init(&f, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 5);
    ck_assert_int_eq(nb_state64_alloc(&s, 3, 777), NB_EXIT_OK);
    nb_state64_from(&s, &f);
    const size_t n = 3 * 777;
    double *acc = malloc(6 * n * sizeof(double));
    nb_ref_accel(&s, 1e-4, NULL, 0, acc, acc + n, acc + 2 * n);
    ck_assert_int_eq(nb_ref_accel_potential(&s, 1e-4, acc + 3 * n, acc + 4 * n, acc + 5 * n, &w), NB_EXIT_OK);
    ck_assert(memcmp(acc, acc + 3 * n, 3 * n * sizeof(double)) == 0);
    nb_diag d;
    nb_diagnostics(&s, 1e-4, &d);
    ck_assert_msg(fabs(w - d.potential) <= 1e-13 * fabs(d.potential), "%.17g against %.17g", w, d.potential);
    free(acc);
    nb_state64_free(&s);
    nb_state_free(&f);
}
END_TEST

/* The sum as the truth writes it: body i's pull from every other body of its system, in j order. */
static void plain_sum(const nb_state64 *s, double eps2, size_t i, double a[3], double *phi)
{
    const size_t first = i / s->bodies * s->bodies;
    a[0] = a[1] = a[2] = *phi = 0.0;
    for (size_t j = first; j < first + s->bodies; ++j) {
        if (j == i)
            continue;
        const double dx = s->x[j] - s->x[i], dy = s->y[j] - s->y[i], dz = s->z[j] - s->z[i];
        const double inv = 1.0 / sqrt(dx * dx + dy * dy + dz * dz + eps2);
        const double f = s->m[j] * inv * inv * inv;
        a[0] += dx * f, a[1] += dy * f, a[2] += dz * f;
        *phi -= s->m[j] * inv;
    }
}

START_TEST(grouped_sums_are_the_plain_loop)
{
    /* The reference sums four bodies at a time, a lane each (reference.c, accel_group): every lane must
     * give the plain loop's bits, whatever N (groups cut by a system's end, a last short group), the
     * softening (at eps = 0 a lane's own term is 0/0 and must be left out) and the index list (bodies
     * of several systems, in any order, one group mixing them). */
    const size_t sizes[] = {1, 2, 3, 4, 5, 7, 64, 101};
    const double eps2s[] = {0.0, 1e-4};
    for (size_t c = 0; c < sizeof sizes / sizeof *sizes; ++c)
        for (int e = 0; e < 2; ++e) {
            const size_t n = sizes[c], total = 3 * n;
            nb_state f;
            ck_assert_int_eq(nb_state_alloc(&f, 3, n), NB_EXIT_OK);
            nb_init(&f, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 7 + (uint64_t)c);
            nb_state64 s;
            ck_assert_int_eq(nb_state64_alloc(&s, 3, n), NB_EXIT_OK);
            nb_state64_from(&s, &f);
            double *got = malloc(7 * total * sizeof(double)), *phi = got + 6 * total, w = 0.0, sum = 0.0;
            size_t *index = malloc(total * sizeof(size_t));
            ck_assert_int_eq(nb_ref_accel_potential(&s, eps2s[e], got, got + total, got + 2 * total, &w), NB_EXIT_OK);
            for (size_t i = 0; i < total; ++i) {
                double a[3];
                plain_sum(&s, eps2s[e], i, a, &phi[i]);
                for (int d = 0; d < 3; ++d)
                    nbt_require(memcmp(&got[d * total + i], &a[d], sizeof(double)) == 0,
                                "N %zu eps^2 %g body %zu axis %d: %.17g, the plain loop %.17g", n, eps2s[e], i, d,
                                got[d * total + i], a[d]);
            }
            for (int list = 0; list < 2; ++list) { /* backwards; then every system's bodies in turn */
                for (size_t k = 0; k < total; ++k)
                    index[k] = total - 1 - (list ? k % 3 * n + k / 3 : k);
                nb_ref_accel(&s, eps2s[e], index, total, got + 3 * total, got + 4 * total, got + 5 * total);
                for (size_t k = 0; k < total; ++k) {
                    double a[3], unused;
                    plain_sum(&s, eps2s[e], index[k], a, &unused);
                    for (int d = 0; d < 3; ++d)
                        nbt_require(memcmp(&got[(3 + d) * total + k], &a[d], sizeof(double)) == 0,
                                    "N %zu eps^2 %g list %d, entry %zu (body %zu) axis %d differs from the plain loop",
                                    n, eps2s[e], list, k, index[k], d);
                }
            }
            for (size_t i = 0; i < total; ++i)
                sum += s.m[i] * phi[i];
            ck_assert_msg(w == 0.5 * sum, "N %zu: potential %.17g, the plain loop's %.17g", n, w, 0.5 * sum);
            free(index);
            free(got);
            nb_state64_free(&s);
            nb_state_free(&f);
        }
}
END_TEST

START_TEST(circular_orbit)
{
    /* G M / d^3 = 1: omega = 1, period 2 pi, the velocities 1/2 each. K = 2000 steps of dt = 2 pi / K,
     * velocities set half a step back (kick-drift keeps them at half steps). Kick-drift leapfrog turns
     * a circular orbit by theta = 2 asin(omega dt / 2) per step (from x_{k+1} - 2 x_k + x_{k-1} = a dt^2
     * on a circle), so after K steps the pair is ahead by K theta - 2 pi = 2.6e-6 rad and the orbit
     * takes 2 pi (1 - (omega dt)^2 / 24): that is the analytic period of the integrator. Measured
     * against it to 1 %, against 2 pi to (omega dt)^2 / 24; the radius stays 1 to 1e-9. */
    const int K = 2000;
    const double dt = 2 * PI / K, eps2 = 1e-24;
    nb_state64 s;
    pair(&s, 0.5);
    for (int b = 0; b < 2; ++b) {
        const double side = b ? -1.0 : 1.0;
        s.vx[b] = 0.5 * side * sin(dt / 2);
        s.vy[b] = 0.5 * side * cos(dt / 2);
    }
    /* Half an orbit: the bodies have swapped places. */
    ck_assert_int_eq(nb_ref_run(&s, K / 2, dt, eps2), NB_EXIT_OK);
    ck_assert_msg(fabs(s.x[0] + 0.5) < 1e-4 && fabs(s.y[0]) < 1e-4, "after half an orbit body 0 is at (%g, %g)", s.x[0],
                  s.y[0]);
    ck_assert_int_eq(nb_ref_run(&s, K - K / 2, dt, eps2), NB_EXIT_OK);
    ck_assert(s.step == (uint64_t)K && fabs(s.time - 2 * PI) < 1e-12);
    const double rx = s.x[0] - s.x[1], ry = s.y[0] - s.y[1];
    const double radius = sqrt(rx * rx + ry * ry), phase = atan2(ry, rx);
    const double period = K * dt * 2 * PI / (2 * PI + phase);
    const double predicted = K * 2 * asin(dt / 2) - 2 * PI;
    printf("circular orbit: radius - 1 = %.3e, phase %.6e (leapfrog %.6e), period %.12f (2 pi %.12f)\n", radius - 1,
           phase, predicted, period, 2 * PI);
    ck_assert_msg(fabs(radius - 1.0) <= 1e-9, "radius %.15f", radius);
    ck_assert_msg(fabs(phase - predicted) <= 0.01 * predicted, "phase %.6e, leapfrog predicts %.6e", phase, predicted);
    ck_assert_msg(fabs(period / (2 * PI) - 1.0) <= dt * dt / 24 * 1.01, "period %.12f", period);
    ck_assert(fabs(s.x[0] + s.x[1]) < 1e-12 && fabs(s.y[0] + s.y[1]) < 1e-12 && s.z[0] == 0.0);
    nb_state64_free(&s);
}
END_TEST

/* The energy at the time of the positions: the state holds v half a step behind x (kick-drift), so
 * v(t) = v(t - dt/2) + a(x(t)) dt/2. Without this the measured energy carries an O(dt) offset. */
static void synced_diagnostics(const nb_state64 *s, double dt, double eps2, nb_diag *d)
{
    nb_state64 t;
    ck_assert_int_eq(nb_state64_alloc(&t, s->systems, s->bodies), NB_EXIT_OK);
    nb_state64_copy(&t, s);
    ck_assert_int_eq(nb_ref_kick(&t, eps2, dt / 2), NB_EXIT_OK);
    nb_diagnostics(&t, eps2, d);
    nb_state64_free(&t);
}

START_TEST(conservation)
{
    /* N = 256 Plummer bodies, random masses, 1000 steps of dt = 1e-3, eps = 0.01 (as the step suites).
     * Momentum and angular momentum: the pair forces cancel exactly but for fp64 rounding (1e-16 of
     * each term, ~1e-13 after 1000 steps): tolerance 1e-12. Energy, with the velocities brought to
     * the positions' time: leapfrog keeps its error bounded and second order in dt; it swells during
     * close encounters (eps / v ~ 1e-2, ten steps). The largest relative error seen every 0.02 time
     * units (measured 4.8e-6): tolerance 5e-5. Four times the step must make it about 16 times
     * larger (measured 25; 8 asked): second order, where a first-order integrator would give 4. */
    const size_t n = 256;
    const double eps2 = 1e-4;
    nb_state f;
    ck_assert_int_eq(nb_state_alloc(&f, 1, n), NB_EXIT_OK);
    nb_init(&f, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 42);
    double worst[2] = {0.0, 0.0};
    for (int pass = 0; pass < 2; ++pass) {
        const double dt = pass ? 4e-3 : 1e-3;
        const uint64_t chunk = pass ? 5 : 20, chunks = 50; /* 0.02 time units a chunk, 1 in all */
        nb_state64 s;
        ck_assert_int_eq(nb_state64_alloc(&s, 1, n), NB_EXIT_OK);
        nb_state64_from(&s, &f);
        nb_diag before, after, synced_before, synced_after;
        nb_diagnostics(&s, eps2, &before); /* momenta: conserved by the half-step velocities themselves */
        synced_diagnostics(&s, dt, eps2, &synced_before);
        for (uint64_t c = 0; c < chunks; ++c) {
            ck_assert_int_eq(nb_ref_run(&s, chunk, dt, eps2), NB_EXIT_OK);
            synced_diagnostics(&s, dt, eps2, &synced_after);
            worst[pass] = fmax(worst[pass], fabs(synced_after.energy - synced_before.energy) / fabs(synced_before.energy));
        }
        nb_diagnostics(&s, eps2, &after);
        const double dp[3] = {after.momentum[0] - before.momentum[0], after.momentum[1] - before.momentum[1],
                              after.momentum[2] - before.momentum[2]};
        const double dl[3] = {after.angular[0] - before.angular[0], after.angular[1] - before.angular[1],
                              after.angular[2] - before.angular[2]};
        printf("conservation, %llu steps of dt %g: largest |dE/E| %.3e; |dp| %.2e, |dL| %.2e\n",
               (unsigned long long)(chunk * chunks), dt, worst[pass], norm3(dp), norm3(dl));
        ck_assert(s.step == chunk * chunks);
        ck_assert_msg(norm3(dp) <= 1e-12 && norm3(dl) <= 1e-12, "|dp| %.3e, |dL| %.3e", norm3(dp), norm3(dl));
        nb_state64_free(&s);
    }
    ck_assert_msg(worst[0] <= 5e-5, "relative energy error up to %.3e at dt = 1e-3", worst[0]);
    ck_assert_msg(worst[1] >= 8 * worst[0], "dt 4e-3: energy error %.3e, dt 1e-3: %.3e (want about 16 times)",
                  worst[1], worst[0]);
    nb_state_free(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("physics");
    TCase *forces = nbt_tcase(s, "forces", 30);
    tcase_add_test(forces, pair_force_by_hand);
    tcase_add_test(forces, systems_do_not_interact);
    tcase_add_test(forces, accel_independent_of_threads);
    tcase_add_test(forces, diagnostics_by_hand);
    tcase_add_test(forces, accel_potential_one_pass);
    tcase_add_test(forces, grouped_sums_are_the_plain_loop);
    TCase *motion = nbt_tcase(s, "motion", 120);
    tcase_add_test(motion, circular_orbit);
    tcase_add_test(motion, conservation);
    return nbt_run(s, CK_FORK);
}
