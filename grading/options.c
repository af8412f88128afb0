/* options.c: the grader's command line (options.h): `grade --help`, the defaults, the checks of the values. */
#define _GNU_SOURCE /* getopt_long, strtok_r */
#include "options.h"
#include "proc.h"
#include "text.h"
#include "cli.h"
#include "nbody.h"
#include "results.h"
#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The grade's constants: lab.conf is their one home, compiled in by grading/grading.mk (-DLAB_GRADE_N=...). */
#if !defined LAB_GRADE_N || !defined LAB_GRADE_S || !defined LAB_GRADE_STEPS || !defined LAB_GRADE_CPU_STEPS || \
    !defined LAB_GRADE_REPEAT || !defined LAB_GRADE_TIMEOUT || !defined LAB_GRADE_CHECK_N
#error "build the grader with make (grading/grading.mk): lab.conf's GRADE_* constants come as -DLAB_GRADE_*"
#endif
#define TEXT_OF(...) #__VA_ARGS__
#define TEXT(...) TEXT_OF(__VA_ARGS__)

/* The bodies per system of the correctness cases (cases.c makes the cases from them). */
static const uint64_t default_check_n[] = {LAB_GRADE_CHECK_N}; /* lab.conf's, comma-separated */

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
            "      --check-n \"1 2 31\"  bodies per system of the cases (default " TEXT(LAB_GRADE_CHECK_N) ", lab.conf's)\n"
            "      --ref-cache DIR     keep the fp64 references here (default OUT/ref-cache)\n"
            "      --jobs J            cases run at once (default 1)\n"
            "      --timeout SECONDS   limit for one case, the timing run or a build (default " TEXT(LAB_GRADE_TIMEOUT) ")\n"
            "      --sandbox MODE      the steps' workers: auto (default: bubblewrap where it runs, else said\n"
            "                          once and unsandboxed), require (refuse to grade without it), off\n"
            "      --sandbox-hide DIR  one more folder the workers must not see (OUT always; up to 2)\n"
            "\n"
            "Timing (after validation at that size and, on a GPU, one warm-up step)\n"
            "      --bodies N          ladder size (default " TEXT(LAB_GRADE_N) ", lab.conf's GRADE_N)\n"
            "      --systems S         systems (default " TEXT(LAB_GRADE_S) ")\n"
            "      --seed N            the timed problem's seed (default: drawn afresh for every grade, so that\n"
            "                          no build or worker can know the problem before it is asked)\n"
            "      --gpu-steps K       time steps per GPU run (default " TEXT(LAB_GRADE_STEPS) ")\n"
            "      --cpu-steps K       time steps per CPU run (default " TEXT(LAB_GRADE_CPU_STEPS) ": interactions/s are compared)\n"
            "      --repeat R          timed repeats, median reported (default " TEXT(LAB_GRADE_REPEAT) ", at least 3)\n"
            "      --no-timing         check only\n"
            "\n"
            "Output\n"
            "      --out DIR           results, logs and plots (default build/grade)\n"
            "      --probe PATH        program printing the GPU count, then \"SMs<TAB>name\" per GPU\n"
            "      --gnuplot-script F  the ladder's gnuplot script (default grading/ladder_plot.gp)\n"
            "      --instructions F    recorded instructions per interaction, for the ceiling line\n"
            "                          (default report/data/instructions.csv)\n"
            "      --gpu-info F        a recorded gpu.csv (report/tools/gpuinfo.cu: name, sms): the SM count\n"
            "                          of the ceiling line for a GPU the probe does not find here\n"
            "      --plot CSV          only draw the ladder from a results CSV (grade's header, common/results.h)\n"
            "      --results-header    only print that header, the columns --plot reads\n"
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

size_t sandbox_words(const options *o, char **words, size_t k)
{
    words[k++] = "--sandbox";
    words[k++] = (char *)o->sandbox;
    const char *hide[3] = {o->out_abs, o->hide[0], o->hide[1]};
    for (size_t h = 0; h < 1 + o->hide_count; ++h)
        if (hide[h] && hide[h][0]) {
            words[k++] = "--sandbox-hide";
            words[k++] = (char *)hide[h];
        }
    words[k] = NULL;
    return k;
}

int parse_args(int argc, char **argv, options *o)
{
    static char default_cache[4200];
    enum { O_STEPS = 256, O_REGISTRY, O_BUILD, O_MAKE, O_NVCC, O_BINARY, O_LABEL, O_CHECK_N, O_REF_CACHE, O_JOBS,
           O_TIMEOUT, O_BODIES, O_SYSTEMS, O_GPU_STEPS, O_CPU_STEPS, O_REPEAT, O_NO_TIMING, O_OUT, O_PROBE,
           O_GP, O_INSTR, O_PLOT, O_COUNT, O_RACE, O_SANDBOX, O_HIDE, O_GPU_INFO, O_HEADER, O_SEED };
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
        {"sandbox", required_argument, 0, O_SANDBOX}, {"sandbox-hide", required_argument, 0, O_HIDE},
        {"gpu-info", required_argument, 0, O_GPU_INFO}, {"results-header", no_argument, 0, O_HEADER},
        {"seed", required_argument, 0, O_SEED},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->registry = "steps.list";
    o->build = "build";
    o->nvcc = "nvcc";
    o->steps = "";
    o->gnuplot_script = "grading/ladder_plot.gp";
    o->instructions = "report/data/instructions.csv";
    memcpy(o->check_n, default_check_n, sizeof default_check_n);
    o->check_n_count = sizeof default_check_n / sizeof default_check_n[0];
    o->bodies = LAB_GRADE_N;
    o->systems = LAB_GRADE_S;
    o->gpu_steps = LAB_GRADE_STEPS;
    o->cpu_steps = LAB_GRADE_CPU_STEPS;
    o->repeat = LAB_GRADE_REPEAT;
    o->jobs = 1;
    o->timeout = LAB_GRADE_TIMEOUT;
    o->sandbox = "auto";
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
        case O_SEED: rc = nb_parse_u64(optarg, "--seed", 1, UINT64_MAX, &o->seed); break;
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
        case O_GPU_INFO: o->gpu_info = optarg; break;
        case O_HEADER: printf("%s\n", NB_RESULTS_HEADER); return NB_EXIT_OK;
        case O_SANDBOX:
            o->sandbox = optarg;
            if (strcmp(optarg, "auto") && strcmp(optarg, "require") && strcmp(optarg, "off")) {
                nb_error("--sandbox '%s': must be auto, require or off", optarg);
                rc = NB_EXIT_ERROR;
            }
            break;
        case O_HIDE:
            if (o->hide_count == 2 || optarg[0] != '/') {
                nb_error(o->hide_count == 2 ? "--sandbox-hide: at most 2 folders" : "--sandbox-hide '%s': give an "
                         "absolute path", optarg);
                rc = NB_EXIT_ERROR;
            } else {
                o->hide[o->hide_count++] = optarg;
            }
            break;
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
