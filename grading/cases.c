/* cases.c: the correctness cases (grading/README.md, "What it checks"): which cases, run `--jobs` at a
 * time against the fp64 reference, the first failure stopping the step; after a mismatch the rest of
 * the diagnostic set, so that cause.c can read the failure's signature; and the results row written
 * for a run that left none. */
#define _GNU_SOURCE /* strdup */
#include "cases.h"
#include "cause.h"
#include "types.h"
#include "verdict.h"
#include "proc.h"
#include "registry.h"
#include "rows.h"
#include "text.h"
#include "nbody.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The correctness cases: every N at S = 1 and S = 3; all four model/masses pairs while S*N^2 is at
 * most FULL_PAIRS_LIMIT. Beyond it (N = 16384, where a serial CPU case takes 5-20 s) one pair per S:
 * plummer/equal at S = 1, uniform/random at S = 3, which still cover both models and both mass laws.
 * Random masses catch m_i-for-m_j. The Ns are --check-n's (grade.c holds the default list). */
static const uint64_t check_systems[] = {1, 3};
static const char *const pair_model[4] = {"plummer", "uniform", "plummer", "uniform"};
static const char *const pair_masses[4] = {"equal", "random", "random", "equal"};
#define FULL_PAIRS_LIMIT ((uint64_t)1 << 26)

void make_cases(grader *g)
{
    const options *o = &g->o;
    g->cases = (check_case *)calloc(o->check_n_count * 2 * 4, sizeof(check_case));
    if (!g->cases)
        nb_die(NB_EXIT_ERROR, "out of memory");
    for (size_t a = 0; a < o->check_n_count; ++a)
        for (size_t b = 0; b < 2; ++b)
            for (size_t p = 0; p < 4; ++p) {
                const uint64_t n = o->check_n[a], s = check_systems[b];
                if (s * n * n > FULL_PAIRS_LIMIT && p != b)
                    continue;
                g->cases[g->case_count++] = (check_case){n, s, pair_model[p], pair_masses[p], 0};
            }
}

/* A block_steps step's own cases, after the others: a concentrated model, whose bodies spread over the
 * levels (the judge's block-step check, common/README.md "Block steps"). */
static const check_case block_cases[] = {{1000, 1, "hernquist", "equal", 4}, {4099, 3, "hernquist", "random", 6}};
#define BLOCK_CASES (sizeof block_cases / sizeof block_cases[0])

size_t block_case_count(void)
{
    return BLOCK_CASES;
}

static void case_name(const check_case *c, char *out, size_t len)
{
    char levels[32] = "";
    if (c->levels > 1)
        textf(levels, sizeof levels, " levels %u", c->levels);
    textf(out, len, "N=%llu S=%llu %s/%s%s", (unsigned long long)c->bodies, (unsigned long long)c->systems,
             c->model, c->masses, levels);
}

/* The cases that `todo` marks (all `count` if NULL), `jobs` at a time, in order of size; with `stop`, the first
 * failure stops new ones from starting. Each one's result goes to res[index]. */
static void run_cases(grader *g, outcome *out, const char *logdir, const char *bin, const check_case *cases,
                      size_t count, const unsigned char *todo, int stop, case_result *res, size_t *first_failure,
                      char **fail_row)
{
    const options *o = &g->o;
    typedef struct slot {
        size_t index;
        char log[4400], csv[4400];
    } slot;
    job jobs[MAX_JOBS];
    slot slots[MAX_JOBS];
    memset(jobs, 0, sizeof jobs);
    size_t next = 0, running = 0;
    const size_t width = (size_t)o->jobs;
    for (;;) {
        while (todo && next < count && !todo[next])
            ++next;
        const int more = next < count && !(stop && *first_failure != (size_t)-1);
        if (!more && running == 0)
            break;
        if (more && running < width) {
            size_t k = 0;
            while (jobs[k].pid > 0)
                ++k;
            const check_case *c = &cases[next];
            slot *sl = &slots[k];
            sl->index = next++;
            char tag[96];
            textf(tag, sizeof tag, "n%llu-s%llu-%s-%s%s", (unsigned long long)c->bodies,
                     (unsigned long long)c->systems, c->model, c->masses, c->levels > 1 ? "-levels" : "");
            textf(sl->log, sizeof sl->log, "%s/check-%s.log", logdir, tag);
            textf(sl->csv, sizeof sl->csv, "%s/check-%s.csv", logdir, tag);
            unlink(sl->csv);
            char n[32], s[32];
            textf(n, sizeof n, "%llu", (unsigned long long)c->bodies);
            textf(s, sizeof s, "%llu", (unsigned long long)c->systems);
            char *argv[32] = {(char *)bin, "-q", "--validate-only", "--ref-cache", (char *)o->ref_cache, "--csv",
                              sl->csv, "--tag", "grade-check", "-n", n, "-S", s, "--model", (char *)c->model,
                              "--masses", (char *)c->masses};
            char levels[16];
            size_t words = 17;
            if (c->levels > 1) {
                textf(levels, sizeof levels, "%u", c->levels);
                argv[words++] = "--levels";
                argv[words++] = levels;
            }
            sandbox_words(o, argv, words);
            if (spawn(argv, sl->log, &jobs[k]) != NB_EXIT_OK)
                nb_die(NB_EXIT_ERROR, "cannot run %s", bin);
            ++running;
            continue;
        }
        run_result r;
        const int k = reap(jobs, width, o->timeout, &r);
        if (k < 0)
            break;
        --running;
        slot *sl = &slots[k];
        const check_case *c = &cases[sl->index];
        char *row = NULL, why[600], name[96];
        const int passed = verdict_of_run(o->timeout, &r, sl->csv, sl->log, &row, &out->worst_acc, &out->worst_state,
                                     why, sizeof why);
        read_case_result(sl->csv, &r, passed, &res[sl->index]);
        case_name(c, name, sizeof name);
        if (row && g->checks)
            fprintf(g->checks, "%s\n", row);
        if (passed) {
            ++out->cases_passed;
            free(row);
        } else if (sl->index < *first_failure) { /* the smallest failing case explains best */
            *first_failure = sl->index;
            textf(out->failed_case, sizeof out->failed_case, "%s", name);
            textf(out->reason, sizeof out->reason, "%s: %s", name, why);
            textf(out->log, sizeof out->log, "%s", sl->log);
            free(*fail_row);
            *fail_row = row ? row : synthetic_row(out->s->id, out->name, c);
        } else {
            free(row);
        }
        progress(g->tty, "  %s %s: %s %zu/%zu %-28s %s (%.1f s)", out->s->id, out->name,
                 todo ? "diagnosis, case" : "check", sl->index + 1, count, name, passed ? "PASS" : "FAIL",
                 r.seconds);
    }
}

/* All cases, the first failure stopping the step; after a mismatch, the diagnostic set's cases not run
 * yet (cause.h: within S*N^2 <= FULL_PAIRS_LIMIT, so bounded in time), all of them whatever they say,
 * then the likely cause. */
void run_checks(grader *g, outcome *out, const char *logdir, const char *bin)
{
    const size_t blocks = (out->s->features & NB_FEATURE_BLOCK_STEPS) ? BLOCK_CASES : 0;
    const size_t room = g->case_count + blocks + 2; /* the cases, the block cases, the diagnostic set's extras */
    check_case *cases = (check_case *)calloc(room, sizeof(check_case));
    case_result *res = (case_result *)calloc(room, sizeof(case_result));
    unsigned char *todo = (unsigned char *)calloc(room, 1);
    if (!cases || !res || !todo)
        nb_die(NB_EXIT_ERROR, "out of memory");
    if (g->case_count)
        memcpy(cases, g->cases, g->case_count * sizeof(check_case));
    size_t first_failure = (size_t)-1;
    char *fail_row = NULL;
    memcpy(cases + g->case_count, block_cases, blocks * sizeof(check_case));
    run_cases(g, out, logdir, bin, cases, g->case_count + blocks, NULL, 1, res, &first_failure, &fail_row);
    out->cases = g->case_count + blocks;
    /* The failure's signature needs every N at both S: only a mismatch has one (a crash, an error or a
     * timeout says why itself, and would only repeat). */
    if (first_failure < g->case_count && res[first_failure].mismatch) { /* the block cases have no signature */
        const size_t extras = diagnostic_set(cases, g->case_count, FULL_PAIRS_LIMIT, todo, cases + g->case_count);
        for (size_t k = 0; k < g->case_count; ++k)
            todo[k] = todo[k] && !res[k].ran;
        for (size_t e = 0; e < extras; ++e)
            todo[g->case_count + e] = 1;
        run_cases(g, out, logdir, bin, cases, g->case_count + extras, todo, 0, res, &first_failure, &fail_row);
        out->cases = g->case_count + extras;
        name_cause(cases, res, g->case_count + extras, out);
    }
    if (first_failure != (size_t)-1) {
        out->v = V_FAIL;
        out->row = fail_row;
    }
    free(cases);
    free(res);
    free(todo);
}
