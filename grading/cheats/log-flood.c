/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: log-flood | 00 | FAIL | prints 12 MiB in every call, under the cap of one log: its logs together
 * must be stopped at their cap, not fill the disk */
#include "honest00.h"

#include <stdio.h>
#include <string.h>

int nb_step_run(nb_state *s, const nb_run *run)
{
    static char line[1024];
    memset(line, 'x', sizeof line - 2);
    line[sizeof line - 2] = '\n';
    for (int k = 0; k < 12 * 1024; ++k)
        fputs(line, stdout);
    fflush(stdout);
    return honest_step_run(s, run);
}
