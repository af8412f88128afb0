/* step09_newton: In this version, we compute every pair of bodies once and apply its force to both
 * bodies (Newton's third law: j pulls i exactly as hard as i pulls j, the other way), instead of once
 * from each side as steps 00-08 do. Half the square roots and half the distance arithmetic; what it
 * costs is the j-side sum, which must travel: a warp rotates a chunk of 32 j-bodies through its lanes,
 * the j-sums move with it by shuffle, and they reach memory with atomics (or, with --deterministic,
 * through per-item partial sums added in a fixed order).
 *
 * Work items (built on the host once per run): a group of GROUP i-bodies of one system against a run
 * of `piece` chunks of 32 j-bodies. A group meets the chunks after it from both sides (two-sided
 * items), and its own chunks from the i side only (one-sided items: each pair inside a group is met
 * twice, once from each end). Any N: bodies past the last are massless and never written. */
#include "device.h"
#include "nbody.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef BODIES_PER_LANE /* i-bodies each lane keeps in registers */
#define BODIES_PER_LANE 8
#endif
#ifndef WARPS /* warps per block: they share one chunk of j-bodies */
#define WARPS 4
#endif
#ifndef PIECE /* chunks of 32 j-bodies per work item; 0: chosen at run time so the items fill the GPU */
#define PIECE 0
#endif
#ifndef UNROLL /* unroll factor of the rotation through a chunk */
#define UNROLL 8
#endif
#define BLOCK (WARPS * 32)
#define GROUP (BLOCK * BODIES_PER_LANE) /* i-bodies per work item */
#define CHUNK 32                       /* j-bodies per chunk: one per lane */
#define FULL_MASK 0xffffffffu
#ifndef ITEM_WAVES /* waves of resident blocks the items should make (many short items, a short tail) */
#define ITEM_WAVES 16
#endif
#ifndef MIN_PIECE /* shortest run while the items still fill a wave: a 1-chunk item is mostly set-up and atomics */
#define MIN_PIECE 3
#endif
#define MAX_PIECE 32
static_assert(GROUP % CHUNK == 0, "a group is whole chunks");
static const int unroll_factor = UNROLL; /* #pragma unroll takes a constant, not a macro */

typedef struct work_item {
    int sys, group; /* i-bodies group*GROUP ... + GROUP of system sys */
    int c0, c1;     /* against the j-chunks [c0, c1) of the same system */
    int two_sided;  /* 1: the chunks come after the group, the j side accumulates too */
} work_item;

/* One block per work item. With i_part/j_part (--deterministic) every sum is stored in the item's own
 * slots for gather(); otherwise it is added to acc with atomics, in whatever order the blocks run. */
__global__ void __launch_bounds__(BLOCK) pairs(nbd_soa bodies, float4 *acc, float4 *i_part, float4 *j_part,
                                               const work_item *items, int n, int piece, float eps2)
{
    /* BEGIN SOLUTION */
    __shared__ float4 jpos[2 * CHUNK]; /* the chunk twice: lane l at rotation s reads jpos[l + s], no wrap */
    __shared__ float jsum[3][WARPS][CHUNK];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const work_item it = items[blockIdx.x];
    const size_t offset = (size_t)it.sys * n;
    const float *x = bodies.x + offset, *y = bodies.y + offset, *z = bodies.z + offset, *m = bodies.m + offset;
    const int first = it.group * GROUP + warp * BODIES_PER_LANE * 32 + lane;
    float xi[BODIES_PER_LANE], yi[BODIES_PER_LANE], zi[BODIES_PER_LANE], nmi[BODIES_PER_LANE];
    float ax[BODIES_PER_LANE], ay[BODIES_PER_LANE], az[BODIES_PER_LANE];
#pragma unroll
    for (int b = 0; b < BODIES_PER_LANE; ++b) {
        const int i = first + b * 32;
        xi[b] = i < n ? x[i] : 0.0f;
        yi[b] = i < n ? y[i] : 0.0f;
        zi[b] = i < n ? z[i] : 0.0f;
        nmi[b] = i < n ? -m[i] : 0.0f; /* the j side feels the opposite force; a massless pad adds 0 */
        ax[b] = ay[b] = az[b] = 0.0f;
    }
    for (int c = it.c0; c < it.c1; ++c) {
        if (warp == 0) {
            const int j = c * CHUNK + lane;
            const float4 p = j < n ? make_float4(x[j], y[j], z[j], m[j]) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            jpos[lane] = p;
            jpos[lane + CHUNK] = p;
        }
        __syncthreads();
        float bx = 0.0f, by = 0.0f, bz = 0.0f; /* the j-side sum of the body this lane meets now */
#pragma unroll unroll_factor
        for (int s = 0; s < CHUNK; ++s) {
            const float4 pj = jpos[lane + s];
#pragma unroll
            for (int b = 0; b < BODIES_PER_LANE; ++b) {
                const float dx = pj.x - xi[b], dy = pj.y - yi[b], dz = pj.z - zi[b];
                const float d2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
                const float inv = rsqrtf(d2);
                const float inv3 = inv * inv * inv;
                const float fi = pj.w * inv3, fj = nmi[b] * inv3;
                ax[b] = fmaf(dx, fi, ax[b]);
                ay[b] = fmaf(dy, fi, ay[b]);
                az[b] = fmaf(dz, fi, az[b]);
                bx = fmaf(dx, fj, bx);
                by = fmaf(dy, fj, by);
                bz = fmaf(dz, fj, bz);
            }
            /* Next rotation this lane meets body lane + s + 1: its sum so far is the next lane's. */
            bx = __shfl_sync(FULL_MASK, bx, lane + 1);
            by = __shfl_sync(FULL_MASK, by, lane + 1);
            bz = __shfl_sync(FULL_MASK, bz, lane + 1);
        }
        if (it.two_sided) { /* after 32 rotations lane l holds body l's sum again */
            jsum[0][warp][lane] = bx;
            jsum[1][warp][lane] = by;
            jsum[2][warp][lane] = bz;
        }
        __syncthreads();
        if (it.two_sided && warp == 0) {
            float sx = 0.0f, sy = 0.0f, sz = 0.0f;
#pragma unroll
            for (int w = 0; w < WARPS; ++w) { /* the warps' sums in a fixed order */
                sx += jsum[0][w][lane];
                sy += jsum[1][w][lane];
                sz += jsum[2][w][lane];
            }
            const int j = c * CHUNK + lane;
            if (j_part)
                j_part[((size_t)blockIdx.x * piece + (c - it.c0)) * CHUNK + lane] = make_float4(sx, sy, sz, 0.0f);
            else if (j < n) {
                float4 *a = &acc[offset + j];
                atomicAdd(&a->x, sx);
                atomicAdd(&a->y, sy);
                atomicAdd(&a->z, sz);
            }
        }
        __syncthreads(); /* jpos and jsum are overwritten next */
    }
#pragma unroll
    for (int b = 0; b < BODIES_PER_LANE; ++b) {
        const int i = first + b * 32;
        if (i_part)
            i_part[(size_t)blockIdx.x * GROUP + (i - it.group * GROUP)] = make_float4(ax[b], ay[b], az[b], 0.0f);
        else if (i < n) {
            float4 *a = &acc[offset + i];
            atomicAdd(&a->x, ax[b]);
            atomicAdd(&a->y, ay[b]);
            atomicAdd(&a->z, az[b]);
        }
    }
    /* STUB
    // Yours to write: every pair once, its force added to both bodies (see step09_newton/README.md).
    (void)bodies, (void)acc, (void)i_part, (void)j_part, (void)items, (void)n, (void)piece, (void)eps2;
    (void)unroll_factor; // for #pragma unroll unroll_factor
    END SOLUTION */
}

/* --deterministic: each body's sum of the partials that name it, always in the same order: the i-side
 * items of its group in item order, then the j side of the groups before it, first to last. */
__global__ void gather(float4 *acc, const float4 *i_part, const float4 *j_part, const int *group_first,
                       const int *after_first, int items_per_system, int n, int systems, int piece)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int g = i / GROUP, local = i - g * GROUP, c = i / CHUNK;
    for (int sys = blockIdx.y; sys < systems; sys += gridDim.y) {
        const size_t base = (size_t)sys * items_per_system;
        float sx = 0.0f, sy = 0.0f, sz = 0.0f;
        for (int k = group_first[g]; k < group_first[g + 1]; ++k) {
            const float4 p = i_part[(base + k) * GROUP + local];
            sx += p.x;
            sy += p.y;
            sz += p.z;
        }
        for (int h = 0; h < g; ++h) { /* group h's two-sided runs start at its first chunk after it */
            const int run = c - (h + 1) * (GROUP / CHUNK);
            const size_t k = base + after_first[h] + run / piece;
            const float4 p = j_part[(k * piece + run % piece) * CHUNK + (i % CHUNK)];
            sx += p.x;
            sy += p.y;
            sz += p.z;
        }
        acc[(size_t)sys * n + i] = make_float4(sx, sy, sz, 0.0f);
    }
}

/* Kick, drift (as step06, with one sum per body). */
__global__ void kick_drift(nbd_soa bodies, const float4 *acc, int n, int systems, float dt)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    for (int sys = blockIdx.y; sys < systems; sys += gridDim.y) {
        const size_t k = (size_t)sys * n + i;
        const float4 a = acc[k];
        const float vx = bodies.vx[k] + a.x * dt, vy = bodies.vy[k] + a.y * dt, vz = bodies.vz[k] + a.z * dt;
        bodies.vx[k] = vx;
        bodies.vy[k] = vy;
        bodies.vz[k] = vz;
        bodies.x[k] += vx * dt;
        bodies.y[k] += vy * dt;
        bodies.z[k] += vz * dt;
    }
}

/* The work items of one system (the same for every system): for each group, its own chunks (i side
 * only), then the chunks after it (both sides), each in runs of `piece`. */
static int system_items(int n, int piece, work_item *out, int *group_first, int *after_first)
{
    const int chunks = (n + CHUNK - 1) / CHUNK, groups = (n + GROUP - 1) / GROUP, per_group = GROUP / CHUNK;
    int count = 0;
    for (int g = 0; g < groups; ++g) {
        const int own_end = (g + 1) * per_group < chunks ? (g + 1) * per_group : chunks;
        if (group_first)
            group_first[g] = count;
        for (int c = g * per_group; c < own_end; c += piece, ++count)
            if (out)
                out[count] = (work_item){0, g, c, c + piece < own_end ? c + piece : own_end, 0};
        if (after_first)
            after_first[g] = count;
        for (int c = own_end; c < chunks; c += piece, ++count)
            if (out)
                out[count] = (work_item){0, g, c, c + piece < chunks ? c + piece : chunks, 1};
    }
    if (group_first)
        group_first[groups] = count;
    return count;
}

/* The run length that gives ITEM_WAVES waves of resident blocks (a short tail), but no shorter than
 * MIN_PIECE chunks while that still leaves a wave of items (report/data/h100-2026-11-23/newton-tuning.csv). */
static int choose_piece(int n, int systems)
{
    if (PIECE > 0)
        return PIECE;
    const int chunks = (n + CHUNK - 1) / CHUNK, groups = (n + GROUP - 1) / GROUP;
    double units = 0.0; /* chunk-visits of all systems */
    for (int g = 0; g < groups; ++g)
        units += chunks - g * (GROUP / CHUNK);
    units *= systems;
    const double resident = (double)nbd_resident((const void *)pairs, BLOCK, 0);
    double piece = units / (ITEM_WAVES * resident);
    const double floor_piece = units / resident < MIN_PIECE ? units / resident : MIN_PIECE;
    piece = piece < floor_piece ? floor_piece : piece;
    return piece < 1.0 ? 1 : piece > MAX_PIECE ? MAX_PIECE : (int)piece;
}

extern "C" const unsigned nb_step_features = NB_FEATURE_DETERMINISTIC;

int nb_step_run(nb_state *s, const nb_run *run)
{
    /* BEGIN SOLUTION */
    const int n = (int)s->bodies, systems = (int)s->systems;
    if (run->block && run->block != BLOCK) {
        nb_error("--block %u: the block size of this step is fixed at compile time (WARPS=%d: %d threads): "
                 "rebuild with STEP_DEFS=-DWARPS=%u",
                 run->block, WARPS, BLOCK, run->block / 32);
        return NB_EXIT_ERROR;
    }
    const int piece = choose_piece(n, systems), groups = (n + GROUP - 1) / GROUP;
    const int per_system = system_items(n, piece, NULL, NULL, NULL);
    const size_t total = (size_t)per_system * systems;
    if (total > 0x7fffffffu) {
        nb_error("%zu work items do not fit in one launch: fewer systems or bodies", total);
        return NB_EXIT_ERROR;
    }
    work_item *host_items = (work_item *)nb_malloc(total * sizeof(work_item), "the work items");
    int *host_first = (int *)nb_malloc(2 * ((size_t)groups + 1) * sizeof(int), "the item index");
    if (!host_items || !host_first) {
        free(host_items);
        free(host_first);
        return NB_EXIT_ERROR;
    }
    system_items(n, piece, host_items, host_first, host_first + groups + 1);
    for (int sys = 1; sys < systems; ++sys)
        for (int k = 0; k < per_system; ++k) {
            host_items[(size_t)sys * per_system + k] = host_items[k];
            host_items[(size_t)sys * per_system + k].sys = sys;
        }

    nbd_soa bodies;
    nbd_soa_upload(s, &bodies);
    const size_t count = nb_state_count(s);
    work_item *items = (work_item *)nbd_malloc(total * sizeof(work_item), "the work items");
    int *index = (int *)nbd_malloc(2 * ((size_t)groups + 1) * sizeof(int), "the item index");
    NB_CUDA(cudaMemcpy(items, host_items, total * sizeof(work_item), cudaMemcpyHostToDevice));
    NB_CUDA(cudaMemcpy(index, host_first, 2 * ((size_t)groups + 1) * sizeof(int), cudaMemcpyHostToDevice));
    free(host_items);
    free(host_first);
    float4 *acc = (float4 *)nbd_malloc(count * sizeof(float4), "the accelerations");
    float4 *i_part = NULL, *j_part = NULL;
    if (run->deterministic) { /* one slot per item and i-body, and per item and j-body of its run */
        i_part = (float4 *)nbd_malloc(total * GROUP * sizeof(float4), "the deterministic i-side partial sums");
        j_part = (float4 *)nbd_malloc(total * piece * CHUNK * sizeof(float4), "the deterministic j-side partial sums");
    }
    const dim3 update_grid((n + BLOCK - 1) / BLOCK, nbd_system_rows(systems));

    nb_region_begin(run);
    for (uint64_t step = 0; step < run->steps; ++step) {
        if (!run->deterministic)
            NB_CUDA(cudaMemsetAsync(acc, 0, count * sizeof(float4)));
        pairs<<<(unsigned)total, BLOCK>>>(bodies, acc, i_part, j_part, items, n, piece, run->eps2);
        NB_LAUNCH();
        if (run->deterministic) {
            gather<<<update_grid, BLOCK>>>(acc, i_part, j_part, index, index + groups + 1, per_system, n, systems,
                                           piece);
            NB_LAUNCH();
        }
        kick_drift<<<update_grid, BLOCK>>>(bodies, acc, n, systems, run->dt);
        NB_LAUNCH();
    }
    nb_region_end(run);

    nbd_soa_download(&bodies, s);
    NB_CUDA(cudaFree(acc));
    NB_CUDA(cudaFree(items));
    NB_CUDA(cudaFree(index));
    if (i_part) {
        NB_CUDA(cudaFree(i_part));
        NB_CUDA(cudaFree(j_part));
    }
    run->info->block = BLOCK;
    snprintf(run->info->config, sizeof run->info->config,
             "block=%d bodies/lane=%d group=%d piece=%d items=%zu unroll=%d sums=%s", BLOCK, BODIES_PER_LANE, GROUP,
             piece, total, UNROLL, run->deterministic ? "deterministic" : "atomic");
    return NB_EXIT_OK;
    /* STUB
    (void)s, (void)run, (void)choose_piece, (void)system_items;
    nb_error("TODO: pairs() and nb_step_run() are yours to write (see step09_newton/README.md)");
    return NB_EXIT_ERROR;
    END SOLUTION */
}
