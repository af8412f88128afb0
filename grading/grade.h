/* grade.h: what the parts of the grader share (private to grading/; README.md maps the files). Types,
 * limits and prototypes only: every function and global lives in one of the .c files. */
#ifndef GRADE_H
#define GRADE_H

#include "results.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define MAX_CHECK_N 32
#define MAX_JOBS 16
#define MAX_GPUS 16
#define MAX_ARGS 64 /* a launched command line, mpirun's words included */

/* ---- the command line (grade.c) --------------------------------------------------------------- */

typedef struct options {
    const char *registry, *build, *out, *ref_cache, *make, *nvcc, *steps, *binary, *label, *race_binary;
    const char *probe, *gnuplot_script, *instructions, *plot_csv;
    uint64_t check_n[MAX_CHECK_N];
    size_t check_n_count;
    uint64_t bodies, systems, gpu_steps, cpu_steps, repeat, jobs;
    double timeout;
    int no_timing, count_gpus;
} options;

/* ---- the registry (registry.c) ---------------------------------------------------------------- */

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

/* ---- subprocesses and GPUs (runner.c) --------------------------------------------------------- */

/* What the grader keeps of a run's output: a step that prints without end is stopped at this size. */
#define LOG_CAP_MIB 16
#define LOG_CAP_BYTES ((size_t)LOG_CAP_MIB << 20)

typedef struct run_result {
    int exited, code, signal, timed_out;
    int flooded; /* stopped for printing more than LOG_CAP_BYTES */
    double seconds;
} run_result;

typedef struct job {
    pid_t pid;
    double start;
    int timed_out;
    int out_fd, log_fd; /* its stdout and stderr (a pipe), and the log the grader copies them into */
    size_t kept;        /* bytes copied into the log */
    int flooded;
} job;

typedef struct gpu_info {
    int count;
    int sms[MAX_GPUS];
    char name[MAX_GPUS][128];
    char how[160];  /* how the count was found: "cudaGetDeviceCount", "nvidia-smi -L" */
    char none[160]; /* why there is none, when there is none */
} gpu_info;

/* ---- grading one step ------------------------------------------------------------------------- */

/* V_TODO: the step's source still holds its stub's TODO line (grading/todo.awk): not written yet. */
typedef enum verdict { V_PASS, V_FAIL, V_SKIP, V_TODO } verdict;

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
    int earlier;            /* not graded now: its row of results.csv from an earlier run, of `date` */
    char date[32];
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

/* grade.c: options, main, and grading one step */
void textf(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* registry.c: steps.list */
int read_registry(const char *path, registry *r);
int select_steps(registry *r, const char *list);
char *const *launch_argv(const step *s, char *const argv[], char *out[MAX_ARGS]);

/* runner.c: programs, subprocesses with a time limit, the GPU probe */
double now_s(void);
int mkdirs(const char *path);
int is_executable(const char *path);
int have_command(const char *name);
void end_children_on_signals(void);
int spawn(char *const argv[], const char *log_path, job *j);
int reap(job *jobs, size_t count, double timeout, run_result *res);
int run_one(char *const argv[], const char *log_path, double timeout, run_result *res);
void describe_end(const run_result *r, double timeout, char *out, size_t len);
void probe_gpus(const options *o, gpu_info *g);
const char *single_gpu_name(const char *device);
int sms_of(const gpu_info *g, const char *device);

/* cases.c: the correctness cases */
void make_cases(grader *g);
char *synthetic_row(const outcome *out, const check_case *c);
void run_checks(grader *g, outcome *out, const char *logdir, const char *bin);

/* race.c: a CPU step built with -O0, run at 1 and at many threads: the same bytes, or a data race */
void run_race_check(grader *g, outcome *out, const char *logdir, const char *race_bin);

/* timing.c: the ladder run */
void run_timing(grader *g, outcome *out, const char *logdir, const char *bin);

/* judge.c: the verdict of one run, from its exit status and its CSV row; what its log says */
int judge_run(const grader *g, const run_result *r, const char *csv_path, const char *log_path, char **row,
              double *acc, double *state, char *why, size_t len);
void log_line(const char *path, const char *needle, char *out, size_t len);
void printable_text(char *text);
int header_is_ours(const nb_csv *c);
double cell_num(const nb_csv *c, size_t r, const char *name);

/* report.c: progress lines, the plan, the table, results.csv and verdicts.csv */
void clean_cell(char *s);
void progress(const grader *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void progress_end(const grader *g);
void format_speedup(double x, char *out, size_t len);
void compute_speedups(outcome *outs, size_t count, const registry *reg);
void print_plan(const grader *g, const outcome *outs, size_t count);
void print_table(const grader *g, const outcome *outs, size_t count);
size_t add_earlier(const grader *g, const char *csv_path, outcome **outs, size_t count);
const char *verdict_name(verdict v);
int write_csv(const char *path, const outcome *outs, size_t count);
int write_verdicts(const char *path, const outcome *outs, size_t count);

/* ladder.c: the speedup ladder, drawn with gnuplot */
int draw_ladder(const options *o, const gpu_info *gi, const char *csv_path);

#endif
