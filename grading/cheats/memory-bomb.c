/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: memory-bomb | 00 | NOGAIN | takes host memory 256 MiB at a time, every page touched, up to 32 GiB,
 * then computes honestly: its control group's memory limit must end it with a line naming the limit (where
 * no group can be made, its address-space limit refuses the allocations and it goes on honestly) */
#include "honest00.h"

#include <string.h>

int nb_step_run(nb_state *s, const nb_run *run)
{
    static char *kept[128];
    for (int k = 0; k < 128; ++k) {
        kept[k] = (char *)malloc((size_t)256 << 20);
        if (!kept[k])
            break;
        memset(kept[k], 1, (size_t)256 << 20);
    }
    return honest_step_run(s, run);
}
