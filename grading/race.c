/* race.c: the data-race check of a CPU step (grading/README.md, "What it checks"). A race on variables
 * that all threads share (a body's accumulators declared outside the parallel loop) usually hides in an
 * optimised build: the compiler keeps them in registers, and the cases pass. Built without optimisation
 * (-O0: every += a load and a store to the shared variable; __OPTIMIZE__ defined and __NO_INLINE__ not,
 * as in an optimised build, so that the source cannot tell), the same step is run at one thread and at
 * as many as the cores; a step without a race writes the same bytes both times (every body's sum is one
 * thread's, in one order), a racy one does not. */
#include "race.h"
#include "cause.h"
#include "types.h"
#include "proc.h"
#include "rows.h"
#include "text.h"
#include "nbody.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 1 if the two files hold the same bytes; 0 if not, or one is unreadable. */
static int same_bytes(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        const int ca = getc(fa), cb = getc(fb);
        same = ca == cb;
        if (ca == EOF || cb == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

/* One run of the -O0 build at `threads` threads (0: as the checks get them), as a check case runs: the
 * same calls in the same order (the force evaluation, then the state check's steps), so that no worker can
 * tell this run from a check; --output keeps the checked state's bytes. */
static int race_run(const grader *g, const char *bin, unsigned threads, const char *out, const char *log,
                    char *why, size_t len, int *mismatch)
{
    char env[64];
    textf(env, sizeof env, "OMP_NUM_THREADS=%u", threads); /* the judge's: it hands the count to the worker */
    char *argv[48] = {"env", env, (char *)bin, "-q", "--validate-only", "--ref-cache", (char *)g->o.ref_cache,
                      "-n", "1000", "-S", "3", "--model", "plummer", "--masses", "random", "-o", (char *)out};
    char **words = threads ? argv : argv + 2; /* as the checks: the grader's own environment */
    sandbox_words(&g->o, argv, 17);
    run_result r;
    if (run_one(words, log, g->o.timeout, &r) != NB_EXIT_OK)
        nb_die(NB_EXIT_ERROR, "cannot run %s", bin);
    if (!r.exited || r.code != 0) {
        char end[128], line[400];
        describe_end(&r, g->o.timeout, end, sizeof end);
        log_line(log, NULL, line, sizeof line);
        textf(why, len, "race check at %s: %s: %s", threads == 1 ? "1 thread" : "many threads", end, line);
        *mismatch = r.exited && r.code == NB_EXIT_MISMATCH;
        return 0;
    }
    return 1;
}

void run_race_check(grader *g, outcome *out, const char *logdir, const char *race_bin)
{
    const graded_step *s = out->s;
    char bin[4400], log[4400];
    textf(log, sizeof log, "%s/race-build.log", logdir);
    if (race_bin) {
        textf(bin, sizeof bin, "%s", race_bin);
    } else { /* the step's own source, built as the step is (its flags) with -O0 last: make grade-copy */
        textf(bin, sizeof bin, "%s/race/%s-O0", g->o.out, s->folder);
        char dir[4400], cmd[9000];
        textf(dir, sizeof dir, "%s/race", g->o.out);
        if (mkdirs(dir) != NB_EXIT_OK)
            exit(NB_EXIT_ERROR);
        unlink(bin);
        textf(cmd, sizeof cmd, "%s -s --no-print-directory BUILD='%s' grade-copy COPY_ID='%s' COPY_SRC='%s/nbody.%s' "
              "COPY_BIN='%s' COPY_RACE=1", g->o.make ? g->o.make : "make", g->o.build, s->id, s->folder, s->lang, bin);
        char *argv[] = {"/bin/sh", "-c", cmd, NULL};
        progress(g->tty, "  %s %s: race check: building it without optimisation (-O0)", s->id, out->name);
        run_result r;
        if (run_one(argv, log, g->o.timeout, &r) != NB_EXIT_OK)
            nb_die(NB_EXIT_ERROR, "cannot run the race build");
        if (!r.exited || r.code != 0 || !is_executable(bin)) {
            char line[400];
            log_line(log, "error", line, sizeof line);
            out->v = V_FAIL;
            textf(out->reason, sizeof out->reason, "race check: the -O0 build failed: %s", line);
            textf(out->log, sizeof out->log, "%s", log);
            return;
        }
    }
    /* As many threads as the checks have (the grader's own environment), so that the worker cannot tell this
     * run from them by its thread count; at least 2 (on one core, or where OMP_NUM_THREADS says 1). */
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const char *env = getenv("OMP_NUM_THREADS");
    const long asked = env ? strtol(env, NULL, 10) : cores;
    const unsigned many = (unsigned)(asked > 2 ? asked : 2), as_checks = asked >= 2 ? 0 : many;
    char one[4400], lots[4400], log1[4400], logn[4400];
    textf(one, sizeof one, "%s/race-1.nbs", logdir);
    textf(lots, sizeof lots, "%s/race-%u.nbs", logdir, many);
    textf(log1, sizeof log1, "%s/race-1.log", logdir);
    textf(logn, sizeof logn, "%s/race-%u.log", logdir, many);
    progress(g->tty, "  %s %s: race check: 1 thread against %u, the -O0 build, as the case N=1000 S=3 plummer/random", s->id, out->name,
             many);
    ++out->cases;
    const check_case race_case = {1000, 3, "plummer", "random", 0};
    char why[600];
    int mismatch = 0;
    const int single = race_run(g, bin, 1, one, log1, why, sizeof why, &mismatch);
    if (!single || !race_run(g, bin, as_checks, lots, logn, why, sizeof why, &mismatch)) {
        out->v = V_FAIL;
        if (single && mismatch) { /* right on one thread, wrong on many: the threads share what they write */
            textf(out->reason, sizeof out->reason, "data race: built without optimisation, %u threads fail the check "
                  "1 thread passes (N=1000 S=3 plummer/random); a variable all threads write, e.g. an accumulator "
                  "declared outside the parallel loop? (%s)", many, why);
            textf(out->failed_case, sizeof out->failed_case, "race N=1000 S=3");
            cause_race(out);
        } else {
            textf(out->reason, sizeof out->reason, "%s", why);
        }
        textf(out->log, sizeof out->log, "%s", single ? logn : log1);
        out->row = synthetic_row(out->s->id, out->name, &race_case);
        return;
    }
    if (!same_bytes(one, lots)) {
        out->v = V_FAIL;
        textf(out->failed_case, sizeof out->failed_case, "race N=1000 S=3");
        textf(out->reason, sizeof out->reason, "data race: built without optimisation, %u threads give other results "
              "than 1 (N=1000 S=3, 4 steps: %s and %s differ); a variable all threads write, e.g. an accumulator "
              "declared outside the parallel loop?", many, one, lots);
        textf(out->log, sizeof out->log, "%s", logn);
        cause_race(out);
        out->row = synthetic_row(out->s->id, out->name, &race_case);
        return;
    }
    ++out->cases_passed;
}
