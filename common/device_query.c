/* device_query.c: the CPU by its name, the GPUs as NVML reports them (device_query.h). */
#define _GNU_SOURCE
#include "device_query.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct nvml_device *nvml_device; /* nvmlDevice_t: an opaque handle */
enum { NVML_OK = 0, NVML_CLOCK_SM = 1 };

/* The first entry of CUDA_VISIBLE_DEVICES, an index or a UUID, and how many entries it has. */
static unsigned visible(char *first, size_t len)
{
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    first[0] = '\0';
    if (!v)
        return ~0u;
    unsigned n = 0;
    for (const char *p = v; *p;) {
        const size_t k = strcspn(p, ",");
        if (k && n == 0)
            snprintf(first, len, "%.*s", (int)k, p);
        n += k > 0;
        p += k + (p[k] == ',');
    }
    return n;
}

const nb_gpu_facts *nb_gpu_query(void)
{
    static nb_gpu_facts f;
    static int done;
    if (done++)
        return &f;
    snprintf(f.name, sizeof f.name, "unknown");
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return &f;
    int (*init)(void) = (int (*)(void))dlsym(lib, "nvmlInit_v2");
    int (*shutdown)(void) = (int (*)(void))dlsym(lib, "nvmlShutdown");
    int (*count)(unsigned *) = (int (*)(unsigned *))dlsym(lib, "nvmlDeviceGetCount_v2");
    int (*by_index)(unsigned, nvml_device *) = (int (*)(unsigned, nvml_device *))dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    int (*by_uuid)(const char *, nvml_device *) = (int (*)(const char *, nvml_device *))dlsym(lib, "nvmlDeviceGetHandleByUUID");
    int (*name)(nvml_device, char *, unsigned) = (int (*)(nvml_device, char *, unsigned))dlsym(lib, "nvmlDeviceGetName");
    int (*clock)(nvml_device, int, unsigned *) = (int (*)(nvml_device, int, unsigned *))dlsym(lib, "nvmlDeviceGetMaxClockInfo");
    unsigned all = 0;
    if (!init || !count || !by_index || !name || init() != NVML_OK) {
        dlclose(lib);
        return &f;
    }
    if (count(&all) == NVML_OK) {
        char first[128];
        const unsigned shown = visible(first, sizeof first);
        f.count = shown == ~0u ? all : (shown < all ? shown : all);
        nvml_device d = NULL;
        int found = 0;
        if (!first[0] && f.count)
            found = by_index(0, &d) == NVML_OK;
        else if (first[0] >= '0' && first[0] <= '9')
            found = by_index((unsigned)strtoul(first, NULL, 10), &d) == NVML_OK;
        else if (first[0] && by_uuid)
            found = by_uuid(first, &d) == NVML_OK;
        unsigned mhz = 0;
        if (found && name(d, f.name, sizeof f.name) != NVML_OK)
            snprintf(f.name, sizeof f.name, "unknown");
        if (found && clock && clock(d, NVML_CLOCK_SM, &mhz) == NVML_OK)
            f.max_clock_mhz = mhz;
    }
    if (shutdown)
        shutdown();
    dlclose(lib);
    return &f;
}

const char *nb_cpu_name(void)
{
    static char name[128];
    if (name[0])
        return name;
    snprintf(name, sizeof name, "CPU");
    FILE *f = fopen("/proc/cpuinfo", "re");
    char line[256];
    while (f && fgets(line, sizeof line, f)) {
        const char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            snprintf(name, sizeof name, "%s", colon + 2);
            name[strcspn(name, "\n")] = '\0';
            break;
        }
    }
    if (f)
        fclose(f);
    return name;
}
