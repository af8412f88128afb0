/* check_blocks.c: the block-step check (common/validate.h, nb_check_blocks) tells right block steps from
 * wrong ones, and the fp64 run of the scheme (common/reference.h, nb_ref_run_blocks) is the contract's
 * run when there is one level.
 *
 * A float32 block-step step written here (step13_block_steps' scheme, the direct sum for the forces, as
 * step13 at theta 0) runs through the judge's own check: it passes; with one planted fault (the faults
 * step13 can be built with: an active body not kicked, a level boundary off by one) it fails. */
#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include "init.h"
#include "reference.h"
#include "testlib.h"
#include "validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum fault {
    CORRECT,
    MISSED_KICK,       /* one body in 64 off level 0 misses its kicks after the first substep */
    LEVEL_OFF_BY_ONE,  /* every level one too coarse: a step twice what eta allows */
    ACTIVE_OFF_BY_ONE, /* a level's step taken to start one substep late */
    NEW_STEP_ONLY,     /* the kick at substep 0 is the new step's alone, not (old + new) / 2 */
    LEVELS_IGNORED,    /* every body on level 0 whatever --levels says: the step it grows from, renamed */
    NEVER_FINER,       /* levels held for the whole dt_max step: no body goes finer at its own step's start */
    FAULTS
} fault;

static const char *const fault_name[FAULTS] = {"correct",           "missed kick",       "level off by one",
                                               "active off by one", "new step at sub 0", "levels ignored",
                                               "never finer"};
static fault planted;

static void forces(const nb_state *s, float eps2, const int *active, size_t count, float *ax, float *ay, float *az)
{
    const size_t n = s->bodies;
    for (size_t k = 0; k < count; ++k) {
        const size_t i = active ? (size_t)active[k] : k, first = i / n * n;
        float a[3] = {0.0f, 0.0f, 0.0f};
        for (size_t j = first; j < first + n; ++j) {
            const float dx = s->x[j] - s->x[i], dy = s->y[j] - s->y[i], dz = s->z[j] - s->z[i];
            const float inv = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz + eps2);
            const float f = s->m[j] * inv * inv * inv;
            a[0] += dx * f;
            a[1] += dy * f;
            a[2] += dz * f;
        }
        ax[i] = a[0];
        ay[i] = a[1];
        az[i] = a[2];
    }
}

static int active_at(int level, int sub, int deepest)
{
    const int offset = planted == ACTIVE_OFF_BY_ONE && level > 0 && level < deepest ? 1 : 0;
    return ((sub - offset) & ((1 << (deepest - level)) - 1)) == 0 && sub >= offset;
}

/* A body's level from its acceleration, at most top, with `planted` switched in. */
static int level_of(float ax, float ay, float az, float dt_max, float bound, int top)
{
    const float pull = sqrtf(ax * ax + ay * ay + az * az);
    float h = dt_max;
    int k = 0;
    while (k < top && h * h * pull > bound) {
        h *= 0.5f;
        ++k;
    }
    if (planted == LEVEL_OFF_BY_ONE && k > 0)
        --k;
    return planted == LEVELS_IGNORED ? 0 : k;
}

/* step13's time loop in float32, with `planted` switched in. */
static int block_step(void *ctx, nb_state *s, const nb_run *run)
{
    (void)ctx;
    const size_t total = nb_state_count(s);
    float *acc = malloc(3 * total * sizeof(float));
    int *level = calloc(2 * total, sizeof(int)), *active = malloc(total * sizeof(int));
    ck_assert(acc && level && active);
    float *ax = acc, *ay = acc + total, *az = acc + 2 * total;
    int *now = level, *old = level + total;
    const float dt_max = run->dt, eps = sqrtf(run->eps2), eta = run->extra.eta, bound = eta * eta * eps;
    const int top = (int)run->extra.levels - 1;
    int deepest = 0;
    for (uint64_t step = 0; step < run->steps; ++step) {
        forces(s, run->eps2, NULL, total, ax, ay, az);
        deepest = 0;
        for (size_t i = 0; i < total; ++i) {
            now[i] = level_of(ax[i], ay[i], az[i], dt_max, bound, top);
            deepest = now[i] > deepest ? now[i] : deepest;
        }
        const float dt = ldexpf(dt_max, -deepest);
        for (int sub = 0; sub < 1 << deepest; ++sub) {
            size_t count = 0;
            for (size_t i = 0; sub > 0 && i < total; ++i)
                if (active_at(now[i], sub, deepest))
                    active[count++] = (int)i;
            forces(s, run->eps2, active, count, ax, ay, az);
            for (size_t i = 0; i < total; ++i) {
                const int was = sub == 0 ? old[i] : now[i];
                const int ends = sub == 0 || active_at(was, sub, deepest);
                if (sub > 0 && ends && planted != NEVER_FINER) {
                    const int want = level_of(ax[i], ay[i], az[i], dt_max, bound, deepest);
                    now[i] = want > was ? want : was;
                }
                const float own = ldexpf(dt_max, -now[i]);
                const float half = planted == NEW_STEP_ONLY && sub == 0 ? 0.5f * own : 0.5f * ldexpf(dt_max, -was);
                float w = ends ? half + 0.5f * own : 0.0f;
                if (planted == MISSED_KICK && i % 64 == 1 && now[i] > 0 && sub > 0)
                    w = 0.0f;
                s->vx[i] += ax[i] * w;
                s->vy[i] += ay[i] * w;
                s->vz[i] += az[i] * w;
                s->x[i] += s->vx[i] * dt;
                s->y[i] += s->vy[i] * dt;
                s->z[i] += s->vz[i] * dt;
            }
        }
        int *t = now;
        now = old;
        old = t;
    }
    if (deepest > 0) {
        forces(s, run->eps2, NULL, total, ax, ay, az);
        for (size_t i = 0; i < total; ++i) {
            const float w = 0.5f * (ldexpf(dt_max, -old[i]) - dt_max);
            s->vx[i] += ax[i] * w;
            s->vy[i] += ay[i] * w;
            s->vz[i] += az[i] * w;
        }
    }
    free(acc);
    free(level);
    free(active);
    return NB_EXIT_OK;
}

/* The judge's block check (common/judge.c, validate_blocks) on N Hernquist bodies, S systems, L levels. */
static void check_blocks(fault f, size_t systems, size_t bodies, unsigned levels, nb_check *c, char *printed,
                         size_t len)
{
    planted = f;
    nb_state init, trial;
    ck_assert_int_eq(nb_state_alloc(&init, systems, bodies), NB_EXIT_OK);
    ck_assert_int_eq(nb_state_alloc(&trial, systems, bodies), NB_EXIT_OK);
    nb_init(&init, NB_MODEL_HERNQUIST, NB_MASSES_EQUAL, 7);
    const float eps2 = 1e-4f;
    const nb_block_params p = {levels, NB_ETA_DEFAULT, sqrt((double)eps2), 0, NB_BLOCK_MARGIN, 0, NB_CRITERION_ACCEL,
                               NULL, NULL};
    nb_state64 want;
    ck_assert_int_eq(nb_state64_alloc(&want, systems, bodies), NB_EXIT_OK);
    nb_state64_from(&want, &init);
    /* the judge's dt_max: the median body half a level past level 0 */
    const double dt_max = (double)(float)nb_block_check_dt(&want, p.eta, p.eps, eps2);
    ck_assert(dt_max > 0.0);
    unsigned char *boundary = malloc(systems * bodies);
    nb_block_stats stats;
    ck_assert_int_eq(nb_ref_run_blocks(&want, NB_BLOCK_CHECK_STEPS, dt_max, eps2, &p, boundary, &stats), NB_EXIT_OK);
    nb_run_info info;
    nb_run run = {.steps = 1, .dt = (float)dt_max, .eps2 = eps2, .info = &info};
    run.extra.levels = levels;
    run.extra.eta = NB_ETA_DEFAULT;
    ck_assert_int_eq(nb_trial_blocks(block_step, NULL, &run, &init, (float)dt_max, NB_BLOCK_CHECK_STEPS, &trial),
                     NB_EXIT_OK);
    nb_check_init(c);
    c->block_levels = levels;
    c->block_dt = dt_max;
    ck_assert_int_eq(nb_check_blocks(c, &init, &trial, &want, boundary, &stats, eps2), NB_EXIT_OK);
    FILE *out = fmemopen(printed, len - 1, "w");
    nb_check_print(out, c, bodies);
    fclose(out);
    free(boundary);
    nb_state64_free(&want);
    nb_state_free(&trial);
    nb_state_free(&init);
}

START_TEST(correct_blocks_pass)
{
    nb_check c;
    char printed[4096] = "";
    check_blocks(CORRECT, 3, 1000, 4, &c, printed, sizeof printed);
    fprintf(stderr, "correct:\n%s", printed);
    ck_assert_msg(nb_check_passed(&c), "the correct block steps failed:\n%s", printed);
    ck_assert_msg(c.block_deepest >= 2, "the check spread the bodies over too few levels (deepest %u)",
                  c.block_deepest);
    ck_assert_msg(c.block_boundary < 3 * 1000 / 50, "%zu bodies on a boundary: too many left out", c.block_boundary);
}
END_TEST

START_TEST(planted_fault_fails)
{
    const fault f = (fault)(_i + 1);
    nb_check c;
    char printed[4096] = "";
    check_blocks(f, 3, 1000, 4, &c, printed, sizeof printed);
    fprintf(stderr, "%s:\n%s", fault_name[f], printed);
    ck_assert_msg(!nb_check_passed(&c), "the planted fault '%s' passed:\n%s", fault_name[f], printed);
}
END_TEST

/* An fp64 copy of a drawn state (S systems of N bodies); free it. */
static void drawn(size_t systems, size_t bodies, nb_model model, nb_masses masses, uint64_t seed, nb_state64 *a)
{
    nb_state init;
    ck_assert_int_eq(nb_state_alloc(&init, systems, bodies), NB_EXIT_OK);
    nb_init(&init, model, masses, seed);
    ck_assert_int_eq(nb_state64_alloc(a, systems, bodies), NB_EXIT_OK);
    nb_state64_from(a, &init);
    nb_state_free(&init);
}

/* Two fp64 copies of one drawn state for two runs to compare; free both. */
static void two_copies(size_t systems, size_t bodies, nb_model model, nb_masses masses, uint64_t seed, nb_state64 *a,
                       nb_state64 *b)
{
    drawn(systems, bodies, model, masses, seed, a);
    ck_assert_int_eq(nb_state64_alloc(b, systems, bodies), NB_EXIT_OK);
    nb_state64_copy(b, a);
}

/* One level is the contract's kick-drift run, bit for bit; and no body is on a boundary. */
START_TEST(one_level_is_the_contract)
{
    nb_state64 a, b;
    two_copies(2, 300, NB_MODEL_HERNQUIST, NB_MASSES_RANDOM, 3, &a, &b);
    const double eps2 = 1e-4;
    const nb_block_params p = {1, 0.2, 0.01, 0, NB_BLOCK_MARGIN, 0, NB_CRITERION_ACCEL, NULL, NULL};
    nb_block_stats stats;
    ck_assert_int_eq(nb_ref_run_blocks(&a, 3, 0.01, eps2, &p, NULL, &stats), NB_EXIT_OK);
    ck_assert_int_eq(nb_ref_run(&b, 3, 0.01, eps2), NB_EXIT_OK);
    for (int k = 0; k < NB_FIELDS; ++k)
        ck_assert_mem_eq(nb_state64_field(&a, k), nb_state64_field(&b, k), 600 * sizeof(double));
    ck_assert_uint_eq(stats.deepest, 0);
    ck_assert_uint_eq(stats.on_level[0], 3 * 600);
    nb_state64_free(&a);
    nb_state64_free(&b);
}
END_TEST

/* pin_first puts each system's first body (the hole) on the deepest level in use: over one step from the
 * same start, one more body there for each system whose hole the criterion leaves above it, and another
 * run. */
START_TEST(pin_first_puts_the_first_body_deepest)
{
    nb_state64 plain, pinned;
    two_copies(2, 256, NB_MODEL_HERNQUIST_BH, NB_MASSES_EQUAL, 7, &plain, &pinned);
    const double eps2 = 0.0025 * 0.0025, dt_max = 0.0625;
    nb_block_params p = {8, 0.2, 0.0025, 0, NB_BLOCK_MARGIN, 0, NB_CRITERION_ACCEL, NULL, NULL};
    nb_block_stats a, b;
    ck_assert_int_eq(nb_ref_run_blocks(&plain, 1, dt_max, eps2, &p, NULL, &a), NB_EXIT_OK);
    p.pin_first = 1;
    ck_assert_int_eq(nb_ref_run_blocks(&pinned, 1, dt_max, eps2, &p, NULL, &b), NB_EXIT_OK);
    ck_assert_msg(a.deepest >= 3, "too few levels to test (deepest %u)", a.deepest);
    ck_assert_uint_eq(a.deepest, b.deepest);
    uint64_t below_a = 0, below_b = 0; /* bodies off the deepest level */
    for (unsigned k = 0; k < a.deepest; ++k)
        below_a += a.on_level[k], below_b += b.on_level[k];
    ck_assert_msg(below_b < below_a && below_a - below_b <= 2, "off the deepest level: %llu plain, %llu pinned",
                  (unsigned long long)below_a, (unsigned long long)below_b);
    ck_assert_msg(memcmp(plain.x, pinned.x, 512 * sizeof(double)) != 0, "the pinned run is the plain one");
    nb_state64_free(&plain);
    nb_state64_free(&pinned);
}
END_TEST

/* A body whose pull grows goes finer at its own step's start, inside a dt_max step: about the hole some do
 * (stats.finer counts them), but not every body. */
START_TEST(bodies_go_finer_inside_a_step)
{
    nb_state64 a;
    drawn(1, 512, NB_MODEL_HERNQUIST_BH, NB_MASSES_EQUAL, 3, &a);
    const double eps2 = 0.0025 * 0.0025, dt_max = 0.0625;
    const nb_block_params p = {10, 0.2, 0.0025, 0, NB_BLOCK_MARGIN, 0, NB_CRITERION_ACCEL, NULL, NULL};
    nb_block_stats stats;
    ck_assert_int_eq(nb_ref_run_blocks(&a, 2, dt_max, eps2, &p, NULL, &stats), NB_EXIT_OK);
    ck_assert_msg(stats.finer > 0 && stats.finer < 512, "%llu bodies went finer", (unsigned long long)stats.finer);
    nb_state64_free(&a);
}
END_TEST

/* nb_block_params.forces: a hook that declines leaves the run as it was, one that gives the exact forces
 * itself too (so its forces land on the bodies it was given), one that halves them changes the run; it is
 * called only after a dt_max step's first substep, and only for bodies whose step starts there. */
typedef struct hook_record {
    int mode; /* 0 decline, 1 the exact forces, 2 half of them */
    size_t calls, bodies, wrong;
} hook_record;
static int hook_forces(void *ctx, const nb_state64 *s, int sub, int deepest, const int *level, const size_t *active,
                       size_t count, double *ax, double *ay, double *az)
{
    hook_record *r = (hook_record *)ctx;
    r->calls += 1, r->bodies += count;
    for (size_t k = 0; k < count; ++k)
        r->wrong += sub <= 0 || (sub & ((1 << (deepest - level[active[k]])) - 1)) != 0;
    if (r->mode == 0)
        return 0;
    nb_ref_accel(s, 0.0025 * 0.0025, active, count, ax, ay, az);
    for (size_t k = 0; r->mode == 2 && k < count; ++k)
        ax[k] *= 0.5, ay[k] *= 0.5, az[k] *= 0.5;
    return 1;
}
START_TEST(substep_forces_replace_the_exact_ones)
{
    nb_state64 plain, hooked;
    two_copies(1, 384, NB_MODEL_HERNQUIST_BH, NB_MASSES_EQUAL, 5, &plain, &hooked);
    nb_state64 start;
    ck_assert_int_eq(nb_state64_alloc(&start, 1, 384), NB_EXIT_OK);
    nb_state64_copy(&start, &plain);
    const double eps2 = 0.0025 * 0.0025, dt_max = 0.0625;
    nb_block_params p = {8, 0.2, 0.0025, 0, NB_BLOCK_MARGIN, 0, NB_CRITERION_ACCEL, NULL, NULL};
    nb_block_stats a, b;
    ck_assert_int_eq(nb_ref_run_blocks(&plain, 2, dt_max, eps2, &p, NULL, &a), NB_EXIT_OK);
    ck_assert_msg(a.deepest >= 3, "too few levels to test (deepest %u)", a.deepest);
    for (int mode = 0; mode < 3; ++mode) {
        hook_record r = {mode, 0, 0, 0};
        p.forces = hook_forces, p.forces_ctx = &r;
        nb_state64_copy(&hooked, &start);
        ck_assert_int_eq(nb_ref_run_blocks(&hooked, 2, dt_max, eps2, &p, NULL, &b), NB_EXIT_OK);
        ck_assert_msg(r.calls > 0 && r.wrong == 0, "mode %d: %zu calls, %zu bodies not starting a step", mode,
                      r.calls, r.wrong);
        ck_assert_uint_eq(r.bodies, b.forces - 2 * 384); /* every force after a dt_max step's first substep */
        const int same = memcmp(plain.x, hooked.x, 384 * sizeof(double)) == 0 &&
                         memcmp(plain.vx, hooked.vx, 384 * sizeof(double)) == 0;
        ck_assert_msg(same == (mode < 2), "mode %d: the run %s the plain one", mode, same ? "is" : "is not");
    }
    nb_state64_free(&plain);
    nb_state64_free(&hooked);
    nb_state64_free(&start);
}
END_TEST

/* Block steps converge to the shared finest step: with more levels (a finer deepest step for the bodies
 * that need it) the fp64 run comes closer to one at dt_max / 2^5 for all. */
START_TEST(levels_approach_the_finest_step)
{
    nb_state init;
    ck_assert_int_eq(nb_state_alloc(&init, 1, 500), NB_EXIT_OK);
    nb_init(&init, NB_MODEL_HERNQUIST, NB_MASSES_EQUAL, 11);
    const double eps2 = 1e-4, dt_max = 0.04;
    nb_state64 fine, run;
    ck_assert_int_eq(nb_state64_alloc(&fine, 1, 500), NB_EXIT_OK);
    ck_assert_int_eq(nb_state64_alloc(&run, 1, 500), NB_EXIT_OK);
    nb_state64_from(&fine, &init);
    ck_assert_int_eq(nb_ref_run(&fine, 2 * 32, dt_max / 32, eps2), NB_EXIT_OK);
    double last = INFINITY;
    for (unsigned levels = 1; levels <= 4; levels += 3) {
        nb_state64_from(&run, &init);
        const nb_block_params p = {levels, 0.2, 0.01, 0, NB_BLOCK_MARGIN, 0, NB_CRITERION_ACCEL, NULL, NULL};
        nb_block_stats stats;
        ck_assert_int_eq(nb_ref_run_blocks(&run, 2, dt_max, eps2, &p, NULL, &stats), NB_EXIT_OK);
        double worst = 0.0;
        for (size_t i = 0; i < 500; ++i)
            worst = fmax(worst, fabs(run.x[i] - fine.x[i]) + fabs(run.y[i] - fine.y[i]) + fabs(run.z[i] - fine.z[i]));
        ck_assert_msg(worst < last, "%u levels: %.3e from the finest step, not closer than %.3e", levels, worst, last);
        last = worst;
    }
    nb_state64_free(&fine);
    nb_state64_free(&run);
    nb_state_free(&init);
}
END_TEST

/* A run ended after k steps (its closing kick given) and gone on for k more is the run of 2k steps, to
 * fp64 rounding: the closing kick and the next step's first add up to the unbroken step's (the judge
 * takes the timed 2k reference this way, common/judge.c timed_reference). */
START_TEST(a_run_goes_on_where_it_ended)
{
    nb_state64 whole, parts;
    two_copies(1, 400, NB_MODEL_HERNQUIST, NB_MASSES_RANDOM, 5, &whole, &parts);
    const double eps2 = 1e-4, dt_max = 0.04;
    const nb_block_params p = {5, 0.2, 0.01, 0, NB_BLOCK_MARGIN, 0, NB_CRITERION_ACCEL, NULL, NULL};
    nb_block_stats stats;
    ck_assert_int_eq(nb_ref_run_blocks(&whole, 4, dt_max, eps2, &p, NULL, &stats), NB_EXIT_OK);
    ck_assert_msg(stats.deepest >= 2, "too few levels to test (deepest %u)", stats.deepest);
    ck_assert_int_eq(nb_ref_run_blocks(&parts, 2, dt_max, eps2, &p, NULL, &stats), NB_EXIT_OK);
    ck_assert_int_eq(nb_ref_run_blocks(&parts, 2, dt_max, eps2, &p, NULL, &stats), NB_EXIT_OK);
    for (int k = 0; k < 6; ++k) {
        const double *a = nb_state64_field(&whole, k), *b = nb_state64_field(&parts, k);
        for (size_t i = 0; i < 400; ++i)
            ck_assert_msg(fabs(a[i] - b[i]) <= 1e-12 * (1.0 + fabs(a[i])), "field %d body %zu: %.17g against %.17g", k,
                          i, a[i], b[i]);
    }
    nb_state64_free(&whole);
    nb_state64_free(&parts);
}
END_TEST

/* Each criterion reads its own rate: a light body a unit distance from a unit mass, where |a| = 1, the sum of
 * m / d^3 is 1 and the tidal tensor's norm sqrt(6), takes level 2 (5.5^2 / 4^2 <= eta^2 eps = 4), 3 (5.5^2 /
 * 8^2 <= 1) and 4 (5.5^2 sqrt(6) / 16^2 <= 1; a norm without T's off-diagonal terms twice, sqrt(3.75), would
 * give 3) at dt_max = 5.5, eta = 1, eps = 4 (read by the acceleration's alone); the unit mass, pulled by
 * almost nothing, stays on level 0. */
START_TEST(each_criterion_reads_its_rate)
{
    const nb_criterion criteria[] = {NB_CRITERION_ACCEL, NB_CRITERION_SUM, NB_CRITERION_TIDAL};
    const unsigned expected[] = {2, 3, 4};
    for (int c = 0; c < 3; ++c) {
        nb_state64 s;
        ck_assert_int_eq(nb_state64_alloc(&s, 1, 2), NB_EXIT_OK);
        for (int k = 0; k < NB_FIELDS; ++k)
            memset(nb_state64_field(&s, k), 0, 2 * sizeof(double));
        const double h = sqrt(0.5); /* off the axes, so that T's off-diagonal terms count */
        s.m[0] = 1.0, s.m[1] = 1e-12, s.x[1] = h, s.y[1] = h, s.vx[1] = -h, s.vy[1] = h; /* about on a circle */
        const nb_block_params p = {8, 1.0, 4.0, 0, NB_BLOCK_MARGIN, 0, criteria[c], NULL, NULL};
        nb_block_stats stats;
        ck_assert_int_eq(nb_ref_run_blocks(&s, 1, 5.5, 1e-12, &p, NULL, &stats), NB_EXIT_OK);
        ck_assert_msg(stats.deepest == expected[c] && stats.on_level[0] == 1 && stats.on_level[expected[c]] == 1,
                      "criterion %d: deepest level %u, %llu bodies on level 0 (expected level %u)", c, stats.deepest,
                      (unsigned long long)stats.on_level[0], expected[c]);
        ck_assert_uint_eq(stats.forces, 2 + (1u << expected[c]) - 1); /* all at the start, then body 1 alone */
        nb_state64_free(&s);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("blocks");
    TCase *faults = nbt_tcase(s, "planted-faults", 300);
    tcase_add_test(faults, correct_blocks_pass);
    tcase_add_loop_test(faults, planted_fault_fails, 0, FAULTS - 1);
    TCase *reference = nbt_tcase(s, "reference", 120);
    tcase_add_test(reference, one_level_is_the_contract);
    tcase_add_test(reference, levels_approach_the_finest_step);
    tcase_add_test(reference, pin_first_puts_the_first_body_deepest);
    tcase_add_test(reference, bodies_go_finer_inside_a_step);
    tcase_add_test(reference, a_run_goes_on_where_it_ended);
    tcase_add_test(reference, each_criterion_reads_its_rate);
    tcase_add_test(reference, substep_forces_replace_the_exact_ones);
    return nbt_run(s, CK_FORK);
}
