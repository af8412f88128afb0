/* step11_mpi: In this version, the work is spread over MPI ranks, one per GPU (ranks share a GPU when
 * there are more of them than GPUs), in step08's two ways. Many systems: each rank takes whole
 * systems and never talks to the others. Few systems: each rank holds a slice of every system's
 * bodies and, every step, the slices' positions travel round the ring of ranks: the rank computes its
 * bodies against the block in hand while it passes that block on (MPI_Isend/MPI_Irecv), so the
 * messages hide behind compute (common/exchange.c; -DALLGATHER=1: one MPI_Allgatherv per step
 * instead). Device pointers go straight into MPI when the library is CUDA-aware, through pinned host
 * buffers otherwise. The kernels are step08's, their tiles read from a block of float4 positions. */
#include "comm.h"
#include "device.h"
#include "exchange.h"
#include "nbody.h"
#include "platform.h"
#include "util.h"

#include <mpi.h>
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
#define MIN_BLOCKS 8 /* not step08's 0: this loop's own allocation issues 77% of cycles at 48 registers, 86% at 63 */
#endif
#ifndef ALLGATHER /* 1: one MPI_Allgatherv per step instead of the ring (measured: step11_mpi/README.md) */
#define ALLGATHER 0
#endif
static_assert(TILE % BLOCK == 0, "TILE must be a multiple of BLOCK");
#define BODIES_PER_BLOCK (BLOCK * BODIES_PER_THREAD)
static const int unroll_factor = UNROLL; /* #pragma unroll takes a constant, not a macro */

/* Block (x, y, z): bodies blockIdx.x*BODIES_PER_BLOCK + b*BLOCK + threadIdx.x (b < BODIES_PER_THREAD,
 * below own_count) of this rank's slice of system y, against the tiles of slice z of `block` (count
 * bodies per system, from one rank). accumulate: add to partial (the ring's later blocks). */
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) forces(nbd_soa bodies, const float4 *block, float4 *partial,
                                                int count, int systems, int own_count, int tiles_per_slice,
                                                int accumulate, float eps2)
{
    /* BEGIN SOLUTION */
    __shared__ float4 tile[TILE];
    const int tiles = (count + TILE - 1) / TILE;
    const int first = blockIdx.z * tiles_per_slice;
    const int last = min(first + tiles_per_slice, tiles);
    for (int sys = blockIdx.y; sys < systems; sys += gridDim.y) {
        const size_t offset = (size_t)sys * own_count;
        const float4 *js = block + (size_t)sys * count;
        float xi[BODIES_PER_THREAD], yi[BODIES_PER_THREAD], zi[BODIES_PER_THREAD];
        float ax[BODIES_PER_THREAD], ay[BODIES_PER_THREAD], az[BODIES_PER_THREAD];
#pragma unroll
        for (int u = 0; u < BODIES_PER_THREAD; ++u) {
            const int i = blockIdx.x * BODIES_PER_BLOCK + u * BLOCK + threadIdx.x;
            xi[u] = i < own_count ? bodies.x[offset + i] : 0.0f;
            yi[u] = i < own_count ? bodies.y[offset + i] : 0.0f;
            zi[u] = i < own_count ? bodies.z[offset + i] : 0.0f;
            ax[u] = ay[u] = az[u] = 0.0f;
        }
        for (int t = first; t < last; ++t) {
#pragma unroll
            for (int k = threadIdx.x; k < TILE; k += BLOCK) {
                const int j = t * TILE + k;
                /* Past the last body the tile is padded with massless bodies: they add exactly 0. */
                tile[k] = j < count ? js[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
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
            if (i < own_count) {
                float4 *p = &partial[((size_t)blockIdx.z * systems + sys) * own_count + i];
                const float4 a = accumulate ? *p : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
                *p = make_float4(a.x + ax[u], a.y + ay[u], a.z + az[u], 0.0f);
            }
        }
    }
    /* STUB
    // Yours to write: step08's loop, its tiles loaded from the float4 block of one rank.
    (void)unroll_factor; // for #pragma unroll unroll_factor
    END SOLUTION */
}

/* This rank's bodies as the block it sends: x y z m side by side. */
__global__ void pack(nbd_soa bodies, float4 *block, size_t count)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        block[i] = make_float4(bodies.x[i], bodies.y[i], bodies.z[i], bodies.m[i]);
}

/* Sum the slices in a fixed order (the result does not depend on scheduling), kick, drift. */
__global__ void kick_drift(nbd_soa bodies, const float4 *partial, int systems, int own_count, int slices, float dt)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= own_count)
        return;
    for (int sys = blockIdx.y; sys < systems; sys += gridDim.y) {
        const size_t k = (size_t)sys * own_count + i;
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


/* What this rank holds and does: systems [first_system, +systems), and of each of them bodies
 * [own_first, +own_count), the only ones it keeps on its GPU (compact: row length own_count). */
typedef struct rank_part {
    int device, first_system, systems, own_first, own_count, slices, launched;
    float eps2;
    nbd_soa bodies;
    float4 *partial;
    cudaStream_t stream;
} rank_part;

/* BEGIN SOLUTION */
/* The exchange's hooks (common/exchange.h): compute launches the forces against one rank's block. */
static void compute_block(void *ctx, const float *block, int count)
{
    rank_part *q = (rank_part *)ctx;
    const int tiles = (count + TILE - 1) / TILE;
    const int row_blocks = (q->own_count + BODIES_PER_BLOCK - 1) / BODIES_PER_BLOCK;
    const dim3 grid(row_blocks, nbd_system_rows(q->systems), q->slices);
    forces<<<grid, BLOCK, 0, q->stream>>>(q->bodies, (const float4 *)block, q->partial, count, q->systems, q->own_count,
                                         (tiles + q->slices - 1) / q->slices, q->launched++ > 0, q->eps2);
    NB_LAUNCH();
}

static const nb_xchg *the_plan;
static void compute_from(void *ctx, const float *block, int from)
{
    if (((rank_part *)ctx)->own_count > 0) /* N < ranks: this rank only passes the blocks on */
        compute_block(ctx, block, the_plan->count[from]);
}
static void sync_stream(void *ctx) { NB_CUDA(cudaStreamSynchronize(((rank_part *)ctx)->stream)); }
static void upload(void *ctx, float *to, const float *from, size_t bytes)
{
    NB_CUDA(cudaMemcpyAsync(to, from, bytes, cudaMemcpyHostToDevice, ((rank_part *)ctx)->stream));
}

/* Copy bodies [first, first + count) of `systems` host rows of length n to or from compact device rows. */
static void rows_to_device(float *dev, const float *host, int n, int systems, int first, int count, cudaStream_t stream)
{
    if (count > 0 && systems > 0)
        NB_CUDA(cudaMemcpy2DAsync(dev, (size_t)count * sizeof(float), host + first, (size_t)n * sizeof(float),
                                  (size_t)count * sizeof(float), systems, cudaMemcpyHostToDevice, stream));
}
static void rows_to_host(float *host, const float *dev, int n, int systems, int first, int count, cudaStream_t stream)
{
    if (count > 0 && systems > 0)
        NB_CUDA(cudaMemcpy2DAsync(host + first, (size_t)n * sizeof(float), dev, (size_t)count * sizeof(float),
                                  (size_t)count * sizeof(float), systems, cudaMemcpyDeviceToHost, stream));
}

/* The node-local rank: ranks on one host take its GPUs in turn. */
static int local_rank(void)
{
    MPI_Comm node;
    int r = 0;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_rank(node, &r);
        MPI_Comm_free(&node);
    }
    return r;
}
/* STUB
// Yours to write, with nb_step_run() below (step11_mpi/README.md, "What you write").

// The exchange's hooks (nb_xchg_ops, common/exchange.h); ctx is this rank's rank_part.
// Launch forces on q->stream for this rank's bodies against one rank's block of `count` bodies per
// system (x y z m, float4), adding to the partial sums after the first block of the step.
static void compute_block(void *ctx, const float *block, int count)
{
    (void)ctx, (void)block, (void)count;
    nb_die(NB_EXIT_ERROR, "TODO: compute_block() is yours to write (see step11_mpi/README.md)");
}

// nb_xchg_ops.compute: the block came from rank `from`, count[from] bodies per system in the run's
// nb_xchg plan (keep a pointer to the plan where this function can read it); a rank that owns no
// bodies (N < ranks) only passes the blocks on.
static void compute_from(void *ctx, const float *block, int from)
{
    (void)ctx, (void)block, (void)from;
    nb_die(NB_EXIT_ERROR, "TODO: compute_from() is yours to write (see step11_mpi/README.md)");
}

// nb_xchg_ops.sync: wait for everything queued on the rank's stream.
static void sync_stream(void *ctx)
{
    (void)ctx;
}

// nb_xchg_ops.upload (host-staged MPI only): copy a received block to the device, on the rank's stream.
static void upload(void *ctx, float *to, const float *from, size_t bytes)
{
    (void)ctx, (void)to, (void)from, (void)bytes;
}

// Copy bodies [first, first + count) of `systems` host rows of length n to compact device rows of
// length count, or back (cudaMemcpy2DAsync on `stream`; nothing when count or systems is 0).
static void rows_to_device(float *dev, const float *host, int n, int systems, int first, int count, cudaStream_t stream)
{
    (void)dev, (void)host, (void)n, (void)systems, (void)first, (void)count, (void)stream;
}
static void rows_to_host(float *host, const float *dev, int n, int systems, int first, int count, cudaStream_t stream)
{
    (void)host, (void)dev, (void)n, (void)systems, (void)first, (void)count, (void)stream;
}

// This rank's place among the ranks of its own host (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED):
// ranks on one host take its GPUs in turn.
static int local_rank(void)
{
    return 0;
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
    const int rank = nb_comm_rank(), ranks = nb_comm_size();
    /* One rank (also the test suites, which call this without mpirun) touches no MPI at all. */
    const int by_systems = ranks == 1 || run->extra.decompose == NB_DECOMPOSE_SYSTEMS ||
                           (run->extra.decompose == NB_DECOMPOSE_AUTO && systems >= ranks);
    float *host[NB_FIELDS];
    for (int k = 0; k < NB_FIELDS; ++k)
        host[k] = nb_state_field(s, k);

    rank_part part = {}, *q = &part;
    q->device = ranks > 1 ? local_rank() % (int)nb_platform_gpus() : 0;
    NB_CUDA(cudaSetDevice(q->device));
    NB_CUDA(cudaStreamCreate(&q->stream));
    q->eps2 = run->eps2;
    nb_xchg plan = {};
    size_t floats = 0;
    const int aware = !by_systems && nb_xchg_cuda_aware();
    float *wire[2] = {NULL, NULL}, *comp[2] = {NULL, NULL};
    if (by_systems) { /* a rank with no system (systems < ranks) only waits for the final gather */
        q->first_system = (int)((long long)systems * rank / ranks);
        q->systems = (int)((long long)systems * (rank + 1) / ranks) - q->first_system;
        q->own_first = 0;
        q->own_count = q->systems ? n : 0;
        floats = (size_t)q->systems * n * 4;
        comp[0] = (float *)nbd_malloc(floats * sizeof(float), "the block of positions");
    } else {
        if (nb_xchg_plan(&plan, n, systems, ALLGATHER, &floats) != NB_EXIT_OK)
            return NB_EXIT_ERROR;
        q->first_system = 0;
        q->systems = systems;
        q->own_first = plan.first[rank];
        q->own_count = plan.count[rank];
        for (int b = 0; b < (ALLGATHER ? 1 : 2); ++b) {
            comp[b] = (float *)nbd_malloc(floats * sizeof(float), "the blocks of positions");
            wire[b] = aware ? comp[b] : (float *)nbd_malloc_host(floats * sizeof(float), "the blocks in host memory");
            plan.comp[b] = comp[b];
            plan.wire[b] = wire[b];
        }
    }
    const size_t own = (size_t)q->systems * q->own_count, offset = (size_t)q->first_system * n;
    float **field[NB_FIELDS] = {&q->bodies.x, &q->bodies.y, &q->bodies.z, &q->bodies.vx, &q->bodies.vy, &q->bodies.vz,
                                &q->bodies.m};
    for (int k = 0; k < NB_FIELDS; ++k) { /* only its own bodies: the others arrive as blocks */
        *field[k] = (float *)nbd_malloc((own ? own : 1) * sizeof(float), "the bodies");
        rows_to_device(*field[k], host[k] + offset, n, q->systems, q->own_first, q->own_count, q->stream);
    }
    const int row_blocks = (q->own_count + BODIES_PER_BLOCK - 1) / BODIES_PER_BLOCK;
    const int max_count = by_systems ? n : (int)(plan.block_max / 4 / (size_t)(systems ? systems : 1));
    q->slices = nbd_slices((const void *)forces, BLOCK, 0, row_blocks ? row_blocks : 1, q->systems ? q->systems : 1,
                           (max_count + TILE - 1) / TILE);
    q->partial = (float4 *)nbd_malloc(((size_t)q->slices * own + 1) * sizeof(float4), "partial accelerations");
    NB_CUDA(cudaStreamSynchronize(q->stream));
    the_plan = &plan;
    const nb_xchg_ops ops = {compute_from, sync_stream, aware ? NULL : upload};

    if (ranks > 1)
        MPI_Barrier(MPI_COMM_WORLD); /* the time loop starts together */
    nb_region_begin(run);
    for (uint64_t step = 0; step < run->steps; ++step) {
        q->launched = 0;
        float *mine = by_systems ? comp[0] : nb_xchg_own(&plan, comp[0]);
        if (own > 0) {
            pack<<<(unsigned)((own + 255) / 256), 256, 0, q->stream>>>(q->bodies, (float4 *)mine, own);
            NB_LAUNCH();
        }
        if (by_systems) {
            if (own > 0)
                compute_block(q, mine, n);
        } else {
            if (!aware && own > 0) /* the ring and the allgather send from host memory */
                NB_CUDA(cudaMemcpyAsync(nb_xchg_own(&plan, wire[0]), mine, own * sizeof(float4), cudaMemcpyDeviceToHost,
                                        q->stream));
            NB_CUDA(cudaStreamSynchronize(q->stream));
            if (nb_xchg_step(&plan, &ops, q) != NB_EXIT_OK)
                return NB_EXIT_ERROR;
        }
        if (own > 0) {
            const dim3 update_grid((q->own_count + BLOCK - 1) / BLOCK, nbd_system_rows(q->systems));
            kick_drift<<<update_grid, BLOCK, 0, q->stream>>>(q->bodies, q->partial, q->systems, q->own_count, q->slices,
                                                            run->dt);
            NB_LAUNCH();
        }
    }
    NB_CUDA(cudaStreamSynchronize(q->stream));
    nb_region_end(run);

    /* Each rank returns the bodies it owns; then every rank gets every rank's (the harness on each
     * rank validates and rank 0 reports the whole state). */
    float *const from[6] = {q->bodies.x, q->bodies.y, q->bodies.z, q->bodies.vx, q->bodies.vy, q->bodies.vz};
    for (int k = 0; k < 6; ++k)
        rows_to_host(host[k] + offset, from[k], n, q->systems, q->own_first, q->own_count, q->stream);
    NB_CUDA(cudaStreamSynchronize(q->stream));
    int *rows = ranks == 1 ? NULL : (int *)nb_malloc((size_t)ranks * 4 * sizeof(int), "the gather plan");
    if (ranks > 1 && !rows)
        return NB_EXIT_ERROR;
    for (int r = 0; rows && r < ranks; ++r) {
        const int sf = by_systems ? (int)((long long)systems * r / ranks) : 0;
        const int sc = by_systems ? (int)((long long)systems * (r + 1) / ranks) - sf : systems;
        rows[r] = sf;
        rows[ranks + r] = sc;
        rows[2 * ranks + r] = by_systems ? 0 : plan.first[r];
        rows[3 * ranks + r] = by_systems ? (sc ? n : 0) : plan.count[r];
    }
    const int rc = ranks == 1 ? NB_EXIT_OK : nb_xchg_gather_rows(host, 6, n, rows, rows + ranks, rows + 2 * ranks, rows + 3 * ranks);
    free(rows);
    if (rc != NB_EXIT_OK)
        return rc;

    float *const all[NB_FIELDS] = {q->bodies.x, q->bodies.y, q->bodies.z, q->bodies.vx, q->bodies.vy, q->bodies.vz,
                                   q->bodies.m};
    for (int k = 0; k < NB_FIELDS; ++k)
        NB_CUDA(cudaFree(all[k]));
    for (int b = 0; b < 2; ++b) {
        if (wire[b] && wire[b] != comp[b])
            NB_CUDA(cudaFreeHost(wire[b]));
        if (comp[b])
            NB_CUDA(cudaFree(comp[b]));
    }
    NB_CUDA(cudaFree(q->partial));
    NB_CUDA(cudaStreamDestroy(q->stream));
    nb_xchg_free(&plan);
    int gpus = (int)nb_platform_gpus();
    gpus = gpus < ranks ? gpus : ranks;
    run->info->block = BLOCK;
    run->info->gpus = (unsigned)gpus;
    snprintf(run->info->config, sizeof run->info->config,
             "block=%d tile=%d unroll=%d bodies/thread=%d ranks=%d gpus=%d split=%s slices=%d%s", BLOCK, TILE, UNROLL,
             BODIES_PER_THREAD, ranks, gpus, by_systems ? "systems" : "bodies", q->slices,
             by_systems || ranks == 1 ? "" : ALLGATHER ? (aware ? " allgather cuda-aware" : " allgather host-staged")
                                                       : (aware ? " ring cuda-aware" : " ring host-staged"));
    return NB_EXIT_OK;
    /* STUB
    // Yours to write: choose the split, give this rank its share, run the steps, gather the state
    // (step11_mpi/README.md, "What you write"), with the helpers above.
    (void)s, (void)run, (void)compute_block, (void)compute_from, (void)sync_stream, (void)upload;
    (void)rows_to_device, (void)rows_to_host, (void)local_rank;
    nb_error("TODO: splitting the work over the ranks in nb_step_run() is yours to write (see step11_mpi/README.md)");
    return NB_EXIT_ERROR;
    END SOLUTION */
}
