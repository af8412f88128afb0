/* pairs_gpu.cu: diag's fp64 pair sums on the GPU (build/tools/diag-gpu; diag.c built with DIAG_GPU).
 *
 * The same sums as nb_ref_accel_potential (common/reference.c) in the same order and with the same
 * roundings: a thread per body, j from the system's first body to its last, its own body skipped, every
 * product, sum, square root and division rounded on its own (no fused multiply-add). So diag-gpu's table
 * is diag's, byte for byte (tests/stagger-check.sh holds them to it), and the energy of 1 M bodies takes
 * seconds on an H200 where the host takes minutes (131072 bodies: 0.56 s against diag's 8.6 s on 16 cores). */
#include "device.h"
#include "pairs_gpu.h"
#include "util.h"

#include <stdlib.h>

#define PAIRS_BLOCK 256

/* Body i of system `first / bodies` (blockIdx.x * PAIRS_BLOCK + threadIdx.x < bodies): its acceleration
 * and potential from every other body of its system, tile by tile through shared memory. */
__global__ void __launch_bounds__(PAIRS_BLOCK) pair_sums(const double *x, const double *y, const double *z,
                                                          const double *m, size_t first, size_t bodies,
                                                          double eps2, double *ax, double *ay, double *az,
                                                          double *phi)
{
    __shared__ double tx[PAIRS_BLOCK], ty[PAIRS_BLOCK], tz[PAIRS_BLOCK], tm[PAIRS_BLOCK];
    const size_t k = blockIdx.x * (size_t)PAIRS_BLOCK + threadIdx.x, i = first + k;
    const bool mine = k < bodies;
    const double xi = mine ? x[i] : 0.0, yi = mine ? y[i] : 0.0, zi = mine ? z[i] : 0.0;
    double sx = 0.0, sy = 0.0, sz = 0.0, w = 0.0;
    for (size_t tile = 0; tile < bodies; tile += PAIRS_BLOCK) {
        const size_t load = tile + threadIdx.x;
        if (load < bodies) {
            tx[threadIdx.x] = x[first + load];
            ty[threadIdx.x] = y[first + load];
            tz[threadIdx.x] = z[first + load];
            tm[threadIdx.x] = m[first + load];
        }
        __syncthreads();
        const size_t in_tile = bodies - tile < PAIRS_BLOCK ? bodies - tile : PAIRS_BLOCK;
        for (size_t l = 0; mine && l < in_tile; ++l) {
            if (tile + l == k)
                continue;
            const double dx = __dsub_rn(tx[l], xi), dy = __dsub_rn(ty[l], yi), dz = __dsub_rn(tz[l], zi);
            const double d2 = __dadd_rn(__dadd_rn(__dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy)), __dmul_rn(dz, dz)), eps2);
            const double inv = __ddiv_rn(1.0, __dsqrt_rn(d2));
            const double f = __dmul_rn(__dmul_rn(__dmul_rn(tm[l], inv), inv), inv);
            sx = __dadd_rn(sx, __dmul_rn(dx, f));
            sy = __dadd_rn(sy, __dmul_rn(dy, f));
            sz = __dadd_rn(sz, __dmul_rn(dz, f));
            w = __dsub_rn(w, __dmul_rn(tm[l], inv));
        }
        __syncthreads(); /* every thread is done with the tile before it is loaded again */
    }
    if (mine) {
        ax[i] = sx;
        ay[i] = sy;
        az[i] = sz;
        phi[i] = w;
    }
}

int nb_gpu_accel_potential(const nb_state64 *s, double eps2, double *ax, double *ay, double *az, double *potential)
{
    const size_t total = s->systems * s->bodies, bytes = (total ? total : 1) * sizeof(double);
    double *phi = (double *)nb_malloc(bytes, "the fp64 potentials");
    if (!phi)
        return NB_EXIT_ERROR;
    double *d[8]; /* x y z m in, ax ay az phi out */
    for (int f = 0; f < 8; ++f)
        d[f] = (double *)nbd_malloc(bytes, "diag-gpu's arrays");
    const double *in[4] = {s->x, s->y, s->z, s->m};
    for (int f = 0; f < 4; ++f)
        NB_CUDA(cudaMemcpy(d[f], in[f], total * sizeof(double), cudaMemcpyHostToDevice));
    const unsigned blocks = (unsigned)((s->bodies + PAIRS_BLOCK - 1) / PAIRS_BLOCK);
    for (size_t sys = 0; sys < s->systems && blocks > 0; ++sys) {
        pair_sums<<<blocks, PAIRS_BLOCK>>>(d[0], d[1], d[2], d[3], sys * s->bodies, s->bodies, eps2, d[4], d[5],
                                           d[6], d[7]);
        NB_LAUNCH();
    }
    double *out[4] = {ax, ay, az, phi};
    for (int f = 0; f < 4; ++f)
        NB_CUDA(cudaMemcpy(out[f], d[4 + f], total * sizeof(double), cudaMemcpyDeviceToHost));
    for (int f = 0; f < 8; ++f)
        NB_CUDA(cudaFree(d[f]));
    double sum = 0.0; /* in the bodies' order, as the reference sums */
    for (size_t i = 0; i < total; ++i)
        sum += s->m[i] * phi[i];
    *potential = 0.5 * sum; /* each pair counted from both ends */
    free(phi);
    return NB_EXIT_OK;
}
