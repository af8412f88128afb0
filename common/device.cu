/* device.cu: the platform of the GPU steps (platform.h) and the helpers of device.h.
 * The timed region is measured with CUDA events on the current device. */
#include "device.h"
#include "platform.h"
#include "timing.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int device_count;
static unsigned gpus_used;

void nb_cuda_check(cudaError_t err, const char *what, const char *file, int line)
{
    if (err == cudaSuccess)
        return;
    const char *base = strrchr(file, '/');
    if (err == cudaErrorMemoryAllocation)
        nb_die(NB_EXIT_ERROR, "out of GPU memory at %s:%d in %s (try fewer bodies or systems)", base ? base + 1 : file,
               line, what);
    nb_die(NB_EXIT_ERROR, "CUDA error at %s:%d in %s: %s", base ? base + 1 : file, line, what, cudaGetErrorString(err));
}

int nbd_sm_count(void)
{
    int device, sms;
    NB_CUDA(cudaGetDevice(&device));
    NB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return sms;
}

void *nbd_malloc(size_t bytes, const char *what)
{
    void *p = NULL;
    cudaError_t err = cudaMalloc(&p, bytes ? bytes : 1);
    if (err != cudaSuccess) {
        char buf[32];
        nb_die(NB_EXIT_ERROR, "cannot allocate %s of GPU memory for %s: %s", nb_format_bytes(bytes, buf, sizeof buf),
               what, cudaGetErrorString(err));
    }
    return p;
}

void *nbd_malloc_host(size_t bytes, const char *what)
{
    void *p = NULL;
    cudaError_t err = cudaMallocHost(&p, bytes ? bytes : 1);
    if (err != cudaSuccess) {
        char buf[32];
        nb_die(NB_EXIT_ERROR, "cannot allocate %s of pinned host memory for %s: %s",
               nb_format_bytes(bytes, buf, sizeof buf), what, cudaGetErrorString(err));
    }
    return p;
}

void nb_pack_bodies(const nb_state *s, nb_body *out)
{
    const size_t n = nb_state_count(s);
    for (size_t i = 0; i < n; ++i) {
        nb_body b = {s->x[i], s->y[i], s->z[i], s->vx[i], s->vy[i], s->vz[i], s->m[i]};
        out[i] = b;
    }
}

void nb_unpack_bodies(const nb_body *in, nb_state *s)
{
    const size_t n = nb_state_count(s);
    for (size_t i = 0; i < n; ++i) {
        s->x[i] = in[i].x;
        s->y[i] = in[i].y;
        s->z[i] = in[i].z;
        s->vx[i] = in[i].vx;
        s->vy[i] = in[i].vy;
        s->vz[i] = in[i].vz;
    }
}

nb_body *nbd_bodies_upload(const nb_state *s)
{
    const size_t total = nb_state_count(s);
    nb_body *host = (nb_body *)nbd_malloc_host(total * sizeof(nb_body), "the bodies");
    nb_pack_bodies(s, host);
    nb_body *bodies = (nb_body *)nbd_malloc(total * sizeof(nb_body), "the bodies");
    NB_CUDA(cudaMemcpy(bodies, host, total * sizeof(nb_body), cudaMemcpyHostToDevice));
    NB_CUDA(cudaFreeHost(host));
    return bodies;
}

void nbd_bodies_download(nb_body *bodies, nb_state *s)
{
    const size_t total = nb_state_count(s);
    nb_body *host = (nb_body *)nbd_malloc_host(total * sizeof(nb_body), "the bodies");
    NB_CUDA(cudaMemcpy(host, bodies, total * sizeof(nb_body), cudaMemcpyDeviceToHost));
    nb_unpack_bodies(host, s);
    NB_CUDA(cudaFreeHost(host));
    NB_CUDA(cudaFree(bodies));
}

void nbd_soa_upload(const nb_state *s, nbd_soa *d)
{
    const size_t bytes = nb_state_count(s) * sizeof(float);
    float **to[NB_FIELDS] = {&d->x, &d->y, &d->z, &d->vx, &d->vy, &d->vz, &d->m};
    for (int k = 0; k < NB_FIELDS; ++k) {
        *to[k] = (float *)nbd_malloc(bytes, "the bodies");
        NB_CUDA(cudaMemcpy(*to[k], nb_state_field(s, k), bytes, cudaMemcpyHostToDevice));
    }
}

void nbd_soa_download(nbd_soa *d, nb_state *s)
{
    const size_t bytes = nb_state_count(s) * sizeof(float);
    float *from[NB_FIELDS] = {d->x, d->y, d->z, d->vx, d->vy, d->vz, d->m};
    for (int k = 0; k < NB_FIELDS; ++k) {
        if (k < NB_FIELDS - 1) /* masses do not change */
            NB_CUDA(cudaMemcpy(nb_state_field(s, k), from[k], bytes, cudaMemcpyDeviceToHost));
        NB_CUDA(cudaFree(from[k]));
    }
    memset(d, 0, sizeof *d);
}

unsigned nbd_system_rows(size_t systems) { return systems < 65535 ? (unsigned)systems : 65535u; }

int nbd_resident(const void *kernel, int block, size_t shared)
{
    int per_sm = 0;
    NB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, shared));
    return (per_sm > 0 ? per_sm : 1) * nbd_sm_count();
}

int nbd_slices(const void *kernel, int block, size_t shared, size_t row_blocks, size_t systems, int tiles)
{
    const double resident = (double)nbd_resident(kernel, block, shared);
    const double blocks = (double)row_blocks * (double)systems;
    /* Enough blocks for NBD_WAVES waves: resident blocks drift apart (the schedulers favour the oldest
     * warps), so a single wave ends in a long tail with few warps per multiprocessor. */
    double want = ceil(NBD_WAVES * resident / blocks);
    const char *forced = getenv("NB_SLICES"); /* tests and sweeps: this many slices (at most one per tile) */
    if (forced && *forced) {
        char *end;
        const long k = strtol(forced, &end, 10);
        if (*end || k < 1)
            nb_die(NB_EXIT_ERROR, "NB_SLICES=%s: want a whole number of slices, at least 1", forced);
        want = (double)k;
    }
    int slices = want < 1.0 ? 1 : want > (double)tiles ? tiles : (int)want;
    /* Equal slices: as many tiles each as the slice count needs, then no empty slice at the end. */
    const int per_slice = (tiles + slices - 1) / slices;
    return (tiles + per_slice - 1) / per_slice;
}

/* ---- platform.h ------------------------------------------------------------------------ */

int nb_platform_open(unsigned gpus, int multi)
{
    cudaError_t err = cudaGetDeviceCount(&device_count);
    if (err != cudaSuccess || device_count == 0) {
        /* Without an NVIDIA driver CUDA says "driver version is insufficient": that is no GPU, too. */
        const int none = err == cudaSuccess || err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver;
        nb_error("no CUDA GPU here (%s); GPU steps need one",
                 none ? "cudaGetDeviceCount found no device, or no NVIDIA driver" : cudaGetErrorString(err));
        return NB_EXIT_ERROR;
    }
    if (gpus > (unsigned)device_count) {
        nb_error("--gpus %u: only %d GPU%s visible", gpus, device_count, device_count == 1 ? " is" : "s are");
        return NB_EXIT_ERROR;
    }
    if (!multi && gpus > 1) {
        nb_error("--gpus %u: this step uses one GPU (step08_multigpu uses several)", gpus);
        return NB_EXIT_ERROR;
    }
    gpus_used = multi ? (gpus ? gpus : (unsigned)device_count) : 1;
    NB_CUDA(cudaSetDevice(0));
    return NB_EXIT_OK;
}

int nb_platform_is_gpu(void) { return 1; }

unsigned nb_platform_gpus(void) { return gpus_used; }

const char *nb_platform_device(void)
{
    static char name[300];
    if (name[0])
        return name;
    cudaDeviceProp prop;
    if (device_count == 0 || cudaGetDeviceProperties(&prop, 0) != cudaSuccess)
        return "no GPU";
    if (gpus_used > 1)
        snprintf(name, sizeof name, "%ux %s", gpus_used, prop.name);
    else
        snprintf(name, sizeof name, "%s", prop.name);
    return name;
}

int nb_platform_check_memory(uint64_t bytes)
{
    size_t free_bytes = 0, total = 0;
    NB_CUDA(cudaMemGetInfo(&free_bytes, &total));
    if (bytes > free_bytes) {
        char need[32], have[32];
        nb_error("this run needs about %s of GPU memory, %s is free on %s", nb_format_bytes(bytes, need, sizeof need),
                 nb_format_bytes(free_bytes, have, sizeof have), nb_platform_device());
        return NB_EXIT_ERROR;
    }
    return NB_EXIT_OK;
}

typedef struct gpu_events {
    cudaEvent_t start, stop;
} gpu_events;

void nb_region_begin(const nb_run *run)
{
    nb_clock *c = run->clock;
    if (!c)
        return;
    if (!c->device) {
        gpu_events *e = (gpu_events *)calloc(1, sizeof *e);
        if (!e)
            nb_die(NB_EXIT_ERROR, "out of host memory for CUDA events");
        NB_CUDA(cudaEventCreate(&e->start));
        NB_CUDA(cudaEventCreate(&e->stop));
        c->device = e;
    }
    NB_CUDA(cudaEventRecord(((gpu_events *)c->device)->start, 0));
    c->host_begin = nb_now();
    c->open = 1;
}

void nb_region_end(const nb_run *run)
{
    nb_clock *c = run->clock;
    if (!c || !c->open)
        return;
    gpu_events *e = (gpu_events *)c->device;
    NB_CUDA(cudaEventRecord(e->stop, 0));
    NB_CUDA(cudaEventSynchronize(e->stop));
    float ms = 0.0f;
    NB_CUDA(cudaEventElapsedTime(&ms, e->start, e->stop));
    c->elapsed += 1e-3 * (double)ms;
    c->open = 0;
}
