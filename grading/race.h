/* race.h: the data-race check of a CPU step (floor 4: includes types.h and below). */
#ifndef GRADING_RACE_H
#define GRADING_RACE_H

#include "types.h"

/* Its -O0 build (race_bin, or built here with make grade-copy when NULL) at 1 and at many threads: the
 * same bytes, or out FAILs with "data race". */
void run_race_check(grader *g, outcome *out, const char *logdir, const char *race_bin);

#endif
