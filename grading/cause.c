/* cause.c: the likely cause of a failure, read from its signature across the check cases: which N and S
 * fail, whether the accelerations or only the state are wrong, and |a_step| / |a_ref| (the row's
 * acc_ratio). Each signature was produced by a planted fault of grading/selftest.sh (grading/README.md,
 * "The likely cause"); where none fits the cause says so rather than guess. A diagnosis, never a verdict:
 * the verdict is the judge's alone. */
#include "cause.h"
#include "types.h"
#include "proc.h"
#include "rows.h"
#include "text.h"
#include "nbody.h"
#include "results.h"
#include "validate.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t diagnostic_set(const check_case *cases, size_t count, uint64_t limit, unsigned char *in_set,
                      check_case *extra)
{
    uint64_t most_systems = 0, power = 1;
    int have_power = 0;
    for (size_t k = 0; k < count; ++k)
        most_systems = cases[k].systems > most_systems ? cases[k].systems : most_systems;
    while (most_systems && most_systems * (2 * power) * (2 * power) <= limit)
        power *= 2;
    for (size_t k = 0; k < count; ++k) {
        const check_case *c = &cases[k];
        in_set[k] = c->systems * c->bodies * c->bodies <= limit;
        for (size_t j = 0; j < k && in_set[k]; ++j)
            in_set[k] = !(cases[j].bodies == c->bodies && cases[j].systems == c->systems);
        have_power |= c->bodies == power;
    }
    size_t extras = 0;
    for (size_t k = 0; k < count && !have_power && power > 1 && extras < 2; ++k) {
        int seen = 0; /* each S of the cases once */
        for (size_t e = 0; e < extras; ++e)
            seen |= extra[e].systems == cases[k].systems;
        if (!seen)
            extra[extras++] = (check_case){power, cases[k].systems, "plummer", "equal", 0};
    }
    return extras;
}

void read_case_result(const char *csv_path, const run_result *r, int passed, case_result *out)
{
    memset(out, 0, sizeof *out);
    out->ran = 1;
    out->passed = passed;
    out->acc_rms = out->acc_max = out->acc_ratio = -1.0;
    nb_csv csv;
    if (access(csv_path, R_OK) != 0 || nb_csv_read(csv_path, &csv) != NB_EXIT_OK)
        return;
    if (csv.rows == 1 && header_is_ours(&csv)) {
        out->acc_rms = cell_num(&csv, 0, "acc_rms");
        out->acc_max = cell_num(&csv, 0, "acc_max");
        out->acc_ratio = cell_num(&csv, 0, "acc_ratio");
        const double block = cell_num(&csv, 0, "block");
        out->block = block > 0.0 && block < 1e6 ? (unsigned)block : 0;
        out->mismatch = !passed && r->exited && r->code == NB_EXIT_MISMATCH && !r->flooded;
    }
    nb_csv_free(&csv);
}

void cause_race(outcome *out)
{
    textf(out->cause, sizeof out->cause, "race: wrong in the last bits at one thread count only (the race check): "
                                         "a variable that every thread writes");
}

/* ---- the signatures ------------------------------------------------------------------------- */

/* The acceleration limits the judge held case c to (validate.h): the exact class's, or the tree class's
 * at its default opening angle. */
static void acc_limits(const outcome *out, const check_case *c, double *max, double *rms)
{
    if (!strcmp(out->s->check, "tree")) {
        *max = NB_TOL_TREE_MAX;
        *rms = NB_TOL_TREE_RMS;
    } else {
        *max = c->bodies == 1 ? 0.0 : nb_tol_acc_max(c->bodies);
        *rms = c->bodies == 1 ? 0.0 : nb_tol_acc_rms(c->bodies);
    }
}

/* The same factor on every body: |a_step| / |a_ref| = k != 1 over the system, and every body's relative
 * error |k - 1| (the worst body's is; rounding and the judge's limit allowed). */
static int constant_factor(const outcome *out, const check_case *c, const case_result *r)
{
    double max, rms;
    acc_limits(out, c, &max, &rms);
    const double off = fabs(r->acc_ratio - 1.0);
    return r->mismatch && r->acc_ratio > 0.0 && off > max && fabs(r->acc_max - off) <= 0.02 * off + max;
}

/* The Ns of the cases that ran, each once, ascending; failed[k]: some case of that N failed. */
typedef struct sizes {
    uint64_t n[64];
    int failed[64];
    size_t count;
} sizes;

static void add_size(sizes *z, uint64_t n, int failed)
{
    size_t k = 0;
    while (k < z->count && z->n[k] != n)
        ++k;
    if (k == z->count) {
        if (z->count == sizeof z->n / sizeof z->n[0])
            return;
        size_t at = z->count++;
        while (at > 0 && z->n[at - 1] > n) {
            z->n[at] = z->n[at - 1];
            z->failed[at] = z->failed[at - 1];
            --at;
        }
        z->n[at] = n;
        z->failed[at] = 0;
        k = at;
    }
    z->failed[k] |= failed;
}

/* "2 31 257" of the sizes that failed (want 1) or passed (want 0), N = 1 left out where it passed
 * (no force: any step gets it right). */
static void list_sizes(const sizes *z, int want, char *out, size_t len)
{
    out[0] = '\0';
    for (size_t k = 0; k < z->count; ++k)
        if (z->failed[k] == want && (want || z->n[k] > 1)) {
            const size_t used = strlen(out);
            textf(out + used, len - used, "%s%llu", used ? " " : "", (unsigned long long)z->n[k]);
        }
}

/* Passing sizes all below failing ones (N = 1 aside where it passed), and where `block` is known, the
 * passing ones within it and the failing ones beyond: the largest passing size, else 0. */
static uint64_t size_threshold(const sizes *z, uint64_t block)
{
    uint64_t pass_max = 0, fail_min = UINT64_MAX;
    for (size_t k = 0; k < z->count; ++k) {
        if (z->failed[k])
            fail_min = z->n[k] < fail_min ? z->n[k] : fail_min;
        else if (z->n[k] > 1)
            pass_max = z->n[k] > pass_max ? z->n[k] : pass_max;
    }
    if (block && !(pass_max <= block && block < fail_min))
        return 0;
    return pass_max > 0 && fail_min != UINT64_MAX && pass_max < fail_min ? pass_max : 0;
}

/* Every passing size (N = 1 aside) a multiple of `block`, no failing one: 1 if so. block 0: the largest
 * power of two that divides every passing size. */
static int tail_pattern(const sizes *z, uint64_t block)
{
    int passes = 0, fails = 0;
    uint64_t b = block;
    if (!b) {
        b = UINT64_C(1) << 62;
        for (size_t k = 0; k < z->count; ++k)
            while (!z->failed[k] && z->n[k] > 1 && z->n[k] % b)
                b >>= 1;
    }
    for (size_t k = 0; k < z->count; ++k) {
        if (z->failed[k]) {
            fails = 1;
            if (z->n[k] % b == 0)
                return 0;
        } else if (z->n[k] > 1) {
            passes = 1;
            if (z->n[k] % b)
                return 0;
        }
    }
    return passes && fails && b > 1;
}

void name_cause(const check_case *cases, const case_result *res, size_t count, outcome *out)
{
    sizes all;
    memset(&all, 0, sizeof all);
    int s1_passed = 0, s1_failed = 0, sn_failed = 0, equal_passed = 0, random_only = 1, any_failed = 0;
    int state_only = 1, factor = 1, factor_big = 0, ratio_is_n = 1, ratio_same = 1, equal_factor = 1, equal_big = 0;
    double first_ratio = -1.0;
    unsigned block = 0;
    for (size_t k = 0; k < count; ++k)
        if (res[k].ran && res[k].block)
            block = res[k].block;
    /* A GPU tile's padding (past the last body) is massless bodies: with the masses left out they pull
     * too, so only where N is a multiple of the block are the equal-mass cases N times the reference. */
    int tiled_n = 0, tiled_other = 0, passed_big = 0;
    for (size_t k = 0; k < count; ++k) {
        const case_result *r = &res[k];
        const check_case *c = &cases[k];
        if (!r->ran)
            continue;
        passed_big |= r->passed && c->bodies > 1;
        if (!block || c->bodies <= 2 || c->bodies % block || strcmp(c->masses, "equal"))
            continue;
        if (!r->passed && constant_factor(out, c, r) &&
            fabs(r->acc_ratio - (double)c->bodies) <= 0.01 * (double)c->bodies)
            tiled_n = 1;
        else
            tiled_other = 1;
    }
    for (size_t k = 0; k < count; ++k) {
        const case_result *r = &res[k];
        const check_case *c = &cases[k];
        if (!r->ran)
            continue;
        add_size(&all, c->bodies, !r->passed);
        const int equal = !strcmp(c->masses, "equal");
        if (r->passed) {
            s1_passed |= c->systems == 1 && c->bodies > 1;
            equal_passed |= equal && c->bodies > 1;
            continue;
        }
        any_failed = 1;
        s1_failed |= c->systems == 1;
        sn_failed |= c->systems > 1;
        random_only &= !equal;
        double max, rms;
        acc_limits(out, c, &max, &rms);
        state_only &= r->mismatch && r->acc_max >= 0.0 && r->acc_max <= max && r->acc_rms <= rms;
        const int constant = constant_factor(out, c, r);
        factor &= constant;
        factor_big |= constant && c->bodies > 2;
        if (equal) {
            equal_factor &= constant;
            equal_big |= constant && c->bodies > 2;
        }
        if (constant) {
            ratio_is_n &= fabs(r->acc_ratio - (double)c->bodies) <= 0.01 * (double)c->bodies;
            if (first_ratio < 0.0)
                first_ratio = r->acc_ratio;
            ratio_same &= fabs(r->acc_ratio - first_ratio) <= 0.01 * first_ratio;
        }
    }
    if (!any_failed)
        return; /* failed elsewhere than in its cases */
    char failing[256], passing[256], pattern[600];
    list_sizes(&all, 1, failing, sizeof failing);
    list_sizes(&all, 0, passing, sizeof passing);
    textf(pattern, sizeof pattern, "N = %s fail%s%s%s", failing, passing[0] ? "; N = " : "", passing,
          passing[0] ? " pass" : "");
    /* A tree code's error grows with N by its approximation (small N opens every cell): no tile signature. */
    const int tiles = strcmp(out->s->check, "tree") != 0;
    const uint64_t threshold = tiles ? size_threshold(&all, block) : 0;
    char *cause = out->cause;
    const size_t len = sizeof out->cause;
    if (s1_passed && !s1_failed && sn_failed)
        textf(cause, len, "system-offset: right for S = 1 and wrong for S > 1: where a system's bodies start "
                          "(the system offset)");
    else if (random_only && equal_passed)
        textf(cause, len, "masses: right with equal masses and wrong with random ones: another body's "
                          "mass (m_i for m_j) or masses read from the wrong place");
    else if (threshold) {
        if (block)
            textf(cause, len, "tile-loop: right while N fits one block of %u and wrong beyond (%s): a "
                              "missing barrier or the tile loop's bounds or index", block, pattern);
        else
            textf(cause, len, "tile-loop: right up to N = %llu and wrong beyond (%s): a missing barrier or "
                              "the tile loop's bounds or index", (unsigned long long)threshold, pattern);
    } else if (tiles && tail_pattern(&all, block)) {
        if (block)
            textf(cause, len, "tail: wrong only where N is not a multiple of the block of %u (%s): the last "
                              "partial tile or block", block, pattern);
        else
            textf(cause, len, "tail: wrong only where N is not a multiple of a block size (%s): the last "
                              "partial tile or block", pattern);
    } else if (state_only)
        textf(cause, len, "kick-drift-or-dt: the accelerations right and the state after a step wrong: the "
                          "kick and drift order or dt");
    else if (factor && factor_big && ratio_same)
        textf(cause, len, "constant-factor: every acceleration %.4g times the reference's on every body at "
                          "every N: a factor in the mass or G or softening", first_ratio);
    else if (factor && factor_big && ratio_is_n)
        textf(cause, len, "constant-factor: every acceleration N times the reference's on every body: each "
                          "body's mass (1/N at equal masses) left out or a factor of N");
    else if (equal_factor && equal_big && ratio_is_n)
        textf(cause, len, "constant-factor: at equal masses (1/N each) every acceleration N times the "
                          "reference's: the mass m_j left out of the force");
    else if (tiles && block && tiled_n && !tiled_other && !passed_big)
        textf(cause, len, "constant-factor: at equal masses every acceleration N times the reference's where N "
                          "is a multiple of the block of %u, and wrong at every N (%s): the mass m_j left out "
                          "of the force (the tile's massless padding then pulls too)", block, pattern);
    else
        textf(cause, len, "none: no known signature (%s)", pattern);
}
