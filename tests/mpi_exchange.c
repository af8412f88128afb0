/* mpi_exchange.c: the exchange of step11_mpi (common/exchange.c) with a CPU force function, run under
 * mpirun -np 1, 2, 3 by tests/mpi-ranks.sh; no GPU needed.
 *
 *   mpi_exchange check           ring and allgather against one process's result (every rank computes
 *                                that itself), over odd N, N smaller than the ranks, several systems;
 *                                every block reaches every rank once; the final gather of the state
 *   mpi_exchange fail RANK       RANK dies through nb_die while the others wait: the job must end
 *   mpi_exchange spin            exchange forever (the test kills one rank with SIGKILL)
 *   mpi_exchange pingpong        ranks 0 and 1: one-way time per message size (latency, bandwidth), CSV
 * Prints "ok ..." / "not ok ..." lines on rank 0; exit status 0 only if all passed. */
#define _POSIX_C_SOURCE 200809L
#include "comm.h"
#include "exchange.h"
#include "nbody.h"
#include "util.h"

#include <math.h>
#include <stdarg.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct cpu_ctx {
    const nb_xchg *plan;
    int n, systems;
    const float *x, *y, *z;  /* this rank's bodies, systems rows of own_count */
    double *ax, *ay, *az;    /* their accelerations, summed over blocks */
    int *seen;               /* blocks computed, per source rank */
} cpu_ctx;

static void cpu_compute(void *p, const float *block, int from)
{
    cpu_ctx *c = (cpu_ctx *)p;
    const int own = c->plan->count[c->plan->rank], count = c->plan->count[from];
    c->seen[from]++;
    for (int s = 0; s < c->systems; ++s)
        for (int i = 0; i < own; ++i) {
            const size_t k = (size_t)s * own + i;
            for (int j = 0; j < count; ++j) {
                const float *b = block + ((size_t)s * count + j) * 4;
                const double dx = b[0] - c->x[k], dy = b[1] - c->y[k], dz = b[2] - c->z[k];
                const double d2 = dx * dx + dy * dy + dz * dz + 1e-4;
                const double f = b[3] / (d2 * sqrt(d2));
                c->ax[k] += dx * f;
                c->ay[k] += dy * f;
                c->az[k] += dz * f;
            }
        }
}
static void cpu_sync(void *p) { (void)p; }
/* Host "staging": MPI's buffer and compute's differ, as with a GPU that is not CUDA-aware. */
static void cpu_upload(void *p, float *to, const float *from, size_t bytes)
{
    (void)p;
    memcpy(to, from, bytes);
}

static int rank, ranks, failures;

static void verdict(int ok, const char *fmt, ...)
{
    int all = ok;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        printf("%s ", all ? "ok" : "not ok");
        vprintf(fmt, ap);
        printf(" (%d ranks)\n", ranks);
        va_end(ap);
    }
    failures += !all;
}

/* Three kick-drift steps of S systems of n bodies, the positions shared by the exchange; returns the
 * largest relative difference from the same steps in one process, and whether the blocks came once. */
static double run_case(int n, int systems, int allgather, int staged, int *blocks_once)
{
    const size_t total = (size_t)n * systems;
    float *f[6], *ref[6];
    for (int k = 0; k < 6; ++k) {
        f[k] = (float *)calloc(total ? total : 1, sizeof(float));
        ref[k] = (float *)calloc(total ? total : 1, sizeof(float));
    }
    float *m = (float *)calloc(total ? total : 1, sizeof(float));
    for (size_t i = 0; i < total; ++i) { /* the same bodies on every rank */
        f[0][i] = (float)sin(1.0 + 3.1 * i);
        f[1][i] = (float)cos(2.0 + 1.7 * i);
        f[2][i] = (float)sin(0.5 + 0.9 * i);
        m[i] = 1.0f / (float)n * (float)(1.0 + 0.5 * sin(7.0 * i));
    }
    for (int k = 0; k < 6; ++k)
        memcpy(ref[k], f[k], total * sizeof(float));
    const float dt = 1e-3f;

    /* One process: every body against every body of its system. */
    for (int step = 0; step < 3; ++step) {
        double *a = (double *)calloc(3 * (total ? total : 1), sizeof(double));
        for (int s = 0; s < systems; ++s)
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) {
                    const size_t ki = (size_t)s * n + i, kj = (size_t)s * n + j;
                    const double dx = ref[0][kj] - ref[0][ki], dy = ref[1][kj] - ref[1][ki], dz = ref[2][kj] - ref[2][ki];
                    const double d2 = dx * dx + dy * dy + dz * dz + 1e-4, g = m[kj] / (d2 * sqrt(d2));
                    a[3 * ki] += dx * g, a[3 * ki + 1] += dy * g, a[3 * ki + 2] += dz * g;
                }
        for (size_t i = 0; i < total; ++i)
            for (int d = 0; d < 3; ++d) {
                ref[3 + d][i] += (float)a[3 * i + d] * dt;
                ref[d][i] += ref[3 + d][i] * dt;
            }
        free(a);
    }

    /* The ranks: each keeps its slice, the blocks travel. */
    nb_xchg plan;
    size_t floats = 0;
    if (nb_xchg_plan(&plan, n, systems, allgather, &floats) != NB_EXIT_OK)
        nb_die(NB_EXIT_ERROR, "nb_xchg_plan failed");
    const int own = plan.count[rank], first = plan.first[rank];
    const size_t mine = (size_t)systems * own;
    float *x[3];
    for (int d = 0; d < 3; ++d)
        x[d] = (float *)calloc(mine ? mine : 1, sizeof(float));
    float *v[3];
    for (int d = 0; d < 3; ++d)
        v[d] = (float *)calloc(mine ? mine : 1, sizeof(float));
    for (int s = 0; s < systems; ++s)
        for (int i = 0; i < own; ++i)
            for (int d = 0; d < 3; ++d)
                x[d][(size_t)s * own + i] = f[d][(size_t)s * n + first + i];
    float *buf[2][2];
    for (int b = 0; b < 2; ++b) {
        buf[b][0] = (float *)calloc(floats ? floats : 1, sizeof(float));
        buf[b][1] = staged ? (float *)calloc(floats ? floats : 1, sizeof(float)) : buf[b][0];
        plan.wire[b] = buf[b][0];
        plan.comp[b] = buf[b][1];
    }
    if (allgather)
        plan.wire[1] = plan.comp[1] = NULL;
    cpu_ctx c = {&plan, n, systems, x[0], x[1], x[2], NULL, NULL, NULL, NULL};
    c.ax = (double *)calloc(mine ? mine : 1, sizeof(double));
    c.ay = (double *)calloc(mine ? mine : 1, sizeof(double));
    c.az = (double *)calloc(mine ? mine : 1, sizeof(double));
    c.seen = (int *)calloc((size_t)ranks, sizeof(int));
    const nb_xchg_ops ops = {cpu_compute, cpu_sync, staged ? cpu_upload : NULL};
    *blocks_once = 1;
    for (int step = 0; step < 3; ++step) {
        memset(c.seen, 0, (size_t)ranks * sizeof(int));
        memset(c.ax, 0, (mine ? mine : 1) * sizeof(double));
        memset(c.ay, 0, (mine ? mine : 1) * sizeof(double));
        memset(c.az, 0, (mine ? mine : 1) * sizeof(double));
        for (int w = 0; w < 2; ++w) { /* the own block where MPI reads it and where compute reads it */
            float *to = nb_xchg_own(&plan, w ? plan.comp[0] : plan.wire[0]);
            for (size_t k = 0; k < mine; ++k) {
                to[4 * k] = x[0][k], to[4 * k + 1] = x[1][k], to[4 * k + 2] = x[2][k];
                to[4 * k + 3] = m[(k / (own ? own : 1)) * n + first + k % (own ? own : 1)];
            }
        }
        if (nb_xchg_step(&plan, &ops, &c) != NB_EXIT_OK)
            nb_die(NB_EXIT_ERROR, "nb_xchg_step failed");
        for (int r = 0; r < ranks; ++r)
            *blocks_once &= c.seen[r] == (plan.count[r] > 0 ? 1 : 0);
        for (size_t k = 0; k < mine; ++k) {
            const double a[3] = {c.ax[k], c.ay[k], c.az[k]};
            for (int d = 0; d < 3; ++d) {
                v[d][k] += (float)a[d] * dt;
                x[d][k] += v[d][k] * dt;
            }
        }
    }
    /* Back into full arrays, then the gather the step ends with. */
    for (int s = 0; s < systems; ++s)
        for (int i = 0; i < own; ++i)
            for (int d = 0; d < 3; ++d) {
                f[d][(size_t)s * n + first + i] = x[d][(size_t)s * own + i];
                f[3 + d][(size_t)s * n + first + i] = v[d][(size_t)s * own + i];
            }
    int *rows = (int *)calloc((size_t)ranks * 4, sizeof(int));
    for (int r = 0; r < ranks; ++r)
        rows[r] = 0, rows[ranks + r] = systems, rows[2 * ranks + r] = plan.first[r], rows[3 * ranks + r] = plan.count[r];
    if (nb_xchg_gather_rows(f, 6, n, rows, rows + ranks, rows + 2 * ranks, rows + 3 * ranks) != NB_EXIT_OK)
        nb_die(NB_EXIT_ERROR, "nb_xchg_gather_rows failed");
    double worst = 0.0;
    for (int k = 0; k < 6; ++k)
        for (size_t i = 0; i < total; ++i) {
            const double err = fabs((double)f[k][i] - ref[k][i]) / (fabs(ref[k][i]) + 1e-3);
            worst = !(err <= worst) ? err : worst; /* NaN wins */
        }
    for (int k = 0; k < 6; ++k)
        free(f[k]), free(ref[k]);
    for (int d = 0; d < 3; ++d)
        free(x[d]), free(v[d]);
    for (int b = 0; b < 2; ++b) {
        if (buf[b][1] != buf[b][0])
            free(buf[b][1]);
        free(buf[b][0]);
    }
    free(m), free(c.ax), free(c.ay), free(c.az), free(c.seen), free(rows);
    nb_xchg_free(&plan);
    return worst;
}

/* Systems split: rank r owns whole rows; after the gather every rank has every row. */
static int gather_systems(int n, int systems)
{
    float *f[2];
    for (int k = 0; k < 2; ++k)
        f[k] = (float *)calloc((size_t)n * systems, sizeof(float));
    int *rows = (int *)calloc((size_t)ranks * 4, sizeof(int));
    for (int r = 0; r < ranks; ++r) {
        rows[r] = systems * r / ranks;
        rows[ranks + r] = systems * (r + 1) / ranks - rows[r];
        rows[2 * ranks + r] = 0;
        rows[3 * ranks + r] = rows[ranks + r] ? n : 0;
    }
    for (int s = rows[rank]; s < rows[rank] + rows[ranks + rank]; ++s)
        for (int i = 0; i < n; ++i)
            f[0][(size_t)s * n + i] = (float)(s * 1000 + i), f[1][(size_t)s * n + i] = (float)-(s * 1000 + i);
    int ok = nb_xchg_gather_rows(f, 2, n, rows, rows + ranks, rows + 2 * ranks, rows + 3 * ranks) == NB_EXIT_OK;
    for (int s = 0; s < systems; ++s)
        for (int i = 0; i < n; ++i)
            ok &= f[0][(size_t)s * n + i] == (float)(s * 1000 + i) && f[1][(size_t)s * n + i] == (float)-(s * 1000 + i);
    free(f[0]), free(f[1]), free(rows);
    return ok;
}

static void check(void)
{
    static const int shapes[][2] = {{1, 1}, {2, 1}, {7, 1}, {257, 1}, {31, 3}, {64, 2}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
        for (int mode = 0; mode < 4; ++mode) {
            const int n = shapes[k][0], systems = shapes[k][1], allgather = mode & 1, staged = mode >> 1;
            int once = 0;
            const double worst = run_case(n, systems, allgather, staged, &once);
            /* The sums run in another order than one process's: fp32 rounding of the state, no more. */
            verdict(worst <= 1e-5 && once, "%s%s N=%d S=%d: every block once, worst relative difference %.1e",
                    allgather ? "allgather" : "ring", staged ? " staged" : "", n, systems, worst);
        }
    verdict(gather_systems(5, 1), "gather of whole systems, 1 system");
    verdict(gather_systems(3, 7), "gather of whole systems, 7 systems");
}

static void pingpong(void)
{
    if (ranks < 2)
        nb_die(NB_EXIT_ERROR, "pingpong needs 2 ranks");
    const size_t top = (size_t)64 << 20;
    char *buf = (char *)calloc(top, 1);
    if (rank == 0)
        printf("bytes,one_way_us,gbytes_s\n");
    for (size_t bytes = 8; bytes <= top; bytes *= 4) {
        const int reps = bytes <= 65536 ? 2000 : 20;
        double t = 0.0;
        for (int warm = 0; warm < 2; ++warm) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            for (int r = 0; r < reps && rank < 2; ++r) {
                if (rank == 0) {
                    MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                    MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
                }
            }
            t = (MPI_Wtime() - t0) / reps / 2;
        }
        if (rank == 0)
            printf("%zu,%.3f,%.3f\n", bytes, 1e6 * t, bytes / t * 1e-9);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    nb_set_progname("mpi_exchange");
    if (nb_comm_init(&argc, &argv) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    rank = nb_comm_rank();
    ranks = nb_comm_size();
    const char *what = argc > 1 ? argv[1] : "check";
    if (!strcmp(what, "check")) {
        check();
    } else if (!strcmp(what, "fail") && argc > 2) {
        if (rank == atoi(argv[2]))
            nb_die(NB_EXIT_ERROR, "rank %d fails on purpose (tests/mpi-ranks.sh)", rank);
        MPI_Barrier(MPI_COMM_WORLD); /* the others wait here for a rank that never comes */
    } else if (!strcmp(what, "spin")) {
        fprintf(stderr, "rank %d pid %ld\n", rank, (long)getpid()); /* for the test that kills one */
        fflush(stderr);
        for (;;) {
            int once = 0;
            run_case(64, 1, 0, 0, &once);
        }
    } else if (!strcmp(what, "pingpong")) {
        pingpong();
    } else {
        nb_error("usage: mpi_exchange check | fail RANK | spin | pingpong");
        return nb_comm_finalize(NB_EXIT_ERROR);
    }
    return nb_comm_finalize(failures ? NB_EXIT_MISMATCH : NB_EXIT_OK);
}
