/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: claims-gpus | 03 | HONEST | computes honestly and says it ran on 64 GPUs (the judge once took the GPU
 * count, and the clock, from the worker's reply, and raised its bound on a plausible speed 64 times); the
 * row must say the one GPU the judge asked for */
#include "honest03.h"

#include <stdio.h>

int nb_step_run(nb_state *s, const nb_run *run)
{
    const int rc = honest_step_run(s, run);
    run->info->gpus = 64;
    snprintf(run->info->config, sizeof run->info->config, "gpus=64 clock=3000MHz");
    return rc;
}
