/* reference.h: the fp64 reference every step is validated against, and fp64 diagnostics. */
#ifndef NB_REFERENCE_H
#define NB_REFERENCE_H

#include "nbody.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The same layout as nb_state, in double precision. */
typedef struct nb_state64 {
    size_t systems, bodies;
    double *x, *y, *z, *vx, *vy, *vz, *m;
    uint64_t step;
    double time;
} nb_state64;

int nb_state64_alloc(nb_state64 *s, size_t systems, size_t bodies);
void nb_state64_free(nb_state64 *s);
double *nb_state64_field(const nb_state64 *s, int k);
/* Widen a float state (exactly) into an allocated nb_state64 of the same shape. */
void nb_state64_from(nb_state64 *dst, const nb_state *src);
/* dst = src, both allocated, of the same shape. */
void nb_state64_copy(nb_state64 *dst, const nb_state64 *src);

/* Accelerations of the bodies listed in `index` (all S*N bodies if index is NULL; then count is
 * ignored), into ax/ay/az[k] for the k-th listed body. j = i is skipped, so eps2 = 0 is allowed.
 * Parallel over bodies with OpenMP; each body's sum runs in j order, so the result does not depend
 * on the number of threads. */
void nb_ref_accel(const nb_state64 *s, double eps2, const size_t *index, size_t count,
                  double *ax, double *ay, double *az);

/* Every body's fp64 acceleration (as nb_ref_accel) and, from the same pair sums, the system's potential
 * energy (as nb_diagnostics', summed in another order). Returns 0, or NB_EXIT_ERROR after one line (no memory). */
int nb_ref_accel_potential(const nb_state64 *s, double eps2, double *ax, double *ay, double *az, double *potential);

/* Every body kicked by its fp64 acceleration where it is: v += a(x) h. h = dt/2 brings the contract's
 * v(t - dt/2) to v(t) (diagnostics at the positions' time); h = -dt/2 sets v(t) half a step back. Returns 0,
 * or NB_EXIT_ERROR after one line (no memory). */
int nb_ref_kick(nb_state64 *s, double eps2, double h);
/* The same kick by accelerations already at hand (acc: x, y, z blocks of every body). */
void nb_ref_kick_by(nb_state64 *s, const double *acc, double h);

/* `steps` kick-drift steps in fp64 (the physics contract of nbody.h). Returns 0 or NB_EXIT_ERROR. */
int nb_ref_run(nb_state64 *s, uint64_t steps, double dt, double eps2);

/* What sets a body's step in nb_ref_run_blocks: the smallest k with (dt_max / 2^k)^2 q <= eta^2 B, where
 *   NB_CRITERION_ACCEL: q = |a|, B = eps (step13's: dt <= eta sqrt(eps / |a|), GADGET-2's);
 *   NB_CRITERION_TIDAL: q = |T|, the Frobenius norm of the softened tidal tensor T = da/dx, B = 1
 *                       (dt <= eta / sqrt(|T|): Grudic & Hopkins 2020, a dynamical time);
 *   NB_CRITERION_SUM:   q = the sum over the other bodies of m / (r^2 + eps^2)^(3/2), B = 1 (T's terms
 *                       summed without their cancellation: |T| / sqrt(6) about one dominant mass; a tree
 *                       walk has each term already, as its force's factor).
 * Only the acceleration's is a step of the lab; the others are report/explore/hole-steps.c's. */
typedef enum nb_criterion { NB_CRITERION_ACCEL = 0, NB_CRITERION_TIDAL, NB_CRITERION_SUM } nb_criterion;

/* Block time steps (step13_block_steps/README.md), the scheme step13 runs, in fp64. Each of `steps` steps
 * of dt_max: forces for all; each body's level, the smallest k <= levels - 1 with (dt_max / 2^k)^2 |a| <=
 * eta^2 eps (or another criterion: nb_criterion); 2^K substeps of dt_max / 2^K (K the deepest level in
 * use), at each: a new force for the bodies whose step starts there, the level of its force if that is
 * finer (at most K), and the kick: half the old step plus half the new (at substep 0, every body, old the
 * last dt_max step's); then every body drifts. At the end, the bodies off level 0 take one more force and
 * the kick (their step - dt_max) / 2, back to half a dt_max behind. levels = 1 is nb_ref_run, kick for
 * kick. */
/* A replacement for nb_ref_run_blocks' forces at a substep after the first (explorations of other force
 * schemes, report/explore/hole-steps.c): the accelerations of the `count` bodies `active` lists into
 * ax, ay, az, from the state at substep `sub` of 2^deepest and the levels `level`; 0 if it did not (the
 * exact forces are then taken). NULL in every check: the reference's forces are exact. */
typedef int (*nb_substep_forces)(void *ctx, const nb_state64 *s, int sub, int deepest, const int *level,
                                 const size_t *active, size_t count, double *ax, double *ay, double *az);

typedef struct nb_block_params {
    unsigned levels;          /* L >= 1: levels 0 ... L - 1 */
    double eta, eps;          /* the criterion's constants: eps is the softening length, sqrt(eps2) */
    int level_shift;          /* 0; -1 puts every body one level too coarse (the check's own test) */
    double margin;            /* a body whose criterion lies within this (in log4 of dt_max^2 q / eta^2 B)
                                 of a level's boundary is marked in `boundary` */
    int pin_first;            /* 0; else each system's first body (--model hernquist-bh's hole) goes on the
                                 deepest level in use at every step (report/explore/hole-steps.c) */
    nb_criterion criterion;   /* what sets a body's step (0: step13's, the acceleration) */
    nb_substep_forces forces; /* NULL; else the forces of a substep after the first (acceleration criterion) */
    void *forces_ctx;         /* its first argument */
} nb_block_params;

typedef struct nb_block_stats {
    unsigned deepest;               /* the deepest level of any step */
    uint64_t on_level[NB_LEVELS_MAX]; /* bodies on each level, summed over the steps */
    size_t boundary_bodies;         /* bodies marked in `boundary` */
    uint64_t finer;                 /* times a body went finer at its own step's start inside a dt_max step */
    uint64_t forces;                /* forces computed, the run's closing one not counted */
} nb_block_stats;

/* The level of a body whose criterion gives `pull` against `bound` (the acceleration criterion: |a| and
 * eta^2 eps): the first k < levels with (dt_max / 2^k)^2 pull <= bound, else levels - 1; 0 for a pull of
 * 0 or NaN. The reference's scheme and make view's level colours both take it from here. */
int nb_block_level(double pull, double bound, double dt_max, unsigned levels);

/* `boundary` (S*N flags, or NULL) marks the bodies whose level a float32 criterion may take either side
 * of a boundary, at any step: a step may put them one level off, honestly. */
int nb_ref_run_blocks(nb_state64 *s, uint64_t steps, double dt_max, double eps2, const nb_block_params *p,
                      unsigned char *boundary, nb_block_stats *stats);

/* Diagnostics of the whole state (all systems together), in fp64 with the same softening. */
typedef struct nb_diag {
    double mass;
    double kinetic, potential, energy;
    double virial_ratio;      /* -K/W: 0.5 in equilibrium */
    double momentum[3];       /* sum m v */
    double angular[3];        /* sum m x cross v */
    double com[3];            /* centre of mass */
} nb_diag;

void nb_diagnostics(const nb_state64 *s, double eps2, nb_diag *d);
/* The same for bodies whose potential energy is known (the same positions, other velocities): the
 * pair sum, the costly part, not taken again. */
void nb_diagnostics_with_potential(const nb_state64 *s, double potential, nb_diag *d);

#ifdef __cplusplus
}
#endif
#endif
