/* grade.c: the grader behind `make grade`. It walks steps.list, builds each step, checks it against the
 * fp64 reference at awkward sizes, times it at one ladder size, prints a table, writes the results CSV
 * and draws the speedup ladder with gnuplot.
 *
 * The step binaries do the measuring (--validate-only, --ref-cache, --csv, --repeat); the grader runs
 * them as subprocesses with a time limit and takes its verdicts from their exit statuses and the rows
 * they write to the results CSV, never from their human output (that is only shown, as the reason).
 * `grade --help` lists the options; grading/README.md says what is checked and what is timed, and
 * which file does what. This file, the top floor: main, and the grading of one step (skip, build, cases,
 * race check, ladder run). */
#define _GNU_SOURCE /* nftw */
#include "build.h"
#include "cases.h"
#include "gpus.h"
#include "types.h"
#include "ladder_plot.h"
#include "options.h"
#include "proc.h"
#include "race.h"
#include "registry.h"
#include "rows.h"
#include "table.h"
#include "text.h"
#include "timed_run.h"
#include "nbody.h"
#include "results.h"
#include "timing.h"
#include "util.h"
#include "worker_call.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- grading one step ------------------------------------------------------------------- */

static void step_bin(const grader *g, const outcome *out, char *path, size_t len)
{
    if (g->o.binary)
        textf(path, len, "%s", g->o.binary);
    else
        textf(path, len, "%s/bin/%s", g->o.build, out->s->folder);
}

/* A step not written yet: its source still holds its stub's TODO line, found by grading/todo.awk (the one
 * rule, shared with make test). 1 with the line in msg. A binary graded with --binary has no source here. */
static int step_todo(const grader *g, const graded_step *s, char *msg, size_t len)
{
    if (g->o.binary)
        return 0;
    char cmd[600];
    textf(cmd, sizeof cmd, "awk -f grading/todo.awk '%s/nbody.%s' 2>/dev/null", s->folder, s->lang);
    FILE *p = popen(cmd, "r");
    if (!p)
        return 0;
    msg[0] = '\0';
    if (!fgets(msg, (int)len, p))
        msg[0] = '\0';
    const int rc = pclose(p);
    msg[strcspn(msg, "\n")] = '\0';
    printable_text(msg);
    return rc == 0 && msg[0];
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void grade_step(grader *g, outcome *out)
{
    const options *o = &g->o;
    const graded_step *s = out->s;
    const double t0 = nb_now();
    out->worst_acc = out->worst_state = -1.0;
    out->speedup_base = out->speedup_prev = -1.0;
    char logdir[4300], bin[4300];
    textf(logdir, sizeof logdir, "%s/logs/%s", o->out, s->id);
    log_budget_reset(); /* this step's logs, all of them together, are capped */
    nftw(logdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); /* an earlier run's logs are not this run's */
    if (mkdirs(logdir) != NB_EXIT_OK)
        exit(NB_EXIT_ERROR);
    step_bin(g, out, bin, sizeof bin);

    /* A step listed but not yet in the tree is not a failure; nor is a GPU step without nvcc (and no
     * binary) or the means to run it. Otherwise the step is built first, where it can be (a GPU step too,
     * without a GPU: a compile error is a FAIL with the compiler's first error), then a step not written
     * yet is TODO, then what cannot run here is SKIP, and only then do its cases run. */
    struct stat st;
    const int gpu = !strcmp(s->lang, "cu");
    char todo[400];
    if (!o->binary && stat(s->folder, &st) != 0) {
        out->v = V_SKIP;
        textf(out->reason, sizeof out->reason, "not in this tree yet (no folder %s/)", s->folder);
    } else if (gpu && !is_executable(bin) && !g->have_nvcc) {
        if (step_todo(g, s, todo, sizeof todo)) {
            out->v = V_TODO;
            textf(out->reason, sizeof out->reason, "%s", todo);
        } else {
            out->v = V_SKIP;
            textf(out->reason, sizeof out->reason, "no nvcc (%s not found) and no binary built", o->nvcc);
        }
    } else if (s->ranks && !have_command("mpirun")) {
        out->v = V_SKIP;
        textf(out->reason, sizeof out->reason, "launched by mpirun, which is not here (apt-get install openmpi-bin)");
    } else if (!build_step(g, out, logdir, bin)) {
        /* FAIL: the build failed, or there is no binary (out->reason says which) */
    } else if (step_todo(g, s, todo, sizeof todo)) {
        out->v = V_TODO;
        textf(out->reason, sizeof out->reason, "%s", todo);
    } else if (gpu && g->gpus.count == 0) {
        out->v = V_SKIP;
        textf(out->reason, sizeof out->reason, "compiled, no GPU (%s)", g->gpus.none);
    } else if (gpu && (unsigned)g->gpus.count < s->gpus) {
        out->v = V_SKIP;
        textf(out->reason, sizeof out->reason, "compiled; needs %u GPUs, %d here", s->gpus, g->gpus.count);
    }
    if (out->v == V_SKIP || out->v == V_TODO) {
        progress(g->tty, "  %s %s: %s, %s", s->id, out->name, verdict_name(out->v), out->reason);
        if (g->tty)
            printf("\n");
        return;
    }
    if (out->v == V_PASS) {
        run_checks(g, out, logdir, bin);
        /* CPU steps: a race on shared variables (race.c); with --binary only where its -O0 build is given */
        if (out->v == V_PASS && !gpu && (!o->binary || o->race_binary))
            run_race_check(g, out, logdir, o->binary ? o->race_binary : NULL);
        if (out->v == V_PASS && !o->no_timing)
            run_timing(g, out, logdir, bin);
    }
    out->seconds = nb_now() - t0;
    progress_end(g->tty);
    if (out->v == V_PASS)
        printf("  %s %s: PASS, %zu check cases%s (%.1f s)\n", s->id, out->name, (size_t)out->cases,
               out->timed ? " and the ladder run" : "", out->seconds);
    else
        printf("  %s %s: FAIL (%.1f s)\n    %s\n%s%s%s", s->id, out->name, out->seconds, out->reason,
               out->cause[0] ? "    likely cause: " : "", out->cause, out->cause[0] ? "\n" : "");
}

/* ---- main -------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    nb_set_progname("grade");
    grader g;
    memset(&g, 0, sizeof g);
    int rc = parse_args(argc, argv, &g.o);
    if (rc >= 0)
        return rc;
    const options *o = &g.o;
    end_children_on_signals();
    if (o->plot_csv && access(o->plot_csv, R_OK) != 0) { /* bad input: say so before creating anything */
        nb_error("--plot %s: %s", o->plot_csv, strerror(errno));
        return NB_EXIT_ERROR;
    }
    if (o->gpu_info && read_gpu_info(o->gpu_info, &g.recorded_gpus) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    char logs[4300];
    textf(logs, sizeof logs, "%s/logs", o->out);
    if (mkdirs(logs) != NB_EXIT_OK || mkdirs(o->ref_cache) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    /* The timed problem is drawn afresh for every grade: no build and no worker can know it before the
     * judge hands it over (grading/README.md, "What cannot be bought"). Its references are this grade's
     * alone, kept for its steps and removed by the next grade. */
    while (!g.o.seed && getrandom(&g.o.seed, sizeof g.o.seed, 0) != (ssize_t)sizeof g.o.seed)
        g.o.seed = 0;
    g.o.seed &= ((uint64_t)1 << 53) - 1; /* exact in a CSV cell read as a double */
    if (!g.o.seed)
        g.o.seed = 1;
    textf(g.ladder_cache, sizeof g.ladder_cache, "%s/ladder", o->ref_cache);
    char seed_file[4400], kept[32] = "", seed[32];
    textf(seed_file, sizeof seed_file, "%s/seed", g.ladder_cache);
    textf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
    FILE *f = fopen(seed_file, "re");
    if (f) {
        if (!fgets(kept, sizeof kept, f))
            kept[0] = '\0';
        fclose(f);
    }
    if (strcmp(kept, seed) != 0) { /* another problem: its references go (--seed N keeps them for N) */
        nftw(g.ladder_cache, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        if (mkdirs(g.ladder_cache) != NB_EXIT_OK || !(f = fopen(seed_file, "we")) || fputs(seed, f) < 0 ||
            fclose(f) != 0) {
            nb_error("cannot write %s", seed_file);
            return NB_EXIT_ERROR;
        }
    }
    if (!realpath(o->out, g.o.out_abs)) {
        nb_error("--out %s: %s", o->out, strerror(errno));
        return NB_EXIT_ERROR;
    }
    if (strcmp(o->sandbox, "off") != 0 && !o->plot_csv && !o->count_gpus) {
        char why[256];
        if (!nb_sandbox_available(why, sizeof why)) {
            if (!strcmp(o->sandbox, "require")) {
                nb_error("no sandbox for the steps' workers: %s; --sandbox require (grading other people's code) "
                         "refuses to grade without one", why);
                return NB_EXIT_ERROR;
            }
            printf("grade: no sandbox for the steps' workers (%s): they run unsandboxed, where a step could read "
                   "the references and change what the grader writes\n", why);
            g.o.sandbox = "off";
        }
    }
    probe_gpus(o->probe, o->out, &g.gpus);
    if (o->count_gpus) {
        printf("%d\n", g.gpus.count);
        return NB_EXIT_OK;
    }
    if (o->plot_csv)
        return draw_ladder(o, &g.gpus, &g.recorded_gpus, o->plot_csv) == 0 ? NB_EXIT_OK : NB_EXIT_MISMATCH;

    if (read_registry(o->registry, &g.reg) != NB_EXIT_OK || select_steps(&g.reg, o->steps) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    size_t count = 0;
    for (size_t k = 0; k < g.reg.count; ++k)
        count += g.reg.steps[k].selected;
    if (o->binary && count != 1) {
        nb_error("--binary grades one step: name it with --steps NN");
        return NB_EXIT_ERROR;
    }
    if (o->binary && !is_executable(o->binary)) {
        nb_error("--binary %s: no such program", o->binary);
        return NB_EXIT_ERROR;
    }
    g.have_nvcc = have_command(o->nvcc);
    g.tty = isatty(1);
    make_cases(&g);
    outcome *outs = (outcome *)calloc(count, sizeof(outcome));
    if (!outs)
        return NB_EXIT_ERROR;
    for (size_t k = 0, n = 0; k < g.reg.count; ++k)
        if (g.reg.steps[k].selected) {
            outs[n].s = &g.reg.steps[k];
            outs[n].name = o->label ? o->label : g.reg.steps[k].folder;
            ++n;
        }
    textf(g.checks_tmp, sizeof g.checks_tmp, "%s/checks.csv.tmp.%ld", o->out, (long)getpid());
    g.checks = fopen(g.checks_tmp, "we");
    if (!g.checks) {
        nb_error("cannot write %s: %s", g.checks_tmp, strerror(errno));
        return NB_EXIT_ERROR;
    }
    fprintf(g.checks, "%s\n", NB_RESULTS_HEADER);

    print_plan(&g, outs, count);
    const double t0 = nb_now();
    for (size_t k = 0; k < count; ++k)
        grade_step(&g, &outs[k]);
    size_t pass = 0, fail = 0, skip = 0, todo = 0; /* this run's verdicts, before earlier rows join */
    for (size_t k = 0; k < count; ++k)
        pass += outs[k].v == V_PASS, fail += outs[k].v == V_FAIL, skip += outs[k].v == V_SKIP,
            todo += outs[k].v == V_TODO;
    char path[4400];
    textf(path, sizeof path, "%s/verdicts.csv", o->out);
    write_verdicts(path, outs, count);
    textf(path, sizeof path, "%s/results.csv", o->out);
    if (!o->binary)
        count = add_earlier(&g, path, &outs, count);
    compute_speedups(outs, count, &g.reg);
    print_table(&g, outs, count);

    int any_errors = 0, any_earlier = 0; /* a line with errors (PASS or FAIL), of this run or an earlier one */
    for (size_t k = 0; k < count; ++k)
        any_errors |= outs[k].v == V_PASS || outs[k].v == V_FAIL, any_earlier |= outs[k].earlier;
    if (any_earlier)
        printf("\nRows marked \"earlier run\" have no result of this run (not graded now, or SKIP or TODO now): they\n"
               "are the latest result of that step in %s, kept so that the speedups compare every\n"
               "step graded so far.\n", path);
    if (any_errors)
        printf("\nacc err, state err: of the run whose row results.csv keeps, the ladder run for a PASS and the\n"
               "failing case for a FAIL, so an earlier run's line reads the same: the worst body's relative\n"
               "acceleration error, and the worst position/velocity error after 4 steps, - where that run did\n"
               "not measure it (tolerances in common/README.md; verdicts.csv has the worst over every run).\n"
               "loop time: median of %llu repeats; spread = (max - min) / median. Speedups compare G\n"
               "interactions/s; a step that failed gets none.\n",
               (unsigned long long)o->repeat);
    printf("\n%zu PASS, %zu FAIL, %zu SKIP, %zu TODO%s in %.0f s\n", pass, fail, skip, todo,
           skip || todo ? " (SKIP: cannot run here; TODO: not written yet; neither fails the grade)" : "",
           nb_now() - t0);

    char checks[4400];
    textf(checks, sizeof checks, "%s/checks.csv", o->out);
    if (fclose(g.checks) != 0 || rename(g.checks_tmp, checks) != 0)
        nb_error("cannot write %s", checks);
    if (write_csv(path, outs, count) == NB_EXIT_OK) {
        printf("results: %s (the latest row of every step graded so far), every case's row of this run in %s\n",
               path, checks);
        if (!o->no_timing)
            draw_ladder(o, &g.gpus, &g.recorded_gpus, path);
    }
    for (size_t k = 0; k < count; ++k)
        free(outs[k].row);
    free(outs);
    free(g.cases);
    free(g.reg.steps);
    printf("see a run in 3D: make view (a web page that plays a run's snapshots; make view SNAPS=DIR for yours)\n");
    return fail ? NB_EXIT_MISMATCH : NB_EXIT_OK;
}
