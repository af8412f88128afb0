/* device.h: what the GPU steps share. Checked CUDA calls and launches, the device's shape, and the
 * array-of-structures body layout of steps 02-05. Included by .cu files only. */
#ifndef NB_DEVICE_H
#define NB_DEVICE_H

#include <cuda_runtime.h>

#include "nbody.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every CUDA call goes through NB_CUDA, every launch is followed by NB_LAUNCH(): on error, one line
 * naming the file, the line and the call, then exit status 2. */
#define NB_CUDA(call) nb_cuda_check((call), #call, __FILE__, __LINE__)
#define NB_LAUNCH() nb_cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
void nb_cuda_check(cudaError_t err, const char *what, const char *file, int line);

/* Multiprocessors of the current device. */
int nbd_sm_count(void);
/* cudaMalloc that names what did not fit (exit status 2). */
void *nbd_malloc(size_t bytes, const char *what);
/* cudaMallocHost (pinned) likewise. */
void *nbd_malloc_host(size_t bytes, const char *what);

/* One body, as a first GPU program would store it: steps 02-05 keep an array of these. */
typedef struct nb_body {
    float x, y, z;
    float vx, vy, vz;
    float m;
} nb_body;

/* Host-side conversion between the harness's arrays and nb_body. */
void nb_pack_bodies(const nb_state *s, nb_body *out);
void nb_unpack_bodies(const nb_body *in, nb_state *s);

/* Copy the state to a new device array of nb_body, and back (then free it). */
nb_body *nbd_bodies_upload(const nb_state *s);
void nbd_bodies_download(nb_body *bodies, nb_state *s);

/* The same state as seven device arrays (step06 on): structure of arrays. */
typedef struct nbd_soa {
    float *x, *y, *z, *vx, *vy, *vz, *m;
} nbd_soa;
void nbd_soa_upload(const nb_state *s, nbd_soa *d);
void nbd_soa_download(nbd_soa *d, nb_state *s); /* copies back, then frees */

/* Grid rows for S systems: gridDim.y is at most 65535, so kernels stride over systems by gridDim.y. */
unsigned nbd_system_rows(size_t systems);

/* Blocks of `kernel` (launched with `block` threads and `shared` bytes of dynamic shared memory) that
 * the whole device holds at once: one wave. */
int nbd_resident(const void *kernel, int block, size_t shared);

/* Into how many slices to cut each body's j-range (`tiles` tiles long) so that the grid gives NBD_WAVES
 * waves of resident blocks of `kernel` (launched with `block` threads and `shared` bytes of dynamic
 * shared memory). The grid is `row_blocks` blocks (the i-tiles of one system) times `systems` (the real
 * S) times the slices. Many short blocks keep every multiprocessor busy to the end, where one wave of
 * long ones leaves a tail (measured: step03_tiling/README.md, report/explore/README.md). At least 1, at
 * most `tiles`, and never an empty slice: with tiles_per_slice = ceil(tiles / slices), the last slice
 * may be shorter than the others.
 * The environment variable NB_SLICES=K asks for K instead (tests, sweeps). */
#define NBD_WAVES 12
int nbd_slices(const void *kernel, int block, size_t shared, size_t row_blocks, size_t systems, int tiles);

#ifdef __cplusplus
}
#endif
#endif
