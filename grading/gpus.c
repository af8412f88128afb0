/* gpus.c: the GPUs here (gpus.h): the probe, or nvidia-smi -L; the SM count of a GPU by its name. */
#define _GNU_SOURCE /* strcasecmp */
#include "gpus.h"
#include "proc.h"
#include "text.h"
#include "nbody.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define PROBE_TIMEOUT 60.0

/* Ask the probe (cudaGetDeviceCount), else nvidia-smi -L; any failure counts as no GPU. */
void probe_gpus(const char *probe, const char *out_dir, gpu_info *g)
{
    memset(g, 0, sizeof *g);
    char log[4300];
    textf(log, sizeof log, "%s/logs/gpu-probe.txt", out_dir);
    run_result r;
    if (probe && is_executable(probe)) {
        char *argv[] = {(char *)probe, NULL};
        textf(g->how, sizeof g->how, "cudaGetDeviceCount");
        textf(g->none, sizeof g->none, "cudaGetDeviceCount found none");
        if (run_one(argv, log, PROBE_TIMEOUT, &r) != NB_EXIT_OK || !r.exited || r.code != 0) {
            textf(g->none, sizeof g->none, "the GPU probe failed: see %s", log);
            return;
        }
        FILE *f = fopen(log, "r");
        char line[256];
        if (!f)
            return;
        int count = 0;
        if (fgets(line, sizeof line, f) && sscanf(line, "%d", &count) == 1 && count > 0) {
            g->count = count > MAX_GPUS ? MAX_GPUS : count;
            for (int d = 0; d < g->count && fgets(line, sizeof line, f); ++d) {
                line[strcspn(line, "\r\n")] = '\0';
                char *tab = strchr(line, '\t');
                if (tab && sscanf(line, "%d", &g->sms[d]) == 1) {
                    textf(g->name[d], sizeof g->name[d], "%s", tab + 1);
                    printable_text(g->name[d]); /* echoed in the plan */
                }
            }
        }
        fclose(f);
        return;
    }
    if (!have_command("nvidia-smi")) {
        textf(g->how, sizeof g->how, "no probe");
        textf(g->none, sizeof g->none, "no GPU probe (it needs nvcc) and no nvidia-smi");
        return;
    }
    textf(g->how, sizeof g->how, "nvidia-smi -L");
    textf(g->none, sizeof g->none, "nvidia-smi -L lists none");
    char *argv[] = {"nvidia-smi", "-L", NULL};
    if (run_one(argv, log, PROBE_TIMEOUT, &r) != NB_EXIT_OK || !r.exited || r.code != 0)
        return;
    FILE *f = fopen(log, "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        g->count += !strncmp(line, "GPU ", 4);
    if (f)
        fclose(f);
}

const char *single_gpu_name(const char *device)
{
    const char *p = device;
    while (isdigit((unsigned char)*p))
        ++p;
    return p > device && p[0] == 'x' && p[1] == ' ' ? p + 2 : device;
}

int sms_of(const gpu_info *g, const char *device)
{
    device = single_gpu_name(device);
    for (int d = 0; d < g->count; ++d)
        if (g->sms[d] > 0 && !strcasecmp(g->name[d], device))
            return g->sms[d];
    return 0;
}
