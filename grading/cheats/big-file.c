/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: big-file | 00 | NOGAIN | writes a file of 1 GiB into /tmp before it computes: its file-size limit (and
 * its private /tmp's size) must stop it, the judge saying which limit, and nothing outside its box may grow */
#include "honest00.h"

#include <stdio.h>
#include <string.h>

int nb_step_run(nb_state *s, const nb_run *run)
{
    static char block[1 << 20];
    memset(block, 7, sizeof block);
    FILE *f = fopen("/tmp/nb-big-file", "wb");
    for (int k = 0; f && k < 1024; ++k)
        if (fwrite(block, 1, sizeof block, f) != sizeof block)
            break;
    if (f)
        fclose(f);
    remove("/tmp/nb-big-file");
    return honest_step_run(s, run);
}
