/* host.c: the platform of the CPU steps (platform.h): the host clock times the region. */
#include "device_query.h"
#include "nbody.h"
#include "platform.h"
#include "timing.h"

#include <stdio.h>
#include <string.h>

int nb_platform_open(unsigned gpus, int multi_gpu)
{
    (void)gpus, (void)multi_gpu; /* --gpus means nothing to a CPU step; the judge says so if it is set */
    return NB_EXIT_OK;
}

int nb_platform_is_gpu(void) { return 0; }

unsigned nb_platform_gpus(void) { return 0; }

const char *nb_platform_device(void) { return nb_cpu_name(); }

int nb_platform_check_memory(uint64_t bytes)
{
    (void)bytes;
    return NB_EXIT_OK;
}

void nb_region_begin(const nb_run *run)
{
    if (!run->clock)
        return;
    run->clock->host_begin = nb_now();
    run->clock->open = 1;
}

void nb_region_end(const nb_run *run)
{
    if (!run->clock || !run->clock->open)
        return;
    run->clock->elapsed += nb_now() - run->clock->host_begin;
    run->clock->open = 0;
}
