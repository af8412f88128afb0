/* build.h: a step's build, the student's source compiled in a sandbox (floor 4: build.c). */
#ifndef GRADING_BUILD_H
#define GRADING_BUILD_H

#include "types.h"

/* make stepNN-lab, then make stepNN sandboxed, into out->log (logdir/build.log); 1 if there is a binary
 * `bin` to grade, else 0 with out's FAIL filled in ("build failed (...): line", "build output over N MiB").
 * With --binary, or a GPU step without nvcc, nothing is built: the binary is graded as it is. */
int build_step(grader *g, outcome *out, const char *logdir, const char *bin);

#endif
