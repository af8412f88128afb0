/* verdict.h: the verdict of one run of a step binary (floor 2: includes proc.h and below). */
#ifndef GRADING_VERDICT_H
#define GRADING_VERDICT_H

#include "proc.h"

#include <stddef.h>

/* From its exit status and its CSV row, never its printed text. 1 passed, 0 not; `why` says what went
 * wrong; *row gets the row (or NULL), errors are folded into *acc / *state; `timeout` is the limit it
 * ran under (for the message). */
int verdict_of_run(double timeout, const run_result *r, const char *csv_path, const char *log_path, char **row,
              double *acc, double *state, char *why, size_t len);

#endif
