/* validate.h: comparing a step with the fp64 reference. Every comparison is written !(err <= tol),
 * so a NaN fails; the worst body is kept for the report. */
#ifndef NB_VALIDATE_H
#define NB_VALIDATE_H

#include <stdio.h>

#include "nbody.h"
#include "reference.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tolerances, calibrated in common/README.md ("Validation"). The acceleration tolerances hold up to
 * N = 16384 and grow like sqrt(N) beyond, as the rounding error of an fp32 sum of N terms does. */
#define NB_TOL_ACC_MAX 2e-4      /* worst body's relative acceleration error */
#define NB_TOL_ACC_RMS 2e-5      /* rms over bodies of the same */
#define NB_TOL_ORDER 1e-4        /* x1 - x0 against v1 after one step from rest (kick, then drift), beyond rounding */
#define NB_TOL_STATE 1e-4        /* positions and velocities after NB_CHECK_STEPS steps, over the system's scale */
#define NB_ACC_FLOOR 0.1         /* bodies with |a| under this fraction of their system's rms are measured against it */
#define NB_CHECK_STEPS 4         /* steps of the state check ... */
#define NB_CHECK_DT 1e-3         /* ... of dt = min(--dt, this), so close encounters stay tame */
#define NB_TIMED_ROOM 4.0        /* a timed run's limits: this many times the validation's (validate.c) */
#define NB_TIMED_CHECK_TIME 1.0  /* timed runs are checked up to this simulated time, steps x dt (README) */

/* The acceleration tolerances for N bodies per system. */
double nb_tol_acc_max(size_t bodies);
double nb_tol_acc_rms(size_t bodies);

/* The block-step check (above): NB_BLOCK_CHECK_STEPS steps of a dt_max that spreads the bodies over
 * the levels (the median body's criterion half a level past level 0), at theta = 0; the state held to
 * NB_TOL_BLOCK_STATE, the energy error to the fp64 run's plus NB_TOL_BLOCK_ENERGY. A body whose criterion
 * lies within NB_BLOCK_MARGIN (in log4 of (dt_max^2 |a|) / (eta^2 eps)) of a boundary may take either
 * level honestly, as float32 rounds: it is not compared. Calibrated in common/README.md ("Block steps"). */
#define NB_BLOCK_CHECK_STEPS 2
#define NB_BLOCK_CHECK_PAIRS ((uint64_t)1 << 28) /* S*N^2 up to which the block check runs */
#define NB_TOL_BLOCK_STATE 1e-4
#define NB_TOL_BLOCK_ENERGY 1e-5
#define NB_BLOCK_MARGIN 1e-3
#define NB_TIMED_BLOCK_PAIRS ((uint64_t)1 << 33) /* S*N^2*steps up to which a timed block-step run is checked */

/* The tolerance class `tree` (steps.list): an approximation with opening angle theta > 0 is held to its
 * own limits, calibrated in common/README.md ("Tree codes"): the rms and the worst body's relative
 * acceleration error (same normalisation as above), and the state after NB_CHECK_STEPS steps. At
 * theta = 0 a tree step sums every pair and is held to the exact limits above. */
#define NB_TOL_TREE_THETA NB_THETA_DEFAULT /* up to the default opening angle ... */
#define NB_TOL_TREE_RMS 1e-3     /* ... the rms relative acceleration error, */
#define NB_TOL_TREE_MAX 3e-2     /* the worst body's, */
#define NB_TOL_TREE_STATE 1e-3   /* and positions and velocities after NB_CHECK_STEPS steps; as theta^4 above */


typedef struct nb_check {
    /* Accelerations: one step from rest with dt = 1 gives v = a and x = x0 + a. */
    int acc_done;
    size_t compared;            /* bodies compared (all, or a sample at large N) */
    double tol_max, tol_rms;    /* nb_tol_acc_max/rms of this N (or the tree class's) */
    double tol_state;           /* NB_TOL_STATE (or the tree class's) */
    double theta;               /* > 0: held to the tree class's limits at this opening angle */
    double acc_rms, acc_max;
    double acc_ratio;           /* sqrt(sum |got|^2 / sum |want|^2): a factor on every body shows as |acc_ratio - 1| = acc_max */
    size_t acc_worst;
    double acc_got[3], acc_want[3];
    double order_max;           /* |(x1 - x0) - v1| beyond fp32 rounding, over the same denominator */
    size_t order_worst;
    /* Positions and velocities after state_steps steps (NB_CHECK_STEPS, or a timed run's). */
    int state_done;
    uint64_t state_steps;
    int timed;                  /* a timed run's check: acc_* measure each body's velocity change */
    double pos_max, vel_max;
    size_t pos_worst, vel_worst;
    double pos_got[3], pos_want[3], vel_got[3], vel_want[3];
    /* Block time steps (a step with the block_steps feature run with --levels > 1): the state after
     * NB_BLOCK_CHECK_STEPS steps at theta = 0 against the fp64 run of the same scheme, and the energy. */
    int block_done;
    unsigned block_levels, block_deepest;   /* levels asked for; the deepest the fp64 run used */
    double block_dt;                        /* the check's dt_max */
    uint64_t block_on_level[NB_LEVELS_MAX];  /* bodies on each level in the fp64 run, over its steps */
    size_t block_boundary;                  /* bodies on a level's boundary: either level is honest, not compared */
    double block_pos, block_vel;            /* worst position and velocity error, over the system's scale */
    size_t block_worst;
    double block_got[3], block_want[3];     /* the worst body's (position or velocity, whichever is worse) */
    int block_worst_is_vel;
    double block_energy, block_energy_ref;  /* |E - E0| / |E0|: the step's, the fp64 run's */
    /* Anything non-finite anywhere in what the step returned. */
    int nonfinite;
    size_t nonfinite_body;
} nb_check;

void nb_check_init(nb_check *c);
/* Hold `c` to the tree class's limits at `theta` > 0 (nb_check_accel does it when c->theta > 0). */
void nb_check_tree_limits(nb_check *c, double theta);

/* `before`: the initial state; `after`: the step's state after one step from rest with dt = 1;
 * ax/ay/az[k]: reference acceleration of body index[k] (all bodies in order if index is NULL).
 * Returns 0 on success, NB_EXIT_ERROR if memory ran out. */
int nb_check_accel(nb_check *c, const nb_state *before, const nb_state *after, const size_t *index,
                   size_t count, const double *ax, const double *ay, const double *az);

/* `got`: the step's state after NB_CHECK_STEPS steps; `want`: the reference's. */
int nb_check_state(nb_check *c, const nb_state *got, const nb_state64 *want);

/* The check of a timed run: `got` is the step's state after `steps` steps of `dt` from `initial`,
 * `want` the reference's. Each body's velocity change over the run (its mean acceleration times the
 * run's length) is held to the acceleration limits and the state to tol_state, each NB_TIMED_ROOM
 * times wider and times how much longer the run is than the validation's: a step that computes less,
 * or fewer steps, when timed fails. */
int nb_check_timed(nb_check *c, const nb_state *initial, const nb_state *got, const nb_state64 *want,
                   uint64_t steps, double dt);

/* The step under test, called with `ctx`: a worker call in the judge (common/judge.c); in the tests,
 * nb_step_run itself or a planted fault. */
typedef int (*nb_step_fn)(void *ctx, nb_state *state, const nb_run *run);

/* Run `step` on a copy of `initial` the way validation does, into `trial` (allocated, the same
 * shape), with `tmpl`'s softening, knobs and clock, without snapshots. nb_trial_accel: one step
 * from rest with dt = 1 (for nb_check_accel); nb_trial_state: NB_CHECK_STEPS steps of `dt` from the
 * initial velocities (for nb_check_state). The template's clock is kept: to the step these runs look
 * like the timed ones. Return what the step returned. */
int nb_trial_accel(nb_step_fn step, void *ctx, const nb_run *tmpl, const nb_state *initial, nb_state *trial);
int nb_trial_state(nb_step_fn step, void *ctx, const nb_run *tmpl, const nb_state *initial, float dt,
                   nb_state *trial);

/* The dt_max of the block-step check: the median body's criterion (dt^2 |a| / (eta^2 eps)) half a level
 * past level 0, so that the bodies spread over the levels (the run's own dt may leave them all on level 0). */
double nb_block_check_dt(const nb_state64 *s, double eta, double eps, double eps2);

/* The block-step check: `got` is the step's state after the check's steps from `initial`, `want` the fp64
 * run's (nb_ref_run_blocks) with its `boundary` flags and stats; energies with softening eps2. */
int nb_check_blocks(nb_check *c, const nb_state *initial, const nb_state *got, const nb_state64 *want,
                    const unsigned char *boundary, const nb_block_stats *stats, double eps2);

/* nb_trial_blocks: `steps` steps of `dt` from the initial velocities with `tmpl`'s levels (for nb_check_blocks). */
int nb_trial_blocks(nb_step_fn step, void *ctx, const nb_run *tmpl, const nb_state *initial, float dt, uint64_t steps,
                    nb_state *trial);

/* 1 if everything that was checked is within tolerance and finite. */
int nb_check_passed(const nb_check *c);

/* A few lines: errors against tolerances, PASS/FAIL, and on failure the worst body with its values. */
void nb_check_print(FILE *f, const nb_check *c, size_t bodies);

#ifdef __cplusplus
}
#endif
#endif
