/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: never-returns | 00 | FAIL | waits for a signal that never comes: it must cost a minute at most,
 * not the grader's fifteen */
#include "nbody.h"

#include <unistd.h>

int nb_step_run(nb_state *s, const nb_run *run)
{
    (void)s, (void)run;
    for (;;)
        pause();
}
