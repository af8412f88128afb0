/* judge.h: the verdict of one run of a step binary (floor 4: includes grade.h and below). */
#ifndef GRADING_JUDGE_H
#define GRADING_JUDGE_H

#include "grade.h"
#include "proc.h"

#include <stddef.h>

/* From its exit status and its CSV row, never its printed text. 1 passed, 0 not; `why` says what went
 * wrong; *row gets the row (or NULL), errors are folded into *acc / *state. */
int judge_run(const grader *g, const run_result *r, const char *csv_path, const char *log_path, char **row,
              double *acc, double *state, char *why, size_t len);

#endif
