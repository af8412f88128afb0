/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: fork-bomb | 00 | FAIL | starts 3000 processes that wait forever (more than any honest step has
 * threads), then computes honestly: its control group's task limit must stop the forks, the judge must
 * FAIL the run naming that limit, and every process must be gone with its worker */
#define _GNU_SOURCE /* sched_getaffinity, dirfd, fork */
#include "honest00.h"

#include <sys/types.h>
#include <unistd.h>

int nb_step_run(nb_state *s, const nb_run *run)
{
    for (int k = 0; k < 3000; ++k) {
        const pid_t pid = fork();
        if (pid == 0)
            for (;;)
                pause();
        if (pid < 0)
            break; /* the limit: what a real bomb would spin on */
    }
    return honest_step_run(s, run);
}
