/* cause.h: the likely cause of a failure, read from its signature across the check cases (floor 4:
 * includes types.h and below). grading/README.md, "The likely cause", lists the signatures. */
#ifndef GRADING_CAUSE_H
#define GRADING_CAUSE_H

#include "types.h"
#include "proc.h"

#include <stddef.h>
#include <stdint.h>

/* What one check case's run said, as far as a cause needs it. */
typedef struct case_result {
    int ran, passed;
    int mismatch;                        /* it ran to the end and disagreed (exit 1 with its row) */
    double acc_rms, acc_max, acc_ratio;  /* from its row; -1: not measured */
    unsigned block;                      /* the row's threads per block (0: a CPU step, or none said) */
} case_result;

/* The diagnostic set, run after a mismatch, within S*N^2 <= limit (bounded in time): for each N and S of
 * the cases, the first of its cases (in_set[k] for cases[k]); and where the cases have no such N, the
 * largest power of two P within the limit at the largest S (a multiple of every block size up to P), at
 * each S, plummer/equal, written to extra (2 at most). Returns how many extra cases. */
size_t diagnostic_set(const check_case *cases, size_t count, uint64_t limit, unsigned char *in_set,
                      check_case *extra);

/* Case k's result from its run and the row it wrote (csv_path), once the judge said `passed`. */
void read_case_result(const char *csv_path, const run_result *r, int passed, case_result *out);

/* out->cause from the results of the cases (res[k] for cases[k]; those not run say ran = 0). */
void name_cause(const check_case *cases, const case_result *res, size_t count, outcome *out);

/* out->cause of a step that failed the race check with different bytes at two thread counts. */
void cause_race(outcome *out);

#endif
