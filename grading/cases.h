/* cases.h: the correctness cases (floor 4: includes grade.h, verdict.h and below). */
#ifndef GRADING_CASES_H
#define GRADING_CASES_H

#include "grade.h"

/* g->cases from --check-n: every N at S = 1 and 3, the model/masses pairs. */
void make_cases(grader *g);
/* Every case of step out->s with `bin`, --jobs at a time; a failure makes out FAIL. */
void run_checks(grader *g, outcome *out, const char *logdir, const char *bin);

#endif
