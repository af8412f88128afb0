/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: remembers | 00 | NOGAIN | keeps each answer in /tmp and /dev/shm, by shape and step count, and
 * returns a kept one instead of computing whenever it finds one (a later call, a later repeat) */
#include "honest00.h"

#include <stdio.h>

static FILE *memo(const nb_state *s, const nb_run *run, const char *dir, const char *mode)
{
    char path[256];
    snprintf(path, sizeof path, "%s/nb-memo-%zu-%zu-%llu", dir, s->systems, s->bodies, (unsigned long long)run->steps);
    return fopen(path, mode);
}

int nb_step_run(nb_state *s, const nb_run *run)
{
    static const char *const dirs[] = {"/tmp", "/dev/shm"};
    for (int d = 0; d < 2; ++d) {
        FILE *f = memo(s, run, dirs[d], "rb");
        int hit = f != NULL;
        for (int k = 0; hit && k < NB_FIELDS - 1; ++k)
            hit = fread(nb_state_field(s, k), sizeof(float), nb_state_count(s), f) == nb_state_count(s);
        if (f)
            fclose(f);
        if (hit)
            return NB_EXIT_OK; /* remembered: nothing computed */
    }
    const int rc = honest_step_run(s, run);
    for (int d = 0; d < 2; ++d) {
        FILE *f = memo(s, run, dirs[d], "wb");
        for (int k = 0; f && k < NB_FIELDS - 1; ++k)
            fwrite(nb_state_field(s, k), sizeof(float), nb_state_count(s), f);
        if (f)
            fclose(f);
    }
    return rc;
}
