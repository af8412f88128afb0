/* comm_mpi.c: comm.h over MPI, linked ahead of libnbody.a by the steps registered with launch mpi:R. */
#include "comm.h"
#include "nbody.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size = 1, started;

int nb_comm_init(int *argc, char ***argv)
{
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Init failed (is this run under mpirun?)\n");
        return NB_EXIT_ERROR;
    }
    started = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Errors on any rank still reach stderr; the report is rank 0's alone. */
    if (rank != 0 && !freopen("/dev/null", "w", stdout))
        return NB_EXIT_ERROR;
    return 0;
}

int nb_comm_rank(void) { return rank; }

int nb_comm_size(void) { return size; }

int nb_comm_bcast(void *buf, size_t len)
{
    if (!started || size == 1)
        return 0;
    for (size_t done = 0; done < len;) { /* MPI counts in int */
        const size_t part = len - done < (1u << 30) ? len - done : (1u << 30);
        if (MPI_Bcast((char *)buf + done, (int)part, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
            fprintf(stderr, "MPI_Bcast failed\n");
            return -1;
        }
        done += part;
    }
    return 0;
}

double nb_comm_max(double value)
{
    double out = value;
    if (started && MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        nb_comm_abort(NB_EXIT_ERROR);
    return out;
}

int nb_comm_finalize(int code)
{
    if (code != 0 && size > 1)
        nb_comm_abort(code);
    if (started)
        MPI_Finalize();
    started = 0;
    return code;
}

int nb_comm_finalize_together(int code)
{
    if (started)
        MPI_Finalize();
    started = 0;
    return code;
}

_Noreturn void nb_comm_abort(int code)
{
    fflush(stdout);
    fflush(stderr);
    /* Alone (run without mpirun, or -np 1) nobody waits for this rank: end quietly with its own line. */
    if (started && size > 1)
        MPI_Abort(MPI_COMM_WORLD, code); /* mpirun ends every rank and exits non-zero */
    if (started)
        MPI_Finalize();
    exit(code);
}
