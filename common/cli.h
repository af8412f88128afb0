/* cli.h: the command line every step binary shares. */
#ifndef NB_CLI_H
#define NB_CLI_H

#include <stdint.h>

#include "init.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nb_validate_mode {
    NB_VALIDATE_AUTO,   /* every body where affordable, else a sample; state check where affordable */
    NB_VALIDATE_FULL,   /* every body and the state check, whatever it costs */
    NB_VALIDATE_SAMPLE, /* a sample of bodies, no state check */
    NB_VALIDATE_OFF     /* nothing: the results CSV says "unchecked" */
} nb_validate_mode;

typedef struct nb_options {
    uint64_t bodies, systems, steps, seed, repeat;
    double dt, eps;
    nb_model model;
    nb_masses masses;
    const char *input, *output, *csv, *tag, *ref_cache;
    const char *output_format; /* --output-format: nbs, tipsy or hdf5 (formats.h; the judge reads the name) */
    uint64_t snapshot_every;
    const char *snapshot_dir;
    unsigned block, gpus;
    unsigned ranks;    /* --ranks R: the MPI ranks of a step launched mpi:R (0: the registry's R) */
    int no_overlap, quiet, diagnostics, validate_only;
    int decompose; /* NB_DECOMPOSE_* of nbody.h */
    double theta;  /* --theta: tree steps' opening angle; < 0 = not given (the step's default) */
    uint64_t levels; /* --levels: block time-step levels; 0 = not given (NB_LEVELS_DEFAULT) */
    double eta;      /* --eta: block time-step accuracy; < 0 = not given (NB_ETA_DEFAULT) */
    int deterministic; /* --deterministic: fixed summation order (steps with NB_FEATURE_DETERMINISTIC) */
    nb_validate_mode validate;
    int sandbox;       /* --sandbox: NB_SANDBOX_AUTO, _REQUIRE or _OFF (worker_call.h) */
    int timing_call;   /* --timing call: the whole call is the loop time, no k-2k difference (profilers) */
    const char *sandbox_hide[4]; /* --sandbox-hide DIR: folders the step's worker must not see */
    const char *worker_wrapper;  /* --worker-wrapper: a test's program every worker runs under */
    int bodies_set, systems_set, model_set, masses_set, seed_set; /* conflicts with --input */
    int dt_set, eps_set;                                          /* else --input's header gives them */
} nb_options;

/* What the help says of the step, from its registry line (steps.list). */
typedef struct nb_step_facts {
    const char *name, *summary;
    int gpu;            /* a CUDA step: --block, and GPU options */
    unsigned features;  /* NB_FEATURE_*: the options it takes beyond the common ones */
    unsigned ranks;     /* launch mpi:R in steps.list: R, the default of --ranks; 0: one process */
} nb_step_facts;

/* Parse argv into *o (defaults first). Returns -1 to go on, or an exit status: 0 after --help (the
 * options `step` takes) or --version, NB_EXIT_ERROR after one line on stderr for anything wrong. */
int nb_parse_args(int argc, char **argv, nb_options *o, const nb_step_facts *step);

/* Strict number parsers for the command line and the tests: the whole string, in [min, max], no
 * sign on unsigned numbers. Return 0, or NB_EXIT_ERROR after one line naming the option. */
int nb_parse_u64(const char *text, const char *option, uint64_t min, uint64_t max, uint64_t *out);
int nb_parse_double(const char *text, const char *option, double min, double max, int min_inclusive, double *out);

#ifdef __cplusplus
}
#endif
#endif
