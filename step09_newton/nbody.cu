/* step09_newton: In this version, we compute every pair of bodies once and apply its force to both
 * (Newton's third law: the force of j on i is minus that of i on j), instead of once from each side.
 * Half the interactions are computed; their sums meet from many blocks, through atomic adds (default)
 * or, with --deterministic, through partial sums that the update kernel adds up in a fixed order.
 *
 * The bodies are padded, per system, to a whole number of groups of GROUP bodies (massless, at the
 * origin: as j-bodies they add exactly 0, as i-bodies they pull on nothing). A work item is one group
 * of i-bodies against a run of j-chunks of 32 bodies: chunks after the group (each pair once, both
 * sides) or chunks of the group itself (the diagonal: the i-side only, as in step06, so that no pair
 * inside a group is counted twice). The items tile the upper triangle of the pair matrix up to the last
 * chunk that holds a body: the padding after it is only ever i-bodies, in the last group's diagonal. */
#include "device.h"
#include "nbody.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef BODIES_PER_LANE /* i-bodies each thread holds in registers (16: half the shuffles per pair of 8) */
#define BODIES_PER_LANE 16
#endif
#ifndef WARPS /* warps per block; they share each j-chunk */
#define WARPS 4
#endif
#ifndef UNROLL /* unroll factor of the 32 steps through a chunk (4: 16 bodies per lane are long enough) */
#define UNROLL 4
#endif
#ifndef PIECE_MAX /* the longest run of j-chunks in one work item (fewer atomics, coarser balance) */
#define PIECE_MAX 64
#endif
/* --deterministic: each piece leaves GROUP partial sums (N^2 / (4 piece) bytes in all), each chunk after a
 * group its j-side sums (N^2 / (2 GROUP) float4): 8 GiB at N = 2^20 with the defaults. */
#ifndef DETERMINISTIC_PIECE_MIN /* --deterministic: the shortest piece */
#define DETERMINISTIC_PIECE_MIN 4
#endif
#ifndef MIN_BLOCKS /* __launch_bounds__ minimum of resident blocks per SM (0: none): caps the registers */
#define MIN_BLOCKS 0
#endif
#define BLOCK (WARPS * 32)
#define GROUP (BLOCK * BODIES_PER_LANE) /* the i-bodies of one block */
#define CHUNKS_PER_GROUP (GROUP / 32)
#define FULL_WARP 0xffffffffu
static_assert(GROUP % 32 == 0 && BODIES_PER_LANE >= 1 && WARPS >= 1, "a group is whole chunks of 32 bodies");
static const int unroll_factor = UNROLL; /* #pragma unroll takes a constant, not a macro */


/* Group `group`'s i-bodies against j-chunks [c0, c1); diagonal when they are the group's own.
 * `slot`: the item's place among its group's items (chunk order), for the fixed-order sums. */
typedef struct work_item {
    int group, c0, c1, slot;
} work_item;

/* Where the j-side sum of chunk `chunk` from group `group` (< the chunk's own) goes in --deterministic:
 * one float4 per body of every chunk after each group, the triangle stored row after row. `chunks`: the
 * padded chunks, padded / 32 (the row length), not the body chunks (n + 31) / 32 the work items use. */
__host__ __device__ static inline size_t jside_index(int group, int chunk, int lane, int chunks)
{
    const size_t before = (size_t)group * chunks - (size_t)CHUNKS_PER_GROUP * group * (group + 1) / 2;
    return (before + (size_t)(chunk - (group + 1) * CHUNKS_PER_GROUP)) * 32 + lane;
}

/* BEGIN SOLUTION */
/* One chunk (jp: its 32 bodies twice over, so lane l at step s reads jp[l + s]) against this lane's
 * i-bodies. With both_sides, the j-side sums too: the lane holds body (l + s) mod 32's sum at step s,
 * then takes lane l + 1's sum by one shuffle (the body it reads next); after 32 steps lane l holds body l's. */
static __device__ __forceinline__ float4 chunk_pairs(const float4 *jp, int lane, const float *xi, const float *yi,
                                                     const float *zi, const float *nmi, float *ax, float *ay,
                                                     float *az, float eps2, const bool both_sides)
{
    float bx = 0.0f, by = 0.0f, bz = 0.0f;
#pragma unroll unroll_factor
    for (int s = 0; s < 32; ++s) {
        const float4 pj = jp[lane + s];
#pragma unroll
        for (int b = 0; b < BODIES_PER_LANE; ++b) {
            const float dx = pj.x - xi[b], dy = pj.y - yi[b], dz = pj.z - zi[b];
            const float d2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
            const float inv = rsqrtf(d2);
            const float inv3 = inv * inv * inv;
            const float fi = pj.w * inv3;
            ax[b] = fmaf(dx, fi, ax[b]);
            ay[b] = fmaf(dy, fi, ay[b]);
            az[b] = fmaf(dz, fi, az[b]);
            if (both_sides) {
                const float fj = nmi[b] * inv3; /* -m_i: the j-side force points the other way */
                bx = fmaf(dx, fj, bx);
                by = fmaf(dy, fj, by);
                bz = fmaf(dz, fj, bz);
            }
        }
        if (both_sides) {
            bx = __shfl_sync(FULL_WARP, bx, lane + 1);
            by = __shfl_sync(FULL_WARP, by, lane + 1);
            bz = __shfl_sync(FULL_WARP, bz, lane + 1);
        }
    }
    return make_float4(bx, by, bz, 0.0f);
}

/* Warp 0: the block's j-side sums of chunk `chunk` (one per warp, added in warp order), to the
 * accelerations by an atomic add, or (jside != NULL) stored in the chunk's own place. */
static __device__ __forceinline__ void emit_jside(const float4 (*sums)[32], int lane, int group, int chunk,
                                                  int chunks, float4 *acc, float4 *jside)
{
    float4 a = sums[0][lane];
#pragma unroll
    for (int w = 1; w < WARPS; ++w) {
        a.x += sums[w][lane].x;
        a.y += sums[w][lane].y;
        a.z += sums[w][lane].z;
    }
    if (jside)
        jside[jside_index(group, chunk, lane, chunks)] = a;
    else
        atomicAdd(&acc[chunk * 32 + lane], a);
}
/* STUB
// Yours to write, with pairs() below (step09_newton/README.md, "What you write").

// One chunk of 32 j-bodies against this lane's BODIES_PER_LANE i-bodies (xi, yi, zi, and nmi = -m_i),
// adding the i-side forces into ax, ay, az. jp: the chunk's 32 bodies (x, y, z, m) stored twice over,
// 64 float4, so that lane l at step s (0..31) reads jp[l + s]. With both_sides, also sum the j-side
// forces (-m_i r^-3 times d): at step s lane l holds the sum of body (l + s) mod 32; after the step it
// receives lane l + 1's sum (mod 32), one __shfl_sync per component with source lane + 1, since that is
// the body it reads at step s + 1 (lane 4 takes body 5's sum from lane 5). After 32 steps lane l holds
// body l's sum: return it.
static __device__ __forceinline__ float4 chunk_pairs(const float4 *jp, int lane, const float *xi, const float *yi,
                                                     const float *zi, const float *nmi, float *ax, float *ay,
                                                     float *az, float eps2, const bool both_sides)
{
    (void)jp, (void)lane, (void)xi, (void)yi, (void)zi, (void)nmi, (void)ax, (void)ay, (void)az, (void)eps2;
    (void)both_sides;
    return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

// Run by warp 0: add the WARPS warps' j-side sums of chunk `chunk` (sums[w][lane], in warp order) and
// send lane's body its total: atomicAdd to acc[chunk * 32 + lane], or, when jside is not NULL
// (--deterministic), store it at jside[jside_index(group, chunk, lane, chunks)] (chunks: padded / 32).
static __device__ __forceinline__ void emit_jside(const float4 (*sums)[32], int lane, int group, int chunk,
                                                  int chunks, float4 *acc, float4 *jside)
{
    (void)sums, (void)lane, (void)group, (void)chunk, (void)chunks, (void)acc, (void)jside;
}
END SOLUTION */

/* Block (x, y): work item x of system y. acc: one float4 per (padded) body, added to atomically; or,
 * with --deterministic (iside != NULL), iside gets each item's i-side sums (GROUP float4 per item)
 * and jside the j-side ones, both stored, never added. */
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) pairs(nbd_soa bodies, float4 *acc, float4 *iside, float4 *jside,
                                                         const work_item *items, int padded, int systems,
                                                         int item_count, size_t jside_per_system, float eps2)
{
    /* BEGIN SOLUTION */
    __shared__ float4 jpos[2][64];         /* the chunk being computed and the next one */
    __shared__ float4 jsum[2][WARPS][32];  /* each warp's j-side sums of the last two chunks */
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const work_item it = items[blockIdx.x];
    const int chunks = padded / 32; /* the padded chunks: the --deterministic triangle's row length */
    const bool diagonal = it.c0 < (it.group + 1) * CHUNKS_PER_GROUP;
    const int first = it.group * GROUP + warp * BODIES_PER_LANE * 32 + lane; /* i = first + 32 b */
    for (int sys = blockIdx.y; sys < systems; sys += gridDim.y) {
        const size_t offset = (size_t)sys * padded;
        const float *x = bodies.x + offset, *y = bodies.y + offset, *z = bodies.z + offset, *m = bodies.m + offset;
        float4 *sys_acc = acc + offset;
        float4 *sys_jside = jside ? jside + sys * jside_per_system : NULL;
        float xi[BODIES_PER_LANE], yi[BODIES_PER_LANE], zi[BODIES_PER_LANE], nmi[BODIES_PER_LANE];
        float ax[BODIES_PER_LANE], ay[BODIES_PER_LANE], az[BODIES_PER_LANE];
#pragma unroll
        for (int b = 0; b < BODIES_PER_LANE; ++b) {
            const int i = first + b * 32;
            xi[b] = x[i];
            yi[b] = y[i];
            zi[b] = z[i];
            nmi[b] = -m[i];
            ax[b] = ay[b] = az[b] = 0.0f;
        }
        if (warp == 0) {
            const int j = it.c0 * 32 + lane;
            jpos[0][lane] = jpos[0][lane + 32] = make_float4(x[j], y[j], z[j], m[j]);
        }
        __syncthreads();
        for (int c = it.c0; c < it.c1; ++c) {
            const int buf = (c - it.c0) & 1;
            const bool more = c + 1 < it.c1;
            float4 next = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (warp == 0 && more) { /* loaded now, stored after the arithmetic: the latency hides behind it */
                const int j = (c + 1) * 32 + lane;
                next = make_float4(x[j], y[j], z[j], m[j]);
            }
            if (diagonal) {
                chunk_pairs(jpos[buf], lane, xi, yi, zi, nmi, ax, ay, az, eps2, false);
            } else {
                jsum[buf][warp][lane] = chunk_pairs(jpos[buf], lane, xi, yi, zi, nmi, ax, ay, az, eps2, true);
                if (warp == 0 && c > it.c0) /* the previous chunk's sums, complete since the last barrier */
                    emit_jside(jsum[buf ^ 1], lane, it.group, c - 1, chunks, sys_acc, sys_jside);
            }
            if (warp == 0 && more)
                jpos[buf ^ 1][lane] = jpos[buf ^ 1][lane + 32] = next;
            __syncthreads();
        }
        if (!diagonal && warp == 0)
            emit_jside(jsum[(it.c1 - 1 - it.c0) & 1], lane, it.group, it.c1 - 1, chunks, sys_acc, sys_jside);
#pragma unroll
        for (int b = 0; b < BODIES_PER_LANE; ++b) {
            const int i = first + b * 32;
            const float4 a = make_float4(ax[b], ay[b], az[b], 0.0f);
            if (iside)
                iside[((size_t)sys * item_count + it.slot) * GROUP + (i - it.group * GROUP)] = a;
            else
                atomicAdd(&sys_acc[i], a);
        }
        __syncthreads(); /* warp 0 has read jsum before the next system overwrites it */
    }
    /* STUB
    // Yours to write: the pairs of work item items[blockIdx.x], each once, its force added to both
    // bodies (step09_newton/README.md, "What you write"), with chunk_pairs() and emit_jside() above.
    // Lane l of warp w holds i-bodies group * GROUP + w * BODIES_PER_LANE * 32 + l + 32 b; the chunk
    // in hand and the next one in __shared__ float4 jpos[2][64], the warps' j-side sums of the last
    // two chunks in __shared__ float4 jsum[2][WARPS][32]; body k of system sys at sys * padded + k.
    (void)bodies, (void)acc, (void)iside, (void)jside, (void)items, (void)padded, (void)systems;
    (void)item_count, (void)jside_per_system, (void)eps2, (void)unroll_factor, (void)chunk_pairs, (void)emit_jside;
    END SOLUTION */
}

/* Kick and drift from the atomically added accelerations, which it zeroes for the next step (the
 * padding's too: it gathers forces it never uses). */
__global__ void kick_drift(nbd_soa bodies, float4 *acc, int n, int padded, int systems, float dt)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= padded)
        return;
    for (int sys = blockIdx.y; sys < systems; sys += gridDim.y) {
        const size_t k = (size_t)sys * padded + i;
        const float4 a = acc[k];
        acc[k] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (i >= n)
            continue;
        const float vx = bodies.vx[k] + a.x * dt, vy = bodies.vy[k] + a.y * dt, vz = bodies.vz[k] + a.z * dt;
        bodies.vx[k] = vx;
        bodies.vy[k] = vy;
        bodies.vz[k] = vz;
        bodies.x[k] += vx * dt;
        bodies.y[k] += vy * dt;
        bodies.z[k] += vz * dt;
    }
}

/* --deterministic: body i's partial sums (its group's items, then the j-sides from every earlier group)
 * added in a fixed order, then kick and drift. A block takes one chunk of 32 bodies; warp w adds every
 * SUM_WARPS-th partial from the w-th on, then warp 0 adds the warps' sums in warp order: many loads in
 * flight, and the same order whatever the schedule. */
#define SUM_WARPS 8
__global__ void __launch_bounds__(SUM_WARPS * 32) sum_kick_drift(nbd_soa bodies, const float4 *iside, const float4 *jside,
                                                               const int *group_first, int n, int padded, int systems,
                                                               int item_count, size_t jside_per_system, float dt)
{
    __shared__ float4 warp_sums[SUM_WARPS][32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    /* one block per body chunk; `chunks`: the padded chunks, jside_index's row length */
    const int chunk = blockIdx.x, i = chunk * 32 + lane, group = i / GROUP, chunks = padded / 32;
    const int first = group_first[group], own = group_first[group + 1] - first;
    for (int sys = blockIdx.y; sys < systems; sys += gridDim.y) {
        const float4 *sys_iside = iside + ((size_t)sys * item_count + first) * GROUP + (i - group * GROUP);
        const float4 *sys_jside = jside + sys * jside_per_system;
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
#pragma unroll 4
        for (int k = warp; k < own + group; k += SUM_WARPS) {
            const float4 a = k < own ? sys_iside[(size_t)k * GROUP] : sys_jside[jside_index(k - own, chunk, lane, chunks)];
            ax += a.x;
            ay += a.y;
            az += a.z;
        }
        warp_sums[warp][lane] = make_float4(ax, ay, az, 0.0f);
        __syncthreads();
        if (warp == 0 && i < n) {
            for (int w = 1; w < SUM_WARPS; ++w) {
                ax += warp_sums[w][lane].x;
                ay += warp_sums[w][lane].y;
                az += warp_sums[w][lane].z;
            }
            const size_t k = (size_t)sys * padded + i;
            const float vx = bodies.vx[k] + ax * dt, vy = bodies.vy[k] + ay * dt, vz = bodies.vz[k] + az * dt;
            bodies.vx[k] = vx;
            bodies.vy[k] = vy;
            bodies.vz[k] = vz;
            bodies.x[k] += vx * dt;
            bodies.y[k] += vy * dt;
            bodies.z[k] += vz * dt;
        }
        __syncthreads(); /* warp_sums is written again for the next system */
    }
}

/* Longest items first, so the short ones fill the tail; ties in the order they were made. */
static int longest_first(const void *a, const void *b)
{
    const work_item *p = (const work_item *)a, *q = (const work_item *)b;
    const int lp = p->c1 - p->c0, lq = q->c1 - q->c0;
    if (lp != lq)
        return lq - lp;
    return (p->group != q->group) ? p->group - q->group : p->slot - q->slot;
}

/* The work items, row by row: each group against its own chunks (cut where the diagonal ends), then
 * against every chunk after it, in pieces of at most `piece` chunks. Only counts them when items is
 * NULL; else fills items and group_first (each group's first item, and the count at [groups]). */
static size_t make_items(int groups, int chunks, int piece, work_item *items, int *group_first)
{
    size_t count = 0;
    for (int g = 0; g < groups; ++g) {
        if (group_first)
            group_first[g] = (int)count;
        const int diagonal_end = (g + 1) * CHUNKS_PER_GROUP < chunks ? (g + 1) * CHUNKS_PER_GROUP : chunks;
        for (int c = g * CHUNKS_PER_GROUP; c < chunks; ++count) {
            const int row_end = c < diagonal_end ? diagonal_end : chunks;
            const int end = c + piece < row_end ? c + piece : row_end;
            if (items)
                items[count] = (work_item){g, c, end, (int)count};
            c = end;
        }
    }
    if (group_first)
        group_first[groups] = (int)count;
    return count;
}

/* Upload the state padded to `padded` bodies per system (zeros: massless, at the origin). */
static void upload_padded(const nb_state *s, size_t padded, nbd_soa *d)
{
    float **dst[NB_FIELDS] = {&d->x, &d->y, &d->z, &d->vx, &d->vy, &d->vz, &d->m};
    for (int k = 0; k < NB_FIELDS; ++k) {
        *dst[k] = (float *)nbd_malloc(s->systems * padded * sizeof(float), "padded bodies");
        NB_CUDA(cudaMemset(*dst[k], 0, s->systems * padded * sizeof(float)));
        NB_CUDA(cudaMemcpy2D(*dst[k], padded * sizeof(float), nb_state_field(s, k), s->bodies * sizeof(float),
                             s->bodies * sizeof(float), s->systems, cudaMemcpyHostToDevice));
    }
}

/* Copy the positions and velocities back without the padding, then free the arrays. */
static void download_padded(nbd_soa *d, size_t padded, nb_state *s)
{
    float *src[NB_FIELDS] = {d->x, d->y, d->z, d->vx, d->vy, d->vz, d->m};
    for (int k = 0; k < NB_FIELDS; ++k) {
        if (k < 6) /* the masses do not change */
            NB_CUDA(cudaMemcpy2D(nb_state_field(s, k), s->bodies * sizeof(float), src[k], padded * sizeof(float),
                                 s->bodies * sizeof(float), s->systems, cudaMemcpyDeviceToHost));
        NB_CUDA(cudaFree(src[k]));
    }
}

int nb_step_run(nb_state *s, const nb_run *run)
{
    /* BEGIN SOLUTION */
    const int n = (int)s->bodies, systems = (int)s->systems;
    if (run->block && run->block != BLOCK) {
        nb_error("--block %u: the block size of this step is fixed at compile time (BLOCK=%d = 32 x WARPS): "
                 "rebuild with STEP_DEFS=-DWARPS=%u", run->block, BLOCK, run->block / 32);
        return NB_EXIT_ERROR;
    }
    /* i-bodies padded to whole groups; `chunks` here are the body chunks, as far as the last one that
     * holds a body (the items and the sum grid); the --deterministic rows are padded / 32 long */
    const int groups = (n + GROUP - 1) / GROUP, padded = groups * GROUP, chunks = (n + 31) / 32;
    if ((size_t)padded > (size_t)(1u << 30)) {
        nb_error("--bodies %d: step09 pads to %d bodies, past its 32-bit chunk indices", n, padded);
        return NB_EXIT_ERROR;
    }
    /* Pieces of the j-range: nbd_slices' waves over the triangle's (groups + 1) / 2 rows on average,
     * at most PIECE_MAX chunks each (unless NB_SLICES asks for fewer, longer pieces). */
    const int slices = nbd_slices((const void *)pairs, BLOCK, 0, (size_t)(groups + 1) / 2, systems, chunks);
    int piece = (chunks + slices - 1) / slices;
    if (!getenv("NB_SLICES")) {
        if (piece > PIECE_MAX)
            piece = PIECE_MAX;
        if (run->extra.deterministic && piece < DETERMINISTIC_PIECE_MIN)
            piece = DETERMINISTIC_PIECE_MIN < CHUNKS_PER_GROUP ? DETERMINISTIC_PIECE_MIN : CHUNKS_PER_GROUP;
    }

    const size_t item_count = make_items(groups, chunks, piece, NULL, NULL);
    if (item_count >= (size_t)INT_MAX) {
        nb_error("--bodies %d: %zu work items, more than one launch holds", n, item_count);
        return NB_EXIT_ERROR;
    }
    work_item *items = (work_item *)malloc(item_count * sizeof *items);
    int *group_first = (int *)malloc((groups + 1) * sizeof *group_first);
    if (!items || !group_first) {
        free(items);
        free(group_first);
        nb_error("out of host memory for %zu work items", item_count);
        return NB_EXIT_ERROR;
    }
    const int count = (int)make_items(groups, chunks, piece, items, group_first);
    qsort(items, (size_t)count, sizeof *items, longest_first);

    nbd_soa bodies;
    upload_padded(s, (size_t)padded, &bodies);
    work_item *d_items = (work_item *)nbd_malloc((size_t)count * sizeof *items, "work items");
    NB_CUDA(cudaMemcpy(d_items, items, (size_t)count * sizeof *items, cudaMemcpyHostToDevice));
    free(items);
    float4 *acc = NULL, *iside = NULL, *jside = NULL;
    int *d_group_first = NULL;
    const size_t jside_per_system = groups > 1 ? jside_index(groups - 1, padded / 32, 0, padded / 32) : 0;
    if (run->extra.deterministic) {
        iside = (float4 *)nbd_malloc((size_t)systems * count * GROUP * sizeof(float4), "--deterministic i-side sums");
        jside = (float4 *)nbd_malloc((systems * jside_per_system > 0 ? systems * jside_per_system : 1) * sizeof(float4),
                                     "--deterministic j-side sums");
        d_group_first = (int *)nbd_malloc((groups + 1) * sizeof(int), "item offsets");
        NB_CUDA(cudaMemcpy(d_group_first, group_first, (groups + 1) * sizeof(int), cudaMemcpyHostToDevice));
    } else {
        acc = (float4 *)nbd_malloc((size_t)systems * padded * sizeof(float4), "accelerations");
        NB_CUDA(cudaMemset(acc, 0, (size_t)systems * padded * sizeof(float4)));
    }
    free(group_first);
    const dim3 grid(count, nbd_system_rows(systems));
    const dim3 update_grid((padded + BLOCK - 1) / BLOCK, nbd_system_rows(systems));
    const dim3 sum_grid(chunks, nbd_system_rows(systems));

    nb_region_begin(run);
    for (uint64_t step = 0; step < run->steps; ++step) {
        pairs<<<grid, BLOCK>>>(bodies, acc, iside, jside, d_items, padded, systems, count, jside_per_system, run->eps2);
        NB_LAUNCH();
        if (run->extra.deterministic)
            sum_kick_drift<<<sum_grid, SUM_WARPS * 32>>>(bodies, iside, jside, d_group_first, n, padded, systems, count,
                                                   jside_per_system, run->dt);
        else
            kick_drift<<<update_grid, BLOCK>>>(bodies, acc, n, padded, systems, run->dt);
        NB_LAUNCH();
    }
    nb_region_end(run);

    download_padded(&bodies, (size_t)padded, s);
    NB_CUDA(cudaFree(d_items));
    NB_CUDA(cudaFree(acc));
    NB_CUDA(cudaFree(iside));
    NB_CUDA(cudaFree(jside));
    NB_CUDA(cudaFree(d_group_first));
    run->info->block = BLOCK;
    snprintf(run->info->config, sizeof run->info->config,
             "block=%d bodies/lane=%d unroll=%d group=%d piece=%d items=%d%s", BLOCK, BODIES_PER_LANE, UNROLL, GROUP, piece,
             count,
             run->extra.deterministic ? " deterministic" : "");
    return NB_EXIT_OK;
    /* STUB
    // Yours to write: pad, make the work items, launch pairs() and an update kernel every step
    // (step09_newton/README.md, "What you write"); the helpers above are given.
    (void)s, (void)run, (void)longest_first, (void)make_items, (void)upload_padded, (void)download_padded;
    nb_error("TODO: pairs() and nb_step_run() are yours to write (see step09_newton/README.md)");
    return NB_EXIT_ERROR;
    END SOLUTION */
}
