/* variant.h: one problem, presented in several exact ways. Every timed repeat after the first runs on a
 * variant of the initial state: each system's bodies rotated in order, the axes turned and mirrored.
 * These are exact in float (moves and sign flips), the physics maps onto itself, and the harness maps
 * the final state back before checking it: a step that remembers an earlier run's answer, or knows
 * which run is timed, gains nothing. Repeat 0 is the identity (the state as it was made or read). */
#ifndef NB_VARIANT_H
#define NB_VARIANT_H

#include "nbody.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nb_variant {
    size_t shift;   /* body i of a system goes to place (i + shift) mod N */
    int axis[3];    /* new axis d is old axis axis[d] ... */
    int flip[3];    /* ... negated where flip[d] */
} nb_variant;

/* Variant k of a problem of N bodies per system (k = 0: the identity). */
void nb_variant_pick(nb_variant *v, uint64_t k, size_t bodies);
/* A variant drawn at random (the kernel's random numbers), never the identity where N > 1 or an axis
 * can turn: the judge's, unknown to a worker until it gets its input. */
void nb_variant_draw(nb_variant *v, size_t bodies);
int nb_variant_is_identity(const nb_variant *v);
/* dst = the variant of src; nb_variant_undo: src is a variant's state, dst the original's. The same
 * shape, not the same arrays; step and time are copied. */
void nb_variant_apply(const nb_variant *v, const nb_state *src, nb_state *dst);
void nb_variant_undo(const nb_variant *v, const nb_state *src, nb_state *dst);

#ifdef __cplusplus
}
#endif
#endif
