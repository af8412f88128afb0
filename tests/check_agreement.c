/* check_agreement.c: the CPU step programs, run as a user runs them, agree with each other and pass
 * their own validation.
 *
 * NB_TEST_STEP_BINS lists the CPU step programs of steps.list in order (tests.mk sets it); the first
 * (step00_serial) is the baseline. Each step is validated against fp64 with tolerance tol, and its
 * error is relative to the reference's |a| (which equals the baseline's to 1e-5), so two steps agree
 * with each other within 2 tol (the triangle inequality): that is the bound checked here, through
 * snapshot files (--input, --output), on one force evaluation and on NB_CHECK_STEPS steps. */
#include "init.h"
#include "reference.h"
#include "results.h"
#include "snapshot.h"
#include "testlib.h"
#include "validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_STEPS = 16 };
static char *bins[MAX_STEPS];
static int steps;

static const char *base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Run program `bin` with args (NULL-terminated); it must succeed silently. */
static void run(const char *bin, const char *const *args)
{
    char *argv[32] = {(char *)bin};
    int k = 0;
    for (; args[k]; ++k)
        argv[k + 1] = (char *)args[k];
    argv[k + 1] = NULL;
    nbt_capture err;
    const int rc = nbt_run_program(argv, &err);
    ck_assert_msg(rc == 0 && err.lines == 0, "%s: exit status %d, stderr: %s", base(bin), rc, err.text);
}

/* The start: S = 3 systems of N = 1000 Plummer bodies with random masses (or the uniform cube),
 * at rest (for one force evaluation, dt = 1: v = a) or moving. */
static void write_start(const char *path, nb_model model, int at_rest)
{
    nb_state s;
    ck_assert_int_eq(nb_state_alloc(&s, 3, 1000), NB_EXIT_OK);
    nb_init(&s, model, NB_MASSES_RANDOM, 42);
    if (at_rest) {
        memset(s.vx, 0, 3000 * sizeof(float));
        memset(s.vy, 0, 3000 * sizeof(float));
        memset(s.vz, 0, 3000 * sizeof(float));
    }
    ck_assert_int_eq(nb_snapshot_write(path, &s, 0.01, 0.001), NB_EXIT_OK);
    nb_state_free(&s);
}

static nb_state read_state(const char *path)
{
    nb_state s;
    nb_snapshot_info info;
    ck_assert_msg(nb_snapshot_read(path, &s, &info) == NB_EXIT_OK, "cannot read %s", path);
    return s;
}

START_TEST(one_force_evaluation)
{
    const nb_model model = _i ? NB_MODEL_UNIFORM : NB_MODEL_PLUMMER;
    ck_assert_msg(steps >= 2, "one CPU step in NB_TEST_STEP_BINS: nothing to compare it with");
    const char *start = nbt_path(0, "start.nbs");
    write_start(start, model, 1);
    char outputs[MAX_STEPS][64];
    for (int k = 0; k < steps; ++k) {
        snprintf(outputs[k], sizeof outputs[k], "out%d.nbs", k);
        const char *args[] = {"--input", start, "--steps", "1", "--dt", "1", "--repeat", "1", "--validate", "off",
                              "-q", "--output", nbt_path(1, outputs[k]), NULL};
        run(bins[k], args);
    }
    nb_state before = read_state(start), baseline = read_state(nbt_path(1, outputs[0]));
    const size_t total = nb_state_count(&before);
    double *want = malloc(3 * total * sizeof(double));
    for (size_t i = 0; i < total; ++i) {
        want[i] = baseline.vx[i];
        want[total + i] = baseline.vy[i];
        want[2 * total + i] = baseline.vz[i];
    }
    for (int k = 1; k < steps; ++k) {
        nb_state other = read_state(nbt_path(1, outputs[k]));
        nb_check c;
        nb_check_init(&c);
        ck_assert_int_eq(nb_check_accel(&c, &before, &other, NULL, 0, want, want + total, want + 2 * total), NB_EXIT_OK);
        printf("%s vs %s (%s): acceleration max %.2e rms %.2e (bound %.1e, %.1e), kick-then-drift %.2e\n",
               base(bins[k]), base(bins[0]), nb_model_name(model), c.acc_max, c.acc_rms, 2 * c.tol_max, 2 * c.tol_rms,
               c.order_max);
        ck_assert_msg(c.acc_max <= 2 * c.tol_max && c.acc_rms <= 2 * c.tol_rms && !c.nonfinite,
                      "%s and %s disagree: max %.3g (body %zu), rms %.3g", base(bins[k]), base(bins[0]), c.acc_max,
                      c.acc_worst, c.acc_rms);
        ck_assert_msg(c.order_max <= NB_TOL_ORDER, "%s: kick-then-drift %.3g", base(bins[k]), c.order_max);
        nb_state_free(&other);
    }
    free(want);
    nb_state_free(&baseline);
    nb_state_free(&before);
    nbt_tmpdir_remove();
}
END_TEST

START_TEST(a_few_steps)
{
    /* NB_CHECK_STEPS steps of dt = 1e-3 from the moving start: positions and velocities within
     * 2 NB_TOL_STATE of the baseline's, in the units nb_check_state uses. */
    ck_assert_msg(steps >= 2, "one CPU step in NB_TEST_STEP_BINS: nothing to compare it with");
    const char *start = nbt_path(0, "start.nbs");
    write_start(start, NB_MODEL_PLUMMER, 0);
    char outputs[MAX_STEPS][64], count[16];
    snprintf(count, sizeof count, "%d", NB_CHECK_STEPS);
    for (int k = 0; k < steps; ++k) {
        snprintf(outputs[k], sizeof outputs[k], "out%d.nbs", k);
        const char *args[] = {"--input", start, "--steps", count, "--dt", "0.001", "--repeat", "1", "--validate", "off",
                              "-q", "--output", nbt_path(1, outputs[k]), NULL};
        run(bins[k], args);
    }
    nb_state baseline = read_state(nbt_path(1, outputs[0]));
    nb_state64 want;
    ck_assert_int_eq(nb_state64_alloc(&want, baseline.systems, baseline.bodies), NB_EXIT_OK);
    nb_state64_from(&want, &baseline);
    for (int k = 1; k < steps; ++k) {
        nb_state other = read_state(nbt_path(1, outputs[k]));
        nb_check c;
        nb_check_init(&c);
        ck_assert_int_eq(nb_check_state(&c, &other, &want), NB_EXIT_OK);
        printf("%s vs %s after %d steps: positions %.2e, velocities %.2e (bound %.0e)\n", base(bins[k]),
               base(bins[0]), NB_CHECK_STEPS, c.pos_max, c.vel_max, 2 * NB_TOL_STATE);
        ck_assert_msg(c.pos_max <= 2 * NB_TOL_STATE && c.vel_max <= 2 * NB_TOL_STATE && !c.nonfinite,
                      "%s and %s disagree: positions %.3g (body %zu), velocities %.3g (body %zu)", base(bins[k]),
                      base(bins[0]), c.pos_max, c.pos_worst, c.vel_max, c.vel_worst);
        nb_state_free(&other);
    }
    nb_state64_free(&want);
    nb_state_free(&baseline);
    nbt_tmpdir_remove();
}
END_TEST

/* Each program's own validation (common/main.c): exit 0 and PASS in its CSV row. */
static const char *const validations[][10] = {
    {"-n", "1000", "-S", "3", "--model", "collision", "--masses", "random"},
    {"-n", "20000", "--validate", "sample"}, /* beyond the full check: a sample of about 4096 bodies */
    {"-n", "31", "-S", "5", "--model", "uniform", "--eps", "0"},
};

START_TEST(programs_validate_themselves)
{
    const char *const *extra = validations[_i];
    for (int k = 0; k < steps; ++k) {
        const char *args[24] = {"--validate-only", "-q", "--csv", nbt_path(0, "v.csv")};
        int a = 4;
        for (int e = 0; e < 10 && extra[e]; ++e)
            args[a++] = extra[e];
        args[a] = NULL;
        run(bins[k], args);
        nb_csv csv;
        ck_assert_int_eq(nb_csv_read(nbt_path(0, "v.csv"), &csv), NB_EXIT_OK);
        ck_assert_uint_eq(csv.rows, (size_t)k + 1);
        ck_assert_msg(!strcmp(nb_csv_get(&csv, k, "pass"), "PASS"), "%s: %s", base(bins[k]), nb_csv_get(&csv, k, "pass"));
        printf("%s %s %s: acc_max %s, checked %s bodies\n", base(bins[k]), extra[0], extra[1],
               nb_csv_get(&csv, k, "acc_max"), nb_csv_get(&csv, k, "checked"));
        nb_csv_free(&csv);
    }
    nbt_tmpdir_remove();
}
END_TEST

int main(void)
{
    const char *list = getenv("NB_TEST_STEP_BINS");
    static char copy[8192];
    snprintf(copy, sizeof copy, "%s", list ? list : "");
    for (char *tok = strtok(copy, " "); tok && steps < MAX_STEPS; tok = strtok(NULL, " "))
        bins[steps++] = tok;
    /* NB_TEST_STEP_BINS holds the written CPU steps (tests.mk); NB_TEST_TODO names the steps not written
     * yet (a handout's stubs): what needs a step, or two, is skipped until they are written. */
    if (!list) {
        fprintf(stderr, "NB_TEST_STEP_BINS is not set: run these tests with make test\n");
        return 1;
    }
    const char *todo = getenv("NB_TEST_TODO");
    char why[600];
    snprintf(why, sizeof why, "%s (TODO: %s)", steps ? "one CPU step written so far, nothing to compare it with" :
             "no CPU step written yet", todo && *todo ? todo : "none listed");
    static const char *const pair_tests[] = {"agreement:one_force_evaluation", "agreement:one_force_evaluation",
                                             "agreement:a_few_steps"};
    const size_t nval = sizeof validations / sizeof *validations;
    if (steps < 1) {
        static const char *names[3 + sizeof validations / sizeof *validations];
        for (size_t k = 0; k < 3 + nval; ++k)
            names[k] = k < 3 ? pair_tests[k] : "self-validation:programs_validate_themselves";
        return nbt_skip("tests/check_agreement.c", names, 3 + nval, why);
    }
    Suite *s = suite_create("agreement");
    if (steps >= 2) {
        TCase *agree = nbt_tcase(s, "agreement", 300);
        tcase_add_loop_test(agree, one_force_evaluation, 0, 2);
        tcase_add_test(agree, a_few_steps);
    }
    TCase *own = nbt_tcase(s, "self-validation", 300);
    tcase_add_loop_test(own, programs_validate_themselves, 0, nval);
    const int rc = nbt_run(s, CK_FORK);
    if (steps < 2)
        nbt_add_skips("tests/check_agreement.c", pair_tests, 3, why);
    return rc;
}
