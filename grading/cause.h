/* cause.h: the likely cause of a failure, read from its signature across the check cases (floor 4:
 * includes grade.h and below). grading/README.md, "The likely cause", lists the signatures. */
#ifndef GRADING_CAUSE_H
#define GRADING_CAUSE_H

#include "grade.h"
#include "proc.h"

#include <stddef.h>

/* What one check case's run said, as far as a cause needs it. */
typedef struct case_result {
    int ran, passed;
    int mismatch;                        /* it ran to the end and disagreed (exit 1 with its row) */
    double acc_rms, acc_max, acc_ratio;  /* from its row; -1: not measured */
    unsigned block;                      /* the row's threads per block (0: a CPU step, or none said) */
} case_result;

/* 1 if case k is in the diagnostic set, run after a mismatch: for each N and S, the first of its cases
 * (so every N at S = 1 and at S = 3, on cases whose references the grade caches anyway). */
int diagnostic_case(const grader *g, size_t k);

/* Case k's result from its run and the row it wrote (csv_path), once the judge said `passed`. */
void read_case_result(const char *csv_path, const run_result *r, int passed, case_result *out);

/* out->cause from the results of the check cases (res[k] for g->cases[k]; those not run say ran = 0). */
void name_cause(const grader *g, const case_result *res, outcome *out);

/* out->cause of a step that failed the race check with different bytes at two thread counts. */
void cause_race(outcome *out);

#endif
