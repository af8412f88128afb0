/* step13_block_steps: In this version, we give each body its own time step instead of the densest centre's.
 * step12's tree, moments and walk stay. After the force at the start of each --dt step (dt_max), a body
 * takes the level k whose step dt_max / 2^k is the largest at most eta sqrt(eps / |a|), k < --levels L;
 * the step of dt_max is then 2^K substeps of dt_max / 2^K (K the deepest level in use). At every substep
 * all bodies drift and only the active ones (a level whose step starts there) get a new force and a kick:
 * the tree is rebuilt from the drifted bodies (or, for REFIT_PERCENT % or fewer active, refitted: the last
 * build's order and shape, the moments and boxes summed again), the walk runs for the active bodies only
 * (a compacted list, still in Morton order so a warp's 32 stay neighbours; for SPREAD_ACTIVE or fewer, fewer
 * bodies a warp, down to FEWEST_A_WARP, so that about GROUP_WARPS groups walk, a block's warps together on
 * each), and when so few are active that the GPU would idle, SMALL_ACTIVE or fewer, the tree is skipped for
 * a direct sum, the bodies cut into chunks.
 * A body may go finer at the start of any of its own steps, when it is synchronised with every finer
 * level (to at most K), and coarser only at the start of a dt_max step, when every body is. --levels 1
 * (the default) is step12, kick for kick.
 *
 * The contract's velocities are half a dt_max behind the positions; a body on level k needs them half
 * its own step behind. So a kick is (old step + new step) / 2 (a whole step where the level stays), and
 * at the end of the run the bodies off level 0 take one more force and the kick (their step - dt_max) / 2,
 * which puts them back half a dt_max behind (Miki & Umemura 2017 (GOTHIC) for block steps on a GPU tree
 * code; REFERENCES.md).
 *
 * Per step: forces for all (as step12) -> levels -> per substep: kick the active (finer if their new force
 * asks), drift all, recount the levels -> for the
 * active set: bounds -> Morton keys -> sort -> tree (skipped by a refit) -> moments -> active list -> walk (or
 * direct sum). */
#include "device.h"
#include "nbody.h"
#include "util.h"

#include <cub/cub.cuh>
#include <cuda/atomic>
#include <math.h>
#include <stdio.h>
#include <string.h>

#ifndef BLOCK /* threads per block of the traversal: BLOCK / 32 warps, each with its own stack */
#define BLOCK 128
#endif
#ifndef LEAF_BODIES /* a node of at most this many bodies that must be opened is summed body by body */
#define LEAF_BODIES 32
#endif
#ifndef THETA_POWER /* a node is opened at the angle theta^THETA_POWER (1: step10's angle as it is) */
#define THETA_POWER 0.5f
#endif
#ifndef SMALL_ACTIVE /* at most this many active bodies in a system: a direct sum, no tree (report/sweeps/blocksteps.sh) */
#define SMALL_ACTIVE 1024
#endif
#ifndef REFIT_PERCENT /* at most this share of a system active: refit the tree's shape, not rebuild it (0: never) */
#define REFIT_PERCENT 10
#endif
#ifndef SPREAD_ACTIVE /* at most this many active bodies: fewer than 32 a warp, its lanes sharing each body's lists */
#define SPREAD_ACTIVE 65536
#endif
#ifndef GROUP_WARPS /* ... as many a warp (32, 16, 8 ...) as give about this many warps: enough to fill the GPU */
#define GROUP_WARPS 1024
#endif
#ifndef FEWEST_A_WARP /* ... but not fewer than this: walks of one or two bodies a warp add up to more work than the */
#define FEWEST_A_WARP 4 /* chains of rounds they shorten save (report/REPORT.md, "The finest level capped") */
#endif
#ifndef WHOLE_BLOCK_WALKS /* SPREAD_ACTIVE or fewer (not all): a block's warps walk a group, one stack (0: a warp) */
#define WHOLE_BLOCK_WALKS 1
#endif
#ifndef GROUPS_SUMMED /* a substep's moments: a node of LEAF_BODIES or fewer summed from its bodies (0: climbed) */
#define GROUPS_SUMMED 1
#endif
#ifdef CRITERION_SUM /* measurement only (report/explore/README.md, "which criterion"): a body's step from */
#define WITH_RATE 1  /* the sum of m / d^3 over its force's terms, eta / sqrt(sum), not from |a| */
#else
#define WITH_RATE 0
#endif
#ifndef DIRECT_CHUNKS /* the direct sum's chunks of bodies: blocks enough to fill any GPU whatever the active count */
#define DIRECT_CHUNKS 512
#endif
#ifndef STACK_SLOTS
#define STACK_SLOTS 1024 /* nodes waiting, per warp: taking 32 a round, the stack grows by about 32 a level */
#endif
#define STACK_SPARE 96 /* a warp takes fewer nodes as its stack fills; one a round grows it by at most the depth, 95 */
#define LIST (32 + (LEAF_BODIES > 32 ? LEAF_BODIES : 32)) /* a list is summed at 32 entries; one round adds at most this */
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu
#define LEAF(k) (-(k) - 1) /* child references: internal node i >= 0, sorted body k as LEAF(k) < 0 */
#define BODY_OF(ref) (-(ref) - 1)

typedef unsigned long long morton_key;

/* The tree of one system, in sorted order (reused system after system); its shape (sorted_ids, child,
 * parent, range) is kept for every system, so that a later substep can refit it. */
typedef struct tree {
    morton_key *keys, *sorted_keys;
    int *ids, *sorted_ids;  /* sorted position -> index of the body in the system */
    float4 *pos;            /* sorted bodies: x, y, z, m */
    int2 *child;            /* internal node -> its two children */
    int *parent;            /* internal nodes [0, n-1), then bodies [n-1, 2n-1) */
    int2 *range;            /* internal node -> first and last sorted body under it */
    float4 *com;            /* internal node -> centre of mass, total mass */
    float4 *quad;           /* internal node -> quadrupole about the centre of mass: Qxx, Qyy, Qzz, Qxy */
    float2 *quad2;          /* internal node -> the rest of it: Qxz, Qyz */
    float4 *lo, *hi;        /* internal node -> bounding box; lo.w: the squared opening distance */
    int *visits;            /* bottom-up pass: children done */
    int *bounds;            /* 6 ordered ints: min x y z, max x y z */
    int *overflow;          /* a traversal's stack ran out (never expected: see STACK_SPARE) */
    void *sort_scratch;
    size_t sort_bytes;
    int *groups;            /* per system, for a substep's moments: the nodes summed from their bodies (and
                             * the lone bodies under larger nodes, as LEAF refs), in sorted order */
    int *group_count;       /* host: how many, per system; -1 until listed from the last build */
    int *group_ref, *group_selected; /* find_groups' per-body answer, and the select's count */
    unsigned char *group_flag;
    void *group_scratch;
    size_t group_bytes;
} tree;

/* Floats as ints that order the same way, for atomicMin/Max (the map is its own inverse). */
__device__ __forceinline__ int ordered(float f)
{
    const int i = __float_as_int(f);
    return i >= 0 ? i : i ^ 0x7fffffff;
}
__device__ __forceinline__ float unordered(int i) { return __int_as_float(i >= 0 ? i : i ^ 0x7fffffff); }

__global__ void reset_bounds(int *bounds)
{
    if (threadIdx.x < 3) {
        bounds[threadIdx.x] = ordered(INFINITY);
        bounds[threadIdx.x + 3] = ordered(-INFINITY);
    }
}

__global__ void find_bounds(const float *x, const float *y, const float *z, int n, int *bounds)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float p[3] = {x[i], y[i], z[i]};
        for (int d = 0; d < 3; ++d) {
            lo[d] = fminf(lo[d], p[d]);
            hi[d] = fmaxf(hi[d], p[d]);
        }
    }
    for (int d = 0; d < 3; ++d) {
        for (int off = 16; off > 0; off >>= 1) {
            lo[d] = fminf(lo[d], __shfl_xor_sync(FULL_MASK, lo[d], off));
            hi[d] = fmaxf(hi[d], __shfl_xor_sync(FULL_MASK, hi[d], off));
        }
        if ((threadIdx.x & 31) == 0) {
            atomicMin(&bounds[d], ordered(lo[d]));
            atomicMax(&bounds[d + 3], ordered(hi[d]));
        }
    }
}

/* 21 bits spread to every third bit of 63. */
__device__ __forceinline__ morton_key spread(morton_key v)
{
    v &= 0x1fffffull;
    v = (v | v << 32) & 0x1f00000000ffffull;
    v = (v | v << 16) & 0x1f0000ff0000ffull;
    v = (v | v << 8) & 0x100f00f00f00f00full;
    v = (v | v << 4) & 0x10c30c30c30c30c3ull;
    v = (v | v << 2) & 0x1249249249249249ull;
    return v;
}

/* Morton keys in the bounding cube (a cube, so the tree's cells stay round). */
__global__ void morton(const float *x, const float *y, const float *z, int n, const int *bounds, morton_key *keys,
                       int *ids)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float lx = unordered(bounds[0]), ly = unordered(bounds[1]), lz = unordered(bounds[2]);
    const float side = fmaxf(fmaxf(unordered(bounds[3]) - lx, unordered(bounds[4]) - ly), unordered(bounds[5]) - lz);
    const float scale = side > 0.0f ? 2097151.0f / side : 0.0f;
    /* fminf/fmaxf also turn a NaN into the edge of the cube: the key stays a key. */
    const float qx = fminf(fmaxf((x[i] - lx) * scale, 0.0f), 2097151.0f);
    const float qy = fminf(fmaxf((y[i] - ly) * scale, 0.0f), 2097151.0f);
    const float qz = fminf(fmaxf((z[i] - lz) * scale, 0.0f), 2097151.0f);
    keys[i] = spread((morton_key)qx) << 2 | spread((morton_key)qy) << 1 | spread((morton_key)qz);
    ids[i] = i;
}

__global__ void gather_sorted(const float *x, const float *y, const float *z, const float *m, const int *sorted_ids,
                              int n, float4 *pos)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) {
        const int i = sorted_ids[k];
        pos[k] = make_float4(x[i], y[i], z[i], m[i]);
    }
}

/* Length of the common prefix of sorted keys i and j; equal keys are told apart by their index. */
__device__ __forceinline__ int prefix(const morton_key *keys, int n, int i, int j)
{
    if (j < 0 || j >= n)
        return -1;
    const morton_key a = keys[i], b = keys[j];
    return a == b ? 64 + __clz(i ^ j) : __clzll(a ^ b);
}

/* Internal node i of the binary radix tree over the sorted keys (Karras 2012): which run of bodies it
 * covers, and where that run splits into its two children. Node 0 is the root. */
__global__ void build(const morton_key *keys, int n, int2 *child, int *parent, int2 *range)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n - 1)
        return;
    const int d = prefix(keys, n, i, i + 1) - prefix(keys, n, i, i - 1) >= 0 ? 1 : -1;
    const int shortest = prefix(keys, n, i, i - d);
    int reach = 2;
    while (prefix(keys, n, i, i + reach * d) > shortest)
        reach <<= 1;
    int len = 0;
    for (int t = reach >> 1; t >= 1; t >>= 1)
        if (prefix(keys, n, i, i + (len + t) * d) > shortest)
            len += t;
    const int j = i + len * d, common = prefix(keys, n, i, j);
    int split = 0;
    for (int t = len;;) {
        t = (t + 1) >> 1;
        if (prefix(keys, n, i, i + (split + t) * d) > common)
            split += t;
        if (t <= 1)
            break;
    }
    const int gamma = i + split * d + min(d, 0), first = min(i, j), last = max(i, j);
    const int left = first == gamma ? LEAF(gamma) : gamma, right = last == gamma + 1 ? LEAF(gamma + 1) : gamma + 1;
    child[i] = make_int2(left, right);
    range[i] = make_int2(first, last);
    parent[left >= 0 ? left : n - 1 + BODY_OF(left)] = i;
    parent[right >= 0 ? right : n - 1 + BODY_OF(right)] = i;
    if (i == 0)
        parent[0] = -1;
}

/* One child's mass, centre of mass, quadrupole and box: a body (no quadrupole: a point), or an internal
 * node finished by another thread (read through L2: __ldcg, since that thread's writes need not be in
 * this SM's L1). */
__device__ __forceinline__ void child_data(int ref, const float4 *pos, const float4 *com, const float4 *quad,
                                           const float2 *quad2, const float4 *lo, const float4 *hi, float4 *c,
                                           float4 *q, float2 *q2, float3 *blo, float3 *bhi)
{
    if (ref < 0) {
        *c = pos[BODY_OF(ref)];
        *q = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        *q2 = make_float2(0.0f, 0.0f);
        *blo = *bhi = make_float3(c->x, c->y, c->z);
    } else {
        *c = __ldcg(&com[ref]);
        *q = __ldcg(&quad[ref]);
        *q2 = __ldcg(&quad2[ref]);
        const float4 l = __ldcg(&lo[ref]), h = __ldcg(&hi[ref]);
        *blo = make_float3(l.x, l.y, l.z);
        *bhi = make_float3(h.x, h.y, h.z);
    }
}

/* The quadrupole of a node about its centre of mass c (c.w its mass) from its two children a and b,
 * each given by its mass and centre of mass (a, b) and its own quadrupole about that centre (qa, qa2;
 * qb, qb2; zero for a body). With s = (a child's centre) - c, a child adds its own tensor and its mass
 * seen from c: m (3 s s^T - |s|^2 I) (the parallel-axis shift). Layout: q = (Qxx, Qyy, Qzz, Qxy),
 * q2 = (Qxz, Qyz); the trace Qxx + Qyy + Qzz is 0. */
__device__ __forceinline__ void cell_moments(float4 c, float4 a, float4 qa, float2 qa2, float4 b, float4 qb,
                                             float2 qb2, float4 *q, float2 *q2)
{
    /* BEGIN SOLUTION */
    const float4 child[2] = {a, b}, cq[2] = {qa, qb};
    const float2 cq2[2] = {qa2, qb2};
    float4 t = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float2 t2 = make_float2(0.0f, 0.0f);
    for (int k = 0; k < 2; ++k) {
        const float sx = child[k].x - c.x, sy = child[k].y - c.y, sz = child[k].z - c.z, m = child[k].w;
        const float s2 = sx * sx + sy * sy + sz * sz, m3 = 3.0f * m;
        t.x += cq[k].x + m * (3.0f * sx * sx - s2);
        t.y += cq[k].y + m * (3.0f * sy * sy - s2);
        t.z += cq[k].z + m * (3.0f * sz * sz - s2);
        t.w += cq[k].w + m3 * sx * sy;
        t2.x += cq2[k].x + m3 * sx * sz;
        t2.y += cq2[k].y + m3 * sy * sz;
    }
    *q = t;
    *q2 = t2;
    /* STUB
    // Yours to write: each child's own quadrupole plus its parallel-axis shift (see step12_multipole/README.md).
    (void)c, (void)a, (void)qa, (void)qa2, (void)b, (void)qb, (void)qb2;
    *q = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    *q2 = make_float2(0.0f, 0.0f);
    END SOLUTION */
}

/* A node's moments and box into the tree, with the squared distance inside which it is opened,
 * (size / theta_open + |centre of mass - centre of box|)^2; infinite at theta = 0, so every node opens. */
__device__ __forceinline__ void store_node(int node, float4 c, float4 q, float2 q2, float3 l, float3 h,
                                           float inv_theta, float4 *com, float4 *quad, float2 *quad2, float4 *lo,
                                           float4 *hi)
{
    const float size = fmaxf(fmaxf(h.x - l.x, h.y - l.y), h.z - l.z);
    const float ox = c.x - 0.5f * (l.x + h.x), oy = c.y - 0.5f * (l.y + h.y), oz = c.z - 0.5f * (l.z + h.z);
    /* the fused multiply-adds written out: left to the compiler, which product it fuses depends on where
     * this is inlined, and step12's choice is the one --levels 1 must give, bit for bit */
    const float reach = size * inv_theta + sqrtf(fmaf(oz, oz, fmaf(oy, oy, ox * ox)));
    com[node] = c;
    quad[node] = q;
    quad2[node] = q2;
    lo[node] = make_float4(l.x, l.y, l.z, inv_theta < INFINITY ? reach * reach : INFINITY);
    hi[node] = make_float4(h.x, h.y, h.z, 0.0f);
}

/* From `node` up: while this thread is the second child to arrive at a node, it fills that node in from
 * its two children: total mass, centre of mass, quadrupole, box and opening distance. */
__device__ __forceinline__ void climb(int node, const float4 *pos, const int2 *child, const int *parent,
                                      float inv_theta, int *visits, float4 *com, float4 *quad, float2 *quad2,
                                      float4 *lo, float4 *hi)
{
    while (node >= 0) {
        /* acquire-release: what this thread wrote (the child below) is released with the count, and
         * what the other child's thread wrote is acquired with it, without two full fences a level */
        cuda::atomic_ref<int, cuda::thread_scope_device> count(visits[node]);
        if (count.fetch_add(1, cuda::memory_order_acq_rel) == 0)
            return; /* the other child is not done yet: its thread will finish this node */
        const int2 ch = child[node];
        float4 a, b, qa, qb;
        float2 qa2, qb2;
        float3 alo, ahi, blo, bhi;
        child_data(ch.x, pos, com, quad, quad2, lo, hi, &a, &qa, &qa2, &alo, &ahi);
        child_data(ch.y, pos, com, quad, quad2, lo, hi, &b, &qb, &qb2, &blo, &bhi);
#ifdef PLANT_DROP_CELL_MASS /* a planted bug for the validation's test: one cell in 64 forgets a child's mass */
        if ((node & 63) == 1)
            b.w = 0.0f;
#endif
        const float3 l = make_float3(fminf(alo.x, blo.x), fminf(alo.y, blo.y), fminf(alo.z, blo.z));
        const float3 h = make_float3(fmaxf(ahi.x, bhi.x), fmaxf(ahi.y, bhi.y), fmaxf(ahi.z, bhi.z));
        const float mass = a.w + b.w;
        float4 c;
        if (mass > 0.0f)
            c = make_float4((a.x * a.w + b.x * b.w) / mass, (a.y * a.w + b.y * b.w) / mass,
                            (a.z * a.w + b.z * b.w) / mass, mass);
        else /* massless bodies: any point of the box will do */
            c = make_float4(0.5f * (l.x + h.x), 0.5f * (l.y + h.y), 0.5f * (l.z + h.z), 0.0f);
#ifdef PLANT_DROP_CELL_QUAD /* a planted bug for the validation's test: every cell forgets a child's quadrupole */
        qb = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        qb2 = make_float2(0.0f, 0.0f);
#endif
        float4 q;
        float2 q2;
        cell_moments(c, a, qa, qa2, b, qb, qb2, &q, &q2);
#ifdef PLANT_MONOPOLE /* measurement only: every cell a point mass (step10's far field at step12's angle) */
        q = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        q2 = make_float2(0.0f, 0.0f);
#endif
        store_node(node, c, q, q2, l, h, inv_theta, com, quad, quad2, lo, hi);
        node = parent[node];
    }
}

/* Bottom-up: one thread per body climbs from the body's parent (climb). */
__global__ void summarize(const float4 *pos, const int2 *child, const int *parent, int n, float inv_theta,
                          int *visits, float4 *com, float4 *quad, float2 *quad2, float4 *lo, float4 *hi)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n || n < 2)
        return;
    climb(parent[n - 1 + k], pos, child, parent, inv_theta, visits, com, quad, quad2, lo, hi);
}

/* summarize for a substep. The walk sums a node of LEAF_BODIES or fewer bodies body by body when it opens
 * it and never reads what lies below it; so the largest such node about a body (a group) is summed from its
 * bodies, what lies below it is left as the last pass left it, and only the nodes above it are climbed to
 * (report/REPORT.md, "The refit's own cost"). find_groups lists the groups once a build, each by its first
 * body (and a lone body under a larger node as LEAF of it), in sorted order. */
__global__ void find_groups(const int *parent, const int2 *range, int n, int *ref, unsigned char *flag)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    int node = parent[n - 1 + k];
    const int2 r = range[node];
    bool listed = true;
    if (r.y - r.x < LEAF_BODIES) { /* the largest such node about k, by its first body */
        listed = r.x == k;
        for (int up = parent[node]; listed && up >= 0; up = parent[node]) {
            const int2 above = range[up];
            if (above.y - above.x >= LEAF_BODIES)
                break;
            listed = above.x == k;
            node = up;
        }
        ref[k] = node;
    } else {
        ref[k] = LEAF(k);
    }
    flag[k] = listed;
}

__device__ __forceinline__ float warp_sum(float v)
{
    for (int off = 16; off > 0; off >>= 1) /* a + b is b + a: every lane ends with the same bits */
        v += __shfl_xor_sync(FULL_MASK, v, off);
    return v;
}
__device__ __forceinline__ float warp_min(float v)
{
    for (int off = 16; off > 0; off >>= 1)
        v = fminf(v, __shfl_xor_sync(FULL_MASK, v, off));
    return v;
}
__device__ __forceinline__ float warp_max(float v)
{
    for (int off = 16; off > 0; off >>= 1)
        v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, off));
    return v;
}

/* A warp a listed group: its bodies loaded at once and their sums added by shuffles (a thread summing 32
 * bodies one after another waited 32 times: 2.65 -> 2.61 s to t = 1 at 1 M), then its first lane climbs. A
 * lone body only climbs, from its parent. */
__global__ void summarize_listed(const float4 *pos, const int2 *child, const int *parent, const int2 *range,
                                 const int *groups, int count, int n, float inv_theta, int *visits, float4 *com,
                                 float4 *quad, float2 *quad2, float4 *lo, float4 *hi)
{
    const int g = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5), lane = threadIdx.x & 31;
    if (g >= count) /* the whole warp */
        return;
    const int ref = groups[g];
    int node;
    if (ref < 0) {
        node = parent[n - 1 + BODY_OF(ref)];
    } else {
        const int2 r = range[ref];
        const bool in = lane <= r.y - r.x;
        const float4 none = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        const float2 none2 = make_float2(0.0f, 0.0f);
        const float4 b = in ? pos[r.x + lane] : none;
        const float mass = warp_sum(b.w), mx = warp_sum(b.w * b.x), my = warp_sum(b.w * b.y), mz = warp_sum(b.w * b.z);
        const float3 l = make_float3(warp_min(in ? b.x : INFINITY), warp_min(in ? b.y : INFINITY),
                                     warp_min(in ? b.z : INFINITY));
        const float3 h = make_float3(warp_max(in ? b.x : -INFINITY), warp_max(in ? b.y : -INFINITY),
                                     warp_max(in ? b.z : -INFINITY));
        const float4 c = mass > 0.0f ? make_float4(mx / mass, my / mass, mz / mass, mass)
                                     : make_float4(0.5f * (l.x + h.x), 0.5f * (l.y + h.y), 0.5f * (l.z + h.z), 0.0f);
        float4 t;
        float2 t2;
        cell_moments(c, b, none, none2, none, none, none2, &t, &t2); /* this lane's body seen from c (none: 0) */
        const float4 q = make_float4(warp_sum(t.x), warp_sum(t.y), warp_sum(t.z), warp_sum(t.w));
        const float2 q2 = make_float2(warp_sum(t2.x), warp_sum(t2.y));
        if (lane == 0)
            store_node(ref, c, q, q2, l, h, inv_theta, com, quad, quad2, lo, hi);
        node = parent[ref];
    }
    if (lane == 0)
        climb(node, pos, child, parent, inv_theta, visits, com, quad, quad2, lo, hi); /* its count releases the store */
}

__device__ __forceinline__ void interact(float4 q, float px, float py, float pz, float eps2, float *ax, float *ay,
                                         float *az, float *aw)
{
    const float dx = q.x - px, dy = q.y - py, dz = q.z - pz;
    const float d2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
    const float inv = rsqrtf(d2);
    const float f = (q.w * inv) * (inv * inv);
    *ax = fmaf(dx, f, *ax);
    *ay = fmaf(dy, f, *ay);
    *az = fmaf(dz, f, *az);
    if (WITH_RATE) /* CRITERION_SUM's rate */
        *aw += f;
}

/* The pull of a far node on the body at (px, py, pz): its mass c.w at its centre of mass (c.x, c.y, c.z)
 * plus its quadrupole (q = Qxx, Qyy, Qzz, Qxy; q2 = Qxz, Qyz). With d = c - p, r^2 = |d|^2 + eps2 and
 * e = d / r: a = (c.w + 2.5 (e.Qe) / r^2) e / r^2 - Qe / r^4. */
__device__ __forceinline__ void cell_force(float4 c, float4 q, float2 q2, float px, float py, float pz, float eps2,
                                           float *ax, float *ay, float *az)
{
    /* BEGIN SOLUTION */
    const float dx = c.x - px, dy = c.y - py, dz = c.z - pz;
    const float d2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
    const float inv = rsqrtf(d2), inv2 = inv * inv;
    const float ex = dx * inv, ey = dy * inv, ez = dz * inv; /* unit vector: Q e stays finite however far */
    const float qx = fmaf(q.x, ex, fmaf(q.w, ey, q2.x * ez));
    const float qy = fmaf(q.w, ex, fmaf(q.y, ey, q2.y * ez));
    const float qz = fmaf(q2.x, ex, fmaf(q2.y, ey, q.z * ez));
    const float eqe = fmaf(ex, qx, fmaf(ey, qy, ez * qz));
    const float inv4 = inv2 * inv2;
    const float f = inv2 * fmaf(2.5f * eqe, inv2, c.w); /* along e */
    *ax = fmaf(ex, f, fmaf(-qx, inv4, *ax));
    *ay = fmaf(ey, f, fmaf(-qy, inv4, *ay));
    *az = fmaf(ez, f, fmaf(-qz, inv4, *az));
    /* STUB
    // Yours to write: the point mass's pull plus the quadrupole term (see step12_multipole/README.md).
    (void)c, (void)q, (void)q2, (void)px, (void)py, (void)pz, (void)eps2, (void)ax, (void)ay, (void)az;
    END SOLUTION */
}

/* Sum the gathered far nodes (moments) or bodies (points) for this lane's body; `lanes` lanes share a body
 * (1: every lane its own), this one taking every lanes-th entry from its own `stripe`. CRITERION_SUM's rate
 * of a node is its point mass's m / d^3: interact's, its pull thrown away (the compiler drops it). */
__device__ __forceinline__ void node_rate(float4 c, float4 p, float eps2, float *aw)
{
    float unused_x = 0.0f, unused_y = 0.0f, unused_z = 0.0f;
    interact(c, p.x, p.y, p.z, eps2, &unused_x, &unused_y, &unused_z, aw);
}
__device__ __forceinline__ void sum_cells(const float4 *c, const float4 *q, const float2 *q2, int count, float4 p,
                                          float eps2, int lanes, int stripe, float *ax, float *ay, float *az,
                                          float *aw)
{
    if (lanes > 1) {
        for (int j = stripe; j < count; j += lanes) {
            cell_force(c[j], q[j], q2[j], p.x, p.y, p.z, eps2, ax, ay, az);
            if (WITH_RATE)
                node_rate(c[j], p, eps2, aw);
        }
        return;
    }
#if WITH_RATE
#pragma unroll 4 /* as the compiler unrolls it without the rate, so that the variant times the same loop */
#endif
    for (int j = 0; j < count; ++j) {
        cell_force(c[j], q[j], q2[j], p.x, p.y, p.z, eps2, ax, ay, az);
        if (WITH_RATE)
            node_rate(c[j], p, eps2, aw);
    }
}
__device__ __forceinline__ void sum_bodies(const float4 *b, int count, float4 p, float eps2, int lanes, int stripe,
                                           float *ax, float *ay, float *az, float *aw)
{
    if (lanes > 1) {
        for (int j = stripe; j < count; j += lanes)
            interact(b[j], p.x, p.y, p.z, eps2, ax, ay, az, aw);
        return;
    }
#pragma unroll 4
    for (int j = 0; j < count; ++j)
        interact(b[j], p.x, p.y, p.z, eps2, ax, ay, az, aw);
}
/* Once a warp's body list holds 32 entries: sum it and empty it (every lane has read it before any
 * lane writes it again). */
__device__ __forceinline__ void sum_bodies_if_full(const float4 *b, int *count, float4 p, float eps2, int lanes,
                                                   int stripe, float *ax, float *ay, float *az, float *aw)
{
    if (*count >= 32) {
        sum_bodies(b, *count, p, eps2, lanes, stripe, ax, ay, az, aw);
        *count = 0;
        __syncwarp();
    }
}

/* One thread per active body (`active`: their sorted positions, in order; NULL: every body), a warp per
 * group of 32 neighbours in the sorted order; or, for a few active bodies, 32 / `lanes` of them a warp, each
 * shared by `lanes` lanes (a few warps of deep bodies, each walk long, would leave the GPU idle: a walk is a
 * chain of rounds, and fewer bodies a warp means more chains at once). The warp walks the tree 32 nodes a
 * round, one per lane; or (`whole`, for those few) the block's warps walk one group together, BLOCK nodes a
 * round from one stack (down to a quarter of the rounds), each warp keeping its own lists and sums, added at the end.
 * A node is opened if any body of the group is within its opening distance or inside its box (step10's
 * rule, so the error is step10's walk's): the group's box answers first, and only a node the box would open
 * is checked body by body. Far nodes and the bodies of opened small nodes (at most
 * LEAF_BODIES) go into two lists in shared memory; once a list holds 32 entries, every lane sums it for its
 * own body (or its share of it), each entry read once for the whole warp. Given: not yours. */
__global__ void __launch_bounds__(BLOCK) traverse(const float4 *pos, const int2 *child, const int2 *range,
                                                  const float4 *com, const float4 *quad, const float2 *quad2,
                                                  const float4 *lo, const float4 *hi, const int *sorted_ids, int n,
                                                  const int *active, int count, int lanes, bool whole,
                                                  float eps2, float4 *acc, int *overflow)
{
    __shared__ int stacks[WARPS * STACK_SLOTS]; /* a stack a warp, or (whole) one for the block */
    __shared__ float4 cell_c[WARPS][LIST], cell_q[WARPS][LIST], body[WARPS][LIST];
    __shared__ float2 cell_q2[WARPS][LIST];
    __shared__ float4 group[WARPS][32]; /* the warp's bodies */
    __shared__ int splits[WARPS];      /* whole: the nodes each warp opened this round */
    __shared__ float4 part[WARPS][32]; /* whole: each warp's sums for the group */
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int per = 32 / lanes, mine_of = lane % per, stripe = lane / per; /* bodies a warp; this lane's; its share */
    const int walk = whole ? blockIdx.x : (blockIdx.x * BLOCK + threadIdx.x) >> 5; /* which group */
    const int lead = walk * per, k = lead + mine_of; /* lead: the group's first */
    if (lead >= count) /* the whole warp (whole: block) is past the last active body */
        return;
    const bool valid = k < count;
    const int self = active ? active[valid ? k : count - 1] : (valid ? k : n - 1); /* its sorted position */
    const float4 p = pos[self];
    group[warp][lane] = p;
    float3 glo = make_float3(p.x, p.y, p.z), ghi = glo; /* the group's box */
    for (int off = 16; off > 0; off >>= 1) {
        glo.x = fminf(glo.x, __shfl_xor_sync(FULL_MASK, glo.x, off));
        glo.y = fminf(glo.y, __shfl_xor_sync(FULL_MASK, glo.y, off));
        glo.z = fminf(glo.z, __shfl_xor_sync(FULL_MASK, glo.z, off));
        ghi.x = fmaxf(ghi.x, __shfl_xor_sync(FULL_MASK, ghi.x, off));
        ghi.y = fmaxf(ghi.y, __shfl_xor_sync(FULL_MASK, ghi.y, off));
        ghi.z = fmaxf(ghi.z, __shfl_xor_sync(FULL_MASK, ghi.z, off));
    }
    const unsigned below = (1u << lane) - 1u; /* the lanes before this one */
    float ax = 0.0f, ay = 0.0f, az = 0.0f, aw = 0.0f; /* aw: CRITERION_SUM's rate */
    int *stack = whole ? stacks : stacks + warp * STACK_SLOTS;
    const int slots = whole ? WARPS * STACK_SLOTS : STACK_SLOTS, most = whole ? BLOCK : 32; /* most: a round's take */
    const int first = whole ? warp * 32 : 0; /* this warp's first of a round's take */
    int top = 1, cells = 0, bodies = 0;
    if (lane == 0 && first == 0)
        stack[0] = n > 1 ? 0 : LEAF(0);
    if (whole)
        __syncthreads();
    __syncwarp();
    while (top > 0) { /* whole: top is the block's, the same in every warp, so every warp meets every barrier */
        const int take = min(top, max(1, min(most, slots - STACK_SPARE - top)));
        const bool mine = first + lane < take;
        const int node = mine ? stack[top - 1 - first - lane] : 0;
        top -= take;
        bool far = false, split = false, few = false;
        float4 c = make_float4(0.0f, 0.0f, 0.0f, 0.0f), q = c;
        float2 q2 = make_float2(0.0f, 0.0f);
        int2 r = make_int2(0, -1), ch = r;
        if (mine && node >= 0) {
            /* all of a node's loads issued together: one wait instead of three in a row */
            c = com[node];
            const float4 l = lo[node], h = hi[node];
            q = quad[node];
            q2 = quad2[node];
            r = range[node];
            ch = child[node];
            /* from the centre of mass to the nearest point of the group's box */
            const float dx = fmaxf(fmaxf(glo.x - c.x, c.x - ghi.x), 0.0f);
            const float dy = fmaxf(fmaxf(glo.y - c.y, c.y - ghi.y), 0.0f);
            const float dz = fmaxf(fmaxf(glo.z - c.z, c.z - ghi.z), 0.0f);
            const bool touch = l.x <= ghi.x && h.x >= glo.x && l.y <= ghi.y && h.y >= glo.y && l.z <= ghi.z &&
                               h.z >= glo.z;
            bool open = dx * dx + dy * dy + dz * dz < l.w || touch;
#ifndef GROUP_BOX_ONLY
            /* The box says open: ask the bodies, which may be far apart (a group that straddles a jump of
             * the Morton curve has a box mostly of empty space), so the warp opens only what a lane needs. */
            for (int b = 0; open && b < per; ++b) { /* open stays set until the last body is asked in vain */
                const float4 g = group[warp][b]; /* lane b (< per) holds body b */
                const float ex = c.x - g.x, ey = c.y - g.y, ez = c.z - g.z;
                const bool in = g.x >= l.x && g.x <= h.x && g.y >= l.y && g.y <= h.y && g.z >= l.z && g.z <= h.z;
                if (ex * ex + ey * ey + ez * ez < l.w || in)
                    break;
                open = b < per - 1;
            }
#endif
            if (open) {
                few = r.y - r.x < LEAF_BODIES;
                split = !few;
            } else {
                far = true;
            }
        }
        unsigned vote = __ballot_sync(FULL_MASK, far);
        if (far) {
            const int slot = cells + __popc(vote & below);
            cell_c[warp][slot] = c;
            cell_q[warp][slot] = q;
            cell_q2[warp][slot] = q2;
        }
        cells += __popc(vote);
        const bool one = mine && node < 0; /* a child that is a single body */
        vote = __ballot_sync(FULL_MASK, one);
        if (one)
            body[warp][bodies + __popc(vote & below)] = pos[BODY_OF(node)];
        bodies += __popc(vote);
        vote = __ballot_sync(FULL_MASK, split);
        int base = top, pushed = 2 * __popc(vote); /* where this warp's pushes go; how many the round's are */
        if (whole) { /* the warps' pushes placed in warp order, so a walk's order (and its sums' bits) repeat */
            if (lane == 0)
                splits[warp] = __popc(vote);
            __syncthreads(); /* every slot read, every warp's count written */
            pushed = 0;
            for (int w = 0; w < WARPS; ++w) {
                base += w < warp ? 2 * splits[w] : 0;
                pushed += 2 * splits[w];
            }
        }
        __syncwarp(); /* every lane has read its slot before any is written again */
        if (top + pushed > slots) { /* never expected: see STACK_SPARE */
            if (lane == 0)
                atomicExch(overflow, 1);
            break;
        }
        if (split) {
            const int slot = base + 2 * __popc(vote & below);
            stack[slot] = ch.y;
            stack[slot + 1] = ch.x;
        }
        top += pushed;
        if (whole)
            __syncthreads(); /* the pushes seen by every warp; splits free for the next round */
        __syncwarp();
        if (cells >= 32) {
            sum_cells(cell_c[warp], cell_q[warp], cell_q2[warp], cells, p, eps2, lanes, stripe, &ax, &ay, &az, &aw);
            cells = 0;
            __syncwarp();
        }
        sum_bodies_if_full(body[warp], &bodies, p, eps2, lanes, stripe, &ax, &ay, &az, &aw);
        vote = __ballot_sync(FULL_MASK, few);
        while (vote) { /* the opened small nodes, one after another: their bodies into the list */
            const int src = __ffs(vote) - 1;
            vote &= vote - 1;
            const int first = __shfl_sync(FULL_MASK, r.x, src), count = __shfl_sync(FULL_MASK, r.y, src) - first + 1;
            for (int j = lane; j < count; j += 32)
                body[warp][bodies + j] = pos[first + j];
            bodies += count;
            __syncwarp();
            sum_bodies_if_full(body[warp], &bodies, p, eps2, lanes, stripe, &ax, &ay, &az, &aw);
        }
    }
    __syncwarp();
    sum_cells(cell_c[warp], cell_q[warp], cell_q2[warp], cells, p, eps2, lanes, stripe, &ax, &ay, &az, &aw);
    sum_bodies(body[warp], bodies, p, eps2, lanes, stripe, &ax, &ay, &az, &aw);
    for (int off = 16; off >= per; off >>= 1) { /* the shares of a body's lanes, in a fixed order */
        ax += __shfl_xor_sync(FULL_MASK, ax, off);
        ay += __shfl_xor_sync(FULL_MASK, ay, off);
        az += __shfl_xor_sync(FULL_MASK, az, off);
        if (WITH_RATE)
            aw += __shfl_xor_sync(FULL_MASK, aw, off);
    }
    if (whole) { /* the warps' sums for the group, added in warp order */
        if (stripe == 0)
            part[warp][mine_of] = make_float4(ax, ay, az, aw);
        __syncthreads();
        if (warp > 0)
            return;
        if (stripe == 0)
            for (int w = 1; w < WARPS; ++w) {
                ax += part[w][mine_of].x;
                ay += part[w][mine_of].y;
                az += part[w][mine_of].z;
                aw += part[w][mine_of].w;
            }
    }
    if (valid && stripe == 0)
        acc[sorted_ids[self]] = make_float4(ax, ay, az, WITH_RATE ? aw : 0.0f);
}

/* A body's level: the smallest k with dt_max / 2^k <= eta sqrt(eps / |a|), at most `top` (--levels - 1).
 * The acceleration criterion (GADGET-2's, Springel 2005): the walk gives |a| anyway, and sqrt(eps / |a|)
 * is the time to fall across the softening length, the smallest scale the forces resolve. a = 0, or a
 * NaN, stays on level 0. */
__device__ __forceinline__ int level_of(float4 a, float eta, float eps, float dt_max, int top)
{
    /* BEGIN SOLUTION */
    const float pull = sqrtf(fmaf(a.z, a.z, fmaf(a.y, a.y, a.x * a.x)));
    const float bound = eta * eta * eps; /* step <= eta sqrt(eps/|a|)  <=>  step^2 |a| <= eta^2 eps: no division */
    float step = dt_max;
    int k = 0;
    while (k < top && step * step * pull > bound) {
        step *= 0.5f;
        ++k;
    }
    return k;
    /* STUB
    // Yours to write: the level from the acceleration (see step13_block_steps/README.md).
    (void)a, (void)eta, (void)eps, (void)dt_max, (void)top;
    return 0;
    END SOLUTION */
}

/* Whether a body on `level` is active (gets a force and a kick) at substep `substep` of the 2^deepest
 * of a dt_max step: its own step, 2^(deepest - level) substeps, starts there. The host counts the
 * active bodies with it too, so both sides agree on the set. */
__host__ __device__ __forceinline__ bool active_at(int level, int substep, int deepest)
{
    /* BEGIN SOLUTION */
    return (substep & ((1 << (deepest - level)) - 1)) == 0;
    /* STUB
    // Yours to write: which levels' steps start at this substep (see step13_block_steps/README.md).
    (void)level, (void)substep, (void)deepest;
    return false;
    END SOLUTION */
}

/* The kick a body takes at `substep`, where its level goes from old_level to level: if a step of old_level
 * ends there (at substep 0 every body's does), the closing half of that step and the opening half of the
 * new one; else nothing. */
__device__ __forceinline__ float kick_weight(int level, int old_level, int substep, int deepest, float dt_max)
{
    /* BEGIN SOLUTION */
    if (substep > 0 && !active_at(old_level, substep, deepest))
        return 0.0f;
    return 0.5f * (ldexpf(dt_max, -old_level) + ldexpf(dt_max, -level)); /* one level, as step12: exactly dt_max */
    /* STUB
    // Yours to write: the kick of a body whose step ends here (see step13_block_steps/README.md).
    (void)level, (void)old_level, (void)substep, (void)deepest, (void)dt_max;
    return 0.0f;
    END SOLUTION */
}

/* level_of, with a planted bug for the block-step check switched in: every level one too coarse. */
__device__ __forceinline__ int level_for(float4 a, float eta, float eps, float dt_max, int top)
{
#if WITH_RATE /* level_of's step^2 |a| <= eta^2 eps with |a| = rate eps is step <= eta / sqrt(rate) */
    a = make_float4(a.w * eps, 0.0f, 0.0f, 0.0f);
#endif
    const int l = level_of(a, eta, eps, dt_max, top);
#ifdef PLANT_LEVEL_OFF_BY_ONE /* its step twice eta's */
    return l > 0 ? l - 1 : 0;
#else
    return l;
#endif
}

/* Every body's level from its acceleration, and how many of each system are on each level
 * (hist[system * NB_LEVELS_MAX + level]: a block counts in shared memory first, so 16 global counters
 * are not hit by every thread). */
__global__ void assign_levels(const float4 *acc, size_t count, int n, float eta, float eps, float dt_max, int top,
                              int *level, int *hist)
{
    __shared__ int local[2][NB_LEVELS_MAX]; /* a block of at most n bodies spans two systems */
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x, first = (size_t)blockIdx.x * blockDim.x / n;
    for (int t = threadIdx.x; t < 2 * NB_LEVELS_MAX; t += blockDim.x)
        local[t / NB_LEVELS_MAX][t % NB_LEVELS_MAX] = 0;
    __syncthreads();
    if (k < count) {
        const int l = level_for(acc[k], eta, eps, dt_max, top);
        level[k] = l;
        const size_t sys = k / n;
        if (sys - first < 2)
            atomicAdd(&local[sys - first][l], 1);
        else
            atomicAdd(&hist[sys * NB_LEVELS_MAX + l], 1);
    }
    __syncthreads();
    for (int t = threadIdx.x; t < 2 * NB_LEVELS_MAX; t += blockDim.x) {
        const int c = local[t / NB_LEVELS_MAX][t % NB_LEVELS_MAX];
        if (c)
            atomicAdd(&hist[(first + t / NB_LEVELS_MAX) * NB_LEVELS_MAX + t % NB_LEVELS_MAX], c);
    }
}

/* flags[k]: whether the k-th body (in sorted order: sorted_ids[k]; NULL: body k) is active at `substep`. */
__global__ void mark_active(const int *level, const int *sorted_ids, int n, int substep, int deepest,
                            unsigned char *flags)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n)
        flags[k] = active_at(level[sorted_ids ? sorted_ids[k] : k], substep, deepest);
}

__global__ void count_up(int *iota, int n)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n)
        iota[k] = k;
}

/* The small-active-set path, exact: with so few active, a tree's build would cost more than their sums. The
 * system's n bodies are cut into gridDim.x chunks, one block a chunk and a thread an active body (`active`:
 * indices in the system; blockIdx.y picks which blockDim.x of them, a block no bigger than the active bodies
 * need, since every thread pays for the whole chunk), so every multiprocessor reads its share of
 * the bodies once (one block an active body left most of the GPU idle: 2 ms a substep at N = 1 M). Each
 * writes its partial sums, part[chunk * count + t]; direct_total adds them. */
__global__ void __launch_bounds__(BLOCK) direct_partial(const float *x, const float *y, const float *z,
                                                        const float *m, int n, const int *active, int count,
                                                        float eps2, float4 *part)
{
    __shared__ float4 tile[BLOCK];
    const int width = (int)blockDim.x, t = blockIdx.y * width + threadIdx.x; /* its active body, if t < count */
    const int per = (n + (int)gridDim.x - 1) / (int)gridDim.x, first = (int)blockIdx.x * per;
    const int last = min(n, first + per);
    float px = 0.0f, py = 0.0f, pz = 0.0f, ax = 0.0f, ay = 0.0f, az = 0.0f, aw = 0.0f;
    if (t < count) {
        const int i = active[t];
        px = x[i], py = y[i], pz = z[i];
    }
    for (int base = first; base < last; base += width) { /* j = i adds 0: d = 0 */
        const int j = base + threadIdx.x, len = min(width, last - base);
        if (j < last)
            tile[threadIdx.x] = make_float4(x[j], y[j], z[j], m[j]);
        __syncthreads();
        if (t < count)
            for (int k = 0; k < len; ++k)
                interact(tile[k], px, py, pz, eps2, &ax, &ay, &az, &aw);
        __syncthreads();
    }
    if (t < count)
        part[(size_t)blockIdx.x * count + t] = make_float4(ax, ay, az, aw);
}

/* Each active body's partial sums added, a warp a body (a thread each left a chain of `chunks` loads): lane
 * l takes the chunks l, l + 32, ..., and shuffles add the lanes' sums, in a fixed order (the same bits every
 * run), into acc. */
__global__ void direct_total(const float4 *part, int chunks, int count, const int *active, float4 *acc)
{
    const int t = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5), lane = threadIdx.x & 31;
    if (t >= count) /* the whole warp: t is the warp's */
        return;
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int c = lane; c < chunks; c += 32) {
        const float4 p = part[(size_t)c * count + t];
        sum.x += p.x, sum.y += p.y, sum.z += p.z, sum.w += p.w;
    }
    sum = make_float4(warp_sum(sum.x), warp_sum(sum.y), warp_sum(sum.z), WITH_RATE ? warp_sum(sum.w) : 0.0f);
    if (lane == 0)
        acc[active[t]] = sum;
}

/* Kick the bodies whose step ends at `substep` (kick_weight), then drift every body by the substep, dt.
 * After substep 0 an active body may go finer, never past `deepest` (it is then synchronised with every
 * finer level): its new force's level, if deeper (the counts in hist follow it). */
__global__ void kick_drift(nbd_soa bodies, const float4 *acc, int *level, const int *old_level, size_t count, int n,
                           int substep, int deepest, float dt_max, float dt, float eta, float eps, int *hist)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count)
        return;
    const int was = substep == 0 ? old_level[k] : level[k];
    int now = level[k];
    if (substep > 0 && active_at(was, substep, deepest)) {
        const int want = level_for(acc[k], eta, eps, dt_max, deepest);
        if (want > was) {
            now = want;
            level[k] = now;
            atomicSub(&hist[k / n * NB_LEVELS_MAX + was], 1);
            atomicAdd(&hist[k / n * NB_LEVELS_MAX + now], 1);
        }
    }
    float w = kick_weight(now, was, substep, deepest, dt_max);
#ifdef PLANT_MISSED_KICK /* a planted bug for the block-step check: one body in 64 off level 0 misses its later kicks */
    if ((k & 63) == 1 && now > 0 && substep > 0)
        w = 0.0f;
#endif
    float vx = bodies.vx[k], vy = bodies.vy[k], vz = bodies.vz[k];
    if (w != 0.0f) {
        const float4 a = acc[k];
        vx += a.x * w;
        vy += a.y * w;
        vz += a.z * w;
        bodies.vx[k] = vx;
        bodies.vy[k] = vy;
        bodies.vz[k] = vz;
    }
    bodies.x[k] += vx * dt;
    bodies.y[k] += vy * dt;
    bodies.z[k] += vz * dt;
}

/* The end of the run: a body on level k > 0 is half its own step behind; (its step - dt_max) / 2 more,
 * from its force there, leaves it half a dt_max behind, as the contract has it. */
__global__ void close_kicks(nbd_soa bodies, const float4 *acc, const int *level, size_t count, float dt_max)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count || level[k] == 0)
        return;
    const float w = 0.5f * (ldexpf(dt_max, -level[k]) - dt_max);
    const float4 a = acc[k];
    bodies.vx[k] += a.x * w;
    bodies.vy[k] += a.y * w;
    bodies.vz[k] += a.z * w;
}

static unsigned blocks_for(size_t count) { return (unsigned)((count + BLOCK - 1) / BLOCK); }

static void tree_alloc(tree *t, int n, int systems)
{
    const size_t nn = (size_t)n, inner = n > 1 ? nn - 1 : 1, s = (size_t)systems;
    t->keys = (morton_key *)nbd_malloc(nn * sizeof(morton_key), "the tree (Morton keys)");
    t->sorted_keys = (morton_key *)nbd_malloc(nn * sizeof(morton_key), "the tree (sorted keys)");
    t->ids = (int *)nbd_malloc(nn * sizeof(int), "the tree (body indices)");
    t->sorted_ids = (int *)nbd_malloc(s * nn * sizeof(int), "the tree (sorted indices)");
    t->pos = (float4 *)nbd_malloc(nn * sizeof(float4), "the tree (sorted bodies)");
    t->child = (int2 *)nbd_malloc(s * inner * sizeof(int2), "the tree (children)");
    t->parent = (int *)nbd_malloc(s * (inner + nn) * sizeof(int), "the tree (parents)");
    t->range = (int2 *)nbd_malloc(s * inner * sizeof(int2), "the tree (ranges)");
    t->com = (float4 *)nbd_malloc(inner * sizeof(float4), "the tree (centres of mass)");
    t->quad = (float4 *)nbd_malloc(inner * sizeof(float4), "the tree (quadrupoles)");
    t->quad2 = (float2 *)nbd_malloc(inner * sizeof(float2), "the tree (quadrupoles)");
    t->lo = (float4 *)nbd_malloc(inner * sizeof(float4), "the tree (boxes)");
    t->hi = (float4 *)nbd_malloc(inner * sizeof(float4), "the tree (boxes)");
    t->visits = (int *)nbd_malloc(inner * sizeof(int), "the tree (counters)");
    t->bounds = (int *)nbd_malloc(6 * sizeof(int), "the tree (bounds)");
    t->overflow = (int *)nbd_malloc(sizeof(int), "the tree (overflow flag)");
    NB_CUDA(cudaMemset(t->overflow, 0, sizeof(int)));
    t->sort_bytes = 0;
    NB_CUDA(cub::DeviceRadixSort::SortPairs(NULL, t->sort_bytes, t->keys, t->sorted_keys, t->ids, t->sorted_ids, n,
                                            0, 63));
    t->sort_scratch = nbd_malloc(t->sort_bytes ? t->sort_bytes : 1, "the tree (sort scratch)");
    t->groups = (int *)nbd_malloc(s * nn * sizeof(int), "the tree (groups)");
    t->group_count = (int *)nbd_malloc_host(s * sizeof(int), "the tree (group counts)");
    for (size_t k = 0; k < s; ++k)
        t->group_count[k] = -1;
    t->group_ref = (int *)nbd_malloc(nn * sizeof(int), "the tree (group refs)");
    t->group_flag = (unsigned char *)nbd_malloc(nn, "the tree (group flags)");
    t->group_selected = (int *)nbd_malloc(sizeof(int), "the tree (group count)");
    t->group_bytes = 0;
    NB_CUDA(cub::DeviceSelect::Flagged(NULL, t->group_bytes, t->group_ref, t->group_flag, t->groups, t->group_selected,
                                       n));
    t->group_scratch = nbd_malloc(t->group_bytes ? t->group_bytes : 1, "the tree (group scratch)");
}

static void tree_free(tree *t)
{
    void *all[] = {t->keys, t->sorted_keys, t->ids, t->sorted_ids, t->pos, t->child, t->parent, t->range,
                   t->com, t->quad, t->quad2, t->lo, t->hi, t->visits, t->bounds, t->overflow, t->sort_scratch,
                   t->groups, t->group_ref, t->group_flag, t->group_selected, t->group_scratch};
    for (size_t k = 0; k < sizeof all / sizeof *all; ++k)
        NB_CUDA(cudaFree(all[k]));
    NB_CUDA(cudaFreeHost(t->group_count));
}

/* Which bodies of a system are active, compacted (reused system after system). */
typedef struct active_set {
    float4 *part;         /* the direct sum's partial sums (.w: the rate): DIRECT_CHUNKS x min(SMALL_ACTIVE, n) */
    unsigned char *flags; /* per body (sorted order for the walk, the system's order for the direct sum) */
    int *iota;            /* 0, 1, ..., n - 1: what the flags select from */
    int *list;            /* the selected: active bodies, in the order of the flags */
    int *selected;        /* how many (the host already knows: from the level counts) */
    void *scratch;
    size_t scratch_bytes;
} active_set;

static void active_alloc(active_set *a, int n)
{
    const size_t most = SMALL_ACTIVE < n ? (size_t)SMALL_ACTIVE : (size_t)n; /* active bodies a direct sum takes */
    a->part = (float4 *)nbd_malloc((size_t)DIRECT_CHUNKS * most * sizeof(float4), "the direct sum's parts");
    a->flags = (unsigned char *)nbd_malloc((size_t)n, "the active set (flags)");
    a->iota = (int *)nbd_malloc((size_t)n * sizeof(int), "the active set (indices)");
    a->list = (int *)nbd_malloc((size_t)n * sizeof(int), "the active set (list)");
    a->selected = (int *)nbd_malloc(sizeof(int), "the active set (count)");
    count_up<<<blocks_for((size_t)n), BLOCK>>>(a->iota, n);
    NB_LAUNCH();
    a->scratch_bytes = 0;
    NB_CUDA(cub::DeviceSelect::Flagged(NULL, a->scratch_bytes, a->iota, a->flags, a->list, a->selected, n));
    a->scratch = nbd_malloc(a->scratch_bytes ? a->scratch_bytes : 1, "the active set (scratch)");
}

static void active_free(active_set *a)
{
    void *all[] = {a->part, a->flags, a->iota, a->list, a->selected, a->scratch};
    for (size_t k = 0; k < sizeof all / sizeof *all; ++k)
        NB_CUDA(cudaFree(all[k]));
}

/* The list of a system's bodies active at `substep`, in the order `sorted_ids` gives (NULL: theirs). */
static const int *active_list(active_set *a, const int *level, const int *sorted_ids, int n, int substep, int deepest)
{
    mark_active<<<blocks_for((size_t)n), BLOCK>>>(level, sorted_ids, n, substep, deepest, a->flags);
    NB_LAUNCH();
    NB_CUDA(cub::DeviceSelect::Flagged(a->scratch, a->scratch_bytes, a->iota, a->flags, a->list, a->selected, n));
    return a->list;
}

/* The forces on the bodies of system `sys` active at `substep`, `count` of them (n: every body, as
 * step12), into acc[sys * n ...], from every body drifted to now. `rebuild`: sort the bodies and build the
 * tree anew; else refit the shape the last build left (same order, same children) to where the bodies are:
 * each cell's moments and box are summed again, so its opening distance grows as its bodies spread. */
static void tree_forces(tree *t, const nbd_soa *b, int sys, int n, float inv_theta, float eps2, float4 *acc,
                        active_set *as, const int *level, int substep, int deepest, int count, bool rebuild)
{
    const size_t offset = (size_t)sys * n, inner = n > 1 ? (size_t)n - 1 : 1;
    const float *x = b->x + offset, *y = b->y + offset, *z = b->z + offset, *m = b->m + offset;
    int *sorted_ids = t->sorted_ids + offset, *parent = t->parent + sys * (inner + n);
    int2 *child = t->child + sys * inner, *range = t->range + sys * inner;
    const unsigned grid = blocks_for((size_t)n);
    if (rebuild) {
        reset_bounds<<<1, 32>>>(t->bounds);
        NB_LAUNCH();
        find_bounds<<<grid < 1024 ? grid : 1024, BLOCK>>>(x, y, z, n, t->bounds);
        NB_LAUNCH();
        morton<<<grid, BLOCK>>>(x, y, z, n, t->bounds, t->keys, t->ids);
        NB_LAUNCH();
        NB_CUDA(cub::DeviceRadixSort::SortPairs(t->sort_scratch, t->sort_bytes, t->keys, t->sorted_keys, t->ids,
                                                sorted_ids, n, 0, 63));
    }
    gather_sorted<<<grid, BLOCK>>>(x, y, z, m, sorted_ids, n, t->pos);
    NB_LAUNCH();
    if (n > 1) {
        if (rebuild) {
            build<<<blocks_for((size_t)n - 1), BLOCK>>>(t->sorted_keys, n, child, parent, range);
            NB_LAUNCH();
            t->group_count[sys] = -1; /* a new shape: its groups to be listed again */
        }
        NB_CUDA(cudaMemsetAsync(t->visits, 0, ((size_t)n - 1) * sizeof(int)));
        if (count < n && GROUPS_SUMMED) { /* a substep's: the all-active evaluation stays step12's, bit for bit */
            int *groups = t->groups + offset;
            if (t->group_count[sys] < 0) { /* listed once a build, at its first substep */
                find_groups<<<grid, BLOCK>>>(parent, range, n, t->group_ref, t->group_flag);
                NB_LAUNCH();
                NB_CUDA(cub::DeviceSelect::Flagged(t->group_scratch, t->group_bytes, t->group_ref, t->group_flag,
                                                   groups, t->group_selected, n));
                NB_CUDA(cudaMemcpy(&t->group_count[sys], t->group_selected, sizeof(int), cudaMemcpyDeviceToHost));
            }
            summarize_listed<<<blocks_for((size_t)t->group_count[sys] * 32), BLOCK>>>(
                t->pos, child, parent, range, groups, t->group_count[sys], n, inv_theta, t->visits, t->com, t->quad,
                t->quad2, t->lo, t->hi);
        } else {
            summarize<<<grid, BLOCK>>>(t->pos, child, parent, n, inv_theta, t->visits, t->com, t->quad, t->quad2,
                                       t->lo, t->hi);
        }
        NB_LAUNCH();
    }
    const int *active = count < n ? active_list(as, level + offset, sorted_ids, n, substep, deepest) : NULL;
    int per = 32; /* bodies a warp: 32, or for a few (SPREAD_ACTIVE) as many as give about GROUP_WARPS warps */
    while (count < n && count <= SPREAD_ACTIVE && per > FEWEST_A_WARP && (size_t)count < (size_t)per * GROUP_WARPS)
        per >>= 1;
    const size_t groups = ((size_t)count + per - 1) / per;
    const bool whole = WHOLE_BLOCK_WALKS && count < n && count <= SPREAD_ACTIVE; /* a block a group */
    traverse<<<whole ? (unsigned)groups : blocks_for(groups * 32), BLOCK>>>(
        t->pos, child, range, t->com, t->quad, t->quad2, t->lo, t->hi, sorted_ids, n, active, count, 32 / per, whole,
        eps2, acc + offset, t->overflow);
    NB_LAUNCH();
}

/* The forces on a system's active bodies: through the tree (rebuilt for more than REFIT_PERCENT % of the
 * bodies, refitted for fewer: the walk of a few cannot pay for a sort), or for SMALL_ACTIVE or fewer (but
 * not all) a direct sum for each, where a walk of so few warps would leave the GPU idle. */
static void active_forces(tree *t, const nbd_soa *b, int sys, int n, float inv_theta, float eps2, float4 *acc,
                          active_set *as, const int *level, int substep, int deepest, int count)
{
    const size_t offset = (size_t)sys * n;
    if (count == n || count > SMALL_ACTIVE) {
        const bool rebuild = (size_t)count * 100 > (size_t)n * REFIT_PERCENT;
        tree_forces(t, b, sys, n, inv_theta, eps2, acc, as, level, substep, deepest, count, rebuild);
        return;
    }
    const int *active = active_list(as, level + offset, NULL, n, substep, deepest);
    const unsigned chunks = blocks_for((size_t)n) < DIRECT_CHUNKS ? blocks_for((size_t)n) : DIRECT_CHUNKS;
    const unsigned rows = blocks_for((size_t)count), width = (unsigned)(count + rows - 1) / rows; /* 130: 2 x 65 */
    direct_partial<<<dim3(chunks, rows), (width + 31) / 32 * 32>>>(b->x + offset, b->y + offset, b->z + offset,
                                                                   b->m + offset, n, active, count, eps2, as->part);
    NB_LAUNCH();
    direct_total<<<blocks_for((size_t)count * 32), BLOCK>>>(as->part, (int)chunks, count, active, acc + offset);
    NB_LAUNCH();
}

/* Bodies of one system's level counts active at `substep`. */
static int active_count(const int *hist, int substep, int deepest)
{
    int count = 0;
    for (int k = 0; k <= deepest; ++k)
        if (active_at(k, substep, deepest))
            count += hist[k];
    return count;
}

/* What the levels add to step12's state, and what they report. */
typedef struct levels_state {
    int *level, *old_level; /* per body: this dt_max step's level, the last one's (0 when a run starts: the contract) */
    int *hist, *hist_host;  /* per system and level (NB_LEVELS_MAX a system): bodies there, device and host */
    int deepest;            /* the deepest level in use in the last dt_max step */
    double bodies[NB_LEVELS_MAX]; /* bodies on each level, summed over the dt_max steps */
    uint64_t dt_steps;
#ifdef LEVEL_REPORT /* the cost of each level: substeps whose coarsest active level is k, timed one by one */
    double ms[NB_LEVELS_MAX + 1];      /* [NB_LEVELS_MAX]: the closing evaluation at the end of the run */
    uint64_t substeps[NB_LEVELS_MAX + 1], evaluations[NB_LEVELS_MAX + 1], direct[NB_LEVELS_MAX + 1];
    cudaEvent_t from, to;
#endif
} levels_state;

static void levels_alloc(levels_state *ls, size_t count, int systems)
{
    memset(ls, 0, sizeof *ls);
    ls->level = (int *)nbd_malloc(count * sizeof(int), "the levels");
    ls->old_level = (int *)nbd_malloc(count * sizeof(int), "the levels");
    NB_CUDA(cudaMemset(ls->old_level, 0, count * sizeof(int))); /* the contract: half a dt_max behind */
    ls->hist = (int *)nbd_malloc((size_t)systems * NB_LEVELS_MAX * sizeof(int), "the level counts");
    ls->hist_host = (int *)nbd_malloc_host((size_t)systems * NB_LEVELS_MAX * sizeof(int), "the level counts");
#ifdef LEVEL_REPORT
    NB_CUDA(cudaEventCreate(&ls->from));
    NB_CUDA(cudaEventCreate(&ls->to));
#endif
}

static void levels_free(levels_state *ls)
{
    NB_CUDA(cudaFree(ls->level));
    NB_CUDA(cudaFree(ls->old_level));
    NB_CUDA(cudaFree(ls->hist));
    NB_CUDA(cudaFreeHost(ls->hist_host));
#ifdef LEVEL_REPORT
    NB_CUDA(cudaEventDestroy(ls->from));
    NB_CUDA(cudaEventDestroy(ls->to));
#endif
}

#ifdef LEVEL_REPORT
static void level_clock_start(levels_state *ls) { NB_CUDA(cudaEventRecord(ls->from)); }
static void level_clock_stop(levels_state *ls, int slot, int evaluations, int direct)
{
    float ms = 0.0f;
    NB_CUDA(cudaEventRecord(ls->to));
    NB_CUDA(cudaEventSynchronize(ls->to));
    NB_CUDA(cudaEventElapsedTime(&ms, ls->from, ls->to));
    ls->ms[slot] += ms;
    ls->substeps[slot] += 1;
    ls->evaluations[slot] += (uint64_t)evaluations;
    ls->direct[slot] += (uint64_t)direct;
}
#endif

/* The time loop: run->steps steps of dt_max = run->dt, each 2^deepest substeps of dt_max / 2^deepest.
 * Given: not yours (its pieces, level_of, active_at and kick_weight, are). */
static void block_steps(const nb_run *run, nbd_soa *bodies, int n, int systems, float inv_theta, float4 *acc, tree *t,
                        active_set *as, levels_state *ls)
{
    const size_t count = (size_t)n * systems, hist_bytes = (size_t)systems * NB_LEVELS_MAX * sizeof(int);
    const float dt_max = run->dt, eps = sqrtf(run->eps2);
    const float eta = run->extra.eta > 0.0f ? run->extra.eta : NB_ETA_DEFAULT;
    const int top = (int)(run->extra.levels ? run->extra.levels : NB_LEVELS_DEFAULT) - 1;
    ls->deepest = 0;
    for (uint64_t step = 0; step < run->steps; ++step) {
#ifdef LEVEL_REPORT
        level_clock_start(ls);
#endif
        for (int sys = 0; sys < systems; ++sys) /* every body is active at the start: step12's forces */
            tree_forces(t, bodies, sys, n, inv_theta, run->eps2, acc, as, ls->level, 0, 0, n, true);
        NB_CUDA(cudaMemsetAsync(ls->hist, 0, hist_bytes));
        assign_levels<<<blocks_for(count), BLOCK>>>(acc, count, n, eta, eps, dt_max, top, ls->level, ls->hist);
        NB_LAUNCH();
        NB_CUDA(cudaMemcpy(ls->hist_host, ls->hist, hist_bytes, cudaMemcpyDeviceToHost)); /* which substeps have work */
        int deepest = 0;
        for (int sys = 0; sys < systems; ++sys)
            for (int k = 0; k < NB_LEVELS_MAX; ++k) {
                const int bodies_here = ls->hist_host[sys * NB_LEVELS_MAX + k];
                ls->bodies[k] += bodies_here;
                if (bodies_here > 0 && k > deepest)
                    deepest = k;
            }
        ls->deepest = deepest;
        ls->dt_steps += 1;
        const float dt = ldexpf(dt_max, -deepest);
        for (int sub = 0; sub < 1 << deepest; ++sub) {
            int evaluations = sub == 0 ? (int)count : 0, direct = 0;
            for (int sys = 0; sub > 0 && sys < systems; ++sys) {
                const int active = active_count(ls->hist_host + (size_t)sys * NB_LEVELS_MAX, sub, deepest);
                if (active > 0)
                    active_forces(t, bodies, sys, n, inv_theta, run->eps2, acc, as, ls->level, sub,
                                  deepest, active);
                evaluations += active;
                direct += active > 0 && active <= SMALL_ACTIVE && active < n;
            }
            kick_drift<<<blocks_for(count), BLOCK>>>(*bodies, acc, ls->level, ls->old_level, count, n, sub, deepest,
                                                     dt_max, dt, eta, eps, ls->hist);
            NB_LAUNCH();
            /* The counts of the substeps to come, if an active body may have gone finer: not at an odd substep,
             * where only the deepest level is active (the host's wait leaves the GPU idle while it launches). */
            if (evaluations > 0 && sub > 0 && (sub & 1) == 0)
                NB_CUDA(cudaMemcpy(ls->hist_host, ls->hist, hist_bytes, cudaMemcpyDeviceToHost));
#ifdef LEVEL_REPORT
            level_clock_stop(ls, sub == 0 ? 0 : deepest - __builtin_ctz((unsigned)sub), evaluations, direct);
            if (sub + 1 < 1 << deepest)
                level_clock_start(ls);
#else
            (void)direct;
#endif
        }
        int *last = ls->level; /* this step's levels are the next one's old levels */
        ls->level = ls->old_level;
        ls->old_level = last;
    }
    if (ls->deepest > 0) { /* the run ends: the bodies off level 0 back to half a dt_max behind */
#ifdef LEVEL_REPORT
        level_clock_start(ls);
#endif
        for (int sys = 0; sys < systems; ++sys)
            tree_forces(t, bodies, sys, n, inv_theta, run->eps2, acc, as, ls->old_level, 0, 0, n, true);
        close_kicks<<<blocks_for(count), BLOCK>>>(*bodies, acc, ls->old_level, count, dt_max);
        NB_LAUNCH();
#ifdef LEVEL_REPORT
        level_clock_stop(ls, NB_LEVELS_MAX, (int)count, 0);
#endif
    }
}

#ifdef LEVEL_REPORT
/* The levels and what each cost, on stderr (report/sweeps/blocksteps.sh reads it into a CSV): one line a
 * level, "level k dt bodies% substeps evaluations direct ms", then "close" for the run's last evaluation. */
static void report_levels(const levels_state *ls, const nb_run *run, unsigned levels, size_t count)
{
    fprintf(stderr, "levels: level,dt,bodies_pct,substeps,evaluations,direct,ms\n");
    for (unsigned k = 0; k < levels; ++k)
        fprintf(stderr, "levels: %u,%g,%.4f,%llu,%llu,%llu,%.3f\n", k, ldexp(run->dt, -(int)k),
                ls->dt_steps ? 100.0 * ls->bodies[k] / ((double)ls->dt_steps * count) : 0.0,
                (unsigned long long)ls->substeps[k], (unsigned long long)ls->evaluations[k],
                (unsigned long long)ls->direct[k], ls->ms[k]);
    fprintf(stderr, "levels: close,,,%llu,%llu,0,%.3f\n", (unsigned long long)ls->substeps[NB_LEVELS_MAX],
            (unsigned long long)ls->evaluations[NB_LEVELS_MAX], ls->ms[NB_LEVELS_MAX]);
}
#endif


int nb_step_run(nb_state *s, const nb_run *run)
{
    /* BEGIN SOLUTION */
    const int n = (int)s->bodies, systems = (int)s->systems;
    if (run->block && run->block != BLOCK) {
        nb_error("--block %u: the block size of this step is fixed at compile time (BLOCK=%d): rebuild with "
                 "STEP_DEFS=-DBLOCK=%u", run->block, BLOCK, run->block);
        return NB_EXIT_ERROR;
    }
    if (s->bodies > (size_t)1 << 30) {
        nb_error("%zu bodies per system: the tree's indices hold at most 2^30", s->bodies);
        return NB_EXIT_ERROR;
    }
    const unsigned levels = run->extra.levels ? run->extra.levels : NB_LEVELS_DEFAULT;
    if (levels > NB_LEVELS_MAX) {
        nb_error("--levels %u: at most %d (a step of dt / 2^%d)", levels, NB_LEVELS_MAX, NB_LEVELS_MAX - 1);
        return NB_EXIT_ERROR;
    }
    const float theta = run->extra.theta; /* the judge's default where --theta was not given */
    const float theta_open = powf(theta, THETA_POWER); /* the angle at which a node is opened */
    const float inv_theta = theta > 0.0f ? 1.0f / theta_open : INFINITY;
    const size_t count = nb_state_count(s);
    nbd_soa bodies;
    nbd_soa_upload(s, &bodies);
    float4 *acc = (float4 *)nbd_malloc(count * sizeof(float4), "the accelerations");
    tree t;
    tree_alloc(&t, n, systems);
    active_set as;
    active_alloc(&as, n);
    levels_state ls;
    levels_alloc(&ls, count, systems);

    nb_region_begin(run);
    block_steps(run, &bodies, n, systems, inv_theta, acc, &t, &as, &ls);
    nb_region_end(run);

    int overflow = 0;
    NB_CUDA(cudaMemcpy(&overflow, t.overflow, sizeof overflow, cudaMemcpyDeviceToHost));
    nbd_soa_download(&bodies, s);
    NB_CUDA(cudaFree(acc));
    tree_free(&t);
    active_free(&as);
    levels_free(&ls);
    if (overflow) {
        nb_error("a traversal's stack (%d nodes) ran out: the forces are wrong", STACK_SLOTS);
        return NB_EXIT_ERROR;
    }
    run->info->block = BLOCK;
    int used = snprintf(run->info->config, sizeof run->info->config,
                        "open=%.3g leaf=%d block=%d small=%d deepest=%d level%%=",
                        theta > 0.0f ? theta_open : 0.0f, LEAF_BODIES, BLOCK, SMALL_ACTIVE, ls.deepest);
    for (unsigned k = 0; k < levels && used > 0 && (size_t)used < sizeof run->info->config; ++k) /* mean share of each level */
        used += snprintf(run->info->config + used, sizeof run->info->config - used, k ? ":%.3g" : "%.3g",
                         ls.dt_steps ? 100.0 * ls.bodies[k] / ((double)ls.dt_steps * count) : 0.0);
#ifdef LEVEL_REPORT
    report_levels(&ls, run, levels, count);
#endif
    return NB_EXIT_OK;
    /* STUB
    (void)s, (void)run, (void)tree_alloc, (void)tree_free, (void)active_alloc, (void)active_free, (void)levels_alloc;
    (void)levels_free, (void)block_steps;
    nb_error("TODO: cell_moments(), cell_force() (bring them from your step12), level_of(), active_at(), "
             "kick_weight() and nb_step_run() (your step12's, its time loop now block_steps()) are yours to write "
             "(see step13_block_steps/README.md)");
    return NB_EXIT_ERROR;
    END SOLUTION */
}
