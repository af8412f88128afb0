/* step06_soa: In this version, we store the bodies on the device as a structure of arrays (x[], y[],
 * z[], vx[], vy[], vz[], m[]) instead of an array of 28-byte structs: a warp's loads and stores of
 * one field now touch consecutive words (one 128-byte line) instead of striding over seven lines.
 * Only the tile loads and the update kernel change: the interaction loop reads shared memory as before. */
#include "device.h"
#include "nbody.h"
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

/* Block (x, y, z): bodies blockIdx.x*BODIES_PER_BLOCK + b*BLOCK + threadIdx.x (b < BODIES_PER_THREAD)
 * of system y, against the tiles of slice z. Threads past the last body still load tiles and reach
 * every __syncthreads(). */
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) forces(nbd_soa bodies, float4 *partial, int n, int systems,
                                                int tiles_per_slice, float eps2)
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
            xi[u] = i < n ? x[i] : 0.0f;
            yi[u] = i < n ? y[i] : 0.0f;
            zi[u] = i < n ? z[i] : 0.0f;
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
            if (i < n)
                partial[((size_t)blockIdx.z * systems + sys) * n + i] = make_float4(ax[u], ay[u], az[u], 0.0f);
        }
    }
    /* STUB
    // Yours to write: the step05 loop, its tiles loaded from the arrays of nbd_soa.
    (void)unroll_factor; // for #pragma unroll unroll_factor
    END SOLUTION */
}

/* Sum the slices in a fixed order (the result does not depend on scheduling), kick, drift. */
__global__ void kick_drift(nbd_soa bodies, const float4 *partial, int n, int systems, int slices, float dt)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    for (int sys = blockIdx.y; sys < systems; sys += gridDim.y) {
        const size_t k = (size_t)sys * n + i;
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int slice = 0; slice < slices; ++slice) {
            const float4 a = partial[(size_t)slice * systems * n + k];
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

int nb_step_run(nb_state *s, const nb_run *run)
{
    /* BEGIN SOLUTION */
    const int n = (int)s->bodies, systems = (int)s->systems;
    if (run->block && run->block != BLOCK) {
        nb_error("--block %u: the block size of this step is fixed at compile time (BLOCK=%d): rebuild with "
                 "STEP_DEFS=-DBLOCK=%u", run->block, BLOCK, run->block);
        return NB_EXIT_ERROR;
    }
    const int tiles = (n + TILE - 1) / TILE, row_blocks = (n + BODIES_PER_BLOCK - 1) / BODIES_PER_BLOCK;
    const int slices = nbd_slices((const void *)forces, BLOCK, 0, row_blocks, systems, tiles);
    const int tiles_per_slice = (tiles + slices - 1) / slices;
    const dim3 grid(row_blocks, nbd_system_rows(systems), slices);
    const dim3 update_grid((n + BLOCK - 1) / BLOCK, nbd_system_rows(systems));
    nbd_soa bodies;
    nbd_soa_upload(s, &bodies);
    float4 *partial = (float4 *)nbd_malloc((size_t)slices * systems * n * sizeof(float4), "partial accelerations");

    nb_region_begin(run);
    for (uint64_t step = 0; step < run->steps; ++step) {
        forces<<<grid, BLOCK>>>(bodies, partial, n, systems, tiles_per_slice, run->eps2);
        NB_LAUNCH();
        kick_drift<<<update_grid, BLOCK>>>(bodies, partial, n, systems, slices, run->dt);
        NB_LAUNCH();
    }
    nb_region_end(run);

    nbd_soa_download(&bodies, s);
    NB_CUDA(cudaFree(partial));
    run->info->block = BLOCK;
    snprintf(run->info->config, sizeof run->info->config, "block=%d tile=%d unroll=%d bodies/thread=%d slices=%d",
             BLOCK, TILE, UNROLL, BODIES_PER_THREAD, slices);
    return NB_EXIT_OK;
    /* STUB
    (void)s, (void)run;
    nb_error("TODO: forces() and nb_step_run() are yours to write (see step06_soa/README.md)");
    return NB_EXIT_ERROR;
    END SOLUTION */
}
