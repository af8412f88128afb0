/* grade.h: what the parts of the grader share (private to grading/; README.md maps the files). Types,
 * limits and prototypes only: every function and global lives in one of the .c files. */
#ifndef GRADE_H
#define GRADE_H

#include "gpus.h"
#include "proc.h"
#include "rows.h"
#include "text.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define MAX_CHECK_N 32
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

/* registry.c: steps.list */
int read_registry(const char *path, registry *r);
int select_steps(registry *r, const char *list);
char *const *launch_argv(const step *s, char *const argv[], char *out[MAX_ARGS]);

/* cases.c: the correctness cases */
void make_cases(grader *g);
void run_checks(grader *g, outcome *out, const char *logdir, const char *bin);

/* race.c: a CPU step built with -O0, run at 1 and at many threads: the same bytes, or a data race */
void run_race_check(grader *g, outcome *out, const char *logdir, const char *race_bin);

/* timing.c: the ladder run */
void run_timing(grader *g, outcome *out, const char *logdir, const char *bin);

/* judge.c: the verdict of one run, from its exit status and its CSV row; what its log says */
int judge_run(const grader *g, const run_result *r, const char *csv_path, const char *log_path, char **row,
              double *acc, double *state, char *why, size_t len);

/* report.c: the plan, the table, results.csv and verdicts.csv */
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
