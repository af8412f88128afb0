/* check_validate.c: the validator (common/validate.h) tells a right force from a wrong one.
 *
 * An fp32 step written here, run through the harness's own validation runs (nb_trial_accel: one step
 * from rest with dt = 1 gives v = a and x = x0 + a; nb_trial_state: NB_CHECK_STEPS steps), passes;
 * the same step with one planted fault fails, by a wide margin, and the worst body is the one named. */
#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include "init.h"
#include "reference.h"
#include "testlib.h"
#include "validate.h"
#include "variant.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum fault {
    CORRECT,
    LAST_TILE_DROPPED, /* a tiled loop that forgets the last partial tile of 256 bodies */
    WRONG_SIGN,        /* x_i - x_j: repulsion */
    MASS_IGNORED,      /* m_j taken as 1 */
    MASS_OF_I,         /* m_i where m_j belongs (equal masses hide it: the test uses random ones) */
    SYSTEM_OFFSET,     /* system s starts at s instead of s * N */
    NAN_BODY,          /* one body's acceleration is NaN */
    DRIFT_FIRST,       /* drift, then kick */
    ONE_BODY_OFF,      /* one body's acceleration 1 % too large: the worst body must be that one */
    G_DOUBLED,         /* every force twice as strong: acc_ratio must read the factor */
    FAULTS
} fault;

static const char *const fault_name[FAULTS] = {"correct", "last tile dropped", "wrong sign", "mass ignored",
                                               "m_i for m_j", "system offset", "NaN in one body",
                                               "drift before kick", "one body 1 % off", "G doubled"};

enum { TILE = 256 };
static fault planted;
static size_t planted_body; /* NAN_BODY and ONE_BODY_OFF */

/* step00's arithmetic (fp32, softened, j = i included as 0), with `planted` switched in. */
static int faulty_step(void *ctx, nb_state *s, const nb_run *run)
{
    (void)ctx;
    const size_t n = s->bodies, total = nb_state_count(s);
    float *acc = malloc(3 * total * sizeof(float));
    ck_assert_ptr_nonnull(acc);
    float *ax = acc, *ay = acc + total, *az = acc + 2 * total;
    for (uint64_t step = 0; step < run->steps; ++step) {
        if (planted == DRIFT_FIRST)
            for (size_t i = 0; i < total; ++i) {
                s->x[i] += s->vx[i] * run->dt;
                s->y[i] += s->vy[i] * run->dt;
                s->z[i] += s->vz[i] * run->dt;
            }
        for (size_t i = 0; i < total; ++i) {
            const size_t first = planted == SYSTEM_OFFSET ? i / n : i / n * n;
            const size_t end = planted == LAST_TILE_DROPPED ? first + n / TILE * TILE : first + n;
            const float sign = planted == WRONG_SIGN ? -1.0f : 1.0f;
            float a[3] = {0.0f, 0.0f, 0.0f};
            for (size_t j = first; j < end; ++j) {
                const float dx = s->x[j] - s->x[i], dy = s->y[j] - s->y[i], dz = s->z[j] - s->z[i];
                const float d2 = dx * dx + dy * dy + dz * dz + run->eps2;
                const float inv = 1.0f / sqrtf(d2);
                const float m = planted == MASS_IGNORED ? 1.0f : planted == MASS_OF_I ? s->m[i] : s->m[j];
                const float f = (planted == G_DOUBLED ? 2.0f : 1.0f) * sign * m * inv * inv * inv;
                a[0] += dx * f;
                a[1] += dy * f;
                a[2] += dz * f;
            }
            if (planted == NAN_BODY && i == planted_body)
                a[1] = NAN;
            if (planted == ONE_BODY_OFF && i == planted_body)
                for (int d = 0; d < 3; ++d)
                    a[d] *= 1.01f;
            ax[i] = a[0];
            ay[i] = a[1];
            az[i] = a[2];
        }
        for (size_t i = 0; i < total; ++i) {
            s->vx[i] += ax[i] * run->dt;
            s->vy[i] += ay[i] * run->dt;
            s->vz[i] += az[i] * run->dt;
        }
        if (planted != DRIFT_FIRST)
            for (size_t i = 0; i < total; ++i) {
                s->x[i] += s->vx[i] * run->dt;
                s->y[i] += s->vy[i] * run->dt;
                s->z[i] += s->vz[i] * run->dt;
            }
    }
    free(acc);
    return NB_EXIT_OK;
}

/* The validation main.c runs, on S = 3 systems of N = 1000 Plummer bodies with random masses (N is
 * not a multiple of the tile; random masses tell m_i from m_j). */
typedef struct outcome {
    nb_check check;
    size_t bodies;
    char printed[4096];
} outcome;

static void validate(fault f, size_t systems, size_t bodies, size_t *index, size_t count, outcome *out)
{
    planted = f;
    planted_body = systems > 1 ? bodies + 123 : 0; /* body 123 of system 1 */
    nb_state init, trial;
    ck_assert_int_eq(nb_state_alloc(&init, systems, bodies), NB_EXIT_OK);
    ck_assert_int_eq(nb_state_alloc(&trial, systems, bodies), NB_EXIT_OK);
    nb_init(&init, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 42);
    const double eps = 0.01, eps2 = eps * eps, dt = NB_CHECK_DT;
    nb_run_info info;
    nb_run run = {.steps = 1, .dt = (float)dt, .eps2 = (float)eps2, .info = &info};

    nb_state64 ref;
    ck_assert_int_eq(nb_state64_alloc(&ref, systems, bodies), NB_EXIT_OK);
    nb_state64_from(&ref, &init);
    const size_t total = index ? count : systems * bodies;
    double *acc = malloc(3 * total * sizeof(double));
    nb_ref_accel(&ref, eps2, index, count, acc, acc + total, acc + 2 * total);

    nb_check_init(&out->check);
    out->bodies = bodies;
    ck_assert_int_eq(nb_trial_accel(faulty_step, NULL, &run, &init, &trial), NB_EXIT_OK);
    ck_assert_int_eq(nb_check_accel(&out->check, &init, &trial, index, count, acc, acc + total, acc + 2 * total),
                     NB_EXIT_OK);
    ck_assert_int_eq(nb_ref_run(&ref, NB_CHECK_STEPS, dt, eps2), NB_EXIT_OK);
    ck_assert_int_eq(nb_trial_state(faulty_step, NULL, &run, &init, (float)dt, &trial), NB_EXIT_OK);
    ck_assert_int_eq(nb_check_state(&out->check, &trial, &ref), NB_EXIT_OK);

    FILE *f_out = fmemopen(out->printed, sizeof out->printed - 1, "w");
    nb_check_print(f_out, &out->check, bodies);
    fclose(f_out);
    nbt_one_line(out->printed);
    const nb_check *c = &out->check;
    printf("%-18s acc max %9.3g (tol %.0e) rms %9.3g (tol %.0e), kick-drift %9.3g (tol %.0e), state pos %9.3g vel "
           "%9.3g (tol %.0e), non-finite %d: %s\n",
           fault_name[f], c->acc_max, c->tol_max, c->acc_rms, c->tol_rms, c->order_max, NB_TOL_ORDER, c->pos_max,
           c->vel_max, NB_TOL_STATE, c->nonfinite, nb_check_passed(c) ? "PASS" : "FAIL");
    free(acc);
    nb_state64_free(&ref);
    nb_state_free(&trial);
    nb_state_free(&init);
}

START_TEST(correct_step_passes)
{
    outcome o;
    validate(CORRECT, 3, 1000, NULL, 0, &o);
    const nb_check *c = &o.check;
    ck_assert_msg(nb_check_passed(c), "a correct fp32 force fails validation: %s", o.printed);
    /* With the margins common/README.md states: at least 20x under every tolerance. */
    ck_assert_msg(c->acc_max * 20 <= c->tol_max && c->acc_rms * 20 <= c->tol_rms, "%s", o.printed);
    ck_assert_msg(c->order_max == 0.0 && c->pos_max * 20 <= NB_TOL_STATE && c->vel_max * 20 <= NB_TOL_STATE, "%s",
                  o.printed);
    ck_assert(c->compared == 3000 && c->acc_done && c->state_done && !c->nonfinite);
    ck_assert_msg(fabs(c->acc_ratio - 1.0) < 1e-5, "acc_ratio %.9g of a correct force", c->acc_ratio);
    ck_assert(strstr(o.printed, "FAIL") == NULL);
}
END_TEST

/* Each fault fails, and the check made for it misses its tolerance by at least this factor. */
#define MARGIN 10.0

START_TEST(planted_fault_fails)
{
    const fault f = (fault)(_i + 1);
    outcome o;
    validate(f, 3, 1000, NULL, 0, &o);
    const nb_check *c = &o.check;
    ck_assert_msg(!nb_check_passed(c), "%s passes validation: %s", fault_name[f], o.printed);
    ck_assert_msg(strstr(o.printed, "FAIL") != NULL || c->nonfinite, "%s: the report does not say FAIL: %s",
                  fault_name[f], o.printed);
    switch (f) {
    case NAN_BODY:
        /* NaN is never within a tolerance: flagged as non-finite, at the body where it was planted. */
        ck_assert(c->nonfinite && c->nonfinite_body == planted_body);
        ck_assert(isnan(c->acc_max) && c->acc_worst == planted_body);
        ck_assert_msg(strstr(o.printed, "body 123 of system 1") != NULL, "%s", o.printed);
        break;
    case DRIFT_FIRST:
        /* The forces are right; x1 = x0 instead of x0 + v1: the kick-then-drift check is off by ~1. */
        ck_assert_msg(c->acc_max <= c->tol_max, "%s", o.printed);
        ck_assert_msg(c->order_max >= MARGIN * NB_TOL_ORDER, "%s: kick-then-drift %.3g", fault_name[f], c->order_max);
        break;
    case ONE_BODY_OFF:
        ck_assert_msg(c->acc_worst == planted_body, "worst body %zu, the fault is in %zu", c->acc_worst, planted_body);
        ck_assert_msg(fabs(c->acc_max - 0.01) < 1e-4, "the worst error is %.3g, planted 0.01", c->acc_max);
        ck_assert_msg(strstr(o.printed, "worst acceleration: body 123 of system 1") != NULL, "%s", o.printed);
        /* One body off is no factor on every body: the worst error is not |acc_ratio - 1|. */
        ck_assert_msg(fabs(c->acc_max - fabs(c->acc_ratio - 1.0)) > 0.5 * c->acc_max, "acc_ratio %.6g, max %.3g",
                      c->acc_ratio, c->acc_max);
        break;
    case G_DOUBLED:
        /* A factor on every body: acc_ratio reads it, and every body's error is |factor - 1|. */
        ck_assert_msg(fabs(c->acc_ratio - 2.0) < 1e-5 && fabs(c->acc_max - 1.0) < 1e-5, "acc_ratio %.6g, max %.6g",
                      c->acc_ratio, c->acc_max);
        break;
    default:
        /* A wrong force: off by orders of magnitude in the accelerations, and in the velocities
         * after NB_CHECK_STEPS steps, so either check alone would catch it. */
        ck_assert_msg(c->acc_max >= MARGIN * c->tol_max && c->acc_rms >= MARGIN * c->tol_rms, "%s: %s", fault_name[f],
                      o.printed);
        ck_assert_msg(c->vel_max >= MARGIN * NB_TOL_STATE, "%s: state velocities %.3g", fault_name[f], c->vel_max);
        ck_assert_msg(strstr(o.printed, "worst acceleration: body ") != NULL, "%s", o.printed);
        break;
    }
    if (f == WRONG_SIGN) /* a factor of -1: |a_step| / |a_ref| = 1, every body off by 2 (a factor 3 reads 3) */
        ck_assert_msg(fabs(c->acc_ratio - 1.0) < 1e-5 && fabs(c->acc_max - 2.0) < 1e-5, "acc_ratio %.6g, max %.6g",
                      c->acc_ratio, c->acc_max);
}
END_TEST

START_TEST(worst_body_in_state_check)
{
    /* One body 1 % off in acceleration: after 4 steps of dt = 1e-3 its velocity is 4e-5 |a| off,
     * measured against the system's velocity scale; whatever the size, the worst body is that one. */
    outcome o;
    validate(ONE_BODY_OFF, 3, 1000, NULL, 0, &o);
    ck_assert_uint_eq(o.check.vel_worst, 1123);
}
END_TEST

START_TEST(single_body_must_be_exactly_zero)
{
    /* N = 1: no force at all. A step that returns any nonzero acceleration fails, however small;
     * exactly zero passes. */
    outcome o;
    validate(CORRECT, 3, 1, NULL, 0, &o);
    ck_assert_msg(nb_check_passed(&o.check), "%s", o.printed);
    nb_state before, after;
    ck_assert_int_eq(nb_state_alloc(&before, 2, 1), NB_EXIT_OK);
    ck_assert_int_eq(nb_state_alloc(&after, 2, 1), NB_EXIT_OK);
    nb_init(&before, NB_MODEL_UNIFORM, NB_MASSES_EQUAL, 3);
    nb_state_copy(&after, &before);
    const double zero[2] = {0.0, 0.0};
    after.vx[0] = after.vy[0] = after.vz[0] = after.vx[1] = after.vy[1] = after.vz[1] = 0.0f;
    after.vy[1] = 1e-30f;
    nb_check c;
    nb_check_init(&c);
    ck_assert_int_eq(nb_check_accel(&c, &before, &after, NULL, 0, zero, zero, zero), NB_EXIT_OK);
    ck_assert_msg(!nb_check_passed(&c) && c.acc_worst == 1, "1e-30 for a lone body passes (max %g)", c.acc_max);
    after.vy[1] = 0.0f;
    nb_check_init(&c);
    ck_assert_int_eq(nb_check_accel(&c, &before, &after, NULL, 0, zero, zero, zero), NB_EXIT_OK);
    ck_assert(nb_check_passed(&c));
    nb_state_free(&before);
    nb_state_free(&after);
}
END_TEST

START_TEST(sampled_comparison)
{
    /* Large runs compare a sample (index != NULL): the first and last body of each system and every
     * 10th. A planted body in the sample is found by its index; the correct step passes. */
    enum { SYSTEMS = 3, BODIES = 1000 };
    size_t index[SYSTEMS * (BODIES / 10 + 1)], count = 0;
    for (size_t s = 0; s < SYSTEMS; ++s) {
        for (size_t i = 0; i < BODIES; i += 10)
            index[count++] = s * BODIES + i + (i == 120 ? 3 : 0); /* 123 is in the sample */
        index[count++] = s * BODIES + BODIES - 1;
    }
    outcome o;
    validate(CORRECT, SYSTEMS, BODIES, index, count, &o);
    ck_assert_msg(nb_check_passed(&o.check) && o.check.compared == count, "%s", o.printed);
    validate(ONE_BODY_OFF, SYSTEMS, BODIES, index, count, &o);
    ck_assert_msg(!nb_check_passed(&o.check) && o.check.acc_worst == 1123, "%s", o.printed);
    validate(WRONG_SIGN, SYSTEMS, BODIES, index, count, &o);
    ck_assert_msg(!nb_check_passed(&o.check) && o.check.acc_max >= MARGIN * o.check.tol_max, "%s", o.printed);
}
END_TEST

START_TEST(tolerances_grow_beyond_16384)
{
    /* The fp32 rounding of a sum of N terms grows like sqrt(N): the tolerances do too, from 16384. */
    ck_assert(nb_tol_acc_max(1) == NB_TOL_ACC_MAX && nb_tol_acc_max(16384) == NB_TOL_ACC_MAX);
    ck_assert(nb_tol_acc_rms(16384) == NB_TOL_ACC_RMS);
    ck_assert(fabs(nb_tol_acc_max(4 * 16384) - 2 * NB_TOL_ACC_MAX) < 1e-18);
    ck_assert(fabs(nb_tol_acc_rms(100 * 16384) - 10 * NB_TOL_ACC_RMS) < 1e-18);
}
END_TEST

/* A timed run, as main.c checks it: `steps` steps of dt from the initial state, run on variant k of the
 * problem and mapped back, against the fp64 reference of 10 steps. `done` steps are actually taken. */
static nb_check timed_check(fault f, uint64_t done, uint64_t k)
{
    const size_t systems = 2, bodies = 1000;
    const uint64_t steps = 10;
    const double eps2 = 1e-4, dt = 1e-3;
    planted = f;
    planted_body = bodies + 123;
    nb_state init, work, back;
    ck_assert_int_eq(nb_state_alloc(&init, systems, bodies), NB_EXIT_OK);
    ck_assert_int_eq(nb_state_alloc(&work, systems, bodies), NB_EXIT_OK);
    ck_assert_int_eq(nb_state_alloc(&back, systems, bodies), NB_EXIT_OK);
    nb_init(&init, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 42);
    nb_variant v;
    nb_variant_pick(&v, k, bodies);
    nb_variant_apply(&v, &init, &work);
    nb_run_info info;
    const nb_run run = {.steps = done, .dt = (float)dt, .eps2 = (float)eps2, .info = &info};
    ck_assert_int_eq(faulty_step(NULL, &work, &run), NB_EXIT_OK);
    nb_variant_undo(&v, &work, &back);
    nb_state64 ref;
    ck_assert_int_eq(nb_state64_alloc(&ref, systems, bodies), NB_EXIT_OK);
    nb_state64_from(&ref, &init);
    ck_assert_int_eq(nb_ref_run(&ref, steps, dt, eps2), NB_EXIT_OK);
    nb_check c;
    nb_check_init(&c);
    ck_assert_int_eq(nb_check_timed(&c, &init, &back, &ref, steps, dt), NB_EXIT_OK);
    printf("timed %-18s %2llu of %llu steps, variant %llu: velocity change max %9.3g rms %9.3g, state %9.3g %9.3g: %s\n",
           fault_name[f], (unsigned long long)done, (unsigned long long)steps, (unsigned long long)k, c.acc_max,
           c.acc_rms, c.pos_max, c.vel_max, nb_check_passed(&c) ? "PASS" : "FAIL");
    nb_state64_free(&ref);
    nb_state_free(&back);
    nb_state_free(&work);
    nb_state_free(&init);
    return c;
}

START_TEST(timed_run_checked)
{
    /* A correct timed run passes, on the problem as it is and on a variant, with 20x to spare. */
    for (uint64_t k = 0; k < 3; ++k) {
        const nb_check c = timed_check(CORRECT, 10, k);
        ck_assert(nb_check_passed(&c) && c.timed && c.state_steps == 10);
        ck_assert(c.acc_max * 20 <= c.tol_max && c.acc_rms * 20 <= c.tol_rms);
        ck_assert(c.pos_max * 20 <= c.tol_state && c.vel_max * 20 <= c.tol_state);
    }
    /* Fewer steps than asked, a force 1 % off for one body, a dropped tile: each fails. */
    const nb_check half = timed_check(CORRECT, 5, 1), clamped = timed_check(CORRECT, 4, 2);
    const nb_check off = timed_check(ONE_BODY_OFF, 10, 0), tile = timed_check(LAST_TILE_DROPPED, 10, 2);
    ck_assert(!nb_check_passed(&half) && !nb_check_passed(&clamped));
    ck_assert(!nb_check_passed(&off) && off.acc_worst == 1000 + 123);
    ck_assert(!nb_check_passed(&tile));
}
END_TEST

START_TEST(variants_are_exact)
{
    const size_t systems = 3, bodies = 37;
    nb_state init, moved, back;
    ck_assert_int_eq(nb_state_alloc(&init, systems, bodies), NB_EXIT_OK);
    ck_assert_int_eq(nb_state_alloc(&moved, systems, bodies), NB_EXIT_OK);
    ck_assert_int_eq(nb_state_alloc(&back, systems, bodies), NB_EXIT_OK);
    nb_init(&init, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 7);
    for (uint64_t k = 0; k < 12; ++k) {
        nb_variant v;
        nb_variant_pick(&v, k, bodies);
        ck_assert(nb_variant_is_identity(&v) == (k == 0));
        nb_variant_apply(&v, &init, &moved);
        nb_variant_undo(&v, &moved, &back);
        for (int f = 0; f < NB_FIELDS; ++f) /* back to the same bits */
            ck_assert(!memcmp(nb_state_field(&init, f), nb_state_field(&back, f), systems * bodies * sizeof(float)));
        /* The physics maps onto itself: the variant's fp64 accelerations are the accelerations' variant. */
        nb_state64 a, b;
        ck_assert_int_eq(nb_state64_alloc(&a, systems, bodies), NB_EXIT_OK);
        ck_assert_int_eq(nb_state64_alloc(&b, systems, bodies), NB_EXIT_OK);
        nb_state64_from(&a, &init);
        nb_state64_from(&b, &moved);
        nb_ref_accel(&a, 1e-4, NULL, 0, a.vx, a.vy, a.vz);
        nb_ref_accel(&b, 1e-4, NULL, 0, b.vx, b.vy, b.vz);
        const double *acc_a[3] = {a.vx, a.vy, a.vz}, *acc_b[3] = {b.vx, b.vy, b.vz};
        for (size_t s = 0; s < systems; ++s)
            for (size_t i = 0; i < bodies; ++i)
                for (int d = 0; d < 3; ++d) {
                    const double want = acc_a[v.axis[d]][s * bodies + i] * (v.flip[d] ? -1.0 : 1.0);
                    const double got = acc_b[d][s * bodies + (i + v.shift) % bodies];
                    ck_assert_msg(fabs(got - want) <= 1e-12 * (fabs(want) + 1.0), "variant %llu, body %zu",
                                  (unsigned long long)k, i);
                }
        nb_state64_free(&a);
        nb_state64_free(&b);
    }
    nb_state_free(&back);
    nb_state_free(&moved);
    nb_state_free(&init);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("validate");
    TCase *faults = nbt_tcase(s, "planted-faults", 120);
    tcase_add_test(faults, correct_step_passes);
    tcase_add_loop_test(faults, planted_fault_fails, 0, FAULTS - 1);
    tcase_add_test(faults, worst_body_in_state_check);
    tcase_add_test(faults, timed_run_checked);
    tcase_add_test(faults, variants_are_exact);
    TCase *edges = nbt_tcase(s, "edges", 60);
    tcase_add_test(edges, single_body_must_be_exactly_zero);
    tcase_add_test(edges, sampled_comparison);
    tcase_add_test(edges, tolerances_grow_beyond_16384);
    return nbt_run(s, CK_FORK);
}
