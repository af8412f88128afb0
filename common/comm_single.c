/* comm_single.c: comm.h for the steps that run as one process. Steps launched through mpirun link
 * comm_mpi.c ahead of libnbody.a, so this file is not taken from the archive for them. */
#include "comm.h"

#include <stdlib.h>

int nb_comm_init(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    return 0;
}

int nb_comm_rank(void) { return 0; }

int nb_comm_size(void) { return 1; }

int nb_comm_bcast(void *buf, size_t len)
{
    (void)buf, (void)len;
    return 0;
}

double nb_comm_max(double value) { return value; }

int nb_comm_finalize(int code) { return code; }

int nb_comm_finalize_together(int code) { return code; }

_Noreturn void nb_comm_abort(int code) { exit(code); }
