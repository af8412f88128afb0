/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: region-early | 00 | HONEST | does 70% of its steps before nb_region_begin: its own timed region
 * shows a third of the time (honest physics) */
#include "honest00.h"

int nb_step_run(nb_state *s, const nb_run *run)
{
    nb_run before = *run, timed = *run;
    before.clock = NULL; /* no region: nb_region_begin and _end do nothing */
    before.steps = run->steps * 7 / 10;
    timed.steps = run->steps - before.steps;
    const int rc = before.steps ? honest_step_run(s, &before) : NB_EXIT_OK;
    return rc != NB_EXIT_OK ? rc : honest_step_run(s, &timed);
}
