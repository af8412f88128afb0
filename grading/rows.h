/* rows.h: rows of the results CSV (common/results.h), as the grader reads and writes them (floor 1:
 * includes text.h only of grading/): a cell as a number, whose header a file has, a row re-joined, and
 * the row written for a run that left none. */
#ifndef GRADING_ROWS_H
#define GRADING_ROWS_H

#include "results.h"

#include <stddef.h>
#include <stdint.h>

/* One problem a step is run on: a correctness case, the race check's, the ladder run's. */
typedef struct check_case {
    uint64_t bodies, systems;
    const char *model, *masses;
    unsigned levels; /* > 1: a block-step case (--levels), for a step with the block_steps feature */
} check_case;

/* Row r of a CSV, its cells joined by commas (the format has no quoting); NULL when out of memory. */
char *join_row(const nb_csv *c, size_t r);
/* 1 if the CSV's header is the harness's (NB_RESULTS_HEADER). */
int header_is_ours(const nb_csv *c);
/* A number from a cell; empty means "not measured" (-1), "nan" stays NaN. */
double cell_num(const nb_csv *c, size_t r, const char *name);
/* The row of a run that wrote none (a crash, a build failure): the harness's format, pass FAIL, of
 * step `step` called `name`, on case c (NULL: none). */
char *synthetic_row(const char *step, const char *name, const check_case *c);

#endif
