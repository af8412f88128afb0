/* host.c: the platform of the CPU steps (platform.h): the host clock times the region. */
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

const char *nb_platform_device(void)
{
    static char name[128];
    if (name[0])
        return name;
    snprintf(name, sizeof name, "CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f)) {
            const char *colon = strchr(line, ':');
            if (strncmp(line, "model name", 10) == 0 && colon) {
                snprintf(name, sizeof name, "%s", colon + 2);
                name[strcspn(name, "\n")] = '\0';
                break;
            }
        }
        fclose(f);
    }
    return name;
}

int nb_platform_check_memory(uint64_t bytes)
{
    (void)bytes;
    return NB_EXIT_OK;
}

double nb_platform_clock_mhz(void) { return 0.0; }

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
