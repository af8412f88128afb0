/* cases.h: the correctness cases (floor 4: includes types.h, verdict.h and below). */
#ifndef GRADING_CASES_H
#define GRADING_CASES_H

#include "types.h"

/* g->cases from --check-n: every N at S = 1 and 3, the model/masses pairs. */
void make_cases(grader *g);
/* How many cases a step with the block_steps feature gets besides g->cases (step13: 2 more). */
size_t block_case_count(void);
/* Every case of step out->s with `bin`, --jobs at a time; a failure makes out FAIL. */
void run_checks(grader *g, outcome *out, const char *logdir, const char *bin);

#endif
