/* nbody.h: the state of the bodies, one run of the time loop, and the contract every step implements.
 *
 * A step is one source file that defines nb_step_run(). Everything else (main, the command line,
 * initial conditions, snapshots, timing, the fp64 reference, validation, the results CSV) is common/.
 */
#ifndef NBODY_H
#define NBODY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* S independent systems of N bodies each, as structure of arrays on the host, float32.
 * Body i of system s is element s*N + i of every array. */
typedef struct nb_state {
    size_t systems;          /* S */
    size_t bodies;           /* N, bodies per system */
    float *x, *y, *z;        /* positions */
    float *vx, *vy, *vz;     /* velocities (at half steps: see nb_step_run) */
    float *m;                /* masses */
    uint64_t step;           /* steps taken since the initial conditions */
    double time;             /* simulated time */
} nb_state;

/* What a step reports back about how it ran (for the results CSV). */
typedef struct nb_run_info {
    unsigned block;          /* threads per block it used (GPU), 0 for CPU steps */
    unsigned gpus;           /* GPUs it used, 0 for CPU steps */
    char config[160];        /* its own knobs, e.g. "unroll=8 bodies/thread=4 slices=2" */
} nb_run_info;

struct nb_clock;             /* the timed region; see nb_region_begin() */
struct nb_snapshot_sink;     /* where trajectory snapshots go; see nb_snapshot_emit() */

/* What later steps add to a call of the time loop: each is read only by the steps named, and the
 * harness refuses an option a step does not take. A step before step07 never needs to look here. */
typedef struct nb_run_extra {
    unsigned gpus;           /* --gpus: GPUs asked for, 0 = all visible (steps with NB_FEATURE_MULTI_GPU) */
    int no_overlap;          /* --no-overlap: run copies and compute one after another (step07) */
    int decompose;           /* --decompose: NB_DECOMPOSE_AUTO, _SYSTEMS or _BODIES (step08, step11) */
    int deterministic;       /* --deterministic: a fixed summation order (steps with NB_FEATURE_DETERMINISTIC) */
    float theta;             /* --theta: opening angle (steps with NB_FEATURE_THETA; the judge's default if not given) */
    unsigned levels;         /* --levels: time-step levels dt/2^k, k < levels (NB_FEATURE_BLOCK_STEPS; 1 = one dt) */
    float eta;               /* --eta: a body's step is eta sqrt(eps / |a|) (NB_FEATURE_BLOCK_STEPS) */
    uint64_t snapshot_every; /* steps between trajectory snapshots, 0 = none (steps with NB_FEATURE_SNAPSHOTS) */
    struct nb_snapshot_sink *sink;
} nb_run_extra;

/* One call of the time loop. */
typedef struct nb_run {
    uint64_t steps;          /* kick-drift steps to take */
    float dt;                /* time step */
    float eps2;              /* softening squared, > 0 (eps = 0 is carried as 1e-24: see common/README.md) */
    unsigned block;          /* threads per block asked for on the command line, 0 = the step's default (GPU) */
    struct nb_clock *clock;  /* the region's clock (nb_region_begin/end): every run has one, checked or timed */
    nb_run_info *info;       /* never NULL */
    nb_run_extra extra;      /* what steps 07-12 add */
} nb_run;

/* THE CONTRACT. Advance every body of `state` by run->steps steps of
 *
 *     a_i = sum_j m_j (x_j - x_i) / (|x_j - x_i|^2 + eps^2)^(3/2)   (j over i's own system; j = i gives 0)
 *     v_i += a_i dt                                                  (kick)
 *     x_i += v_i dt                                                  (drift)
 *
 * in place, and return 0. Mark the time loop with nb_region_begin()/nb_region_end(); on any error
 * print one line to stderr and return NB_EXIT_ERROR.
 * The harness also measures the force evaluation through this function: one step from rest with
 * dt = 1 leaves v = a exactly and x = x0 + a. */
int nb_step_run(nb_state *state, const nb_run *run);

/* What a step takes beyond the contract is stated once, in steps.list's features column, never in its
 * code: the judge refuses the others' options and derives the check class from it. A step with
 * NB_FEATURE_SNAPSHOTS writes its own trajectory snapshots (nb_snapshot_emit, overlapped with compute);
 * for the others the judge runs the loop in chunks of snapshot_every steps and writes them itself.
 * The judge keeps state->step and state->time; a step sets them only on the views it emits. */
#define NB_FEATURE_SNAPSHOTS 1u     /* snapshots: it emits its own */
#define NB_FEATURE_MULTI_GPU 2u     /* multi_gpu: it uses --gpus G devices; the others use one */
#define NB_FEATURE_DETERMINISTIC 4u /* deterministic: it takes --deterministic */
#define NB_FEATURE_THETA 8u         /* theta: it takes --theta (a tree code, checked as one) */
#define NB_FEATURE_NO_OVERLAP 16u   /* no_overlap: it takes --no-overlap */
#define NB_FEATURE_DECOMPOSE 32u    /* decompose: it takes --decompose */
#define NB_FEATURE_BLOCK_STEPS 64u  /* block_steps: it takes --levels and --eta (block time steps) */
#define NB_FEATURE_NAMES "snapshots, multi_gpu, deterministic, theta, no_overlap, decompose, block_steps"
/* The bit of the feature named by the first `len` characters of `name`, 0 if none (common/features.c);
 * and the bits of a comma-separated list (steps.list's column; "-" for none), ~0u if a name is unknown. */
unsigned nb_feature_bit(const char *name, size_t len);
unsigned nb_features_parse(const char *list);
/* The opening angle of tree steps when --theta is not given (common/README.md): the judge puts it in
 * run->extra.theta, so a step reads that and never this. */
#define NB_THETA_DEFAULT 0.35f
#define NB_LEVELS_DEFAULT 1u      /* --levels not given: every body on the run's dt, the contract as written */
#define NB_LEVELS_MAX 16          /* dt / 2^15: finer than float32 time can count over a run of dt steps */
#define NB_ETA_DEFAULT 0.2f       /* --eta not given: GADGET-2's sqrt(2 * 0.025 eps / |a|), about 0.22 sqrt(eps / |a|) */

/* Mark the timed region (the time loop, without set-up and copies in and out).
 * CPU steps: host monotonic clock. GPU steps: CUDA events on the current device (common/device.cu). */
void nb_region_begin(const nb_run *run);
void nb_region_end(const nb_run *run);

/* Hand one snapshot to the harness (steps with NB_FEATURE_SNAPSHOTS). The harness copies `view`
 * before returning and writes the file on a background thread. Returns 0 or NB_EXIT_ERROR. */
int nb_snapshot_emit(const nb_run *run, const nb_state *view);

enum { NB_DECOMPOSE_AUTO, NB_DECOMPOSE_SYSTEMS, NB_DECOMPOSE_BODIES };

/* Exit statuses shared by every program of the lab. */
enum {
    NB_EXIT_OK = 0,
    NB_EXIT_MISMATCH = 1,    /* validation failed: the step computed something else */
    NB_EXIT_ERROR = 2        /* bad input, missing GPU, out of memory, I/O or CUDA error */
};

/* Floats per body in the state (x, y, z, vx, vy, vz, m). */
#define NB_FIELDS 7

/* State helpers. nb_state_alloc returns 0, or NB_EXIT_ERROR after one line on stderr. */
int nb_state_alloc(nb_state *s, size_t systems, size_t bodies);
void nb_state_free(nb_state *s);
void nb_state_copy(nb_state *dst, const nb_state *src);   /* same shape */
float *nb_state_field(const nb_state *s, int k);          /* k = 0..6: x y z vx vy vz m */
size_t nb_state_count(const nb_state *s);                 /* S*N */

#ifdef __cplusplus
}
#endif
#endif
