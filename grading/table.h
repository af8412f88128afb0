/* table.h: what the grader prints and writes (floor 5: includes types.h and below): the plan, the table
 * with its speedups, OUT/results.csv and OUT/verdicts.csv. */
#ifndef GRADING_TABLE_H
#define GRADING_TABLE_H

#include "types.h"

#include <stddef.h>

const char *verdict_name(verdict v);
void compute_speedups(outcome *outs, size_t count, const registry *reg);
void print_plan(const grader *g, const outcome *outs, size_t count);
void print_table(const grader *g, const outcome *outs, size_t count);
size_t add_earlier(const grader *g, const char *csv_path, outcome **outs, size_t count);
int write_csv(const char *path, const outcome *outs, size_t count);
int write_verdicts(const char *path, const outcome *outs, size_t count);

#endif
