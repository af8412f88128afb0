/* types.h: what the parts that grade share (floor 3: includes floors 1 and 2): the types of grading
 * one step (verdict, outcome) and the grader's state (grader). Types only, no prototypes: each part's
 * header declares what it offers (grading/README.md, "Which file does what", lists the floors). */
#ifndef GRADE_H
#define GRADE_H

#include "gpus.h"
#include "options.h"
#include "registry.h"
#include "rows.h"

#include <stddef.h>
#include <stdio.h>

/* ---- grading one step ------------------------------------------------------------------------- */

/* V_TODO: the step's source still holds its stub's TODO line (grading/todo.awk): not written yet. */
typedef enum verdict { V_PASS, V_FAIL, V_SKIP, V_TODO } verdict;

typedef struct outcome {
    const graded_step *s;
    const char *name;       /* folder, or --label */
    verdict v;
    char reason[600];       /* why FAIL or SKIP */
    char failed_case[128];
    char cause[600];        /* FAIL: its likely cause, "key: why" (cause.c); "" where none was sought */
    char log[4300];         /* the log to read for details */
    size_t cases, cases_passed;
    double worst_acc, worst_state; /* -1: not measured */
    int timed;
    double loop_s, loop_min, loop_max, gint;
    double speedup_base, speedup_prev; /* -1: none */
    const char *prev_id;
    char *row;              /* for results.csv: the ladder row, or the failing case's row */
    double seconds;         /* wall time spent grading it */
    int built;              /* there is a binary to grade now: an earlier run's build failure is stale */
    int earlier;            /* not graded now: its row of results.csv from an earlier run, of `date` */
    char date[32];
} outcome;

typedef struct grader {
    options o;
    registry reg;
    gpu_info gpus;
    gpu_info recorded_gpus; /* --gpu-info: SM counts by name for the ladder's ceiling, not GPUs here */
    int have_nvcc, tty;
    check_case *cases;
    size_t case_count;
    FILE *checks;           /* every case's row: OUT/checks.csv (temporary name until the end) */
    char ladder_cache[4300]; /* the timed problem's references: this grade's alone, shared by its steps */
    char checks_tmp[4300];
} grader;

#endif
