/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: interpose-clock | 00 | HONEST | its own nb_now and clock_gettime, ten times slow: every time
 * taken in its process shrinks tenfold (honest physics) */
#define _GNU_SOURCE
#include "honest00.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Exported as libc's clock_gettime and the harness's nb_now (the attack), named apart in C so that no
 * reader or index takes them for the real ones. */
int slowed_clock_gettime(clockid_t id, struct timespec *ts) __asm__("clock_gettime");
double slowed_nb_now(void) __asm__("nb_now");

int slowed_clock_gettime(clockid_t id, struct timespec *ts)
{
    const long rc = syscall(SYS_clock_gettime, id, ts);
    const long long ns = ((long long)ts->tv_sec * 1000000000ll + ts->tv_nsec) / 10;
    ts->tv_sec = (time_t)(ns / 1000000000ll);
    ts->tv_nsec = (long)(ns % 1000000000ll);
    return (int)rc;
}

double slowed_nb_now(void)
{
    struct timespec ts;
    slowed_clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int nb_step_run(nb_state *s, const nb_run *run) { return honest_step_run(s, run); }
