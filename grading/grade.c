/* grade.c: the grader behind `make grade`. It walks steps.list, builds each step, checks it against the
 * fp64 reference at awkward sizes, times it at one ladder size, prints a table, writes the results CSV
 * and draws the speedup ladder with gnuplot.
 *
 * The step binaries do the measuring (--validate-only, --ref-cache, --csv, --repeat); the grader runs
 * them as subprocesses with a time limit and takes its verdicts from their exit statuses and the rows
 * they write to the results CSV, never from their human output (that is only shown, as the reason).
 * `grade --help` lists the options; grading/README.md says what is checked and what is timed, and
 * which file does what. This file: the options, main, and the grading of one step (skip, build,
 * cases, ladder run). */
#define _GNU_SOURCE /* getopt_long */
#include "grade.h"
#include "cli.h"
#include "nbody.h"
#include "results.h"
#include "timing.h"
#include "util.h"

#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The bodies per system of the correctness cases (cases.c makes the cases from them). */
static const uint64_t default_check_n[] = {1, 2, 31, 257, 1000, 4099, 16384};

/* ---- options ---------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: grade [OPTION]...\n"
            "Builds, checks and times the steps of steps.list; prints a table, writes OUT/results.csv and\n"
            "draws OUT/ladder.png and OUT/ladder.svg. Normally run by `make grade` (grading/grading.mk).\n"
            "\n"
            "What to grade\n"
            "      --steps \"00 01 05\"  steps to grade, by id (default: every step of the registry)\n"
            "      --registry FILE     the registry (default steps.list)\n"
            "      --build DIR         where the step binaries are: DIR/bin/<folder> (default build)\n"
            "      --make CMD          build step NN with `CMD stepNN` first (default: use what is built)\n"
            "      --nvcc NAME         the CUDA compiler that builds GPU steps (default nvcc)\n"
            "      --binary PATH       grade this binary as the one step of --steps (the self-test)\n"
            "      --label TEXT        its name in the table\n"
            "      --race-binary PATH  with --binary: its -O0 build, for the race check of a CPU step (without\n"
            "                          --binary the grader builds it: make grade-copy COPY_FLAGS=-O0)\n"
            "\n"
            "Correctness\n"
            "      --check-n \"1 2 31\"  bodies per system of the cases (default 1 2 31 257 1000 4099 16384)\n"
            "      --ref-cache DIR     keep the fp64 references here (default OUT/ref-cache)\n"
            "      --jobs J            cases run at once (default 1)\n"
            "      --timeout SECONDS   limit for one case, the timing run or a build (default 900)\n"
            "\n"
            "Timing (after validation at that size and one warm-up step)\n"
            "      --bodies N          ladder size (default 65536)\n"
            "      --systems S         systems (default 1)\n"
            "      --gpu-steps K       time steps per GPU run (default 10)\n"
            "      --cpu-steps K       time steps per CPU run (default 1: interactions/s are compared)\n"
            "      --repeat R          timed repeats, median reported (default 3, at least 3)\n"
            "      --no-timing         check only\n"
            "\n"
            "Output\n"
            "      --out DIR           results, logs and plots (default build/grade)\n"
            "      --probe PATH        program printing the GPU count, then \"SMs<TAB>name\" per GPU\n"
            "      --gnuplot-script F  the ladder's gnuplot script (default grading/ladder.gp)\n"
            "      --instructions F    recorded instructions per interaction, for the ceiling line\n"
            "                          (default report/data/instructions.csv)\n"
            "      --plot CSV          only draw the ladder from a results CSV written by grade\n"
            "      --count-gpus        only print how many GPUs the probe finds\n"
            "  -h, --help              this help\n"
            "\n"
            "Exit status: 0 every graded step passed (skips allowed), 1 a step failed, 2 bad input.\n");
}

static int parse_list(const char *text, const char *option, uint64_t *out, size_t max, size_t *count)
{
    char buf[512];
    if (strlen(text) >= sizeof buf) {
        nb_error("%s: list too long", option);
        return NB_EXIT_ERROR;
    }
    strcpy(buf, text);
    *count = 0;
    for (char *save = NULL, *tok = strtok_r(buf, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
        if (*count == max) {
            nb_error("%s: at most %zu values", option, max);
            return NB_EXIT_ERROR;
        }
        if (nb_parse_u64(tok, option, 1, (uint64_t)1 << 31, &out[(*count)++]) != NB_EXIT_OK)
            return NB_EXIT_ERROR;
    }
    if (*count == 0) {
        nb_error("%s: empty list", option);
        return NB_EXIT_ERROR;
    }
    return NB_EXIT_OK;
}

/* Returns -1 to go on, or an exit status. */
static int parse_args(int argc, char **argv, options *o)
{
    static char default_cache[4200];
    enum { O_STEPS = 256, O_REGISTRY, O_BUILD, O_MAKE, O_NVCC, O_BINARY, O_LABEL, O_CHECK_N, O_REF_CACHE, O_JOBS,
           O_TIMEOUT, O_BODIES, O_SYSTEMS, O_GPU_STEPS, O_CPU_STEPS, O_REPEAT, O_NO_TIMING, O_OUT, O_PROBE,
           O_GP, O_INSTR, O_PLOT, O_COUNT, O_RACE };
    static const struct option longs[] = {
        {"steps", required_argument, 0, O_STEPS}, {"registry", required_argument, 0, O_REGISTRY},
        {"build", required_argument, 0, O_BUILD}, {"make", required_argument, 0, O_MAKE},
        {"nvcc", required_argument, 0, O_NVCC}, {"binary", required_argument, 0, O_BINARY},
        {"label", required_argument, 0, O_LABEL}, {"check-n", required_argument, 0, O_CHECK_N},
        {"ref-cache", required_argument, 0, O_REF_CACHE}, {"jobs", required_argument, 0, O_JOBS},
        {"timeout", required_argument, 0, O_TIMEOUT}, {"bodies", required_argument, 0, O_BODIES},
        {"systems", required_argument, 0, O_SYSTEMS}, {"gpu-steps", required_argument, 0, O_GPU_STEPS},
        {"cpu-steps", required_argument, 0, O_CPU_STEPS}, {"repeat", required_argument, 0, O_REPEAT},
        {"no-timing", no_argument, 0, O_NO_TIMING}, {"out", required_argument, 0, O_OUT},
        {"probe", required_argument, 0, O_PROBE}, {"gnuplot-script", required_argument, 0, O_GP},
        {"instructions", required_argument, 0, O_INSTR}, {"plot", required_argument, 0, O_PLOT},
        {"count-gpus", no_argument, 0, O_COUNT}, {"race-binary", required_argument, 0, O_RACE},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->registry = "steps.list";
    o->build = "build";
    o->nvcc = "nvcc";
    o->steps = "";
    o->gnuplot_script = "grading/ladder.gp";
    o->instructions = "report/data/instructions.csv";
    memcpy(o->check_n, default_check_n, sizeof default_check_n);
    o->check_n_count = sizeof default_check_n / sizeof default_check_n[0];
    o->bodies = 65536;
    o->systems = 1;
    o->gpu_steps = 10;
    o->cpu_steps = 1;
    o->repeat = 3;
    o->jobs = 1;
    o->timeout = 900.0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
        int rc = NB_EXIT_OK;
        switch (c) {
        case O_STEPS: o->steps = optarg; break;
        case O_REGISTRY: o->registry = optarg; break;
        case O_BUILD: o->build = optarg; break;
        case O_MAKE: o->make = *optarg ? optarg : NULL; break;
        case O_NVCC: o->nvcc = optarg; break;
        case O_BINARY: o->binary = optarg; break;
        case O_LABEL: o->label = optarg; break;
        case O_RACE: o->race_binary = optarg; break;
        case O_CHECK_N: rc = parse_list(optarg, "--check-n", o->check_n, MAX_CHECK_N, &o->check_n_count); break;
        case O_REF_CACHE: o->ref_cache = optarg; break;
        case O_JOBS: rc = nb_parse_u64(optarg, "--jobs", 1, MAX_JOBS, &o->jobs); break;
        case O_TIMEOUT: rc = nb_parse_double(optarg, "--timeout", 0.0, 86400.0, 0, &o->timeout); break;
        case O_BODIES: rc = nb_parse_u64(optarg, "--bodies", 1, (uint64_t)1 << 31, &o->bodies); break;
        case O_SYSTEMS: rc = nb_parse_u64(optarg, "--systems", 1, (uint64_t)1 << 31, &o->systems); break;
        case O_GPU_STEPS: rc = nb_parse_u64(optarg, "--gpu-steps", 1, (uint64_t)1 << 40, &o->gpu_steps); break;
        case O_CPU_STEPS: rc = nb_parse_u64(optarg, "--cpu-steps", 1, (uint64_t)1 << 40, &o->cpu_steps); break;
        case O_REPEAT: rc = nb_parse_u64(optarg, "--repeat", 3, 1000, &o->repeat); break;
        case O_NO_TIMING: o->no_timing = 1; break;
        case O_OUT: o->out = optarg; break;
        case O_PROBE: o->probe = optarg; break;
        case O_GP: o->gnuplot_script = optarg; break;
        case O_INSTR: o->instructions = optarg; break;
        case O_PLOT: o->plot_csv = optarg; break;
        case O_COUNT: o->count_gpus = 1; break;
        case 'h': usage(stdout); return NB_EXIT_OK;
        case ':': nb_error("%s needs a value (grade --help lists the options)", argv[optind - 1]); return NB_EXIT_ERROR;
        default:
            nb_error("unknown option '%s' (grade --help lists the options)", argv[optind - 1]);
            return NB_EXIT_ERROR;
        }
        if (rc != NB_EXIT_OK)
            return rc;
    }
    if (optind < argc) {
        nb_error("unexpected argument '%s' (grade --help lists the options)", argv[optind]);
        return NB_EXIT_ERROR;
    }
    if (strchr(o->build, '\'')) {
        nb_error("--build %s: a folder name with a quote cannot be passed to make", o->build);
        return NB_EXIT_ERROR;
    }
    if (!o->out) {
        static char default_out[4200];
        textf(default_out, sizeof default_out, "%s/grade", o->build);
        o->out = default_out;
    }
    if (!o->ref_cache) {
        textf(default_cache, sizeof default_cache, "%s/ref-cache", o->out);
        o->ref_cache = default_cache;
    }
    return -1;
}

/* ---- grading one step ------------------------------------------------------------------- */

static void step_bin(const grader *g, const outcome *out, char *path, size_t len)
{
    if (g->o.binary)
        textf(path, len, "%s", g->o.binary);
    else
        textf(path, len, "%s/bin/%s", g->o.build, out->s->folder);
}

/* Build it with `make stepNN`. 1 if there is a binary to grade. */
static int build_step(grader *g, outcome *out, const char *logdir, const char *bin)
{
    const step *s = out->s;
    if (g->o.binary || !g->o.make)
        goto check;
    if (!strcmp(s->lang, "cu") && !g->have_nvcc)
        goto check; /* a binary built elsewhere may be here; it is graded as it is */
    textf(out->log, sizeof out->log, "%s/build.log", logdir);
    char cmd[1024];
    textf(cmd, sizeof cmd, "%s -s --no-print-directory BUILD='%s' step%s", g->o.make, g->o.build, s->id);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    progress(g->tty, "  %s %s: building (%s)", s->id, out->name, cmd);
    run_result r;
    if (run_one(argv, out->log, g->o.timeout, &r) != NB_EXIT_OK)
        nb_die(NB_EXIT_ERROR, "cannot run the build");
    if (!r.exited || r.code != 0) {
        char line[400], end[128];
        log_line(out->log, "error", line, sizeof line);
        if (!line[0])
            log_line(out->log, NULL, line, sizeof line);
        describe_end(&r, g->o.timeout, end, sizeof end);
        textf(out->reason, sizeof out->reason, "build failed (%s): %s", end, line);
        out->v = V_FAIL;
        out->row = synthetic_row(out->s->id, out->name, NULL);
        return 0;
    }
check:
    if (!is_executable(bin)) {
        out->v = V_FAIL;
        textf(out->reason, sizeof out->reason, "no binary %s%s", bin,
                 g->o.make || g->o.binary ? "" : " (build it first, or use make grade)");
        out->row = synthetic_row(out->s->id, out->name, NULL);
        return 0;
    }
    return 1;
}

/* A step not written yet: its source still holds its stub's TODO line, found by grading/todo.awk (the one
 * rule, shared with make test). 1 with the line in msg. A binary graded with --binary has no source here. */
static int step_todo(const grader *g, const step *s, char *msg, size_t len)
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
    const step *s = out->s;
    const double t0 = nb_now();
    out->worst_acc = out->worst_state = -1.0;
    out->speedup_base = out->speedup_prev = -1.0;
    char logdir[4300], bin[4300];
    textf(logdir, sizeof logdir, "%s/logs/%s", o->out, s->id);
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
        printf("  %s %s: PASS, %zu check cases%s (%.1f s)\n", s->id, out->name, g->case_count,
               out->timed ? " and the ladder run" : "", out->seconds);
    else
        printf("  %s %s: FAIL (%.1f s)\n    %s\n", s->id, out->name, out->seconds, out->reason);
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
    char logs[4300];
    textf(logs, sizeof logs, "%s/logs", o->out);
    if (mkdirs(logs) != NB_EXIT_OK || mkdirs(o->ref_cache) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    probe_gpus(o->probe, o->out, &g.gpus);
    if (o->count_gpus) {
        printf("%d\n", g.gpus.count);
        return NB_EXIT_OK;
    }
    if (o->plot_csv)
        return draw_ladder(o, &g.gpus, o->plot_csv) == 0 ? NB_EXIT_OK : NB_EXIT_MISMATCH;

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
    g.checks = fopen(g.checks_tmp, "w");
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

    int any_timed = 0, any_earlier = 0;
    for (size_t k = 0; k < count; ++k)
        any_timed |= outs[k].timed, any_earlier |= outs[k].earlier;
    if (any_earlier)
        printf("\nRows marked \"earlier run\" were not graded now: they are the latest result of that step in %s,\n"
               "kept so that the speedups compare every step graded so far.\n", path);
    if (any_timed)
        printf("\nacc err: worst acceleration error, state err: worst position/velocity error after 4 steps, over\n"
               "every run (tolerances in common/README.md). loop time: median of %llu repeats; spread = (max - min)\n"
               "/ median. Speedups compare G interactions/s; a step that failed gets none.\n",
               (unsigned long long)o->repeat);
    printf("\n%zu PASS, %zu FAIL, %zu SKIP, %zu TODO%s in %.0f s\n", pass, fail, skip, todo,
           skip || todo ? " (skips and TODOs, steps not written yet, do not fail the grade)" : "", nb_now() - t0);

    char checks[4400];
    textf(checks, sizeof checks, "%s/checks.csv", o->out);
    if (fclose(g.checks) != 0 || rename(g.checks_tmp, checks) != 0)
        nb_error("cannot write %s", checks);
    if (write_csv(path, outs, count) == NB_EXIT_OK) {
        printf("results: %s (the latest row of every step graded so far), every case's row of this run in %s\n",
               path, checks);
        if (!o->no_timing)
            draw_ladder(o, &g.gpus, path);
    }
    for (size_t k = 0; k < count; ++k)
        free(outs[k].row);
    free(outs);
    free(g.cases);
    free(g.reg.steps);
    return fail ? NB_EXIT_MISMATCH : NB_EXIT_OK;
}
