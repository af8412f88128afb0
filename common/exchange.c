/* exchange.c: the ring and the allgather of exchange.h, over MPI_COMM_WORLD. */
#include "exchange.h"
#include "nbody.h"
#include "util.h"

#include <limits.h>
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#include <stdlib.h>
#include <string.h>

int nb_xchg_cuda_aware(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1; /* built with CUDA and running with it */
#else
    return 0;
#endif
}

int nb_xchg_plan(nb_xchg *x, int n, int systems, int allgather, size_t *floats_per_buffer)
{
    memset(x, 0, sizeof *x);
    MPI_Comm_rank(MPI_COMM_WORLD, &x->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &x->ranks);
    x->systems = systems;
    x->allgather = allgather;
    x->first = (int *)nb_malloc((size_t)x->ranks * sizeof(int), "the exchange plan");
    x->count = (int *)nb_malloc((size_t)x->ranks * sizeof(int), "the exchange plan");
    x->offset = (size_t *)nb_malloc((size_t)x->ranks * sizeof(size_t), "the exchange plan");
    if (!x->first || !x->count || !x->offset)
        return NB_EXIT_ERROR;
    size_t total = 0;
    for (int r = 0; r < x->ranks; ++r) {
        x->first[r] = (int)((long long)n * r / x->ranks);
        x->count[r] = (int)((long long)n * (r + 1) / x->ranks) - x->first[r];
        const size_t floats = (size_t)systems * (size_t)x->count[r] * 4;
        x->offset[r] = total;
        total += floats;
        if (floats > x->block_max)
            x->block_max = floats;
    }
    /* MPI counts are ints: the allgather counts its displacements in floats too. */
    if ((allgather ? total : x->block_max) > INT_MAX) {
        nb_error("%d systems of %d bodies: a block of positions is more than MPI's %d floats per message; use more ranks",
                 systems, n, INT_MAX);
        return NB_EXIT_ERROR;
    }
    *floats_per_buffer = allgather ? total : x->block_max;
    return NB_EXIT_OK;
}

void nb_xchg_free(nb_xchg *x)
{
    free(x->first);
    free(x->count);
    free(x->offset);
    memset(x, 0, sizeof *x);
}

float *nb_xchg_own(const nb_xchg *x, float *buffer0)
{
    return x->allgather ? buffer0 + x->offset[x->rank] : buffer0;
}

static int mpi_ok(int err, const char *what)
{
    if (err == MPI_SUCCESS)
        return 1;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, text, &len);
    nb_error("%s failed: %s", what, text);
    return 0;
}

/* The ring: at turn k, rank r computes on the block of rank r-k while it sends that block to r+1
 * and receives r-k-1's from r-1. After R turns every block has visited every rank. */
static int ring(nb_xchg *x, const nb_xchg_ops *ops, void *ctx)
{
    const int right = (x->rank + 1) % x->ranks, left = (x->rank + x->ranks - 1) % x->ranks;
    const int staged = x->wire[0] != x->comp[0];
    int cur = 0;
    for (int k = 0; k < x->ranks; ++k) {
        const int from = (x->rank - k + 2 * x->ranks) % x->ranks, next = (from + x->ranks - 1) % x->ranks;
        /* Turn k-1's compute read comp[!cur] (and, with device pointers, wire[!cur]): it is overwritten now. */
        ops->sync(ctx);
        MPI_Request req[2];
        int nreq = 0;
        if (k + 1 < x->ranks) {
            const int in = (int)((size_t)x->systems * x->count[next] * 4);
            const int out = (int)((size_t)x->systems * x->count[from] * 4);
            if (!mpi_ok(MPI_Irecv(x->wire[!cur], in, MPI_FLOAT, left, k, MPI_COMM_WORLD, &req[nreq++]), "MPI_Irecv") ||
                !mpi_ok(MPI_Isend(x->wire[cur], out, MPI_FLOAT, right, k, MPI_COMM_WORLD, &req[nreq++]), "MPI_Isend"))
                return NB_EXIT_ERROR;
        }
        if (x->count[from] > 0)
            ops->compute(ctx, x->comp[cur], from);
        if (nreq && !mpi_ok(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE), "MPI_Waitall (ring)"))
            return NB_EXIT_ERROR;
        if (nreq && staged)
            ops->upload(ctx, x->comp[!cur], x->wire[!cur], (size_t)x->systems * x->count[next] * 4 * sizeof(float));
        cur = !cur;
    }
    ops->sync(ctx);
    return NB_EXIT_OK;
}

/* The allgather: every block to everyone in one collective, then the computes one after another. */
static int allgather(nb_xchg *x, const nb_xchg_ops *ops, void *ctx)
{
    int *counts = (int *)nb_malloc((size_t)x->ranks * 2 * sizeof(int), "the allgather counts");
    if (!counts)
        return NB_EXIT_ERROR;
    int *displs = counts + x->ranks;
    for (int r = 0; r < x->ranks; ++r) {
        counts[r] = (int)((size_t)x->systems * x->count[r] * 4);
        displs[r] = (int)x->offset[r];
    }
    const int ok = mpi_ok(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, x->wire[0], counts, displs, MPI_FLOAT,
                                         MPI_COMM_WORLD), "MPI_Allgatherv");
    free(counts);
    if (!ok)
        return NB_EXIT_ERROR;
    if (x->wire[0] != x->comp[0]) /* the whole buffer; this rank's own block goes up again, harmlessly */
        ops->upload(ctx, x->comp[0], x->wire[0], x->offset[x->ranks - 1] * sizeof(float) +
                                                     (size_t)x->systems * x->count[x->ranks - 1] * 4 * sizeof(float));
    for (int r = 0; r < x->ranks; ++r)
        if (x->count[r] > 0)
            ops->compute(ctx, x->comp[0] + x->offset[r], r);
    ops->sync(ctx);
    return NB_EXIT_OK;
}

int nb_xchg_step(nb_xchg *x, const nb_xchg_ops *ops, void *ctx)
{
    return x->allgather ? allgather(x, ops, ctx) : ring(x, ops, ctx);
}

int nb_xchg_gather_rows(float *const *fields, int nfields, int n, const int *sys_first, const int *sys_count,
                        const int *first, const int *count)
{
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int *counts = (int *)nb_malloc((size_t)ranks * 2 * sizeof(int), "the gather counts");
    if (!counts)
        return NB_EXIT_ERROR;
    int *displs = counts + ranks;
    size_t total = 0;
    for (int r = 0; r < ranks; ++r) {
        const size_t floats = (size_t)nfields * sys_count[r] * count[r];
        if (total + floats > INT_MAX) {
            free(counts);
            nb_error("the final state is more than MPI's %d floats in one gather; use fewer bodies", INT_MAX);
            return NB_EXIT_ERROR;
        }
        counts[r] = (int)floats;
        displs[r] = (int)total;
        total += floats;
    }
    float *all = (float *)nb_malloc((total ? total : 1) * sizeof(float), "the gathered state");
    if (!all) {
        free(counts);
        return NB_EXIT_ERROR;
    }
    float *mine = all + displs[rank];
    for (int f = 0; f < nfields; ++f) /* pack: field, system, body */
        for (int s = 0; s < sys_count[rank]; ++s)
            memcpy(mine + ((size_t)f * sys_count[rank] + s) * count[rank],
                   fields[f] + (size_t)(sys_first[rank] + s) * n + first[rank], (size_t)count[rank] * sizeof(float));
    const int ok = mpi_ok(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, counts, displs, MPI_FLOAT,
                                         MPI_COMM_WORLD), "MPI_Allgatherv (final state)");
    for (int r = 0; ok && r < ranks; ++r) {
        const float *theirs = all + displs[r];
        for (int f = 0; f < nfields; ++f)
            for (int s = 0; s < sys_count[r]; ++s)
                memcpy(fields[f] + (size_t)(sys_first[r] + s) * n + first[r],
                       theirs + ((size_t)f * sys_count[r] + s) * count[r], (size_t)count[r] * sizeof(float));
    }
    free(all);
    free(counts);
    return ok ? NB_EXIT_OK : NB_EXIT_ERROR;
}
