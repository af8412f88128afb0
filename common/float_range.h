/* float_range.h: inputs and references refused because float32 cannot hold them (one line, then
 * NB_EXIT_ERROR), so that a correct step is never blamed for float32's range. */
#ifndef NB_FLOAT_RANGE_H
#define NB_FLOAT_RANGE_H

#include <float.h>
#include <stddef.h>

#include "nbody.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What float32 must hold with room to spare: the largest term a step forms is m / eps^3 (the j = i term
 * before it is multiplied by 0), a body's acceleration is at most about M / eps^2. */
#define NB_FLOAT_ROOM (FLT_MAX / 16.0)

/* With eps = 0, two bodies of one system at one place (an infinite force). */
int nb_refuse_coincident(const nb_state *s);
/* Masses below float32's normal range, m/eps^3 or M/eps^2 beyond the room, systems too wide. */
int nb_refuse_out_of_float_range(const nb_state *s, float eps2);
/* A reference value beyond the room: v[k][j] for fields k, index[j] its body (NULL: the j-th); `what`
 * names it ("acceleration", "state after 10 steps"). */
int nb_refuse_reference_out_of_range(const double *const v[], int fields, const size_t *index, size_t count,
                                     const char *what, size_t bodies);
/* Reference accelerations so small that float32 loses their digits (a system's rms under 2^24 FLT_MIN). */
int nb_refuse_reference_too_small(const double *const a[3], const size_t *index, size_t count, size_t bodies,
                                  size_t systems);

#ifdef __cplusplus
}
#endif
#endif
