/* comm.h: the processes of one run. A plain step is one process (comm_single.c, in libnbody.a); a step
 * launched through mpirun (steps.list, column launch mpi:R) links comm_mpi.c before libnbody.a, whose
 * definitions then win. Every rank runs the same main and makes the same initial conditions; rank 0
 * alone prints to stdout and writes files (--output, --csv, snapshots, the reference cache). */
#ifndef NB_COMM_H
#define NB_COMM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Start (MPI_Init), and silence stdout on every rank but 0. Returns 0 or NB_EXIT_ERROR. */
int nb_comm_init(int *argc, char ***argv);
int nb_comm_rank(void);   /* 0 for a single process */
int nb_comm_size(void);   /* 1 for a single process */
/* Rank 0's `len` bytes at `buf` on every rank (the worker's requests). 0, or -1 after one line. */
int nb_comm_bcast(void *buf, size_t len);
/* The largest of every rank's `value` (the slowest rank's time). */
double nb_comm_max(double value);
/* End the run with status `code`: 0 ends every rank normally; anything else, on more than one rank,
 * takes the whole job down (MPI_Abort), since the others may be waiting on this one. Returns `code`. */
int nb_comm_finalize(int code);
/* End the run with status `code` on every rank, all of which agreed to stop (no abort, no banner). */
int nb_comm_finalize_together(int code);
/* Exit now with `code`; under MPI the whole job goes down (nb_die and NB_CUDA end here). */
#ifdef __cplusplus
[[noreturn]] void nb_comm_abort(int code);
#else
_Noreturn void nb_comm_abort(int code);
#endif

#ifdef __cplusplus
}
#endif
#endif
