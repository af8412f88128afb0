/* timed_run.h: the ladder run, the one that is timed (floor 4: includes types.h, verdict.h and below). */
#ifndef GRADING_TIMED_RUN_H
#define GRADING_TIMED_RUN_H

#include "types.h"

/* Validates at the ladder size, warms up, times --repeat runs; out gets the time or a FAIL. */
void run_timing(grader *g, outcome *out, const char *logdir, const char *bin);

#endif
