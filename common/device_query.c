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

/* NVML's functions the judge calls, opened and started once a process (both queries share them) and left
 * open until it exits; NULL where the library is missing or will not start. */
typedef struct nvml_api {
    int (*count)(unsigned *);
    int (*by_index)(unsigned, nvml_device *);
    int (*by_uuid)(const char *, nvml_device *);
    int (*name)(nvml_device, char *, unsigned);
    int (*clock)(nvml_device, int, unsigned *);
    int (*minor)(nvml_device, unsigned *);
    int (*uuid)(nvml_device, char *, unsigned);
} nvml_api;

static const nvml_api *nvml(void)
{
    static nvml_api api;
    static const nvml_api *ready;
    static int tried;
    if (tried++)
        return ready;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return NULL;
    int (*init)(void) = (int (*)(void))dlsym(lib, "nvmlInit_v2");
    api.count = (int (*)(unsigned *))dlsym(lib, "nvmlDeviceGetCount_v2");
    api.by_index = (int (*)(unsigned, nvml_device *))dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    api.by_uuid = (int (*)(const char *, nvml_device *))dlsym(lib, "nvmlDeviceGetHandleByUUID");
    api.name = (int (*)(nvml_device, char *, unsigned))dlsym(lib, "nvmlDeviceGetName");
    api.clock = (int (*)(nvml_device, int, unsigned *))dlsym(lib, "nvmlDeviceGetMaxClockInfo");
    api.minor = (int (*)(nvml_device, unsigned *))dlsym(lib, "nvmlDeviceGetMinorNumber");
    api.uuid = (int (*)(nvml_device, char *, unsigned))dlsym(lib, "nvmlDeviceGetUUID");
    if (!init || !api.count || !api.by_index || init() != NVML_OK) {
        dlclose(lib);
        return NULL;
    }
    ready = &api;
    return ready;
}

const nb_gpu_facts *nb_gpu_query(void)
{
    static nb_gpu_facts f;
    static int done;
    if (done++)
        return &f;
    snprintf(f.name, sizeof f.name, "unknown");
    const nvml_api *api = nvml();
    unsigned all = 0;
    if (!api || !api->name || api->count(&all) != NVML_OK)
        return &f;
    char first[128];
    const unsigned shown = visible(first, sizeof first);
    f.count = shown == ~0u ? all : (shown < all ? shown : all);
    nvml_device d = NULL;
    int found = 0;
    if (!first[0] && f.count)
        found = api->by_index(0, &d) == NVML_OK;
    else if (first[0] >= '0' && first[0] <= '9')
        found = api->by_index((unsigned)strtoul(first, NULL, 10), &d) == NVML_OK;
    else if (first[0] && api->by_uuid)
        found = api->by_uuid(first, &d) == NVML_OK;
    unsigned mhz = 0;
    if (found && api->name(d, f.name, sizeof f.name) != NVML_OK)
        snprintf(f.name, sizeof f.name, "unknown");
    if (found && api->clock && api->clock(d, NVML_CLOCK_SM, &mhz) == NVML_OK)
        f.max_clock_mhz = mhz;
    return &f;
}

/* Entry `g` of the comma-separated list v into out, without spaces: 1, or 0 past the list's end. */
static int entry_of(const char *v, unsigned g, char *out, size_t len)
{
    for (unsigned at = 0; *v; ++at) {
        const size_t k = strcspn(v, ",");
        if (at == g) {
            size_t n = 0;
            for (size_t c = 0; c < k && n + 1 < len; ++c)
                if (v[c] != ' ')
                    out[n++] = v[c];
            out[n] = '\0';
            return n > 0;
        }
        v += k + (v[k] == ',');
    }
    return 0;
}

int nb_gpu_given(unsigned want, unsigned minors[], char uuids[][NB_GPU_UUID_LEN])
{
    if (want > NB_GPU_GIVEN_MAX)
        want = NB_GPU_GIVEN_MAX;
    const nvml_api *api = nvml();
    if (!api || !api->by_uuid || !api->minor || !api->uuid)
        return -1;
    unsigned all = 0;
    int found = api->count(&all) == NVML_OK ? 0 : -1;
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    for (unsigned g = 0; found >= 0 && (unsigned)found < want; ++g) {
        nvml_device d = NULL;
        char entry[128];
        if (!v) {
            if (g >= all)
                break;
            if (api->by_index(g, &d) != NVML_OK)
                found = -1;
        } else if (!entry_of(v, g, entry, sizeof entry)) {
            break; /* the list's end (or an empty entry, where CUDA stops too) */
        } else if (entry[0] >= '0' && entry[0] <= '9') {
            char *end;
            const unsigned long index = strtoul(entry, &end, 10);
            if (*end || index >= all)
                break; /* CUDA stops at the first index it does not have */
            if (api->by_index((unsigned)index, &d) != NVML_OK)
                found = -1;
        } else if (strncmp(entry, "GPU-", 4) != 0 || api->by_uuid(entry, &d) != NVML_OK) {
            found = -1; /* a MIG instance, a UUID's prefix: CUDA may take it, NVML cannot say which device */
        }
        if (found < 0 || api->minor(d, &minors[found]) != NVML_OK || api->uuid(d, uuids[found], NB_GPU_UUID_LEN) != NVML_OK) {
            found = -1;
            break;
        }
        int twice = 0;
        for (int o = 0; o < found; ++o)
            twice |= minors[o] == minors[found];
        if (twice) {
            found = -1; /* one GPU named twice: not a list CUDA takes as it is */
            break;
        }
        ++found;
    }
    return found;
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
