/* check_step.c: one step of the ladder against the fp64 reference and the laws of motion.
 *
 * Compiled once per step of steps.list (NB_STEP_NAME) and linked with that step's nbody.o and its
 * platform: common/host.c for CPU steps, common/device.cu for GPU steps. It validates nb_step_run
 * the way every step program does (nb_trial_accel/nb_trial_state, nb_check_accel/nb_check_state,
 * as common/main.c), at awkward sizes, then checks what a step must get right beyond one short run:
 * a circular orbit, conservation laws over 1000 steps, and the details of the contract.
 *
 * Check forks a child per test; CUDA must not be touched before a fork, so a GPU program decides
 * whether to SKIP in the parent (no GPU: nb_platform_open fails) and then runs without forking. */
#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include "init.h"
#include "nbody.h"
#include "platform.h"
#include "reference.h"
#include "testlib.h"
#include "validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef NB_STEP_NAME
#error "compile with -DNB_STEP_NAME='\"stepNN_name\"' (tests/tests.mk does)"
#endif

/* The step linked into this suite, as the validation's runs call it. */
#ifndef NB_STEP_FEATURES /* the step's features column of steps.list (the Makefile passes it) */
#define NB_STEP_FEATURES "-"
#endif

static int step_direct(void *ctx, nb_state *state, const nb_run *run)
{
    (void)ctx;
    return nb_step_run(state, run);
}

static const double PI = 3.14159265358979323846;
static int gpu; /* this step runs on the GPU: larger sizes, no fork */

/* The harness's run template for softening eps (main.c: eps^2 in fp64, in fp32 at least 1e-24). */
static nb_run make_run(double eps, nb_run_info *info)
{
    memset(info, 0, sizeof *info);
    const float eps2 = (float)(eps * eps);
    nb_run run = {.steps = 1, .dt = (float)NB_CHECK_DT, .eps2 = eps2 > 1e-24f ? eps2 : 1e-24f, .info = info};
    return run;
}

/* ---- against the fp64 reference -------------------------------------------------------------- */

typedef struct config {
    size_t bodies, systems;
    nb_model model;
    nb_masses masses;
    double eps;
    int gpu_only;
} config;

#define P NB_MODEL_PLUMMER
#define U NB_MODEL_UNIFORM
#define C NB_MODEL_COLLISION
#define E NB_MASSES_EQUAL
#define R NB_MASSES_RANDOM
/* N = 1, 2, 31, 257, 1000, 4099 (none a multiple of a block size), S = 1 and 3, both models; random
 * masses wherever the model is uniform or S = 3, but not both. Then collision, no softening, and
 * N = 16384 (the default size) on the GPU. */
static const config configs[] = {
    {1, 1, P, E, 0.01, 0},     {1, 3, P, R, 0.01, 0},     {1, 1, U, R, 0.01, 0},     {1, 3, U, E, 0.01, 0},
    {2, 1, P, E, 0.01, 0},     {2, 3, P, R, 0.01, 0},     {2, 1, U, R, 0.01, 0},     {2, 3, U, E, 0.01, 0},
    {31, 1, P, E, 0.01, 0},    {31, 3, P, R, 0.01, 0},    {31, 1, U, R, 0.01, 0},    {31, 3, U, E, 0.01, 0},
    {257, 1, P, E, 0.01, 0},   {257, 3, P, R, 0.01, 0},   {257, 1, U, R, 0.01, 0},   {257, 3, U, E, 0.01, 0},
    {1000, 1, P, E, 0.01, 0},  {1000, 3, P, R, 0.01, 0},  {1000, 1, U, R, 0.01, 0},  {1000, 3, U, E, 0.01, 0},
    {4099, 1, P, E, 0.01, 0},  {4099, 3, P, R, 0.01, 0},  {4099, 1, U, R, 0.01, 0},  {4099, 3, U, E, 0.01, 0},
    {1000, 2, C, R, 0.01, 0},  {1000, 1, U, E, 0.0, 0},   {16384, 1, P, E, 0.01, 1}, {16384, 3, U, R, 0.01, 1},
};
#undef P
#undef U
#undef C
#undef E
#undef R
enum { CONFIGS = sizeof configs / sizeof *configs };

static void config_name(const config *c, char *buf, size_t len)
{
    snprintf(buf, len, "N=%zu S=%zu %s %s eps=%g", c->bodies, c->systems, nb_model_name(c->model),
             nb_masses_name(c->masses), c->eps);
}

START_TEST(against_reference)
{
    const config *c = &configs[_i];
    char what[128];
    config_name(c, what, sizeof what);
    nb_state init, trial;
    ck_assert_int_eq(nb_state_alloc(&init, c->systems, c->bodies), NB_EXIT_OK);
    ck_assert_int_eq(nb_state_alloc(&trial, c->systems, c->bodies), NB_EXIT_OK);
    nb_init(&init, c->model, c->masses, 42);
    nb_run_info info;
    const nb_run run = make_run(c->eps, &info);
    const double eps2 = c->eps * c->eps;
    const size_t total = c->systems * c->bodies;

    /* Accelerations of every body: one step from rest with dt = 1. */
    nb_state64 ref;
    ck_assert_int_eq(nb_state64_alloc(&ref, c->systems, c->bodies), NB_EXIT_OK);
    nb_state64_from(&ref, &init);
    double *acc = malloc(3 * total * sizeof(double));
    ck_assert_ptr_nonnull(acc);
    nb_ref_accel(&ref, eps2, NULL, 0, acc, acc + total, acc + 2 * total);
    nb_check check;
    nb_check_init(&check);
    ck_assert_msg(nb_trial_accel(step_direct, NULL, &run, &init, &trial) == NB_EXIT_OK, "%s: the step failed", what);
    ck_assert_int_eq(nb_check_accel(&check, &init, &trial, NULL, 0, acc, acc + total, acc + 2 * total), NB_EXIT_OK);
    free(acc);

    /* Positions and velocities after NB_CHECK_STEPS steps of NB_CHECK_DT. */
    ck_assert_int_eq(nb_ref_run(&ref, NB_CHECK_STEPS, NB_CHECK_DT, eps2), NB_EXIT_OK);
    ck_assert_msg(nb_trial_state(step_direct, NULL, &run, &init, (float)NB_CHECK_DT, &trial) == NB_EXIT_OK,
                  "%s: the step failed", what);
    ck_assert_int_eq(nb_check_state(&check, &trial, &ref), NB_EXIT_OK);
    for (size_t i = 0; i < total; ++i)
        nbt_require(trial.m[i] == init.m[i], "%s: the step changed the mass of body %zu", what, i);

    char report[2048] = "";
    FILE *f = fmemopen(report, sizeof report - 1, "w");
    nb_check_print(f, &check, c->bodies);
    fclose(f);
    printf("%s %s: acc max %.2e rms %.2e, state pos %.2e vel %.2e: %s\n", NB_STEP_NAME, what, check.acc_max,
           check.acc_rms, check.pos_max, check.vel_max, nb_check_passed(&check) ? "PASS" : "FAIL");
    ck_assert_msg(nb_check_passed(&check), "%s %s: %s", NB_STEP_NAME, what, nbt_one_line(report));
    nb_state64_free(&ref);
    nb_state_free(&trial);
    nb_state_free(&init);
}
END_TEST

/* ---- physics ------------------------------------------------------------------------------- */

START_TEST(circular_orbit)
{
    /* Two bodies of mass 1/2 at distance 1 on a circular orbit: omega = sqrt(G M / d^3) = 1, period
     * 2 pi. K = 1000 steps of dt = 2 pi / K, velocities set half a step back (they live at half
     * steps). Kick-drift leapfrog turns the orbit by 2 asin(dt/2) a step, so after K steps the pair
     * is ahead by K * 2 asin(dt/2) - 2 pi = 1.03e-5 rad: the period is short by (dt)^2/24 = 1.6e-6.
     * fp32 adds at most one rounding (2^-24) of the orbit a step: K * 6e-8 = 6e-5 if every one
     * pushed the same way. Tolerance 1e-4 on the radius and the period (steps 00-06: radius within
     * 3.4e-6, period within 5.6e-7; fp32 cannot resolve the leapfrog's 1.6e-6 shift). */
    const int K = 1000;
    const double dt = 2 * PI / K, eps = 1e-6;
    nb_state s;
    ck_assert_int_eq(nb_state_alloc(&s, 1, 2), NB_EXIT_OK);
    const double back[2] = {sin(dt / 2), cos(dt / 2)};
    for (int b = 0; b < 2; ++b) {
        const double side = b ? -1.0 : 1.0;
        s.x[b] = (float)(0.5 * side);
        s.y[b] = s.z[b] = s.vz[b] = 0.0f;
        s.vx[b] = (float)(0.5 * side * back[0]);
        s.vy[b] = (float)(0.5 * side * back[1]);
        s.m[b] = 0.5f;
    }
    nb_run_info info;
    nb_run run = make_run(eps, &info);
    run.steps = (uint64_t)K;
    run.dt = (float)dt;
    ck_assert_int_eq(nb_step_run(&s, &run), NB_EXIT_OK);
    const double rx = (double)s.x[0] - s.x[1], ry = (double)s.y[0] - s.y[1], rz = (double)s.z[0] - s.z[1];
    const double radius = sqrt(rx * rx + ry * ry + rz * rz), phase = atan2(ry, rx);
    const double period = K * (double)run.dt * 2 * PI / (2 * PI + phase);
    const double predicted = K * 2 * asin(dt / 2) - 2 * PI;
    printf("%s circular orbit: radius %.9f (want 1), period %.9f (want 2 pi = %.9f), phase %.3e (leapfrog: %.3e)\n",
           NB_STEP_NAME, radius, period, 2 * PI, phase, predicted);
    ck_assert_msg(fabs(radius - 1.0) <= 1e-4, "radius %.9f after one orbit", radius);
    ck_assert_msg(fabs(period / (2 * PI) - 1.0) <= 1e-4, "period %.9f, want %.9f", period, 2 * PI);
    ck_assert_msg(fabs(rz) <= 1e-6 && fabs((double)s.x[0] + s.x[1]) <= 1e-5 && fabs((double)s.y[0] + s.y[1]) <= 1e-5,
                  "the orbit left its plane or its centre: (%g %g %g) (%g %g %g)", s.x[0], s.y[0], s.z[0], s.x[1],
                  s.y[1], s.z[1]);
    nb_state_free(&s);
}
END_TEST

static void totals(const nb_state *s, double eps2, nb_diag *d)
{
    nb_state64 w;
    ck_assert_int_eq(nb_state64_alloc(&w, s->systems, s->bodies), NB_EXIT_OK);
    nb_state64_from(&w, s);
    nb_diagnostics(&w, eps2, d);
    nb_state64_free(&w);
}

static double norm3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

START_TEST(conservation)
{
    /* A Plummer sphere of N = 256 with random masses, 1000 steps of dt = 1e-3, eps = 0.01.
     * Energy: leapfrog's error belongs to the integrator, not to the step, so the step's relative
     * energy change must equal the fp64 reference's (2.43e-5 here) to within fp32 rounding: each step
     * rounds every coordinate once (2^-24); over 1000 steps that is a random walk of ~2e-6, at most
     * 6e-5 if every rounding went one way. Tolerance 1e-5 on the difference (steps 00-06: <= 5e-8).
     * Momentum and angular momentum: exact for pairwise-antisymmetric forces; fp32 sums break the
     * symmetry by ~2^-24 of each force: |delta p| ~ 1000 steps * dt * sum m|a| * 6e-8 ~ 1e-7 against
     * the scale sum m|v| = 0.67. Tolerance 1e-5 of that scale (steps 00-06: <= 4.2e-8); a force that
     * breaks Newton's third law (m_i for m_j) gives ~1e-2. */
    const size_t n = 256;
    const double eps = 0.01, eps2 = eps * eps, dt = 1e-3;
    const uint64_t steps = 1000;
    nb_state s;
    ck_assert_int_eq(nb_state_alloc(&s, 1, n), NB_EXIT_OK);
    nb_init(&s, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 42);
    nb_diag before, after, ref_after;
    totals(&s, eps2, &before);
    double scale = 0.0;
    for (size_t i = 0; i < n; ++i)
        scale += s.m[i] * sqrt((double)s.vx[i] * s.vx[i] + (double)s.vy[i] * s.vy[i] + (double)s.vz[i] * s.vz[i]);

    nb_state64 ref;
    ck_assert_int_eq(nb_state64_alloc(&ref, 1, n), NB_EXIT_OK);
    nb_state64_from(&ref, &s);
    ck_assert_int_eq(nb_ref_run(&ref, steps, dt, eps2), NB_EXIT_OK);
    nb_diagnostics(&ref, eps2, &ref_after);

    nb_run_info info;
    nb_run run = make_run(eps, &info);
    run.steps = steps;
    run.dt = (float)dt;
    ck_assert_int_eq(nb_step_run(&s, &run), NB_EXIT_OK);
    totals(&s, eps2, &after);

    const double de = (after.energy - before.energy) / fabs(before.energy);
    const double de_ref = (ref_after.energy - before.energy) / fabs(before.energy);
    const double dp[3] = {after.momentum[0] - before.momentum[0], after.momentum[1] - before.momentum[1],
                          after.momentum[2] - before.momentum[2]};
    const double dl[3] = {after.angular[0] - before.angular[0], after.angular[1] - before.angular[1],
                          after.angular[2] - before.angular[2]};
    printf("%s conservation over %llu steps: dE/E %.3e (fp64 reference %.3e), |dp| %.2e, |dL| %.2e (scale %.3f)\n",
           NB_STEP_NAME, (unsigned long long)steps, de, de_ref, norm3(dp), norm3(dl), scale);
    ck_assert_msg(fabs(de - de_ref) <= 1e-5, "energy changed by %.3e, the fp64 reference by %.3e", de, de_ref);
    ck_assert_msg(fabs(de_ref) <= 2e-4, "the reference itself drifts: %.3e", de_ref);
    ck_assert_msg(norm3(dp) <= 1e-5 * scale, "momentum changed by %.3e", norm3(dp));
    ck_assert_msg(norm3(dl) <= 1e-5 * scale, "angular momentum changed by %.3e", norm3(dl));
    nb_state64_free(&ref);
    nb_state_free(&s);
}
END_TEST

/* ---- the contract ----------------------------------------------------------------------------- */

START_TEST(zero_steps_change_nothing)
{
    /* --steps 0 (validate, then write --output) must hand the state back bit for bit. */
    nb_state s, copy;
    ck_assert_int_eq(nb_state_alloc(&s, 3, 257), NB_EXIT_OK);
    ck_assert_int_eq(nb_state_alloc(&copy, 3, 257), NB_EXIT_OK);
    nb_init(&s, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 9);
    nb_state_copy(&copy, &s);
    nb_run_info info;
    nb_run run = make_run(0.01, &info);
    run.steps = 0;
    ck_assert_int_eq(nb_step_run(&s, &run), NB_EXIT_OK);
    for (int k = 0; k < NB_FIELDS; ++k)
        ck_assert_msg(memcmp(nb_state_field(&s, k), nb_state_field(&copy, k), 3 * 257 * sizeof(float)) == 0,
                      "field %d changed in a run of 0 steps", k);
    nb_state_free(&s);
    nb_state_free(&copy);
}
END_TEST

START_TEST(calls_continue_each_other)
{
    /* The harness runs the loop in chunks between snapshots: 1 + 3 steps from one state must be the
     * 4 steps the reference takes (a step that keeps stale device data, or restarts its own clock,
     * fails here). */
    const size_t n = 1000, systems = 3;
    nb_state s;
    ck_assert_int_eq(nb_state_alloc(&s, systems, n), NB_EXIT_OK);
    nb_init(&s, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 8);
    nb_state64 ref;
    ck_assert_int_eq(nb_state64_alloc(&ref, systems, n), NB_EXIT_OK);
    nb_state64_from(&ref, &s);
    ck_assert_int_eq(nb_ref_run(&ref, NB_CHECK_STEPS, NB_CHECK_DT, 1e-4), NB_EXIT_OK);
    nb_run_info info;
    nb_run run = make_run(0.01, &info);
    run.steps = 1;
    ck_assert_int_eq(nb_step_run(&s, &run), NB_EXIT_OK);
    run.steps = NB_CHECK_STEPS - 1;
    ck_assert_int_eq(nb_step_run(&s, &run), NB_EXIT_OK);
    nb_check check;
    nb_check_init(&check);
    ck_assert_int_eq(nb_check_state(&check, &s, &ref), NB_EXIT_OK);
    ck_assert_msg(nb_check_passed(&check), "after 1 + %d steps: positions %.3g, velocities %.3g", NB_CHECK_STEPS - 1,
                  check.pos_max, check.vel_max);
    nb_state64_free(&ref);
    nb_state_free(&s);
}
END_TEST

START_TEST(deterministic_is_bit_identical)
{
    /* --deterministic (steps with NB_FEATURE_DETERMINISTIC): the forces summed in a fixed order. Two runs
     * from one state must agree bit for bit (atomic adds would not: their order follows the schedule),
     * and the fixed-order forces must pass the same validation as the default ones. */
    const size_t n = 4099, systems = 3;
    nb_state init, a, b;
    ck_assert_int_eq(nb_state_alloc(&init, systems, n), NB_EXIT_OK);
    ck_assert_int_eq(nb_state_alloc(&a, systems, n), NB_EXIT_OK);
    ck_assert_int_eq(nb_state_alloc(&b, systems, n), NB_EXIT_OK);
    nb_init(&init, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 5);
    nb_run_info info;
    nb_run run = make_run(0.01, &info);
    run.extra.deterministic = 1;

    nb_state64 ref;
    ck_assert_int_eq(nb_state64_alloc(&ref, systems, n), NB_EXIT_OK);
    nb_state64_from(&ref, &init);
    double *acc = malloc(3 * systems * n * sizeof(double));
    ck_assert_ptr_nonnull(acc);
    nb_ref_accel(&ref, 1e-4, NULL, 0, acc, acc + systems * n, acc + 2 * systems * n);
    nb_check check;
    nb_check_init(&check);
    ck_assert_int_eq(nb_trial_accel(step_direct, NULL, &run, &init, &a), NB_EXIT_OK);
    ck_assert_int_eq(nb_check_accel(&check, &init, &a, NULL, 0, acc, acc + systems * n, acc + 2 * systems * n),
                     NB_EXIT_OK);
    free(acc);
    printf("%s --deterministic N=%zu S=%zu: acc max %.2e rms %.2e\n", NB_STEP_NAME, n, systems, check.acc_max,
           check.acc_rms);
    ck_assert_msg(nb_check_passed(&check), "--deterministic: acc max %.3g rms %.3g", check.acc_max, check.acc_rms);

    run.steps = 5;
    nb_state_copy(&a, &init);
    nb_state_copy(&b, &init);
    ck_assert_int_eq(nb_step_run(&a, &run), NB_EXIT_OK);
    ck_assert_int_eq(nb_step_run(&b, &run), NB_EXIT_OK);
    for (int k = 0; k < NB_FIELDS; ++k)
        ck_assert_msg(memcmp(nb_state_field(&a, k), nb_state_field(&b, k), systems * n * sizeof(float)) == 0,
                      "--deterministic: field %d differs between two runs from one state", k);
    nb_state64_free(&ref);
    nb_state_free(&b);
    nb_state_free(&a);
    nb_state_free(&init);
}
END_TEST

/* ---- tree steps (NB_FEATURE_THETA): the approximation and hard inputs --------------------------- */

/* One force evaluation at `theta` of `init` against fp64, held to the tree class's limits (theta > 0)
 * or the exact ones (theta = 0). */
static void tree_check(const nb_state *init, float theta, const char *what)
{
    const size_t total = nb_state_count(init);
    nb_state trial;
    ck_assert_int_eq(nb_state_alloc(&trial, init->systems, init->bodies), NB_EXIT_OK);
    nb_run_info info;
    nb_run run = make_run(0.01, &info);
    run.extra.theta = theta;
    nb_state64 ref;
    ck_assert_int_eq(nb_state64_alloc(&ref, init->systems, init->bodies), NB_EXIT_OK);
    nb_state64_from(&ref, init);
    double *acc = malloc(3 * total * sizeof(double));
    ck_assert_ptr_nonnull(acc);
    nb_ref_accel(&ref, 1e-4, NULL, 0, acc, acc + total, acc + 2 * total);
    nb_check check;
    nb_check_init(&check);
    check.theta = theta;
    ck_assert_msg(nb_trial_accel(step_direct, NULL, &run, init, &trial) == NB_EXIT_OK, "%s: the step failed", what);
    ck_assert_int_eq(nb_check_accel(&check, init, &trial, NULL, 0, acc, acc + total, acc + 2 * total), NB_EXIT_OK);
    printf("%s %s theta=%g: acc rms %.2e (tol %.1e) max %.2e (tol %.1e)\n", NB_STEP_NAME, what, theta, check.acc_rms,
           check.tol_rms, check.acc_max, check.tol_max);
    ck_assert_msg(nb_check_passed(&check), "%s at theta %g: acc rms %.3g max %.3g%s", what, theta, check.acc_rms,
                  check.acc_max, check.nonfinite ? ", non-finite" : "");
    free(acc);
    nb_state64_free(&ref);
    nb_state_free(&trial);
}

START_TEST(tree_within_its_limits)
{
    nb_state s;
    ck_assert_int_eq(nb_state_alloc(&s, 2, 16384), NB_EXIT_OK);
    nb_init(&s, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 5);
    tree_check(&s, NB_THETA_DEFAULT, "Plummer N=16384 S=2");
    tree_check(&s, 0.7f, "Plummer N=16384 S=2");
    nb_init(&s, NB_MODEL_UNIFORM, NB_MASSES_RANDOM, 5);
    tree_check(&s, NB_THETA_DEFAULT, "uniform N=16384 S=2");
    nb_state_free(&s);
}
END_TEST

START_TEST(tree_hard_inputs)
{
    nb_state s;
    /* All bodies at one place: every pair at distance 0, the softened force 0; a tree of equal keys. */
    ck_assert_int_eq(nb_state_alloc(&s, 1, 1000), NB_EXIT_OK);
    nb_init(&s, NB_MODEL_UNIFORM, NB_MASSES_RANDOM, 3);
    for (size_t i = 0; i < 1000; ++i)
        s.x[i] = s.y[i] = s.z[i] = 0.25f;
    tree_check(&s, 0.0f, "1000 bodies at one point");
    tree_check(&s, NB_THETA_DEFAULT, "1000 bodies at one point");
    nb_state_free(&s);
    /* One body far from the rest: the others crowd into a few cells of the bounding cube, a deep tree. */
    ck_assert_int_eq(nb_state_alloc(&s, 1, 4099), NB_EXIT_OK);
    nb_init(&s, NB_MODEL_PLUMMER, NB_MASSES_EQUAL, 4);
    s.x[0] = s.y[0] = s.z[0] = 1e5f;
    tree_check(&s, 0.0f, "Plummer N=4099, one body at 1e5");
    tree_check(&s, NB_THETA_DEFAULT, "Plummer N=4099, one body at 1e5");
    nb_state_free(&s);
    /* Many coincident pairs inside a normal cluster. */
    ck_assert_int_eq(nb_state_alloc(&s, 1, 4099), NB_EXIT_OK);
    nb_init(&s, NB_MODEL_PLUMMER, NB_MASSES_EQUAL, 6);
    for (size_t i = 1; i < 4099; i += 2) {
        s.x[i] = s.x[i - 1];
        s.y[i] = s.y[i - 1];
        s.z[i] = s.z[i - 1];
    }
    tree_check(&s, 0.0f, "Plummer N=4099 in coincident pairs");
    tree_check(&s, NB_THETA_DEFAULT, "Plummer N=4099 in coincident pairs");
    nb_state_free(&s);
}
END_TEST

/* ---- the program --------------------------------------------------------------------------- */

/* ---- block time steps (NB_FEATURE_BLOCK_STEPS) ---------------------------------------------------- */

START_TEST(block_large_eta_is_one_level)
{
    /* eta = 10: a body's step 10 sqrt(eps/|a|) >= 0.3 (|a| < 10 in a Plummer sphere of Henon units) against
     * dt = 0.001: every body on level 0, and 8 levels allowed must give the bits of one level. */
    const size_t n = 4099, systems = 3;
    nb_state init, a, b;
    ck_assert_int_eq(nb_state_alloc(&init, systems, n), NB_EXIT_OK);
    ck_assert_int_eq(nb_state_alloc(&a, systems, n), NB_EXIT_OK);
    ck_assert_int_eq(nb_state_alloc(&b, systems, n), NB_EXIT_OK);
    nb_init(&init, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 5);
    nb_run_info info;
    nb_run run = make_run(0.01, &info);
    run.steps = 5;
    nb_state_copy(&a, &init);
    nb_state_copy(&b, &init);
    ck_assert_int_eq(nb_step_run(&a, &run), NB_EXIT_OK);
    run.extra.levels = 8;
    run.extra.eta = 10.0f;
    ck_assert_int_eq(nb_step_run(&b, &run), NB_EXIT_OK);
    for (int k = 0; k < NB_FIELDS; ++k)
        ck_assert_msg(memcmp(nb_state_field(&a, k), nb_state_field(&b, k), systems * n * sizeof(float)) == 0,
                      "--levels 8 --eta 10: field %d differs from --levels 1 (every body should be on level 0)", k);
    nb_state_free(&b);
    nb_state_free(&a);
    nb_state_free(&init);
}
END_TEST

/* The accelerations at s's positions, by the step itself: one step from rest with dt = 1, one level. */
static void step_accel(const nb_state *s, nb_state *acc)
{
    nb_run_info info;
    nb_run run = make_run(0.01, &info);
    ck_assert_int_eq(nb_trial_accel(step_direct, NULL, &run, s, acc), NB_EXIT_OK);
}

START_TEST(block_bookkeeping)
{
    /* eta = 1e-6 with 2 levels: every body on level 1, h = dt_max / 2. Two dt_max steps must be the contract
     * (one level) with dt = h for four steps, started from v + a(x0) dt_max/4 (the first block kick is
     * (dt_max + h)/2 = h + dt_max/4) and ended with v - a(x_end) dt_max/4 (the closing kick (h - dt_max)/2).
     * Only roundings differ (a kick split in two): allowed 1e-5 in velocity (|v| ~ 0.5 here) and 1e-5 in
     * position (a few ulp of |x| < 6); a missed kick is a h ~ 1e-3 in velocity, a kick of the wrong level
     * a dt_max / 4 ~ 5e-4. */
    const size_t n = 4099, systems = 3, total = n * systems;
    const float dt_max = 0.002f;
    nb_state init, block, contract, acc;
    ck_assert_int_eq(nb_state_alloc(&init, systems, n), NB_EXIT_OK);
    ck_assert_int_eq(nb_state_alloc(&block, systems, n), NB_EXIT_OK);
    ck_assert_int_eq(nb_state_alloc(&contract, systems, n), NB_EXIT_OK);
    ck_assert_int_eq(nb_state_alloc(&acc, systems, n), NB_EXIT_OK);
    nb_init(&init, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 7);
    nb_run_info info;
    nb_run run = make_run(0.01, &info);
    run.dt = dt_max;
    run.steps = 2;
    run.extra.levels = 2;
    run.extra.eta = 1e-6f;
    nb_state_copy(&block, &init);
    ck_assert_int_eq(nb_step_run(&block, &run), NB_EXIT_OK);

    nb_state_copy(&contract, &init);
    step_accel(&contract, &acc);
    for (size_t i = 0; i < total; ++i) {
        contract.vx[i] += acc.vx[i] * (0.25f * dt_max);
        contract.vy[i] += acc.vy[i] * (0.25f * dt_max);
        contract.vz[i] += acc.vz[i] * (0.25f * dt_max);
    }
    run = make_run(0.01, &info);
    run.dt = 0.5f * dt_max;
    run.steps = 4;
    ck_assert_int_eq(nb_step_run(&contract, &run), NB_EXIT_OK);
    step_accel(&contract, &acc);
    double worst_v = 0.0, worst_x = 0.0;
    size_t at = 0;
    for (size_t i = 0; i < total; ++i) {
        contract.vx[i] -= acc.vx[i] * (0.25f * dt_max);
        contract.vy[i] -= acc.vy[i] * (0.25f * dt_max);
        contract.vz[i] -= acc.vz[i] * (0.25f * dt_max);
        const double dv = fabs((double)block.vx[i] - contract.vx[i]) + fabs((double)block.vy[i] - contract.vy[i]) +
                          fabs((double)block.vz[i] - contract.vz[i]);
        const double dx = fabs((double)block.x[i] - contract.x[i]) + fabs((double)block.y[i] - contract.y[i]) +
                          fabs((double)block.z[i] - contract.z[i]);
        if (!(dv <= worst_v)) {
            worst_v = dv;
            at = i;
        }
        if (!(dx <= worst_x))
            worst_x = dx;
    }
    printf("%s block steps (2 levels, all on level 1) against 4 contract steps of dt/2: worst |dv| %.2e (body %zu), "
           "|dx| %.2e\n", NB_STEP_NAME, worst_v, at, worst_x);
    ck_assert_msg(worst_v <= 1e-5, "body %zu: the block steps' velocity is %.3e from the contract's", at, worst_v);
    ck_assert_msg(worst_x <= 1e-5, "the block steps' positions are %.3e from the contract's", worst_x);
    nb_state_free(&acc);
    nb_state_free(&contract);
    nb_state_free(&block);
    nb_state_free(&init);
}
END_TEST

static const char *names[64];
static size_t named;

static void add(TCase *tc, const TTest *test, const char *name)
{
    tcase_add_test(tc, test);
    names[named++] = name;
}

int main(void)
{
    gpu = nb_platform_is_gpu();
    Suite *suite = suite_create(NB_STEP_NAME);
    /* Timeouts for a 2-core machine: the largest CPU case (S = 3, N = 4099) takes about a second. */
    TCase *ref = nbt_tcase(suite, "reference", 300);
    static char config_names[CONFIGS][128];
    for (int i = 0; i < CONFIGS; ++i) {
        if (configs[i].gpu_only && !gpu)
            continue;
        config_name(&configs[i], config_names[i], sizeof config_names[i]);
        tcase_add_loop_test(ref, against_reference, i, i + 1);
        names[named++] = config_names[i];
    }
    TCase *physics = nbt_tcase(suite, "physics", 300);
    add(physics, circular_orbit, "circular orbit");
    add(physics, conservation, "conservation over 1000 steps");
    TCase *contract = nbt_tcase(suite, "contract", 120);
    add(contract, zero_steps_change_nothing, "zero steps change nothing");
    add(contract, calls_continue_each_other, "calls continue each other");
    if (nb_features_parse(NB_STEP_FEATURES) & NB_FEATURE_THETA) {
        TCase *tree = nbt_tcase(suite, "tree", 300);
        add(tree, tree_within_its_limits, "the default theta and 0.7 within the tree class's limits");
        add(tree, tree_hard_inputs, "one point, a far body, coincident pairs");
    }
    if (nb_features_parse(NB_STEP_FEATURES) & NB_FEATURE_DETERMINISTIC)
        add(contract, deterministic_is_bit_identical, "--deterministic: validated, bit-identical twice");
    if (nb_features_parse(NB_STEP_FEATURES) & NB_FEATURE_BLOCK_STEPS) {
        TCase *blocks = nbt_tcase(suite, "block steps", 120);
        add(blocks, block_large_eta_is_one_level, "--eta 10: every body on level 0, the bits of one level");
        add(blocks, block_bookkeeping, "two levels, all on level 1: the contract at dt/2 with the first and last kicks");
    }

    if (!gpu)
        return nbt_run(suite, CK_FORK);
    /* No CUDA before a fork: on the GPU nothing forks, and a machine without a GPU skips. */
    nbt_capture err;
    nbt_capture_begin(&err);
    const int rc = nb_platform_open(0, (nb_features_parse(NB_STEP_FEATURES) & NB_FEATURE_MULTI_GPU) != 0);
    nbt_capture_end(&err);
    if (rc != NB_EXIT_OK) {
        char *why = strstr(err.text, ": ");
        why = why ? why + 2 : err.text;
        why[strcspn(why, "\n")] = '\0';
        return nbt_skip(NB_STEP_NAME, names, named, why);
    }
    return nbt_run(suite, CK_NOFORK);
}
