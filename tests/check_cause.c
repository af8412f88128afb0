/* check_cause.c: the grader's likely cause (grading/cause.c) names each signature from case results
 * written here, the GPU ones too (a tile loop, a tail at the row's block size), which the self-test
 * plants only where a GPU is; and where no signature fits, it says "none" rather than guess. */
#include "../grading/cause.h"
#include "testlib.h"

#include <string.h>

/* The diagnostic set of a default grade: every N at S = 1 and 3, plummer/equal, and one random-mass case. */
static const uint64_t sizes[] = {1, 2, 31, 257, 1000, 4096, 4099};
enum { SIZES = sizeof sizes / sizeof sizes[0], CASES = 2 * SIZES + 1 };

/* What a case says: 0 pass; else the row's acc_max, acc_rms, acc_ratio. */
typedef struct said {
    int fails;
    double acc_max, acc_rms, acc_ratio;
    int crashed; /* no row, no mismatch */
} said;

typedef said (*signature)(const check_case *c);

/* name_cause on every case as `sig` says, a step of tolerance class `check` with `block` threads. */
static void cause_of(signature sig, const char *check, unsigned block, char *cause, size_t len)
{
    check_case cases[CASES];
    case_result res[CASES];
    size_t k = 0;
    for (size_t s = 1; s <= 3; s += 2)
        for (size_t n = 0; n < SIZES; ++n)
            cases[k++] = (check_case){sizes[n], s, "plummer", "equal", 0};
    cases[k++] = (check_case){31, 1, "uniform", "random", 0};
    memset(res, 0, sizeof res);
    for (k = 0; k < CASES; ++k) {
        const said w = sig(&cases[k]);
        res[k].ran = 1;
        res[k].passed = !w.fails;
        res[k].mismatch = w.fails && !w.crashed;
        res[k].acc_max = w.crashed ? -1.0 : w.fails ? w.acc_max : 1e-6;
        res[k].acc_rms = w.crashed ? -1.0 : w.fails ? w.acc_rms : 3e-7;
        res[k].acc_ratio = w.crashed ? -1.0 : w.fails ? w.acc_ratio : 1.0;
        res[k].block = w.crashed ? 0 : block;
    }
    graded_step st;
    memset(&st, 0, sizeof st);
    strcpy(st.check, check);
    outcome out;
    memset(&out, 0, sizeof out);
    out.s = &st;
    name_cause(cases, res, CASES, &out);
    snprintf(cause, len, "%s", out.cause);
    printf("%-6s block %4u: %s\n", check, block, cause);
}

static void expect(signature sig, const char *check, unsigned block, const char *key)
{
    char cause[600], want[64];
    cause_of(sig, check, block, cause, sizeof cause);
    snprintf(want, sizeof want, "%s: ", key);
    ck_assert_msg(!strncmp(cause, want, strlen(want)), "expected %s, got \"%s\"", key, cause);
}

/* A wrong force: no factor (the worst body 0.9 off, the whole 1.3 times too strong). */
static const said wrong = {1, 0.9, 0.2, 1.3, 0};

static said tile_loop(const check_case *c) { return c->bodies > 256 ? wrong : (said){0}; }
static said tail(const check_case *c) { return c->bodies > 1 && c->bodies % 256 ? wrong : (said){0}; }
static said offset(const check_case *c) { return c->systems > 1 && c->bodies > 1 ? wrong : (said){0}; }
static said masses(const check_case *c) { return !strcmp(c->masses, "random") ? wrong : (said){0}; }
static said state_only(const check_case *c) { return c->bodies > 1 ? (said){1, 1e-6, 3e-7, 1.0, 0} : (said){0}; }
static said doubled(const check_case *c) { return c->bodies > 1 ? (said){1, 1.0, 0.99, 2.0, 0} : (said){0}; }
static said times_n(const check_case *c)
{
    return c->bodies > 1 ? (said){1, (double)c->bodies - 1.0, 0.9 * ((double)c->bodies - 1.0), (double)c->bodies, 0}
                         : (said){0};
}
static said sign(const check_case *c) { return c->bodies > 1 ? (said){1, 2.0, 1.98, 1.0, 0} : (said){0}; }
static said everything(const check_case *c) { return c->bodies > 1 ? wrong : (said){0}; }
static said crashes(const check_case *c) { return c->bodies > 1 ? (said){1, 0, 0, 0, 1} : (said){0}; }
/* Right only at N = 4096 (and 1): a tail of the block where the row's block divides 4096 and no failing
 * N; with a block of 8, which divides 1000 too, no tail. */
static said tail_4096(const check_case *c) { return c->bodies > 1 && c->bodies % 4096 ? wrong : (said){0}; }

/* A GPU step with the masses left out (step03's pj.w dropped): every body pulls with unit mass, the
 * tile's massless padding bodies past the last one too. Where N is a multiple of the block of 256 (4096)
 * the equal-mass cases are N times the reference's on every body; at any other N the padding's pull
 * adds a force of its own (the worst body further off than N - 1, the whole more than N times); random
 * masses are wrong everywhere. (Measured on an H200, 2026-12-01: "none: no known signature" before.) */
static said gpu_mass_ignored(const check_case *c)
{
    const double n = (double)c->bodies;
    if (c->bodies == 1)
        return (said){0};
    if (!strcmp(c->masses, "equal") && c->bodies % 256 == 0)
        return (said){1, n - 1.0, 0.9 * (n - 1.0), n, 0};
    return (said){1, 3.0 * n, 2.0 * n, 1.7 * n, 0};
}

START_TEST(gpu_signatures)
{
    expect(gpu_mass_ignored, "exact", 256, "constant-factor");
    expect(gpu_mass_ignored, "exact", 0, "none");    /* no block in the row: nothing to read it by */
    expect(gpu_mass_ignored, "tree", 256, "none");   /* a tree code's cells have no padding */
    expect(tile_loop, "exact", 256, "tile-loop");
    expect(tail, "exact", 256, "tail");
    expect(tail, "exact", 0, "tail"); /* a CPU step: the block read from the passing sizes */
    expect(tail_4096, "exact", 1024, "tail");
    expect(tail_4096, "exact", 8, "none");   /* 1000 is a multiple of 8 and fails: no tail of 8 */
    expect(tile_loop, "exact", 16, "none");  /* 31 passes, beyond one block of 16: no tile signature */
    expect(tile_loop, "tree", 256, "none");  /* a tree code's error grows with N by itself */
}
END_TEST

START_TEST(other_signatures)
{
    expect(offset, "exact", 256, "system-offset");
    expect(masses, "exact", 0, "masses");
    expect(state_only, "exact", 0, "kick-drift-or-dt");
    expect(doubled, "exact", 0, "constant-factor");
    expect(times_n, "exact", 0, "constant-factor");
    expect(sign, "exact", 0, "none"); /* every body off by 2, |a| right: a sign, no factor */
    expect(everything, "exact", 0, "none");
    expect(crashes, "exact", 0, "none"); /* no row: nothing to read */
}
END_TEST

START_TEST(passes_have_no_cause)
{
    check_case c = {2, 1, "plummer", "equal", 0};
    case_result r;
    memset(&r, 0, sizeof r);
    r.ran = r.passed = 1;
    graded_step st;
    memset(&st, 0, sizeof st);
    strcpy(st.check, "exact");
    outcome out;
    memset(&out, 0, sizeof out);
    out.s = &st;
    name_cause(&c, &r, 1, &out);
    ck_assert_msg(!out.cause[0], "a step whose cases all pass got a cause: %s", out.cause);
}
END_TEST

START_TEST(diagnostic_set_is_bounded)
{
    /* The grade's cases: N = 1 ... 16384; within S*N^2 <= 2^26, the first case of each N and S, and
     * N = 4096 at each S (3 * 4096^2 <= 2^26 < 3 * 8192^2). */
    const uint64_t n[] = {1, 2, 31, 257, 1000, 4099, 16384};
    check_case cases[64], extra[2];
    size_t count = 0;
    for (size_t a = 0; a < sizeof n / sizeof n[0]; ++a)
        for (uint64_t s = 1; s <= 3; s += 2)
            for (int p = 0; p < 2; ++p)
                cases[count++] = (check_case){n[a], s, p ? "uniform" : "plummer", p ? "random" : "equal", 0};
    unsigned char in_set[64];
    const size_t extras = diagnostic_set(cases, count, (uint64_t)1 << 26, in_set, extra);
    size_t chosen = 0;
    for (size_t k = 0; k < count; ++k) {
        chosen += in_set[k];
        ck_assert_msg(!in_set[k] || (!strcmp(cases[k].masses, "equal") && cases[k].bodies < 16384),
                      "case %zu (N=%llu %s) in the set", k, (unsigned long long)cases[k].bodies, cases[k].masses);
    }
    ck_assert_uint_eq(chosen, 12);
    ck_assert_uint_eq(extras, 2);
    ck_assert(extra[0].bodies == 4096 && extra[1].bodies == 4096 && extra[0].systems != extra[1].systems);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cause");
    TCase *t = nbt_tcase(s, "signatures", 30);
    tcase_add_test(t, gpu_signatures);
    tcase_add_test(t, other_signatures);
    tcase_add_test(t, passes_have_no_cause);
    tcase_add_test(t, diagnostic_set_is_bounded);
    return nbt_run(s, CK_FORK);
}
