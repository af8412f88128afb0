/* timed_run.c: the ladder run (grading/README.md, "What it times"): one run at the ladder size that
 * validates, warms up and times --repeat repeats; its time is read from the step's results row and
 * refused when no honest step could show it. */
#include "timed_run.h"
#include "gpus.h"
#include "types.h"
#include "verdict.h"
#include "proc.h"
#include "registry.h"
#include "rows.h"
#include "text.h"
#include "nbody.h"
#include "util.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A time no honest step can show: a direct-sum step beyond what the machine can issue at
 * MIN_INSTRUCTIONS per interaction (each pair once takes about 9). A GPU: gpus x SMs x 4 schedulers x 32
 * lanes x its clock. A CPU: threads x CPU_MAX_GHZ x CPU_LANES (16 float lanes of AVX-512, two FMA pipes).
 * Tree steps are exempt: their N^2-equivalent rate legitimately exceeds any direct sum's. The time is the
 * judge's own (common/README.md), so this bounds a step that computed less than it says, not a clock.
 * Every fact in it is the judge's or the grader's, none the step's: the device, the GPUs asked for and the
 * highest SM clock (NVML, common/device_query.h) from the row the judge wrote, the SM count from the
 * grader's own probe (the largest it found, where the row's device is none of them), the threads the judge
 * handed over. 1 with the reason. */
#define MIN_INSTRUCTIONS 4.0
#define CPU_MAX_GHZ 6.0
#define CPU_LANES 32.0
#define GPU_MAX_MHZ 3000.0
static int implausible(const grader *g, const graded_step *s, double gint, double clock_mhz, double gpus, double threads,
                       const char *device, char *why, size_t len)
{
    if (strcmp(s->check, "exact") != 0)
        return 0;
    if (strcmp(s->lang, "cu") != 0) {
        const double bound = (threads > 0.0 ? threads : 1.0) * CPU_MAX_GHZ * CPU_LANES / MIN_INSTRUCTIONS;
        if (gint > bound) {
            textf(why, len, "implausible speed: %.4g G interactions/s is above what %.0f threads of a CPU can issue "
                  "(%.4g at %.0f instructions per interaction, %.0f lanes, %.0f GHz)", gint, threads, bound,
                  MIN_INSTRUCTIONS, CPU_LANES, CPU_MAX_GHZ);
            return 1;
        }
        return 0;
    }
    int sms = sms_of(&g->gpus, device);
    for (int d = 0; sms == 0 && d < g->gpus.count; ++d) /* a device the probe does not name: its largest */
        sms = g->gpus.sms[d] > sms ? g->gpus.sms[d] : sms;
    if (!(clock_mhz > 0.0 && clock_mhz < GPU_MAX_MHZ)) /* NVML did not say: the highest any GPU runs at */
        clock_mhz = GPU_MAX_MHZ;
    if (gpus > (double)g->gpus.count && g->gpus.count > 0) /* never more GPUs than are here */
        gpus = g->gpus.count;
    if (sms > 0) {
        const double bound = (gpus > 0.0 ? gpus : 1.0) * sms * 4.0 * 32.0 * clock_mhz * 1e6 / MIN_INSTRUCTIONS * 1e-9;
        if (gint > bound) {
            textf(why, len, "implausible speed: %.4g G interactions/s is above what %s can issue (%.4g at %.0f "
                  "instructions per interaction, %d SMs, %.0f MHz)", gint, device, bound, MIN_INSTRUCTIONS, sms,
                  clock_mhz);
            return 1;
        }
    }
    return 0;
}

/* The ladder run: validates at that size (a sample beyond S*N^2 = 2^32), warms up, times --repeat runs. */
void run_timing(grader *g, outcome *out, const char *logdir, const char *bin)
{
    const options *o = &g->o;
    const int gpu = !strcmp(out->s->lang, "cu");
    char log[4400], csv[4400], n[32], s[32], k[32], r[32], seed[32];
    textf(log, sizeof log, "%s/ladder.log", logdir);
    textf(csv, sizeof csv, "%s/ladder.csv", logdir);
    unlink(csv);
    textf(n, sizeof n, "%llu", (unsigned long long)o->bodies);
    textf(s, sizeof s, "%llu", (unsigned long long)o->systems);
    textf(k, sizeof k, "%llu", (unsigned long long)(gpu ? o->gpu_steps : o->cpu_steps));
    textf(r, sizeof r, "%llu", (unsigned long long)o->repeat);
    textf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
    char *argv[40] = {(char *)bin, "-q", "--ref-cache", g->ladder_cache, "--csv", csv, "--tag", "grade-ladder",
                      "-n", n, "-S", s, "-k", k, "-r", r, "--seed", seed};
    sandbox_words(o, argv, 18);
    progress(g->tty, "  %s %s: timing N=%s S=%s, %s step%s: validation, %s%s repeats", out->s->id, out->name, n, s, k,
             strcmp(k, "1") ? "s" : "", gpu ? "warm-up, " : "", r);
    run_result res;
    if (run_one(argv, log, o->timeout, &res) != NB_EXIT_OK)
        nb_die(NB_EXIT_ERROR, "cannot run %s", bin);
    char *row = NULL, why[600];
    const int passed = verdict_of_run(o->timeout, &res, csv, log, &row, &out->worst_acc, &out->worst_state, why, sizeof why);
    ++out->cases;
    if (!passed) {
        out->v = V_FAIL;
        textf(out->failed_case, sizeof out->failed_case, "ladder N=%s S=%s", n, s);
        textf(out->reason, sizeof out->reason, "ladder run N=%s S=%s: %s", n, s, why);
        textf(out->log, sizeof out->log, "%s", log);
        const check_case ladder = {o->bodies, o->systems, "plummer", "equal", 0};
        out->row = row ? row : synthetic_row(out->s->id, out->name, &ladder);
        progress(g->tty, "  %s %s: timing FAIL (%.1f s)", out->s->id, out->name, res.seconds);
        return;
    }
    ++out->cases_passed;
    textf(out->log, sizeof out->log, "%s", log);
    nb_csv c;
    if (nb_csv_read(csv, &c) != NB_EXIT_OK)
        nb_die(NB_EXIT_ERROR, "cannot read back %s", csv);
    out->loop_s = cell_num(&c, 0, "kernel_s");
    out->loop_min = cell_num(&c, 0, "kernel_min_s");
    out->loop_max = cell_num(&c, 0, "kernel_max_s");
    out->gint = cell_num(&c, 0, "ginteractions_s");
    const double clock_mhz = cell_num(&c, 0, "clock_mhz"), gpus = cell_num(&c, 0, "gpus");
    const double threads = cell_num(&c, 0, "threads");
    char device[256];
    textf(device, sizeof device, "%s", nb_csv_get(&c, 0, "device"));
    printable_text(device); /* the step wrote it, and an implausible time shows it */
    nb_csv_free(&c);
    out->timed = out->loop_s > 0.0 && out->gint > 0.0;
    out->row = row;
    if (!out->timed) {
        out->v = V_FAIL;
        textf(out->reason, sizeof out->reason, "the ladder run wrote no time (see %s)", log);
    } else if (implausible(g, out->s, out->gint, clock_mhz, gpus, threads, device, out->reason, sizeof out->reason)) {
        out->v = V_FAIL;
        out->timed = 0;
    }
    progress(g->tty, "  %s %s: timing %.4g s median of %s, %.4g G interactions/s (%.1f s)", out->s->id, out->name,
             out->loop_s, r, out->gint, res.seconds);
}
