/* exchange.h: how the ranks of a bodies split share positions every step (step11_mpi; tests/mpi_exchange.c
 * runs the same code with a CPU force function, so CI tests the real exchange without a GPU).
 *
 * Rank r owns bodies [first[r], first[r] + count[r]) of every system. Its block is those bodies'
 * positions and masses, 4 floats each (x y z m), system after system: systems * count[r] * 4 floats.
 * The exchange hands every rank's block to ops->compute on every rank, once each. */
#ifndef NB_EXCHANGE_H
#define NB_EXCHANGE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the caller does with the blocks. `compute` may return before it is done (a kernel launch);
 * `sync` waits for everything started. `upload` copies a received block from the buffer MPI wrote
 * (host) to the one compute reads (device); NULL when they are the same memory. */
typedef struct nb_xchg_ops {
    void (*compute)(void *ctx, const float *block, int from_rank);
    void (*sync)(void *ctx);
    void (*upload)(void *ctx, float *to, const float *from, size_t bytes);
} nb_xchg_ops;

typedef struct nb_xchg {
    int rank, ranks, systems, allgather;
    int *first, *count;         /* every rank's slice of bodies */
    size_t block_max;           /* floats in the largest block */
    /* Ring: two blocks, the one computed on and the one arriving. Allgather: one of all blocks, and
     * wire[1] = comp[1] = NULL. wire is what MPI reads and writes, comp what compute reads. */
    float *wire[2], *comp[2];
    size_t *offset;             /* allgather: where rank r's block starts in wire[0]/comp[0], floats */
} nb_xchg;

/* Slice n bodies over the ranks (rank r gets n*r/R up to n*(r+1)/R: some get none when n < R) and
 * size the buffers: *floats_per_buffer floats in each of the buffers the caller allocates (two for
 * the ring, one for the allgather). Returns 0, or NB_EXIT_ERROR after one line if a block does not fit
 * in an MPI count. */
int nb_xchg_plan(nb_xchg *x, int n, int systems, int allgather, size_t *floats_per_buffer);
void nb_xchg_free(nb_xchg *x);

/* The caller has put its own block at nb_xchg_own(x, wire/comp): both where MPI reads (wire) and
 * where compute reads (comp), if those differ. Then every block reaches compute once; on return
 * everything is done (sync called). Returns 0, or NB_EXIT_ERROR after one line. */
float *nb_xchg_own(const nb_xchg *x, float *buffer0);
int nb_xchg_step(nb_xchg *x, const nb_xchg_ops *ops, void *ctx);

/* The end of a run: every rank gets the whole state. Rank r owns, of each of `fields` host arrays of
 * rows of n floats, rows [sys_first[r], +sys_count[r]) and in each of them bodies [first[r], +count[r]). */
int nb_xchg_gather_rows(float *const *fields, int nfields, int n, const int *sys_first, const int *sys_count,
                        const int *first, const int *count);

/* 1 if the MPI library takes device pointers (CUDA-aware), 0 if not or unknown (run-time check). */
int nb_xchg_cuda_aware(void);

#ifdef __cplusplus
}
#endif
#endif
