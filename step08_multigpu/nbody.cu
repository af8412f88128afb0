/* step08_multigpu: In this version, the work is spread over --gpus G devices in one of two ways.
 * Many systems: each GPU takes whole systems and never talks to the others. Few systems: each GPU
 * takes a slice of every system's bodies, computes their forces against all positions, and after
 * every step sends its slice's new positions to every other GPU (peer-to-peer where the GPUs can
 * reach each other, through host memory otherwise: cudaMemcpyPeerAsync chooses). The kernels are
 * step06's, given the first body and the count of the slice they own. */
#include "device.h"
#include "nbody.h"
#include "platform.h"
#include "util.h"

#include <stdio.h>

#ifndef BLOCK /* threads per block */
#define BLOCK 128
#endif
#ifndef UNROLL /* unroll factor of the loop over a tile */
#define UNROLL 8
#endif
#ifndef BODIES_PER_THREAD
#define BODIES_PER_THREAD 4
#endif
#ifndef TILE /* bodies per shared-memory tile, a multiple of BLOCK: each thread loads TILE / BLOCK of them */
#define TILE (2 * BLOCK)
#endif
#ifndef MIN_BLOCKS /* __launch_bounds__ minimum of resident blocks per SM (0: none): caps the registers */
#define MIN_BLOCKS 0
#endif
static_assert(TILE % BLOCK == 0, "TILE must be a multiple of BLOCK");
#define BODIES_PER_BLOCK (BLOCK * BODIES_PER_THREAD)
static const int unroll_factor = UNROLL; /* #pragma unroll takes a constant, not a macro */

/* Block (x, y, z): bodies own_first + blockIdx.x*BODIES_PER_BLOCK + b*BLOCK + threadIdx.x
 * (b < BODIES_PER_THREAD, below own_first + own_count) of system y, against the tiles of slice z. Threads past the last body still load tiles and reach
 * every __syncthreads(). */
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) forces(nbd_soa bodies, float4 *partial, int n, int systems, int own_first,
                                                int own_count, int tiles_per_slice, float eps2)
{
    /* BEGIN SOLUTION */
    __shared__ float4 tile[TILE];
    const int tiles = (n + TILE - 1) / TILE;
    const int first = blockIdx.z * tiles_per_slice;
    const int last = min(first + tiles_per_slice, tiles);
    for (int sys = blockIdx.y; sys < systems; sys += gridDim.y) {
        const size_t offset = (size_t)sys * n;
        const float *x = bodies.x + offset, *y = bodies.y + offset, *z = bodies.z + offset, *m = bodies.m + offset;
        float xi[BODIES_PER_THREAD], yi[BODIES_PER_THREAD], zi[BODIES_PER_THREAD];
        float ax[BODIES_PER_THREAD], ay[BODIES_PER_THREAD], az[BODIES_PER_THREAD];
#pragma unroll
        for (int u = 0; u < BODIES_PER_THREAD; ++u) {
            const int i = blockIdx.x * BODIES_PER_BLOCK + u * BLOCK + threadIdx.x;
            xi[u] = i < own_count ? x[own_first + i] : 0.0f;
            yi[u] = i < own_count ? y[own_first + i] : 0.0f;
            zi[u] = i < own_count ? z[own_first + i] : 0.0f;
            ax[u] = ay[u] = az[u] = 0.0f;
        }
        for (int t = first; t < last; ++t) {
#pragma unroll
            for (int k = threadIdx.x; k < TILE; k += BLOCK) {
                const int j = t * TILE + k;
                /* Past the last body the tile is padded with massless bodies: they add exactly 0. */
                tile[k] = j < n ? make_float4(x[j], y[j], z[j], m[j]) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            }
            __syncthreads();
#pragma unroll unroll_factor
            for (int k = 0; k < TILE; ++k) {
                const float4 pj = tile[k];
#pragma unroll
                for (int u = 0; u < BODIES_PER_THREAD; ++u) {
                    const float dx = pj.x - xi[u];
                    const float dy = pj.y - yi[u];
                    const float dz = pj.z - zi[u];
                    const float d2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
                    const float inv = rsqrtf(d2);
                    const float f = (pj.w * inv) * (inv * inv); /* two products side by side, not a chain of three */
                    ax[u] += dx * f;
                    ay[u] += dy * f;
                    az[u] += dz * f;
                }
            }
            __syncthreads(); /* the tile is overwritten next */
        }
#pragma unroll
        for (int u = 0; u < BODIES_PER_THREAD; ++u) {
            const int i = blockIdx.x * BODIES_PER_BLOCK + u * BLOCK + threadIdx.x;
            if (i < own_count)
                partial[((size_t)blockIdx.z * systems + sys) * own_count + i] = make_float4(ax[u], ay[u], az[u], 0.0f);
        }
    }
    /* STUB
    // Yours to write: the step05 loop, its tiles loaded from the arrays of nbd_soa.
    (void)unroll_factor; // for #pragma unroll unroll_factor
    END SOLUTION */
}

/* Sum the slices in a fixed order (the result does not depend on scheduling), kick, drift. */
__global__ void kick_drift(nbd_soa bodies, const float4 *partial, int n, int systems, int own_first, int own_count,
                           int slices, float dt)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= own_count)
        return;
    for (int sys = blockIdx.y; sys < systems; sys += gridDim.y) {
        const size_t k = (size_t)sys * n + own_first + i;
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int slice = 0; slice < slices; ++slice) {
            const float4 a = partial[((size_t)slice * systems + sys) * own_count + i];
            ax += a.x;
            ay += a.y;
            az += a.z;
        }
        const float vx = bodies.vx[k] + ax * dt, vy = bodies.vy[k] + ay * dt, vz = bodies.vz[k] + az * dt;
        bodies.vx[k] = vx;
        bodies.vy[k] = vy;
        bodies.vz[k] = vz;
        bodies.x[k] += vx * dt;
        bodies.y[k] += vy * dt;
        bodies.z[k] += vz * dt;
    }
}

#define MAX_GPUS 64


/* What one GPU holds and does: systems [first_system, +systems) whole, bodies [own_first, +own_count)
 * of each of them its own. */
typedef struct gpu_part {
    int device, first_system, systems, own_first, own_count, slices, tiles_per_slice;
    nbd_soa bodies;
    float4 *partial;
    cudaStream_t stream;
    cudaEvent_t computed, sent, x0, x1;
} gpu_part;

/* BEGIN SOLUTION */
/* Copy bodies [first, first + count) of each of `systems` rows of length n back to the host. */
static void download_rows(float *host, const float *dev, int n, int systems, int first, int count, cudaStream_t stream)
{
    const size_t pitch = (size_t)n * sizeof(float), width = (size_t)count * sizeof(float);
    NB_CUDA(cudaMemcpy2DAsync(host + first, pitch, dev + first, pitch, width, systems, cudaMemcpyDeviceToHost, stream));
}

/* STUB
// Yours to write, with nb_step_run() below (step08_multigpu/README.md, "What you write").

// Copy bodies [first, first + count) of each of `systems` rows of length n back to the host, on
// `stream`: one cudaMemcpy2DAsync (rows of count floats, pitch n floats on both sides).
static void download_rows(float *host, const float *dev, int n, int systems, int first, int count, cudaStream_t stream)
{
    (void)host, (void)dev, (void)n, (void)systems, (void)first, (void)count, (void)stream;
    nb_die(NB_EXIT_ERROR, "TODO: download_rows() is yours to write (see step08_multigpu/README.md)");
}
END SOLUTION */

int nb_step_run(nb_state *s, const nb_run *run)
{
    /* BEGIN SOLUTION */
    const int n = (int)s->bodies, systems = (int)s->systems;
    if (run->block && run->block != BLOCK) {
        nb_error("--block %u: the block size of this step is fixed at compile time (BLOCK=%d): rebuild with "
                 "STEP_DEFS=-DBLOCK=%u", run->block, BLOCK, run->block);
        return NB_EXIT_ERROR;
    }
    int gpus = (int)nb_platform_gpus();
    const int by_systems = run->extra.decompose == NB_DECOMPOSE_SYSTEMS ||
                           (run->extra.decompose == NB_DECOMPOSE_AUTO && systems >= gpus);
    /* Never more GPUs than pieces: a GPU with nothing to do would only wait. */
    if (by_systems && gpus > systems)
        gpus = systems;
    if (!by_systems && gpus > n)
        gpus = n;
    gpu_part part[MAX_GPUS];
    int p2p = 1;
    float *host[NB_FIELDS];
    for (int k = 0; k < NB_FIELDS; ++k)
        host[k] = nb_state_field(s, k);
    const int tiles = (n + TILE - 1) / TILE;

    for (int g = 0; g < gpus; ++g) {
        gpu_part *q = &part[g];
        q->device = g;
        q->first_system = by_systems ? (int)((long long)systems * g / gpus) : 0;
        q->systems = by_systems ? (int)((long long)systems * (g + 1) / gpus) - q->first_system : systems;
        q->own_first = by_systems ? 0 : (int)((long long)n * g / gpus);
        q->own_count = by_systems ? n : (int)((long long)n * (g + 1) / gpus) - q->own_first;
        NB_CUDA(cudaSetDevice(g));
        for (int h = 0; h < gpus && !by_systems; ++h) { /* let this GPU write into the others' memory */
            int can = 0;
            if (h == g)
                continue;
            NB_CUDA(cudaDeviceCanAccessPeer(&can, g, h));
            if (can) {
                cudaError_t err = cudaDeviceEnablePeerAccess(h, 0);
                if (err == cudaErrorPeerAccessAlreadyEnabled)
                    (void)cudaGetLastError(); /* enabled by an earlier call: fine */
                else
                    NB_CUDA(err);
            }
            p2p &= can;
        }
        NB_CUDA(cudaStreamCreate(&q->stream));
        NB_CUDA(cudaEventCreateWithFlags(&q->computed, cudaEventDisableTiming));
        NB_CUDA(cudaEventCreateWithFlags(&q->sent, cudaEventDisableTiming));
        NB_CUDA(cudaEventCreate(&q->x0));
        NB_CUDA(cudaEventCreate(&q->x1));
        const size_t count = (size_t)q->systems * n, offset = (size_t)q->first_system * n;
        float **field[NB_FIELDS] = {&q->bodies.x, &q->bodies.y, &q->bodies.z, &q->bodies.vx, &q->bodies.vy,
                                    &q->bodies.vz, &q->bodies.m};
        for (int k = 0; k < NB_FIELDS; ++k) { /* every body of its systems: j runs over all of them */
            *field[k] = (float *)nbd_malloc(count * sizeof(float), "the bodies");
            NB_CUDA(cudaMemcpyAsync(*field[k], host[k] + offset, count * sizeof(float), cudaMemcpyHostToDevice, q->stream));
        }
        const int row_blocks = (q->own_count + BODIES_PER_BLOCK - 1) / BODIES_PER_BLOCK;
        q->slices = nbd_slices((const void *)forces, BLOCK, 0, row_blocks, q->systems, tiles);
        q->tiles_per_slice = (tiles + q->slices - 1) / q->slices;
        q->partial = (float4 *)nbd_malloc((size_t)q->slices * q->systems * q->own_count * sizeof(float4),
                                          "partial accelerations");
    }
    for (int g = 0; g < gpus; ++g) {
        NB_CUDA(cudaSetDevice(g));
        NB_CUDA(cudaStreamSynchronize(part[g].stream));
    }

    NB_CUDA(cudaSetDevice(0));
    nb_region_begin(run);
    for (uint64_t step = 0; step < run->steps; ++step) {
        for (int g = 0; g < gpus; ++g) {
            gpu_part *q = &part[g];
            const int row_blocks = (q->own_count + BODIES_PER_BLOCK - 1) / BODIES_PER_BLOCK;
            const dim3 grid(row_blocks, nbd_system_rows(q->systems), q->slices);
            const dim3 update_grid((q->own_count + BLOCK - 1) / BLOCK, nbd_system_rows(q->systems));
            NB_CUDA(cudaSetDevice(g));
            forces<<<grid, BLOCK, 0, q->stream>>>(q->bodies, q->partial, n, q->systems, q->own_first, q->own_count,
                                                 q->tiles_per_slice, run->eps2);
            NB_LAUNCH();
            kick_drift<<<update_grid, BLOCK, 0, q->stream>>>(q->bodies, q->partial, n, q->systems, q->own_first,
                                                            q->own_count, q->slices, run->dt);
            NB_LAUNCH();
            NB_CUDA(cudaEventRecord(q->computed, q->stream));
        }
        if (by_systems || gpus == 1)
            continue;
        /* Exchange: each GPU sends its slice's new positions to every other one, once that one has
         * finished reading the old ones; none starts the next step before every slice has arrived. */
        for (int g = 0; g < gpus; ++g) {
            gpu_part *q = &part[g];
            NB_CUDA(cudaSetDevice(g));
            for (int h = 0; h < gpus; ++h)
                if (h != g)
                    NB_CUDA(cudaStreamWaitEvent(q->stream, part[h].computed, 0));
            NB_CUDA(cudaEventRecord(q->x0, q->stream));
            for (int h = 0; h < gpus; ++h) {
                if (h == g)
                    continue;
                float *const from[3] = {q->bodies.x, q->bodies.y, q->bodies.z};
                float *const to[3] = {part[h].bodies.x, part[h].bodies.y, part[h].bodies.z};
                for (int k = 0; k < 3; ++k)
                    for (int sys = 0; sys < systems; ++sys) {
                        const size_t at = (size_t)sys * n + q->own_first;
                        NB_CUDA(cudaMemcpyPeerAsync(to[k] + at, h, from[k] + at, g, q->own_count * sizeof(float), q->stream));
                    }
            }
            NB_CUDA(cudaEventRecord(q->x1, q->stream));
            NB_CUDA(cudaEventRecord(q->sent, q->stream));
        }
        for (int h = 0; h < gpus; ++h) {
            NB_CUDA(cudaSetDevice(h));
            for (int g = 0; g < gpus; ++g)
                if (g != h)
                    NB_CUDA(cudaStreamWaitEvent(part[h].stream, part[g].sent, 0));
        }
    }
    for (int g = 0; g < gpus; ++g) {
        NB_CUDA(cudaSetDevice(g));
        NB_CUDA(cudaStreamSynchronize(part[g].stream));
    }
    NB_CUDA(cudaSetDevice(0));
    nb_region_end(run);

    /* Each GPU returns the bodies it owns; the exchange time of the last step is reported. */
    float exchange_ms = 0.0f;
    for (int g = 0; g < gpus; ++g) {
        gpu_part *q = &part[g];
        NB_CUDA(cudaSetDevice(g));
        if (!by_systems && gpus > 1 && run->steps > 0) {
            float ms = 0.0f;
            NB_CUDA(cudaEventElapsedTime(&ms, q->x0, q->x1));
            exchange_ms = ms > exchange_ms ? ms : exchange_ms;
        }
        const size_t offset = (size_t)q->first_system * n;
        float *const from[6] = {q->bodies.x, q->bodies.y, q->bodies.z, q->bodies.vx, q->bodies.vy, q->bodies.vz};
        for (int k = 0; k < 6; ++k)
            download_rows(host[k] + offset, from[k], n, q->systems, q->own_first, q->own_count, q->stream);
        NB_CUDA(cudaStreamSynchronize(q->stream));
        float *const all[NB_FIELDS] = {q->bodies.x, q->bodies.y, q->bodies.z, q->bodies.vx, q->bodies.vy, q->bodies.vz,
                                       q->bodies.m};
        for (int k = 0; k < NB_FIELDS; ++k)
            NB_CUDA(cudaFree(all[k]));
        NB_CUDA(cudaFree(q->partial));
        NB_CUDA(cudaStreamDestroy(q->stream));
        NB_CUDA(cudaEventDestroy(q->computed));
        NB_CUDA(cudaEventDestroy(q->sent));
        NB_CUDA(cudaEventDestroy(q->x0));
        NB_CUDA(cudaEventDestroy(q->x1));
    }
    NB_CUDA(cudaSetDevice(0));
    run->info->block = BLOCK;
    run->info->gpus = (unsigned)gpus;
    snprintf(run->info->config, sizeof run->info->config,
             "block=%d tile=%d unroll=%d bodies/thread=%d gpus=%d split=%s slices=%d%s exchange_us=%.1f", BLOCK, TILE, UNROLL,
             BODIES_PER_THREAD, gpus, by_systems ? "systems" : "bodies", part[0].slices,
             by_systems || gpus == 1 ? "" : p2p ? " p2p" : " host-staged", 1e3 * exchange_ms);
    return NB_EXIT_OK;
    /* STUB
    // Yours to write: choose the split, give each GPU its gpu_part, run the steps with the exchange,
    // bring each GPU's bodies back (step08_multigpu/README.md, "What you write").
    (void)s, (void)run, (void)download_rows;
    nb_error("TODO: splitting the work over the GPUs in nb_step_run() is yours to write (see step08_multigpu/README.md)");
    return NB_EXIT_ERROR;
    END SOLUTION */
}
