/* refcache.h: the fp64 reference of one problem, computed or taken from a cache folder. The cache is a
 * speed-up only: a file is used if the reference wrote it for exactly this input (the SHA-256 of the
 * initial state, S, N, eps^2, dt and the step count name it; a binding beside it, PATH.key, holds the
 * hash of that key and of the file's CRC-32), and anything else is said once and recomputed. */
#ifndef NB_REFCACHE_H
#define NB_REFCACHE_H

#include <stdint.h>

#include "nbody.h"
#include "reference.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a reference depends on. */
typedef struct nb_problem {
    const nb_state *initial;
    const char *sha;      /* SHA-256 of the initial state, hex */
    double eps2;          /* fp64 softening squared */
    const char *cache;    /* the cache folder, or NULL */
} nb_problem;

/* Accelerations of every body, in the vx/vy/vz arrays of an fp64 state (allocated here). 0 or
 * NB_EXIT_ERROR. */
int nb_reference_accel_all(const nb_problem *p, nb_state64 *ref);
/* The state after `steps` steps of dt, allocated here; `from`, if not NULL, is the same run's state
 * after from_steps <= steps, to go on from. 0 or NB_EXIT_ERROR. */
int nb_reference_state(const nb_problem *p, uint64_t steps, double dt, const nb_state64 *from, uint64_t from_steps,
                       nb_state64 *ref);

#ifdef __cplusplus
}
#endif
#endif
