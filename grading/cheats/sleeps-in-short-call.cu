/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: sleeps-in-short-call | 03 | NOGAIN | computes honestly, then in a call of the k steps of a timed pair
 * (the cheats' 10, the ladder's 10) sleeps as long again as its own run took: the k call looks twice as long,
 * and a loop time taken as the 2k call less the k call would be nearly nothing (8.9 times the honest speed
 * once); the judge's bound gives it at most 1.3 times */
#include "honest03.h"

#include <time.h>

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int nb_step_run(nb_state *s, const nb_run *run)
{
    const double t0 = seconds_now();
    const int rc = honest_step_run(s, run);
    const double took = seconds_now() - t0;
    if (rc == NB_EXIT_OK && run->steps == 10) {
        const struct timespec pause = {(time_t)took, (long)((took - (double)(time_t)took) * 1e9)};
        nanosleep(&pause, NULL);
    }
    return rc;
}
