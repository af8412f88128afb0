/* step03_tiling: In this version, a block of threads loads a tile of bodies into shared memory once
 * and every thread of the block reads it from there: one global load serves blockDim.x threads. The
 * square of N x N interactions is tiled both ways: besides a tile of bodies i, a block takes one
 * slice of the j-range, so that small N still fills every multiprocessor; the slices' partial
 * accelerations are summed by the update kernel, which then kicks and drifts. */
#include "device.h"
#include "nbody.h"
#include "util.h"

#include <stdio.h>

#define DEFAULT_BLOCK 256

#ifdef TILE_FLOAT3 /* Panagou and Chatzivangelis's tiles (REFERENCES.md): float3 positions, masses beside */
#define TILE_DECLARE                                                                                   \
    float3 *tile_pos = (float3 *)tile_mem;                                                             \
    float *tile_m = (float *)(tile_pos + blockDim.x)
#define TILE_STORE(k, b) (tile_pos[k] = make_float3((b).x, (b).y, (b).z), tile_m[k] = (b).m)
#define TILE_ZERO(k) (tile_pos[k] = make_float3(0.0f, 0.0f, 0.0f), tile_m[k] = 0.0f)
#define TILE_LOAD(k) make_float4(tile_pos[k].x, tile_pos[k].y, tile_pos[k].z, tile_m[k])
#define TILE_BYTES (sizeof(float3) + sizeof(float))
#define TILE_NAME "float3"
#else /* x, y, z and the mass in one float4: one 16-byte shared load per interaction */
#define TILE_DECLARE float4 *tile = (float4 *)tile_mem
#define TILE_STORE(k, b) (tile[k] = make_float4((b).x, (b).y, (b).z, (b).m))
#define TILE_ZERO(k) (tile[k] = make_float4(0.0f, 0.0f, 0.0f, 0.0f))
#define TILE_LOAD(k) tile[k]
#define TILE_BYTES sizeof(float4)
#define TILE_NAME "float4"
#endif

/* Block (x, y, z): bodies blockIdx.x*blockDim.x + threadIdx.x of system y, against the tiles of
 * slice z. Threads past the last body still load tiles and reach every __syncthreads(). */
__global__ void forces(const nb_body *bodies, float4 *partial, int n, int systems, int tiles_per_slice, float eps2)
{
    /* BEGIN SOLUTION */
    extern __shared__ float4 tile_mem[];
    TILE_DECLARE;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int tiles = (n + blockDim.x - 1) / blockDim.x;
    const int first = blockIdx.z * tiles_per_slice;
    const int last = min(first + tiles_per_slice, tiles);
    for (int sys = blockIdx.y; sys < systems; sys += gridDim.y) {
        const nb_body *b = bodies + (size_t)sys * n;
        const float xi = i < n ? b[i].x : 0.0f, yi = i < n ? b[i].y : 0.0f, zi = i < n ? b[i].z : 0.0f;
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int t = first; t < last; ++t) {
            const int j = t * blockDim.x + threadIdx.x;
            /* Past the last body the tile is padded with massless bodies: they add exactly 0. */
            if (j < n)
                TILE_STORE(threadIdx.x, b[j]);
            else
                TILE_ZERO(threadIdx.x);
            __syncthreads();
            for (int k = 0; k < blockDim.x; ++k) {
                const float4 pj = TILE_LOAD(k);
                const float dx = pj.x - xi;
                const float dy = pj.y - yi;
                const float dz = pj.z - zi;
                const float d2 = dx * dx + dy * dy + dz * dz + eps2;
                const float inv = 1.0f / sqrtf(d2);
                const float f = pj.w * inv * inv * inv;
                ax += dx * f;
                ay += dy * f;
                az += dz * f;
            }
            __syncthreads(); /* the tile is overwritten next */
        }
        if (i < n)
            partial[((size_t)blockIdx.z * systems + sys) * n + i] = make_float4(ax, ay, az, 0.0f);
    }
    /* STUB
    // Yours to write: body i against one tile of bodies at a time, staged in shared memory.
    END SOLUTION */
}

/* Sum the slices in a fixed order (the result does not depend on scheduling), kick, drift. */
__global__ void kick_drift(nb_body *bodies, const float4 *partial, int n, int systems, int slices, float dt)
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
        nb_body *b = bodies + k;
        b->vx += ax * dt;
        b->vy += ay * dt;
        b->vz += az * dt;
        b->x += b->vx * dt;
        b->y += b->vy * dt;
        b->z += b->vz * dt;
    }
}

int nb_step_run(nb_state *s, const nb_run *run)
{
    /* BEGIN SOLUTION */
    const int n = (int)s->bodies, systems = (int)s->systems;
    const unsigned block = run->block ? run->block : DEFAULT_BLOCK;
    const size_t shared = block * TILE_BYTES;
    const int tiles = (n + block - 1) / block;
    const int slices = nbd_slices((const void *)forces, block, shared, tiles, systems, tiles);
    const int tiles_per_slice = (tiles + slices - 1) / slices;
    const dim3 grid(tiles, nbd_system_rows(systems), slices), update_grid(tiles, nbd_system_rows(systems));
    nb_body *bodies = nbd_bodies_upload(s);
    float4 *partial = (float4 *)nbd_malloc((size_t)slices * systems * n * sizeof(float4), "partial accelerations");

    nb_region_begin(run);
    for (uint64_t step = 0; step < run->steps; ++step) {
        forces<<<grid, block, shared>>>(bodies, partial, n, systems, tiles_per_slice, run->eps2);
        NB_LAUNCH();
        kick_drift<<<update_grid, block>>>(bodies, partial, n, systems, slices, run->dt);
        NB_LAUNCH();
    }
    nb_region_end(run);

    nbd_bodies_download(bodies, s);
    NB_CUDA(cudaFree(partial));
    run->info->block = block;
    snprintf(run->info->config, sizeof run->info->config, "block=%u slices=%d tile=%s", block, slices,
             TILE_NAME);
    return NB_EXIT_OK;
    /* STUB
    (void)s, (void)run;
    nb_error("TODO: forces() and nb_step_run() are yours to write (see step03_tiling/README.md)");
    return NB_EXIT_ERROR;
    END SOLUTION */
}
