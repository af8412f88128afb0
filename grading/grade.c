/* grade.c: the grader behind `make grade`. It walks steps.list, builds each step, checks it against the
 * fp64 reference at awkward sizes, times it at one ladder size, prints a table, writes the results CSV
 * and draws the speedup ladder with gnuplot.
 *
 * The step binaries do the measuring (--validate-only, --ref-cache, --csv, --repeat); the grader runs
 * them as subprocesses with a time limit and takes its verdicts from their exit statuses and the rows
 * they write to the results CSV, never from their human output (that is only shown, as the reason).
 * `grade --help` lists the options; grading/README.md says what is checked and what is timed. */
#define _GNU_SOURCE /* getopt_long */
#include "cli.h"
#include "nbody.h"
#include "results.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The correctness cases: every N at S = 1 and S = 3; all four model/masses pairs while S*N^2 is at
 * most FULL_PAIRS_LIMIT. Beyond it (N = 16384, where a serial CPU case takes 5-20 s) one pair per S:
 * plummer/equal at S = 1, uniform/random at S = 3, which still cover both models and both mass laws.
 * Random masses catch m_i-for-m_j. */
static const uint64_t default_check_n[] = {1, 2, 31, 257, 1000, 4099, 16384};
static const uint64_t check_systems[] = {1, 3};
static const char *const pair_model[4] = {"plummer", "uniform", "plummer", "uniform"};
static const char *const pair_masses[4] = {"equal", "random", "random", "equal"};
#define FULL_PAIRS_LIMIT ((uint64_t)1 << 26)
#define MAX_CHECK_N 32
#define MAX_JOBS 16
#define MAX_GPUS 16
#define PROBE_TIMEOUT 60.0

/* snprintf for the grader's messages and paths: a text too long for its buffer is cut short. */
static void textf(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void textf(char *out, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, len, fmt, ap);
    va_end(ap);
}

/* ---- options ---------------------------------------------------------------------------- */

typedef struct options {
    const char *registry, *build, *out, *ref_cache, *make, *nvcc, *steps, *binary, *label;
    const char *probe, *gnuplot_script, *instructions, *plot_csv;
    uint64_t check_n[MAX_CHECK_N];
    size_t check_n_count;
    uint64_t bodies, systems, gpu_steps, cpu_steps, repeat, jobs;
    double timeout;
    int no_timing, count_gpus;
} options;

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
           O_GP, O_INSTR, O_PLOT, O_COUNT };
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
        {"count-gpus", no_argument, 0, O_COUNT}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
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

/* ---- small helpers -------------------------------------------------------------------- */


static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int mkdirs(const char *path)
{
    char buf[4200];
    textf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; ++p) {
        const char c = *p;
        if (c == '/' || c == '\0') {
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
                nb_error("cannot create %s: %s", buf, strerror(errno));
                return NB_EXIT_ERROR;
            }
            *p = c;
        }
        if (c == '\0')
            return NB_EXIT_OK;
    }
}

static int is_executable(const char *path) { return access(path, X_OK) == 0; }

/* Is `name` a program on PATH (or an executable path)? */
static int have_command(const char *name)
{
    if (strchr(name, '/'))
        return is_executable(name);
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char dir[4200];
    for (const char *p = path; *p;) {
        const size_t len = strcspn(p, ":");
        textf(dir, sizeof dir, "%.*s/%s", (int)len, p, name);
        if (len > 0 && is_executable(dir))
            return 1;
        p += len;
        if (*p == ':')
            ++p;
    }
    return 0;
}

/* Text for a CSV cell of ours: no commas, quotes or line breaks. */
static void clean_cell(char *s)
{
    for (; *s; ++s)
        if (*s == ',' || *s == '"' || *s == '\n' || *s == '\r')
            *s = ' ';
}

/* The last non-empty line of a log, or the first one containing `needle` (NULL: the last line). */
static void log_line(const char *path, const char *needle, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        const char *p = line;
        while (isspace((unsigned char)*p))
            ++p;
        if (!*p)
            continue;
        if (needle && !strstr(p, needle))
            continue;
        textf(out, len, "%s", p);
        if (needle)
            break;
    }
    fclose(f);
}

/* Why a step disagreed with the reference: the first clause of its report that says FAIL, e.g.
 * "kick-then-drift 8.15e-01 (tol 1e-04) FAIL", else the first line after its verdict line (such as
 * "body 3 of system 0 is not finite after 10 steps"). Shown to people, never parsed for verdicts. */
static void failure_clause(const char *path, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[1024], first[1024] = "";
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *p = line;
        while (isspace((unsigned char)*p))
            ++p;
        if (!*p || strstr(p, "validation FAIL"))
            continue;
        if (!first[0])
            textf(first, sizeof first, "%s", p);
        char *fail = strstr(p, " FAIL");
        if (!fail)
            continue;
        fail[5] = '\0';
        char *clause = p; /* "acceleration (31 bodies): rms 3.6e-01 (tol 2.0e-05) FAIL, max ..." */
        for (char *q = p; q < fail; ++q)
            if (*q == ',' || *q == ';')
                clause = q + 1;
        while (isspace((unsigned char)*clause))
            ++clause;
        /* A bare "max 1.2e-01 ..." or "velocities ..." keeps the name of what it measures. */
        int head = (int)strcspn(p, "(:");
        while (head > 0 && p[head - 1] == ' ')
            --head;
        static const char *const bare[] = {"rms ", "max ", "positions ", "velocities "};
        int needs_head = 0;
        for (size_t b = 0; b < sizeof bare / sizeof bare[0]; ++b)
            needs_head |= clause != p && !strncmp(clause, bare[b], strlen(bare[b]));
        if (needs_head)
            textf(out, len, "%.*s: %s", head, p, clause);
        else
            textf(out, len, "%s", clause);
        fclose(f);
        return;
    }
    fclose(f);
    textf(out, len, "%s", first);
}

/* ---- the registry ----------------------------------------------------------------------- */

typedef struct step {
    char id[16], folder[64], lang[8];
    unsigned gpus;  /* GPUs it needs */
    char from[16];  /* the step it grows from ("" for none): its "vs prev" compares with that one */
    char check[16]; /* tolerance class: exact or tree */
    unsigned ranks; /* launch mpi:R: run through mpirun -np R; 0: run the binary itself */
    char ranks_text[16];
    int selected;
} step;

typedef struct registry {
    step *steps;
    size_t count;
} registry;

static int is_number(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; ++s)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

/* The rule every reader of steps.list uses: lines whose first field is a number are steps. */
static int read_registry(const char *path, registry *r)
{
    memset(r, 0, sizeof *r);
    FILE *f = fopen(path, "r");
    if (!f) {
        nb_error("cannot read the registry %s: %s", path, strerror(errno));
        return NB_EXIT_ERROR;
    }
    char line[1024];
    size_t lineno = 0;
    while (fgets(line, sizeof line, f)) {
        ++lineno;
        char first[64] = "";
        if (sscanf(line, "%63s", first) != 1 || !is_number(first))
            continue;
        step s;
        memset(&s, 0, sizeof s);
        char gpus[16], flags[256], launch[32];
        if (sscanf(line, "%15s %63s %7s %15s %255s %15s %15s %31s", s.id, s.folder, s.lang, gpus, flags, s.from,
                   s.check, launch) != 8 ||
            !is_number(gpus) || (strcmp(s.lang, "c") && strcmp(s.lang, "cu")) ||
            (strcmp(s.from, "-") && !is_number(s.from)) || (strcmp(s.check, "exact") && strcmp(s.check, "tree")) ||
            (strcmp(launch, "-") && (strncmp(launch, "mpi:", 4) || !is_number(launch + 4) ||
                                     strtoul(launch + 4, NULL, 10) < 1 || strtoul(launch + 4, NULL, 10) > 64))) {
            nb_error("%s line %zu: expected 'id folder c|cu gpus flags from|- exact|tree -|mpi:R summary'", path,
                     lineno);
            fclose(f);
            free(r->steps);
            return NB_EXIT_ERROR;
        }
        if (!strcmp(s.from, "-"))
            s.from[0] = '\0';
        s.ranks = strcmp(launch, "-") ? (unsigned)strtoul(launch + 4, NULL, 10) : 0;
        snprintf(s.ranks_text, sizeof s.ranks_text, "%u", s.ranks);
        s.gpus = (unsigned)strtoul(gpus, NULL, 10);
        if (!strcmp(s.lang, "cu") && s.gpus == 0)
            s.gpus = 1; /* CUDA code needs a GPU, whatever the column says */
        step *grown = (step *)realloc(r->steps, (r->count + 1) * sizeof(step));
        if (!grown) {
            nb_error("out of memory reading %s", path);
            fclose(f);
            free(r->steps);
            return NB_EXIT_ERROR;
        }
        r->steps = grown;
        r->steps[r->count++] = s;
    }
    fclose(f);
    if (r->count == 0) {
        nb_error("%s lists no steps", path);
        return NB_EXIT_ERROR;
    }
    for (size_t k = 0; k < r->count; ++k) { /* a step grows from one listed before it */
        size_t j = 0;
        while (j < k && (!r->steps[k].from[0] || strcmp(r->steps[j].id, r->steps[k].from)))
            ++j;
        if (r->steps[k].from[0] && j == k) {
            nb_error("%s: step %s grows from step %s, which is not listed before it", path, r->steps[k].id,
                     r->steps[k].from);
            free(r->steps);
            return NB_EXIT_ERROR;
        }
    }
    return NB_EXIT_OK;
}

/* Marks the steps named in `list` ("00 01 05", "3" = "03"); an empty list selects all. */
static int select_steps(registry *r, const char *list)
{
    char buf[512];
    textf(buf, sizeof buf, "%s", list);
    int any = 0;
    for (char *save = NULL, *tok = strtok_r(buf, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
        any = 1;
        size_t k = 0;
        for (; k < r->count; ++k)
            if (!strcmp(tok, r->steps[k].id) ||
                (is_number(tok) && strtoul(tok, NULL, 10) == strtoul(r->steps[k].id, NULL, 10)))
                break;
        if (k == r->count) {
            char ids[256] = "";
            for (size_t j = 0; j < r->count; ++j) {
                const size_t used = strlen(ids);
                textf(ids + used, sizeof ids - used, " %s", r->steps[j].id);
            }
            nb_error("no step '%s' in the registry (it has:%s)", tok, ids);
            return NB_EXIT_ERROR;
        }
        r->steps[k].selected = 1;
    }
    for (size_t k = 0; k < r->count && !any; ++k)
        r->steps[k].selected = 1;
    return NB_EXIT_OK;
}

/* ---- subprocesses with a time limit ------------------------------------------------------- */

/* Children run in their own process groups (a timeout kills a whole build); on Ctrl-C we end them. */
static volatile pid_t active_groups[MAX_JOBS + 1];

static void on_signal(int sig)
{
    for (size_t k = 0; k < MAX_JOBS + 1; ++k)
        if (active_groups[k] > 0)
            kill(-active_groups[k], SIGTERM);
    signal(sig, SIG_DFL);
    raise(sig);
}

typedef struct run_result {
    int exited, code, signal, timed_out;
    double seconds;
} run_result;

typedef struct job {
    pid_t pid;
    double start;
    int timed_out;
} job;

/* Start argv with stdout and stderr into log_path (and stdin from /dev/null). 0 on success. */
static int spawn(char *const argv[], const char *log_path, job *j)
{
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) {
        nb_error("cannot start %s: %s", argv[0], strerror(errno));
        return NB_EXIT_ERROR;
    }
    if (pid == 0) {
        setpgid(0, 0);
        const int in = open("/dev/null", O_RDONLY);
        const int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in >= 0)
            dup2(in, 0);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execvp(argv[0], argv);
        dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* also here: whichever of the two runs first */
    j->pid = pid;
    j->start = now_s();
    j->timed_out = 0;
    for (size_t k = 0; k < MAX_JOBS + 1; ++k)
        if (active_groups[k] == 0) {
            active_groups[k] = pid;
            break;
        }
    return NB_EXIT_OK;
}

/* Wait until one of jobs[0..count) ends, killing any that runs past `timeout`. Returns its index. */
static int reap(job *jobs, size_t count, double timeout, run_result *res)
{
    for (;;) {
        /* Look before reaping: while the child is a zombie its pid (its group's id) cannot be reused,
         * so whatever it left running in its group can be ended safely. */
        siginfo_t info;
        memset(&info, 0, sizeof info);
        const int seen = waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT);
        const pid_t pid = seen == 0 ? info.si_pid : -1;
        if (pid > 0) {
            int status;
            kill(-pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            for (size_t k = 0; k < count; ++k)
                if (jobs[k].pid == pid) {
                    memset(res, 0, sizeof *res);
                    res->seconds = now_s() - jobs[k].start;
                    res->timed_out = jobs[k].timed_out;
                    res->exited = WIFEXITED(status);
                    res->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
                    res->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
                    for (size_t a = 0; a < MAX_JOBS + 1; ++a)
                        if (active_groups[a] == pid)
                            active_groups[a] = 0;
                    jobs[k].pid = 0;
                    return (int)k;
                }
            continue;
        }
        if (seen < 0 && errno != EINTR)
            return -1; /* no children at all */
        const double t = now_s();
        for (size_t k = 0; k < count; ++k)
            if (jobs[k].pid > 0 && !jobs[k].timed_out && t - jobs[k].start > timeout) {
                kill(-jobs[k].pid, SIGKILL);
                jobs[k].timed_out = 1;
            }
        const struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}

static int run_one(char *const argv[], const char *log_path, double timeout, run_result *res)
{
    job j;
    if (spawn(argv, log_path, &j) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    return reap(&j, 1, timeout, res) == 0 ? NB_EXIT_OK : NB_EXIT_ERROR;
}

/* A step's command line as the registry launches it: an mpi:R step through `mpirun -np R` (as root only
 * with --allow-run-as-root, and --oversubscribe only where the machine has fewer cores than ranks). */
#define MAX_ARGS 64
static char *const *launch_argv(const step *s, char *const argv[], char *out[MAX_ARGS])
{
    if (!s->ranks)
        return argv;
    size_t k = 0;
    out[k++] = "mpirun";
    out[k++] = "-np";
    out[k++] = (char *)s->ranks_text;
    if (geteuid() == 0)
        out[k++] = "--allow-run-as-root";
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores > 0 && (unsigned long)cores < s->ranks)
        out[k++] = "--oversubscribe";
    for (size_t j = 0; argv[j] && k + 1 < MAX_ARGS; ++j)
        out[k++] = argv[j];
    out[k] = NULL;
    return out;
}

/* "timed out after 900 s", "killed by signal 11 (Segmentation fault)", "exit status 2" */
static void describe_end(const run_result *r, double timeout, char *out, size_t len)
{
    if (r->timed_out)
        textf(out, len, "timed out after %.0f s", timeout);
    else if (r->signal)
        textf(out, len, "killed by signal %d (%s)", r->signal, strsignal(r->signal));
    else
        textf(out, len, "exit status %d", r->code);
}

/* ---- GPUs ----------------------------------------------------------------------------------- */

typedef struct gpu_info {
    int count;
    int sms[MAX_GPUS];
    char name[MAX_GPUS][128];
    char how[160];  /* how the count was found: "cudaGetDeviceCount", "nvidia-smi -L" */
    char none[160]; /* why there is none, when there is none */
} gpu_info;

/* Ask the probe (cudaGetDeviceCount), else nvidia-smi -L; any failure counts as no GPU. */
static void probe_gpus(const options *o, gpu_info *g)
{
    memset(g, 0, sizeof *g);
    char log[4300];
    textf(log, sizeof log, "%s/logs/gpu-probe.txt", o->out);
    run_result r;
    if (o->probe && is_executable(o->probe)) {
        char *argv[] = {(char *)o->probe, NULL};
        textf(g->how, sizeof g->how, "cudaGetDeviceCount");
        textf(g->none, sizeof g->none, "cudaGetDeviceCount found none");
        if (run_one(argv, log, PROBE_TIMEOUT, &r) != NB_EXIT_OK || !r.exited || r.code != 0) {
            textf(g->none, sizeof g->none, "the GPU probe failed: see %s", log);
            return;
        }
        FILE *f = fopen(log, "r");
        char line[256];
        if (!f)
            return;
        int count = 0;
        if (fgets(line, sizeof line, f) && sscanf(line, "%d", &count) == 1 && count > 0) {
            g->count = count > MAX_GPUS ? MAX_GPUS : count;
            for (int d = 0; d < g->count && fgets(line, sizeof line, f); ++d) {
                line[strcspn(line, "\r\n")] = '\0';
                char *tab = strchr(line, '\t');
                if (tab && sscanf(line, "%d", &g->sms[d]) == 1)
                    textf(g->name[d], sizeof g->name[d], "%s", tab + 1);
            }
        }
        fclose(f);
        return;
    }
    if (!have_command("nvidia-smi")) {
        textf(g->how, sizeof g->how, "no probe");
        textf(g->none, sizeof g->none, "no GPU probe (it needs nvcc) and no nvidia-smi");
        return;
    }
    textf(g->how, sizeof g->how, "nvidia-smi -L");
    textf(g->none, sizeof g->none, "nvidia-smi -L lists none");
    char *argv[] = {"nvidia-smi", "-L", NULL};
    if (run_one(argv, log, PROBE_TIMEOUT, &r) != NB_EXIT_OK || !r.exited || r.code != 0)
        return;
    FILE *f = fopen(log, "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        g->count += !strncmp(line, "GPU ", 4);
    if (f)
        fclose(f);
}

/* "2x NVIDIA H200" (a run on several GPUs) names the same GPU as "NVIDIA H200". */
static const char *single_gpu_name(const char *device)
{
    const char *p = device;
    while (isdigit((unsigned char)*p))
        ++p;
    return p > device && p[0] == 'x' && p[1] == ' ' ? p + 2 : device;
}

/* SMs of the GPU called `device`, 0 if unknown. */
static int sms_of(const gpu_info *g, const char *device)
{
    device = single_gpu_name(device);
    for (int d = 0; d < g->count; ++d)
        if (g->sms[d] > 0 && !strcasecmp(g->name[d], device))
            return g->sms[d];
    return 0;
}

/* ---- results CSV rows --------------------------------------------------------------------- */

/* One row of a CSV written by a step, re-joined (cells never hold commas). */
static char *join_row(const nb_csv *c, size_t r)
{
    size_t len = 1;
    for (size_t k = 0; k < c->columns; ++k)
        len += strlen(c->cell[r][k]) + 1;
    char *row = (char *)malloc(len);
    if (!row)
        return NULL;
    row[0] = '\0';
    for (size_t k = 0; k < c->columns; ++k) {
        strcat(row, c->cell[r][k]);
        if (k + 1 < c->columns)
            strcat(row, ",");
    }
    return row;
}

static int header_is_ours(const nb_csv *c)
{
    char header[sizeof NB_RESULTS_HEADER];
    size_t k = 0, len = 0;
    for (; k < c->columns; ++k)
        len += strlen(c->header[k]) + 1;
    if (len != sizeof NB_RESULTS_HEADER)
        return 0;
    header[0] = '\0';
    for (k = 0; k < c->columns; ++k) {
        strcat(header, c->header[k]);
        if (k + 1 < c->columns)
            strcat(header, ",");
    }
    return !strcmp(header, NB_RESULTS_HEADER);
}

/* A number from a cell; empty means "not measured" (-1), "nan" stays NaN. */
static double cell_num(const nb_csv *c, size_t r, const char *name)
{
    const char *s = nb_csv_get(c, r, name);
    if (!*s)
        return -1.0;
    char *end;
    const double v = strtod(s, &end);
    return end == s ? -1.0 : v;
}

/* The larger error; NaN wins, "not measured" (-1) loses. */
static double worse(double a, double b)
{
    if (isnan(a) || isnan(b))
        return NAN;
    return a > b ? a : b;
}

/* ---- grading one step ------------------------------------------------------------------- */

typedef enum verdict { V_PASS, V_FAIL, V_SKIP } verdict;

typedef struct outcome {
    const step *s;
    const char *name;       /* folder, or --label */
    verdict v;
    char reason[600];       /* why FAIL or SKIP */
    char failed_case[128];
    char log[4300];         /* the log to read for details */
    size_t cases, cases_passed;
    double worst_acc, worst_state; /* -1: not measured */
    int timed;
    double loop_s, loop_min, loop_max, gint;
    double speedup_base, speedup_prev; /* -1: none */
    const char *prev_id;
    char *row;              /* for results.csv: the ladder row, or the failing case's row */
    double seconds;         /* wall time spent grading it */
} outcome;

typedef struct check_case {
    uint64_t bodies, systems;
    const char *model, *masses;
} check_case;

typedef struct grader {
    options o;
    registry reg;
    gpu_info gpus;
    int have_nvcc, tty;
    check_case *cases;
    size_t case_count;
    FILE *checks;           /* every case's row: OUT/checks.csv (temporary name until the end) */
    char checks_tmp[4300];
} grader;

static void make_cases(grader *g)
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
                g->cases[g->case_count++] = (check_case){n, s, pair_model[p], pair_masses[p]};
            }
}

static void case_name(const check_case *c, char *out, size_t len)
{
    textf(out, len, "N=%llu S=%llu %s/%s", (unsigned long long)c->bodies, (unsigned long long)c->systems,
             c->model, c->masses);
}

static void progress(const grader *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(const grader *g, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (g->tty)
        printf("\r\033[K%s", buf);
    else
        printf("%s\n", buf);
    fflush(stdout);
}

static void progress_end(const grader *g)
{
    if (g->tty) {
        printf("\r\033[K");
        fflush(stdout);
    }
}

/* The verdict of one run of a step binary, from its exit status and its CSV row. 1 passed, 0 not;
 * `why` says what went wrong; *row gets the row (or NULL), errors are folded into *acc / *state. */
static int judge_run(const grader *g, const run_result *r, const char *csv_path,
                     const char *log_path, char **row, double *acc, double *state, char *why, size_t len)
{
    *row = NULL;
    why[0] = '\0';
    nb_csv csv;
    int pass_row = 0; /* the run's one row says PASS */
    if (access(csv_path, R_OK) == 0 && nb_csv_read(csv_path, &csv) == NB_EXIT_OK) {
        if (csv.rows == 1 && header_is_ours(&csv)) {
            *row = join_row(&csv, 0);
            *acc = worse(*acc, cell_num(&csv, 0, "acc_max"));
            *state = worse(*state, worse(cell_num(&csv, 0, "state_pos"), cell_num(&csv, 0, "state_vel")));
            pass_row = !strcmp(nb_csv_get(&csv, 0, "pass"), "PASS");
        }
        nb_csv_free(&csv);
    }
    char end[128], line[600];
    describe_end(r, g->o.timeout, end, sizeof end);
    if (r->exited && r->code == NB_EXIT_OK) {
        if (pass_row)
            return 1;
        textf(why, len, "exit status 0 but no PASS row in %s", csv_path);
    } else if (r->exited && r->code == NB_EXIT_MISMATCH) {
        failure_clause(log_path, line, sizeof line);
        textf(why, len, "%s", line[0] ? line : "disagrees with the reference (see the log)");
    } else {
        log_line(log_path, NULL, line, sizeof line);
        if (r->exited && r->code == NB_EXIT_ERROR)
            textf(why, len, "error: %s", line[0] ? line : end);
        else
            textf(why, len, "%s%s%s", end, line[0] ? ": " : "", line);
    }
    return 0;
}

/* Rows for steps that never wrote one (a crash, a build failure): the harness's format, pass FAIL. */
static char *synthetic_row(const outcome *out, const check_case *c)
{
    char date[32], buf[1024];
    char name[128];
    textf(name, sizeof name, "%s", out->name);
    clean_cell(name);
    textf(buf, sizeof buf, "%s,%s,grade,grade-error,%s,%s,%llu,%llu,,,,,,,,,,,,,,,,,,0,FAIL,,,,,,,%s,", out->s->id,
             name, c ? c->model : "", c ? c->masses : "", c ? (unsigned long long)c->systems : 0ull,
             c ? (unsigned long long)c->bodies : 0ull, nb_utc_now(date, sizeof date));
    return strdup(buf);
}

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
    progress(g, "  %s %s: building (%s)", s->id, out->name, cmd);
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
        out->row = synthetic_row(out, NULL);
        return 0;
    }
check:
    if (!is_executable(bin)) {
        out->v = V_FAIL;
        textf(out->reason, sizeof out->reason, "no binary %s%s", bin,
                 g->o.make || g->o.binary ? "" : " (build it first, or use make grade)");
        out->row = synthetic_row(out, NULL);
        return 0;
    }
    return 1;
}

/* All cases, `jobs` at a time, in order of size; the first failure stops new ones from starting. */
static void run_checks(grader *g, outcome *out, const char *logdir, const char *bin)
{
    const options *o = &g->o;
    typedef struct slot {
        size_t index;
        char log[4400], csv[4400];
    } slot;
    job jobs[MAX_JOBS];
    slot slots[MAX_JOBS];
    memset(jobs, 0, sizeof jobs);
    size_t next = 0, running = 0, first_failure = (size_t)-1;
    const size_t width = (size_t)o->jobs;
    char *fail_row = NULL;
    while ((next < g->case_count && first_failure == (size_t)-1) || running > 0) {
        while (running < width && next < g->case_count && first_failure == (size_t)-1) {
            size_t k = 0;
            while (jobs[k].pid > 0)
                ++k;
            const check_case *c = &g->cases[next];
            slot *sl = &slots[k];
            sl->index = next++;
            char tag[96];
            textf(tag, sizeof tag, "n%llu-s%llu-%s-%s", (unsigned long long)c->bodies,
                     (unsigned long long)c->systems, c->model, c->masses);
            textf(sl->log, sizeof sl->log, "%s/check-%s.log", logdir, tag);
            textf(sl->csv, sizeof sl->csv, "%s/check-%s.csv", logdir, tag);
            unlink(sl->csv);
            char n[32], s[32];
            textf(n, sizeof n, "%llu", (unsigned long long)c->bodies);
            textf(s, sizeof s, "%llu", (unsigned long long)c->systems);
            char *argv[] = {(char *)bin, "-q", "--validate-only", "--ref-cache", (char *)o->ref_cache, "--csv",
                            sl->csv, "--tag", "grade-check", "-n", n, "-S", s, "--model", (char *)c->model,
                            "--masses", (char *)c->masses, NULL};
            char *launched[MAX_ARGS];
            if (spawn(launch_argv(out->s, argv, launched), sl->log, &jobs[k]) != NB_EXIT_OK)
                nb_die(NB_EXIT_ERROR, "cannot run %s", bin);
            ++running;
        }
        run_result r;
        const int k = reap(jobs, width, o->timeout, &r);
        if (k < 0)
            break;
        --running;
        slot *sl = &slots[k];
        const check_case *c = &g->cases[sl->index];
        char *row = NULL, why[600], name[96];
        const int passed = judge_run(g, &r, sl->csv, sl->log, &row, &out->worst_acc, &out->worst_state,
                                     why, sizeof why);
        case_name(c, name, sizeof name);
        if (row && g->checks)
            fprintf(g->checks, "%s\n", row);
        if (passed) {
            ++out->cases_passed;
            free(row);
        } else if (sl->index < first_failure) { /* the smallest failing case explains best */
            first_failure = sl->index;
            textf(out->failed_case, sizeof out->failed_case, "%s", name);
            textf(out->reason, sizeof out->reason, "%s: %s", name, why);
            textf(out->log, sizeof out->log, "%s", sl->log);
            free(fail_row);
            fail_row = row ? row : synthetic_row(out, c);
        } else {
            free(row);
        }
        progress(g, "  %s %s: check %zu/%zu %-28s %s (%.1f s)", out->s->id, out->name, sl->index + 1,
                 g->case_count, name, passed ? "PASS" : "FAIL", r.seconds);
    }
    out->cases = g->case_count;
    if (first_failure != (size_t)-1) {
        out->v = V_FAIL;
        out->row = fail_row;
    }
}

/* A time no honest step can show: its timed region (nb_region_begin/end) covers under a quarter of
 * the wall time of the run around it (a region that times nothing), or a direct-sum step beats the
 * GPU's issue bound at MIN_INSTRUCTIONS per interaction (each pair once takes about 9; tree steps are
 * exempt: their N^2-equivalent rate legitimately exceeds any direct sum's). 1 with the reason. */
#define MIN_INSTRUCTIONS 4.0
#define E2E_CHECKED_S 0.01
static int implausible(const grader *g, const step *s, double loop_s, double e2e_s, double gint, double clock_mhz,
                       double gpus, const char *device, char *why, size_t len)
{
    if (e2e_s >= E2E_CHECKED_S && loop_s < 0.25 * e2e_s) {
        textf(why, len, "implausible timing: the timed region is %.3g s of a %.3g s run (under a quarter: does "
              "nb_region_begin/end surround the time loop?)", loop_s, e2e_s);
        return 1;
    }
    const int sms = sms_of(&g->gpus, device);
    if (!strcmp(s->check, "exact") && !strcmp(s->lang, "cu") && sms > 0 && clock_mhz > 0.0) {
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
static void run_timing(grader *g, outcome *out, const char *logdir, const char *bin)
{
    const options *o = &g->o;
    const int gpu = !strcmp(out->s->lang, "cu");
    char log[4400], csv[4400], n[32], s[32], k[32], r[32];
    textf(log, sizeof log, "%s/ladder.log", logdir);
    textf(csv, sizeof csv, "%s/ladder.csv", logdir);
    unlink(csv);
    textf(n, sizeof n, "%llu", (unsigned long long)o->bodies);
    textf(s, sizeof s, "%llu", (unsigned long long)o->systems);
    textf(k, sizeof k, "%llu", (unsigned long long)(gpu ? o->gpu_steps : o->cpu_steps));
    textf(r, sizeof r, "%llu", (unsigned long long)o->repeat);
    char *argv[] = {(char *)bin, "-q", "--ref-cache", (char *)o->ref_cache, "--csv", csv, "--tag", "grade-ladder",
                    "-n", n, "-S", s, "-k", k, "-r", r, NULL};
    progress(g, "  %s %s: timing N=%s S=%s, %s step%s: validation, warm-up, %s repeats", out->s->id, out->name, n,
             s, k, strcmp(k, "1") ? "s" : "", r);
    run_result res;
    char *launched[MAX_ARGS];
    if (run_one(launch_argv(out->s, argv, launched), log, o->timeout, &res) != NB_EXIT_OK)
        nb_die(NB_EXIT_ERROR, "cannot run %s", bin);
    char *row = NULL, why[600];
    const int passed = judge_run(g, &res, csv, log, &row, &out->worst_acc, &out->worst_state, why, sizeof why);
    ++out->cases;
    if (!passed) {
        out->v = V_FAIL;
        textf(out->failed_case, sizeof out->failed_case, "ladder N=%s S=%s", n, s);
        textf(out->reason, sizeof out->reason, "ladder run N=%s S=%s: %s", n, s, why);
        textf(out->log, sizeof out->log, "%s", log);
        out->row = row ? row : synthetic_row(out, &(check_case){o->bodies, o->systems, "plummer", "equal"});
        progress(g, "  %s %s: timing FAIL (%.1f s)", out->s->id, out->name, res.seconds);
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
    const double e2e = cell_num(&c, 0, "e2e_s"), clock_mhz = cell_num(&c, 0, "clock_mhz");
    const double gpus = cell_num(&c, 0, "gpus");
    char device[256];
    textf(device, sizeof device, "%s", nb_csv_get(&c, 0, "device"));
    nb_csv_free(&c);
    out->timed = out->loop_s > 0.0 && out->gint > 0.0;
    out->row = row;
    if (!out->timed) {
        out->v = V_FAIL;
        textf(out->reason, sizeof out->reason, "the ladder run wrote no time (see %s)", log);
    } else if (implausible(g, out->s, out->loop_s, e2e, out->gint, clock_mhz, gpus, device, out->reason,
                           sizeof out->reason)) {
        out->v = V_FAIL;
        out->timed = 0;
    }
    progress(g, "  %s %s: timing %.4g s median of %s, %.4g G interactions/s (%.1f s)", out->s->id, out->name,
             out->loop_s, r, out->gint, res.seconds);
}

static void grade_step(grader *g, outcome *out)
{
    const options *o = &g->o;
    const step *s = out->s;
    const double t0 = now_s();
    out->worst_acc = out->worst_state = -1.0;
    out->speedup_base = out->speedup_prev = -1.0;
    char logdir[4300], bin[4300];
    textf(logdir, sizeof logdir, "%s/logs/%s", o->out, s->id);
    if (mkdirs(logdir) != NB_EXIT_OK)
        exit(NB_EXIT_ERROR);
    step_bin(g, out, bin, sizeof bin);

    /* Skips are decided before anything runs. A step listed but not yet in the tree is not a failure. */
    struct stat st;
    if (!o->binary && stat(s->folder, &st) != 0) {
        out->v = V_SKIP;
        textf(out->reason, sizeof out->reason, "not in this tree yet (no folder %s/)", s->folder);
    } else if (!strcmp(s->lang, "cu")) {
        if (!is_executable(bin) && !g->have_nvcc) {
            out->v = V_SKIP;
            textf(out->reason, sizeof out->reason, "no nvcc (%s not found) and no binary built", o->nvcc);
        } else if (g->gpus.count == 0) {
            out->v = V_SKIP;
            textf(out->reason, sizeof out->reason, "no GPU (%s)", g->gpus.none);
        } else if ((unsigned)g->gpus.count < s->gpus) {
            out->v = V_SKIP;
            textf(out->reason, sizeof out->reason, "needs %u GPUs, %d here", s->gpus, g->gpus.count);
        }
    }
    if (out->v != V_SKIP && s->ranks && !have_command("mpirun")) {
        out->v = V_SKIP;
        textf(out->reason, sizeof out->reason, "launched by mpirun, which is not here (apt-get install openmpi-bin)");
    }
    if (out->v == V_SKIP) {
        progress(g, "  %s %s: SKIP, %s", s->id, out->name, out->reason);
        if (g->tty)
            printf("\n");
        return;
    }
    if (build_step(g, out, logdir, bin)) {
        run_checks(g, out, logdir, bin);
        if (out->v == V_PASS && !o->no_timing)
            run_timing(g, out, logdir, bin);
    }
    out->seconds = now_s() - t0;
    progress_end(g);
    if (out->v == V_PASS)
        printf("  %s %s: PASS, %zu check cases%s (%.1f s)\n", s->id, out->name, g->case_count,
               out->timed ? " and the ladder run" : "", out->seconds);
    else
        printf("  %s %s: FAIL (%.1f s)\n    %s\n", s->id, out->name, out->seconds, out->reason);
}

/* ---- the table, the CSVs and the plot -------------------------------------------------------- */

static void format_err(double v, char *out, size_t len)
{
    if (isnan(v))
        textf(out, len, "NaN");
    else if (v < 0.0)
        textf(out, len, "-");
    else
        textf(out, len, "%.1e", v);
}

static void format_time(double s, char *out, size_t len)
{
    if (s >= 1.0)
        textf(out, len, "%.3g s", s);
    else if (s >= 1e-3)
        textf(out, len, "%.3g ms", 1e3 * s);
    else
        textf(out, len, "%.3g us", 1e6 * s);
}

/* 1.00x, 12.3x, 456x */
static void format_speedup(double x, char *out, size_t len)
{
    textf(out, len, x < 9.995 ? "%.2fx" : x < 99.95 ? "%.1fx" : "%.0fx", x);
}

/* "vs prev" compares a step with the one it grows from (steps.list, column from), if that one was timed. */
static void compute_speedups(outcome *outs, size_t count, const registry *reg)
{
    const outcome *base = NULL;
    for (size_t k = 0; k < count; ++k)
        if (outs[k].s == &reg->steps[0] && outs[k].v == V_PASS && outs[k].timed)
            base = &outs[k];
    for (size_t k = 0; k < count; ++k) {
        outcome *o = &outs[k];
        if (o->v != V_PASS || !o->timed)
            continue; /* a step that failed gets no speedup figure */
        if (base)
            o->speedup_base = o->gint / base->gint;
        for (size_t j = 0; j < count; ++j)
            if (o->s->from[0] && !strcmp(outs[j].s->id, o->s->from) && outs[j].v == V_PASS && outs[j].timed) {
                o->speedup_prev = o->gint / outs[j].gint;
                o->prev_id = outs[j].s->id;
            }
    }
}

static void print_table(const grader *g, const outcome *outs, size_t count)
{
    const char *base_id = g->reg.steps[0].id;
    char vs_base[16];
    textf(vs_base, sizeof vs_base, "vs %s", base_id);
    printf("\n%-4s %-20s %-6s %-5s %-9s %-9s %-10s %-7s %-10s %-8s %s\n", "step", "name", "result", "check",
           "acc err", "state err", "loop time", "spread", "G int/s", vs_base, "vs prev");
    for (size_t k = 0; k < count; ++k) {
        const outcome *o = &outs[k];
        const char *v = o->v == V_PASS ? "PASS" : o->v == V_FAIL ? "FAIL" : "SKIP";
        printf("%-4s %-20.20s %-6s %-5s ", o->s->id, o->name, v, o->s->check);
        if (o->v == V_SKIP) {
            printf("%s\n", o->reason);
            continue;
        }
        char acc[32], st[32];
        format_err(o->worst_acc, acc, sizeof acc);
        format_err(o->worst_state, st, sizeof st);
        printf("%-9s %-9s ", acc, st);
        if (o->v == V_FAIL) {
            printf("%s\n", o->reason);
            printf("%-4s %-20s %-6s %-5s see %s\n", "", "", "", "", o->log);
            continue;
        }
        if (!o->timed) {
            printf("(not timed)\n");
            continue;
        }
        char t[32], spread[32], sb[32] = "-", sp[32] = "-";
        format_time(o->loop_s, t, sizeof t);
        textf(spread, sizeof spread, "%.1f%%", 100.0 * (o->loop_max - o->loop_min) / o->loop_s);
        if (o->speedup_base > 0.0)
            format_speedup(o->speedup_base, sb, sizeof sb);
        if (o->speedup_prev > 0.0) {
            format_speedup(o->speedup_prev, sp, sizeof sp);
            if (!(o->s > &g->reg.steps[0] && !strcmp(o->s[-1].id, o->prev_id))) { /* not the step before it */
                const size_t len = strlen(sp);
                textf(sp + len, sizeof sp - len, " (vs %s)", o->prev_id);
            }
        }
        printf("%-10s %-7s %-10.4g %-8s %s\n", t, spread, o->gint, sb, sp);
    }
}

static void print_plan(const grader *g, const outcome *outs, size_t count)
{
    const options *o = &g->o;
    printf("make grade: %zu step%s (", count, count == 1 ? "" : "s");
    for (size_t k = 0; k < count; ++k)
        printf("%s%s", k ? " " : "", outs[k].s->id);
    printf("), logs in %s/logs\n", o->out);
    printf("  correctness: %zu cases per step, N =", g->case_count);
    for (size_t k = 0; k < o->check_n_count; ++k)
        printf(" %llu", (unsigned long long)o->check_n[k]);
    printf(", S = 1 and 3, plummer and uniform, equal and random masses\n"
           "               (every model/masses pair while S*N^2 <= 2^26; beyond, plummer/equal at S = 1 and\n"
           "               uniform/random at S = 3);\n"
           "               accelerations on every body and the state after 4 steps against the fp64 reference,\n"
           "               cached in %s; %llu case%s at a time\n",
           o->ref_cache, (unsigned long long)o->jobs, o->jobs == 1 ? "" : "s");
    if (o->no_timing)
        printf("  timing:      none (--no-timing)\n");
    else
        printf("  timing:      N = %llu, S = %llu, plummer: validated at that size, one warm-up step, then the\n"
               "               median of %llu repeats of %llu steps (GPU) or %llu step%s (CPU). Timed: the time loop\n"
               "               alone (CUDA events on GPUs, the host clock on CPUs; no uploads or downloads);\n"
               "               spread = (max - min) / median; G int/s = S*N^2*steps / time; speedups compare G int/s\n",
               (unsigned long long)o->bodies, (unsigned long long)o->systems, (unsigned long long)o->repeat,
               (unsigned long long)o->gpu_steps, (unsigned long long)o->cpu_steps, o->cpu_steps == 1 ? "" : "s");
    printf("  GPUs:        %d (%s)", g->gpus.count, g->gpus.count ? g->gpus.how : g->gpus.none);
    for (int d = 0; d < g->gpus.count; ++d)
        if (g->gpus.name[d][0])
            printf("%s%s, %d SMs", d ? "; " : ": ", g->gpus.name[d], g->gpus.sms[d]);
    printf("; nvcc %s\n\n", g->have_nvcc ? "found" : "not found");
    fflush(stdout);
}

/* OUT/results.csv: each graded step's row under the harness's header, through a temporary name. */
static int write_csv(const char *path, const outcome *outs, size_t count)
{
    char tmp[4400];
    textf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        nb_error("cannot write %s: %s", tmp, strerror(errno));
        return NB_EXIT_ERROR;
    }
    fprintf(f, "%s\n", NB_RESULTS_HEADER);
    for (size_t k = 0; k < count; ++k)
        if (outs[k].row)
            fprintf(f, "%s\n", outs[k].row);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        nb_error("cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return NB_EXIT_ERROR;
    }
    return NB_EXIT_OK;
}

/* OUT/verdicts.csv: the grader's own verdict per step (the self-test reads it). */
static int write_verdicts(const char *path, const outcome *outs, size_t count)
{
    char tmp[4400];
    textf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        nb_error("cannot write %s: %s", tmp, strerror(errno));
        return NB_EXIT_ERROR;
    }
    fprintf(f, "step,name,verdict,reason,failed_case,cases_passed,cases,acc_err,state_err,loop_s,"
               "ginteractions_s,speedup_base,speedup_prev,log\n");
    for (size_t k = 0; k < count; ++k) {
        const outcome *o = &outs[k];
        char name[128], reason[600], fcase[128];
        textf(name, sizeof name, "%s", o->name);
        textf(reason, sizeof reason, "%s", o->reason);
        textf(fcase, sizeof fcase, "%s", o->failed_case);
        clean_cell(name);
        clean_cell(reason);
        clean_cell(fcase);
        fprintf(f, "%s,%s,%s,%s,%s,%zu,%zu,", o->s->id, name, o->v == V_PASS ? "PASS" : o->v == V_FAIL ? "FAIL" : "SKIP",
                reason, fcase, o->cases_passed, o->cases);
        const double nums[] = {o->worst_acc, o->worst_state, o->timed ? o->loop_s : -1.0, o->timed ? o->gint : -1.0,
                               o->speedup_base, o->speedup_prev};
        for (size_t n = 0; n < sizeof nums / sizeof nums[0]; ++n)
            if (isnan(nums[n]))
                fprintf(f, "nan,");
            else if (nums[n] < 0.0)
                fprintf(f, ",");
            else
                fprintf(f, "%.6g,", nums[n]);
        fprintf(f, "%s\n", o->v == V_SKIP ? "" : o->log);
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        nb_error("cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return NB_EXIT_ERROR;
    }
    return NB_EXIT_OK;
}

/* A string for a gnuplot double-quoted literal. */
static void gp_quote(const char *s, char *out, size_t len)
{
    size_t k = 0;
    for (; *s && k + 3 < len; ++s) {
        if (*s == '"' || *s == '\\')
            out[k++] = '\\';
        out[k++] = (*s == '\n') ? ' ' : *s;
    }
    out[k] = '\0';
}

typedef struct bar {
    char id[16], label[80], device[160];
    double gint, clock_mhz, ceiling;  /* ceiling: its own issue bound in G int/s, NAN if unknown */
    unsigned gpus;
    int gpu;
} bar;

/* The issue-bound ceiling of each GPU bar: gpus * SMs * 4 schedulers * 32 lanes * clock / instructions
 * per interaction, from the recorded instruction counts. Returns a note for the plot's subtitle. */
static void ceilings(const options *o, const gpu_info *gi, bar *bars, size_t count, char *note, size_t len)
{
    size_t gpu_bars = 0, known = 0;
    for (size_t k = 0; k < count; ++k) {
        bars[k].ceiling = NAN;
        gpu_bars += bars[k].gpu;
    }
    if (gpu_bars == 0) {
        textf(note, len, "no GPU step timed: no issue-bound ceiling");
        return;
    }
    if (access(o->instructions, R_OK) != 0) {
        textf(note, len, "no issue-bound ceiling drawn: %s not recorded yet", o->instructions);
        return;
    }
    nb_csv ins;
    if (nb_csv_read(o->instructions, &ins) != NB_EXIT_OK || nb_csv_column(&ins, "instructions_per_interaction") < 0) {
        if (ins.text)
            nb_csv_free(&ins);
        textf(note, len, "no issue-bound ceiling drawn: %s is unreadable", o->instructions);
        return;
    }
    int sms_missing = 0;
    for (size_t k = 0; k < count; ++k) {
        bar *b = &bars[k];
        if (!b->gpu || !(b->clock_mhz > 0.0))
            continue;
        const char *device = single_gpu_name(b->device);
        double instr = 0.0;
        for (size_t r = 0; r < ins.rows; ++r) /* the last matching row is the newest */
            if (!strcmp(nb_csv_get(&ins, r, "step"), b->id) && !strcasecmp(nb_csv_get(&ins, r, "device"), device)) {
                const double v = strtod(nb_csv_get(&ins, r, "instructions_per_interaction"), NULL);
                if (v > 0.0)
                    instr = v;
            }
        if (instr <= 0.0)
            continue;
        const int sms = sms_of(gi, device);
        if (!sms) {
            sms_missing = 1;
            continue;
        }
        b->ceiling = (double)(b->gpus ? b->gpus : 1) * sms * 4.0 * 32.0 * b->clock_mhz * 1e6 / instr * 1e-9;
        ++known;
    }
    nb_csv_free(&ins);
    if (known == 0)
        textf(note, len, "no issue-bound ceiling drawn: %s", sms_missing
                                                                     ? "the SM count is unknown (no GPU here to ask)"
                                                                     : "no instruction count recorded for these steps on this GPU");
    else
        textf(note, len, "dashes: each step's issue bound, SMs x 4 x 32 lanes x clock / its instructions per "
                            "interaction (%s)", o->instructions);
}

/* Draw OUT/ladder.png and .svg from a results CSV. 0, or 1 if it could not (with one line saying how). */
static int draw_ladder(const options *o, const gpu_info *gi, const char *csv_path)
{
    char dat[4400], vars[4400], png[4400], svg[4400], log[4400];
    textf(dat, sizeof dat, "%s/ladder.dat", o->out);
    textf(vars, sizeof vars, "%s/ladder-vars.gp", o->out);
    textf(png, sizeof png, "%s/ladder.png", o->out);
    textf(svg, sizeof svg, "%s/ladder.svg", o->out);
    textf(log, sizeof log, "%s/logs/gnuplot.log", o->out);
    unlink(png); /* a figure of an earlier grade must not pass for this one's */
    unlink(svg);
    nb_csv c;
    if (nb_csv_read(csv_path, &c) != NB_EXIT_OK)
        return 1;
    if (!header_is_ours(&c)) {
        nb_error("%s is not a results CSV of this lab", csv_path);
        nb_csv_free(&c);
        return 1;
    }
    bar *bars = (bar *)calloc(c.rows + 1, sizeof(bar));
    size_t count = 0;
    const char *base = NULL;
    char cpu_dev[160] = "", gpu_dev[160] = "", bodies[32] = "", systems[32] = "", commit[64] = "";
    double clock = 0.0;
    for (size_t r = 0; bars && r < c.rows; ++r) {
        const double gint = cell_num(&c, r, "ginteractions_s");
        if (strcmp(nb_csv_get(&c, r, "pass"), "PASS") || !(gint > 0.0))
            continue; /* failed or untimed: no bar */
        bar *b = &bars[count++];
        textf(b->id, sizeof b->id, "%s", nb_csv_get(&c, r, "step"));
        const char *name = nb_csv_get(&c, r, "name");
        const char *u = strchr(name, '_');
        textf(b->label, sizeof b->label, "%s %s", b->id, u ? u + 1 : name);
        textf(b->device, sizeof b->device, "%s", nb_csv_get(&c, r, "device"));
        b->gint = gint;
        b->clock_mhz = cell_num(&c, r, "clock_mhz");
        b->gpus = (unsigned)strtoul(nb_csv_get(&c, r, "gpus"), NULL, 10);
        /* A GPU run: GPUs counted, or a measured SM clock or a block size (CPU rows have neither). */
        b->gpu = b->gpus > 0 || b->clock_mhz > 0.0 || strtoul(nb_csv_get(&c, r, "block"), NULL, 10) > 0;
        textf(b->gpu ? gpu_dev : cpu_dev, sizeof gpu_dev, "%s", b->device);
        if (b->gpu && b->clock_mhz > clock)
            clock = b->clock_mhz;
        if (r == 0 || !bodies[0]) {
            textf(bodies, sizeof bodies, "%s", nb_csv_get(&c, r, "bodies"));
            textf(systems, sizeof systems, "%s", nb_csv_get(&c, r, "systems"));
            textf(commit, sizeof commit, "%s", nb_csv_get(&c, r, "commit"));
        }
        if (!strcmp(b->id, "00"))
            base = b->id;
    }
    nb_csv_free(&c);
    if (!bars || count == 0) {
        printf("ladder: no passing, timed step in %s: nothing to draw\n", csv_path);
        free(bars);
        return 1;
    }
    char note[400];
    ceilings(o, gi, bars, count, note, sizeof note);
    double base_gint = 0.0, lo = INFINITY, hi = 0.0, roof = 0.0;
    for (size_t k = 0; k < count; ++k) {
        if (base && !strcmp(bars[k].id, "00"))
            base_gint = bars[k].gint;
        lo = fmin(lo, bars[k].gint);
        hi = fmax(hi, bars[k].gint);
        if (isfinite(bars[k].ceiling)) {
            hi = fmax(hi, bars[k].ceiling);
            roof = fmax(roof, bars[k].ceiling);
        }
    }

    FILE *f = fopen(dat, "w");
    if (!f) {
        nb_error("cannot write %s: %s", dat, strerror(errno));
        free(bars);
        return 1;
    }
    fprintf(f, "# x label G_interactions_s bar_text gpu own_issue_bound value_text (grading/grade.c, from %s)\n",
            csv_path);
    for (size_t k = 0; k < count; ++k) {
        char text[64];
        text[0] = '\0';
        if (base_gint > 0.0)
            format_speedup(bars[k].gint / base_gint, text, sizeof text);
        char own[32] = "NaN";
        if (isfinite(bars[k].ceiling))
            textf(own, sizeof own, "%.6g", bars[k].ceiling);
        char value[32];
        textf(value, sizeof value, bars[k].gint >= 1000.0 ? "%.0f" : "%.3g", bars[k].gint);
        fprintf(f, "%zu \"%s\" %.6g \"%s\" %d %s \"%s\"\n", k, bars[k].label, bars[k].gint, text, bars[k].gpu, own,
                value);
    }
    fclose(f);

    char title[400], sub[800], q1[800], q2[1600], devices[400];
    textf(title, sizeof title, "The N-body ladder: N = %s, S = %s (make grade%s%s)", bodies, systems,
          commit[0] ? ", commit " : "", commit);
    if (gpu_dev[0] && clock > 0.0)
        textf(devices, sizeof devices, "CPU: %s   GPU: %s at %.0f MHz (measured)", cpu_dev[0] ? cpu_dev : "-",
                 gpu_dev, clock);
    else
        textf(devices, sizeof devices, "CPU: %s%s%s", cpu_dev[0] ? cpu_dev : "-", gpu_dev[0] ? "   GPU: " : "",
                 gpu_dev);
    textf(sub, sizeof sub, "%s\\ntimed: the time loop alone, median of the repeats; bars: G interactions/s%s\\n%s",
          devices, base_gint > 0.0 ? " and the speedup over step 00" : "", note);
    gp_quote(title, q1, sizeof q1);
    textf(q2, sizeof q2, "%s", sub); /* already escaped: devices and note hold no quotes */
    for (char *p = q2; *p; ++p)
        if (*p == '"')
            *p = '\'';
    f = fopen(vars, "w");
    if (!f) {
        nb_error("cannot write %s: %s", vars, strerror(errno));
        free(bars);
        return 1;
    }
    const double ymin = pow(10.0, floor(log10(lo / 2.0))), ymax = pow(10.0, ceil(log10(hi * 3.0)));
    fprintf(f, "datafile = \"%s\"\npng_out = \"%s.tmp\"\nsvg_out = \"%s.tmp\"\n", dat, png, svg);
    fprintf(f, "title_text = \"%s\"\nsubtitle_text = \"%s\"\n", q1, q2);
    size_t gpu_bars = 0;
    for (size_t k = 0; k < count; ++k)
        gpu_bars += bars[k].gpu;
    fprintf(f, "bars = %zu\ncpu_bars = %zu\ngpu_bars = %zu\nymin = %.6g\nymax = %.6g\nroof = %.6g\n", count,
            count - gpu_bars, gpu_bars, ymin, ymax, roof);
    fclose(f);
    free(bars);

    if (!have_command("gnuplot")) {
        printf("ladder: gnuplot not found, so no ladder.png/.svg; the numbers are in %s.\n"
               "        To draw it: bash common/deps.sh gnuplot (installs it, or prints the command), then make grade-plot\n",
               csv_path);
        return 1;
    }
    char *argv[] = {"gnuplot", vars, (char *)o->gnuplot_script, NULL};
    run_result r;
    if (run_one(argv, log, 120.0, &r) != NB_EXIT_OK || !r.exited || r.code != 0) {
        char line[400];
        log_line(log, NULL, line, sizeof line);
        printf("ladder: gnuplot failed (%s): see %s\n", line, log);
        return 1;
    }
    char tmp[4500];
    textf(tmp, sizeof tmp, "%s.tmp", png);
    int ok = rename(tmp, png) == 0;
    textf(tmp, sizeof tmp, "%s.tmp", svg);
    ok = rename(tmp, svg) == 0 && ok;
    if (!ok) {
        printf("ladder: gnuplot wrote no figure: see %s\n", log);
        return 1;
    }
    printf("ladder: %s and %s\n", png, svg);
    return 0;
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
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    if (o->plot_csv && access(o->plot_csv, R_OK) != 0) { /* bad input: say so before creating anything */
        nb_error("--plot %s: %s", o->plot_csv, strerror(errno));
        return NB_EXIT_ERROR;
    }
    char logs[4300];
    textf(logs, sizeof logs, "%s/logs", o->out);
    if (mkdirs(logs) != NB_EXIT_OK || mkdirs(o->ref_cache) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    probe_gpus(o, &g.gpus);
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
    const double t0 = now_s();
    for (size_t k = 0; k < count; ++k)
        grade_step(&g, &outs[k]);
    compute_speedups(outs, count, &g.reg);
    print_table(&g, outs, count);

    int any_timed = 0;
    for (size_t k = 0; k < count; ++k)
        any_timed |= outs[k].timed;
    if (any_timed)
        printf("\nacc err: worst acceleration error, state err: worst position/velocity error after 4 steps, over\n"
               "every run (tolerances in common/README.md). loop time: median of %llu repeats; spread = (max - min)\n"
               "/ median. Speedups compare G interactions/s; a step that failed gets none.\n",
               (unsigned long long)o->repeat);
    size_t pass = 0, fail = 0, skip = 0;
    for (size_t k = 0; k < count; ++k)
        pass += outs[k].v == V_PASS, fail += outs[k].v == V_FAIL, skip += outs[k].v == V_SKIP;
    printf("\n%zu PASS, %zu FAIL, %zu SKIP%s in %.0f s\n", pass, fail, skip,
           skip ? " (skips do not fail the grade)" : "", now_s() - t0);

    char path[4400];
    textf(path, sizeof path, "%s/checks.csv", o->out);
    if (fclose(g.checks) != 0 || rename(g.checks_tmp, path) != 0)
        nb_error("cannot write %s", path);
    textf(path, sizeof path, "%s/verdicts.csv", o->out);
    write_verdicts(path, outs, count);
    textf(path, sizeof path, "%s/results.csv", o->out);
    if (write_csv(path, outs, count) == NB_EXIT_OK) {
        printf("results: %s (one row per graded step), every case's row in %s/checks.csv\n", path, o->out);
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
