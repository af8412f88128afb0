/* gpus.c: the GPUs here (gpus.h): the probe, or nvidia-smi -L; the SM count of a GPU by its name, also
 * from a recorded gpu.csv. */
#define _GNU_SOURCE /* strcasecmp */
#include "gpus.h"
#include "proc.h"
#include "text.h"
#include "nbody.h"
#include "results.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

int read_gpu_info(const char *path, gpu_info *g)
{
    memset(g, 0, sizeof *g);
    textf(g->how, sizeof g->how, "%s", path);
    FILE *f = fopen(path, "r");
    if (!f) {
        nb_error("--gpu-info %s: %s", path, strerror(errno));
        return NB_EXIT_ERROR;
    }
    fclose(f);
    nb_csv c;
    if (nb_csv_read(path, &c) != NB_EXIT_OK) /* it said why */
        return NB_EXIT_ERROR;
    if (nb_csv_column(&c, "name") < 0 || nb_csv_column(&c, "sms") < 0) {
        nb_error("--gpu-info %s: no columns name and sms (a gpu.csv of report/tools/gpuinfo.cu)", path);
        nb_csv_free(&c);
        return NB_EXIT_ERROR;
    }
    for (size_t r = 0; r < c.rows; ++r) {
        const char *name = single_gpu_name(nb_csv_get(&c, r, "name"));
        const int sms = atoi(nb_csv_get(&c, r, "sms"));
        if (!name[0] || sms <= 0)
            continue;
        int d = 0;
        while (d < g->count && strcasecmp(g->name[d], name))
            ++d;
        if (d == MAX_GPUS)
            break; /* more names than a gpu_info holds: the first MAX_GPUS are kept */
        textf(g->name[d], sizeof g->name[d], "%s", name);
        g->sms[d] = sms;
        g->count += d == g->count;
    }
    nb_csv_free(&c);
    if (g->count == 0) {
        nb_error("--gpu-info %s: no GPU with an SM count in it", path);
        return NB_EXIT_ERROR;
    }
    return NB_EXIT_OK;
}
