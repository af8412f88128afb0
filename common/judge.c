/* judge.c: the judge, the program a user runs for a step (build/bin/<step>). It is never linked with a
 * step's code. It reads the command line, makes the bodies and holds the fp64 reference; it hands each
 * run to the step's worker (common/worker.c, a process of its own: worker_call.h), takes the state back,
 * checks it and times it with its own clock; and it alone writes the results row, the snapshots and
 * --output. In order: set-up, the checks (one worker for all of them), the timed runs (a fresh worker for
 * each), the record.
 *
 * Compiled once per step with NB_STEP_ID, NB_STEP_NAME, NB_STEP_SUMMARY, NB_STEP_FEATURES, NB_STEP_GPU,
 * NB_STEP_RANKS and NB_BUILD_LABEL: the Makefile takes them from the step's line of steps.list. */
#define _DEFAULT_SOURCE /* realpath */
#include "cli.h"
#include "device_query.h"
#include "float_range.h"
#include "formats.h"
#include "nbody.h"
#include "progress.h"
#include "refcache.h"
#include "reference.h"
#include "results.h"
#include "sha256.h"
#include "sink.h"
#include "snapshot.h"
#include "timing.h"
#include "util.h"
#include "validate.h"
#include "variant.h"
#include "worker_call.h"

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <sys/random.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#ifndef NB_STEP_ID
#define NB_STEP_ID "??"
#endif
#ifndef NB_STEP_NAME
#define NB_STEP_NAME "nbody"
#endif
#ifndef NB_STEP_SUMMARY
#define NB_STEP_SUMMARY ""
#endif
#ifndef NB_STEP_FEATURES /* the features column of steps.list: the options the step takes, its check class */
#define NB_STEP_FEATURES "-"
#endif
#ifndef NB_STEP_GPU /* 1 for a CUDA step */
#define NB_STEP_GPU 0
#endif
#ifndef NB_STEP_RANKS /* launch mpi:R: the worker runs as R MPI ranks; 0: one process */
#define NB_STEP_RANKS 0
#endif
#ifndef NB_BUILD_LABEL
#define NB_BUILD_LABEL "default"
#endif
#ifndef NB_COMMIT
#define NB_COMMIT "unknown"
#endif

/* fp64 work the automatic validation affords: every body when S*N^2 is at most this ... */
#define NB_FULL_CHECK_PAIRS ((uint64_t)1 << 32)
/* ... the state check when S*N^2*NB_CHECK_STEPS is at most this ... */
#define NB_STATE_CHECK_PAIRS ((uint64_t)1 << 33)
/* ... and otherwise this many bodies, spread over the systems (first and last of each included). */
#define NB_SAMPLE_BODIES 4096
/* A tree step is also checked at theta = 0 (every pair, exact limits) while S*N^2 is at most this. */
#define NB_TREE_EXACT_PAIRS ((uint64_t)1 << 34)
/* Every timed call's final state is checked against the fp64 reference while S*N^2*steps is at most
 * this (the grader's GPU ladder run, N = 65536 for 10 and 20 steps, is 2^35.3 and 2^36.3); beyond, only
 * for finiteness. */
#define NB_TIMED_CHECK_PAIRS ((uint64_t)1 << 37)
/* eps = 0 is carried as this eps^2 in float32 and in the reference alike, so the j = i term stays
 * 0 * finite and both sides compute the same force (see README). */
#define NB_EPS2_FLOOR 1e-24f
/* The sandbox's private /tmp and /dev/shm, each. */
#define NB_WORKER_TMP_BYTES ((size_t)256 << 20)

typedef struct harness {
    nb_options o;
    nb_format output_format; /* --output's (formats.h) */
    unsigned features;    /* NB_FEATURE_* of steps.list: trusted, unlike anything the worker says */
    nb_state initial;
    char initial_sha[65]; /* SHA-256 of the initial state: binds a cached reference to its exact input */
    nb_problem problem;   /* what the references depend on */
    double eps2;          /* fp64 softening squared, as asked */
    nb_run run;           /* the template every call starts from */
    nb_worker_spec spec;  /* every worker's program, arguments and environment */
    nb_worker checker;    /* the checks' worker: started by the first check, shared by all of them */
    nb_state decoy, decoy_work; /* a GPU timed worker's first, untimed call: bodies drawn afresh (judge.c) */
    nb_state validated;   /* --validate-only --output: the state after the state check's steps */
    /* The device, the GPUs asked for and the highest SM clock: the judge's own (device_query.h). */
    char device[256];
    unsigned gpus;
    double clock_mhz;
    /* What the workers said of themselves, for the results row: shown, never trusted. */
    unsigned block;
    char config[160];
    int sandboxed;        /* the workers ran in the sandbox */
    double startup_s;     /* the timed calls' workers' start-ups, summed (shown only) */
    unsigned startups;
} harness;

static uint64_t pairs_of(const nb_state *s, uint64_t factor)
{
    uint64_t p;
    if (nb_mul_overflows(s->bodies, s->bodies, &p) || nb_mul_overflows(p, s->systems, &p) ||
        nb_mul_overflows(p, factor, &p))
        return UINT64_MAX;
    return p;
}

/* ---- the workers ---------------------------------------------------------------------- */

/* The device the workers run on, as the judge sees it: the CPU's name, or the GPUs' through NVML and the
 * count it asked for (--gpus, or all it sees for a multi_gpu step; an mpi:R step's ranks take one each). */
static void own_device(harness *h)
{
    if (!NB_STEP_GPU) {
        snprintf(h->device, sizeof h->device, "%s", nb_cpu_name());
        return;
    }
    const nb_gpu_facts *f = nb_gpu_query();
    snprintf(h->device, sizeof h->device, "%s", f->name);
    h->clock_mhz = f->max_clock_mhz;
    unsigned gpus = 1;
    if (h->features & NB_FEATURE_MULTI_GPU) {
        const unsigned ranks = h->spec.ranks;
        gpus = h->o.gpus ? (unsigned)h->o.gpus : (f->count ? f->count : 1);
        if (ranks && gpus > ranks)
            gpus = ranks;
    }
    h->gpus = gpus;
    h->spec.devices = h->o.gpus > gpus ? h->o.gpus : gpus; /* too many asked: the worker says so */
}

static int start_worker(harness *h, nb_worker *w)
{
    const int rc = nb_worker_start(w, &h->spec, 0.0);
    if (rc == NB_EXIT_OK)
        h->sandboxed = w->sandboxed;
    return rc;
}

/* A worker under --worker-wrapper (compute-sanitizer's racecheck) runs up to a hundred times slower; the
 * test that wraps it bounds the whole run with its own timeout. */
#define NB_WRAPPED_SLOWDOWN 100.0
static double call_limit(const harness *h, double interactions)
{
    return nb_call_limit(interactions) * (h->o.worker_wrapper ? NB_WRAPPED_SLOWDOWN : 1.0);
}

/* One call of `run` on `state` by worker w, with the limit its work earns; what the worker said of
 * itself is kept for the results row. */
static int call_worker(harness *h, nb_worker *w, nb_state *state, const nb_run *run, nb_snapshot_fn on_snapshot,
                       void *ctx, nb_worker_reply *reply)
{
    const double interactions = (double)state->systems * (double)state->bodies * (double)state->bodies *
                                (double)(run->steps ? run->steps : 1);
    const int rc = nb_worker_call(w, state, run, call_limit(h, interactions), on_snapshot, ctx, reply);
    if (rc == NB_EXIT_OK) { /* shown in the row, and nothing else: the GPUs and clock are the judge's */
        h->block = reply->block;
        memcpy(h->config, reply->config, sizeof h->config);
    }
    return rc;
}

/* The step as the checks call it (validate.h's nb_step_fn): the checks' worker, started at first use. */
static int check_call(void *ctx, nb_state *state, const nb_run *run)
{
    harness *h = (harness *)ctx;
    if (h->checker.request < 0 || !h->checker.dir[0]) {
        const int rc = start_worker(h, &h->checker);
        if (rc != NB_EXIT_OK)
            return rc;
    }
    nb_worker_reply reply;
    return call_worker(h, &h->checker, state, run, NULL, NULL, &reply);
}

/* ---- validation ----------------------------------------------------------------------- */

/* A deterministic sample: the first and last body of every system, the rest drawn at random. */
static size_t *sample_bodies(const nb_state *s, uint64_t seed, size_t *count)
{
    const size_t n = s->bodies, systems = s->systems;
    size_t per = NB_SAMPLE_BODIES / systems;
    per = per < 2 ? 2 : per;
    per = per > n ? n : per;
    size_t *index = (size_t *)nb_malloc(systems * per * sizeof(size_t), "the validation sample");
    if (!index)
        return NULL;
    uint64_t x = seed ^ 0x5a4d504c45ull;
    size_t k = 0;
    for (size_t sys = 0; sys < systems; ++sys) {
        const size_t first = sys * n;
        index[k++] = first;
        if (per > 1)
            index[k++] = first + n - 1;
        for (size_t j = 2; j < per; ++j) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            index[k++] = first + 1 + (size_t)((x >> 17) % (n > 2 ? n - 2 : 1));
        }
    }
    *count = k;
    return index;
}

/* The check of one run template: `theta` > 0 holds it to the tree class's limits at that angle. */
static int validate_run(harness *h, const nb_run *run, double theta, nb_check *check)
{
    const nb_state *init = &h->initial;
    const size_t total = nb_state_count(init);
    const nb_validate_mode mode = h->o.validate;
    const int full = mode == NB_VALIDATE_FULL || (mode == NB_VALIDATE_AUTO && pairs_of(init, 1) <= NB_FULL_CHECK_PAIRS);
    const int with_state = mode == NB_VALIDATE_FULL ||
                           (mode == NB_VALIDATE_AUTO && pairs_of(init, NB_CHECK_STEPS) <= NB_STATE_CHECK_PAIRS);
    nb_check_init(check);
    check->theta = theta;

    /* What the reference says. */
    size_t count = total, *index = NULL;
    nb_state64 ref_all = {0};
    double *ref_acc = NULL;
    if (full) {
        if (nb_reference_accel_all(&h->problem, &ref_all) != NB_EXIT_OK)
            return NB_EXIT_ERROR;
    } else {
        index = sample_bodies(init, h->o.seed, &count);
        nb_state64 wide;
        ref_acc = (double *)nb_malloc(3 * count * sizeof(double), "the reference accelerations");
        if (!index || !ref_acc || nb_state64_alloc(&wide, init->systems, init->bodies) != NB_EXIT_OK) {
            free(index);
            free(ref_acc);
            return NB_EXIT_ERROR;
        }
        nb_state64_from(&wide, init);
        nb_progress("fp64 reference accelerations (sample)");
        nb_ref_accel(&wide, h->eps2, index, count, ref_acc, ref_acc + count, ref_acc + 2 * count);
        nb_state64_free(&wide);
    }

    /* What float32 cannot hold is refused before the step runs: it would be blamed for it. */
    const double *const want_acc[3] = {full ? ref_all.vx : ref_acc, full ? ref_all.vy : ref_acc + count,
                                       full ? ref_all.vz : ref_acc + 2 * count};
    if (nb_refuse_reference_out_of_range(want_acc, 3, index, count, "acceleration", init->bodies) != NB_EXIT_OK ||
        nb_refuse_reference_too_small(want_acc, index, count, init->bodies, init->systems) != NB_EXIT_OK) {
        nb_state64_free(&ref_all);
        free(ref_acc);
        free(index);
        return NB_EXIT_ERROR;
    }

    /* What the step says: one step from rest with dt = 1 leaves v = a and x = x0 + a. */
    nb_state trial;
    int rc = nb_state_alloc(&trial, init->systems, init->bodies);
    if (rc == NB_EXIT_OK) {
        nb_progress("validating: one force evaluation");
        rc = nb_trial_accel(check_call, h, run, init, &trial);
    }
    if (rc == NB_EXIT_OK) {
        if (full)
            rc = nb_check_accel(check, init, &trial, NULL, 0, ref_all.vx, ref_all.vy, ref_all.vz);
        else
            rc = nb_check_accel(check, init, &trial, index, count, ref_acc, ref_acc + count, ref_acc + 2 * count);
    }
    nb_state64_free(&ref_all);
    free(ref_acc);
    free(index);

    /* Positions and velocities after a few steps, where affordable. */
    if (rc == NB_EXIT_OK && with_state) {
        nb_state64 ref_state;
        const double dt = fmin(h->o.dt, NB_CHECK_DT);
        rc = nb_reference_state(&h->problem, NB_CHECK_STEPS, dt, NULL, 0, &ref_state);
        if (rc == NB_EXIT_OK) {
            const double *const want_state[6] = {ref_state.x, ref_state.y, ref_state.z, ref_state.vx, ref_state.vy, ref_state.vz};
            rc = nb_refuse_reference_out_of_range(want_state, 6, NULL, nb_state_count(init), "state after a few steps", init->bodies);
            if (rc != NB_EXIT_OK)
                nb_state64_free(&ref_state);
        }
        if (rc == NB_EXIT_OK) {
            nb_progress("validating: state after a few steps");
            rc = nb_trial_state(check_call, h, run, init, (float)dt, &trial);
            if (rc == NB_EXIT_OK)
                rc = nb_check_state(check, &trial, &ref_state);
            if (rc == NB_EXIT_OK && h->o.validate_only && h->o.output && !h->validated.x &&
                nb_state_alloc(&h->validated, init->systems, init->bodies) == NB_EXIT_OK)
                nb_state_copy(&h->validated, &trial); /* --validate-only --output: the checked state */
            nb_state64_free(&ref_state);
        }
    }
    if (trial.x)
        nb_state_free(&trial);
    nb_progress_done();
    return rc;
}

/* The opening angle a check holds the step to: its theta for a tree step, 0 (the exact limits) else. */
static double tree_theta(const harness *h)
{
    return (h->features & NB_FEATURE_THETA) && h->run.extra.theta > 0.0f ? h->run.extra.theta : 0.0;
}

/* Whether the run takes block steps: a block_steps step with --levels > 1. */
static int block_run(const harness *h)
{
    return (h->features & NB_FEATURE_BLOCK_STEPS) && h->run.extra.levels > 1;
}

/* The scheme of the run's levels, eta and softening, for the fp64 run of it. */
static nb_block_params block_params(const harness *h)
{
    const nb_block_params p = {h->run.extra.levels, h->run.extra.eta, sqrt((double)h->run.eps2), 0, NB_BLOCK_MARGIN, 0,
                              NB_CRITERION_ACCEL, NULL, NULL};
    return p;
}

/* Block time steps (--levels > 1): NB_BLOCK_CHECK_STEPS steps at theta = 0 against the fp64 run of the
 * same scheme (nb_ref_run_blocks), the levels from the same criterion, and the energy. */
static int validate_blocks(harness *h, nb_check *check)
{
    const nb_state *init = &h->initial;
    const size_t total = nb_state_count(init);
    if (pairs_of(init, 1) > NB_BLOCK_CHECK_PAIRS) {
        if (!h->o.quiet)
            printf("  block steps: not checked at this size (S*N^2 over 2^28: the fp64 run of the scheme is the "
                   "check; it runs at the grader's sizes)\n");
        return NB_EXIT_OK;
    }
    const nb_block_params p = block_params(h);
    nb_state64 want;
    if (nb_state64_alloc(&want, init->systems, init->bodies) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    nb_state64_from(&want, init);
    nb_progress("fp64 block-step run");
    const double dt_max = nb_block_check_dt(&want, p.eta, p.eps, h->eps2);
    unsigned char *boundary = (unsigned char *)nb_malloc(total ? total : 1, "the boundary flags");
    nb_block_stats stats;
    int rc = dt_max > 0.0 && boundary ? NB_EXIT_OK : NB_EXIT_ERROR;
    if (rc == NB_EXIT_OK)
        rc = nb_ref_run_blocks(&want, NB_BLOCK_CHECK_STEPS, (double)(float)dt_max, h->eps2, &p, boundary, &stats);
    const double *const fields[6] = {want.x, want.y, want.z, want.vx, want.vy, want.vz};
    if (rc == NB_EXIT_OK)
        rc = nb_refuse_reference_out_of_range(fields, 6, NULL, total, "state after the block steps", init->bodies);
    nb_state trial = {0};
    if (rc == NB_EXIT_OK)
        rc = nb_state_alloc(&trial, init->systems, init->bodies);
    if (rc == NB_EXIT_OK) {
        nb_progress("validating: block steps");
        nb_run blocks = h->run;
        blocks.extra.theta = 0.0f; /* every pair: the forces exact, the time steps alone under test */
        rc = nb_trial_blocks(check_call, h, &blocks, init, (float)dt_max, NB_BLOCK_CHECK_STEPS, &trial);
    }
    if (rc == NB_EXIT_OK) {
        check->block_levels = p.levels;
        check->block_dt = (float)dt_max;
        rc = nb_check_blocks(check, init, &trial, &want, boundary, &stats, h->eps2);
    }
    if (trial.x)
        nb_state_free(&trial);
    free(boundary);
    nb_state64_free(&want);
    nb_progress_done();
    return rc;
}

/* An exact step: one check. A tree step at theta > 0: first the exact sum at theta = 0 (where
 * affordable), then the approximation at its theta against the tree class's limits. Both with one
 * level (a block-step step is then the step it grows from); with --levels > 1 the block-step check follows. */
static int validate(harness *h, nb_check *check)
{
    nb_run one = h->run;
    one.extra.levels = 1;
    int rc;
    if (tree_theta(h) == 0.0) {
        rc = validate_run(h, &one, 0.0, check);
    } else {
        if (pairs_of(&h->initial, 1) <= NB_TREE_EXACT_PAIRS) {
            nb_run exact = one;
            exact.extra.theta = 0.0f;
            rc = validate_run(h, &exact, 0.0, check);
            if (rc != NB_EXIT_OK || !nb_check_passed(check)) {
                if (!h->o.quiet)
                    printf("%s at --theta 0 (every cell opened: the direct sum, exact limits):\n", NB_STEP_NAME);
                return rc;
            }
        }
        rc = validate_run(h, &one, tree_theta(h), check);
    }
    if (rc != NB_EXIT_OK || !nb_check_passed(check) || !block_run(h))
        return rc;
    return validate_blocks(h, check);
}

/* ---- diagnostics ---------------------------------------------------------------------- */

static void print_diag(const char *when, const nb_diag *d)
{
    printf("  %s: E = %.10g (K = %.6g, W = %.6g), virial ratio %.4f, |p| = %.3e, |L| = %.6g\n", when, d->energy,
           d->kinetic, d->potential, d->virial_ratio,
           sqrt(d->momentum[0] * d->momentum[0] + d->momentum[1] * d->momentum[1] + d->momentum[2] * d->momentum[2]),
           sqrt(d->angular[0] * d->angular[0] + d->angular[1] * d->angular[1] + d->angular[2] * d->angular[2]));
}

static int diagnostics(const harness *h, const nb_state *s, nb_diag *d)
{
    nb_state64 wide;
    if (nb_state64_alloc(&wide, s->systems, s->bodies) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    nb_state64_from(&wide, s);
    nb_progress("fp64 diagnostics");
    nb_diagnostics(&wide, h->eps2, d);
    nb_progress_done();
    nb_state64_free(&wide);
    return NB_EXIT_OK;
}

/* ---- the timed runs ------------------------------------------------------------------- */

static int push_snapshot(void *ctx, const nb_state *view) { return nb_sink_push((nb_snapshot_sink *)ctx, view); }

/* One timed call: a fresh worker (nothing survives from an earlier call) runs `steps` steps of `state`
 * in place. *seconds is the judge's clock from the request handed over to the state received, the
 * snapshots' writing included (the files are part of the run). `snapshots`: the run asks for them;
 * they go to `sink`, or are dropped where it is NULL (the same work, another call's files). A step
 * without NB_FEATURE_SNAPSHOTS runs in chunks of --snapshot-every, written between. */
static int timed_call(harness *h, nb_state *state, uint64_t steps, int snapshots, nb_snapshot_sink *sink,
                      double *seconds, double *region, double *request)
{
    *seconds = *region = *request = 0.0;
    nb_worker w;
    nb_worker_reply reply;
    const double t_start = nb_now();
    int rc = start_worker(h, &w);
    if (rc == NB_EXIT_OK && h->decoy.x) {
        /* A GPU call's first allocations and launches, spent on bodies that tell nothing of the timed
         * problem, so that what a timed call costs besides its steps is small beside them (the pair's
         * bound, below); never timed, never checked. */
        nb_state_copy(&h->decoy_work, &h->decoy);
        nb_run one = h->run;
        one.steps = 1;
        one.extra.snapshot_every = 0;
        rc = call_worker(h, &w, &h->decoy_work, &one, NULL, NULL, &reply);
    }
    h->startup_s += nb_now() - t_start; /* never in a call's time: shown, to say what a fresh worker costs */
    h->startups += 1;
    if (rc != NB_EXIT_OK) {
        nb_worker_stop(&w);
        return rc;
    }
    const uint64_t every = snapshots ? h->o.snapshot_every : 0;
    const int own = (h->features & NB_FEATURE_SNAPSHOTS) != 0;
    nb_run r = h->run;
    for (uint64_t done = 0; rc == NB_EXIT_OK && done < steps;) {
        const uint64_t chunk = every && !own && steps - done > every ? every : steps - done;
        r.steps = chunk;
        r.extra.snapshot_every = own ? every : 0; /* counted from this run's start, also after --input */
        rc = call_worker(h, &w, state, &r, own && sink ? push_snapshot : NULL, sink, &reply);
        *seconds += reply.seconds;
        *region += reply.region_s;
        *request += reply.request_s;
        done += chunk;
        state->step += chunk;
        state->time += (double)chunk * h->o.dt;
        if (rc == NB_EXIT_OK && every && !own && done % every == 0 && sink) {
            const double t0 = nb_now();
            rc = nb_sink_push(sink, state);
            *seconds += nb_now() - t0;
        }
    }
    if (rc == NB_EXIT_OK && sink) {
        const double t0 = nb_now();
        rc = nb_sink_flush(sink);
        *seconds += nb_now() - t0;
    }
    nb_worker_stop(&w);
    return rc;
}

/* Whether a timed call of `steps` steps is checked against the fp64 reference: up to a simulated time
 * of NB_TIMED_CHECK_TIME, and S*N^2*steps of NB_TIMED_CHECK_PAIRS with --validate auto (block steps:
 * NB_TIMED_BLOCK_PAIRS, their substeps' forces on top). */
static int timed_checkable(const harness *h, uint64_t steps)
{
    const nb_options *o = &h->o;
    const uint64_t limit = block_run(h) ? NB_TIMED_BLOCK_PAIRS : NB_TIMED_CHECK_PAIRS;
    return steps > 0 && (double)steps * o->dt <= NB_TIMED_CHECK_TIME &&
           (o->validate == NB_VALIDATE_FULL ||
            (o->validate == NB_VALIDATE_AUTO && pairs_of(&h->initial, steps) <= limit));
}

/* The fp64 state a timed call of `steps` steps must end near, going on from `from` (the state after
 * from_steps, or NULL): the contract's run (cached), or with block steps the fp64 run of the scheme (not
 * cached). A block run ended at from_steps is half a dt_max behind like the contract's, so it goes on
 * with every old level 0: its closing kick and the next step's first add up to the unbroken run's. */
static int timed_reference(harness *h, uint64_t steps, const nb_state64 *from, uint64_t from_steps, nb_state64 *ref)
{
    if (!block_run(h))
        return nb_reference_state(&h->problem, steps, h->o.dt, from, from_steps, ref);
    const nb_block_params p = block_params(h);
    nb_block_stats stats;
    if (nb_state64_alloc(ref, h->initial.systems, h->initial.bodies) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    if (from)
        nb_state64_copy(ref, from);
    else
        nb_state64_from(ref, &h->initial);
    nb_progress("fp64 block-step run of the timed problem");
    return nb_ref_run_blocks(ref, steps - (from ? from_steps : 0), (double)h->run.dt, h->eps2, &p, NULL, &stats);
}

/* The check of one timed call's final state (mapped back) against the reference of its run. */
static int check_timed_call(harness *h, const nb_state *final, const nb_state64 *ref, uint64_t steps, uint64_t r,
                            nb_check *worst, int first)
{
    const nb_options *o = &h->o;
    nb_check c;
    nb_check_init(&c);
    c.theta = tree_theta(h);
    nb_progress("checking the timed run against fp64");
    int rc = nb_check_timed(&c, &h->initial, final, ref, steps, o->dt);
    if (rc != NB_EXIT_OK)
        return rc;
    if (!nb_check_passed(&c)) {
        nb_progress_done();
        fprintf(stderr, "%s: timed run %llu of %llu FAIL: its final state after %llu steps is not the fp64 "
                "reference's (a step must do the same work, every step asked for, whether it is timed or not)\n",
                NB_STEP_NAME, (unsigned long long)r + 1, (unsigned long long)o->repeat, (unsigned long long)steps);
        nb_check_print(stderr, &c, h->initial.bodies);
        *worst = c;
        return NB_EXIT_MISMATCH;
    }
    if (first) { /* the worst of the calls, measure by measure (all passed: no NaN) */
        *worst = c;
    } else {
        worst->acc_max = fmax(worst->acc_max, c.acc_max);
        worst->acc_rms = fmax(worst->acc_rms, c.acc_rms);
        worst->pos_max = fmax(worst->pos_max, c.pos_max);
        worst->vel_max = fmax(worst->vel_max, c.vel_max);
    }
    return NB_EXIT_OK;
}


/* ---- set-up -------------------------------------------------------------------------- */

/* An option the step does not take (steps.list's features say which it does): one line, exit 2. */
static int refuse_options(const harness *h)
{
    const nb_options *o = &h->o;
    const unsigned k = h->features;
    const char *name = NB_STEP_NAME;
    if (o->ranks && !NB_STEP_RANKS) {
        nb_error("--ranks: %s runs as one process (steps.list launches it so)", name);
        return NB_EXIT_ERROR;
    }
    if (!NB_STEP_GPU && (o->block || o->gpus || o->no_overlap || o->decompose)) {
        nb_error("--block, --gpus, --no-overlap and --decompose are for the GPU steps; %s runs on the CPU", name);
        return NB_EXIT_ERROR;
    }
    static const struct {
        unsigned bit;
        const char *option, *why;
    } takes[] = {{NB_FEATURE_MULTI_GPU, "--gpus", "uses one GPU"},
                 {NB_FEATURE_NO_OVERLAP, "--no-overlap", "has no copies to overlap with its compute"},
                 {NB_FEATURE_DECOMPOSE, "--decompose", "has one way to share its work"},
                 {NB_FEATURE_DETERMINISTIC, "--deterministic", "always sums in a fixed order"},
                 {NB_FEATURE_THETA, "--theta", "is a direct sum with no opening angle"},
                 {NB_FEATURE_BLOCK_STEPS, "--levels", "moves every body with one dt"},
                 {NB_FEATURE_BLOCK_STEPS, "--eta", "moves every body with one dt"}};
    const int given[] = {o->gpus > 1, o->no_overlap, o->decompose != NB_DECOMPOSE_AUTO, o->deterministic,
                         o->theta >= 0.0, o->levels != 0, o->eta >= 0.0};
    for (size_t t = 0; t < sizeof takes / sizeof takes[0]; ++t)
        if (given[t] && !(k & takes[t].bit)) {
            nb_error("%s: %s %s (the option is for the steps whose features in steps.list name it)", takes[t].option,
                     name, takes[t].why);
            return NB_EXIT_ERROR;
        }
    return NB_EXIT_OK;
}

/* The workers' program (this program's path and "-worker"), ranks, threads and sandbox. */
static int worker_spec(harness *h)
{
    static char program[PATH_MAX + 16];
    char self[PATH_MAX];
    if (!realpath("/proc/self/exe", self)) {
        nb_error("cannot find this program's own path (/proc/self/exe): the worker lies beside it");
        return NB_EXIT_ERROR;
    }
    snprintf(program, sizeof program, "%s-worker", self);
    if (access(program, X_OK) != 0) {
        nb_error("the step's worker %s is missing: build the step (make step%s)", program, NB_STEP_ID);
        return NB_EXIT_ERROR;
    }
    nb_worker_spec *s = &h->spec;
    s->program = program;
    s->ranks = h->o.ranks ? h->o.ranks : NB_STEP_RANKS;
    s->gpus = h->o.gpus;
#ifdef _OPENMP
    s->threads = (unsigned)omp_get_max_threads(); /* OMP_NUM_THREADS reaches the worker this way, and no other */
#else
    s->threads = 1;
#endif
    s->features = h->features;
    s->sandbox = (nb_sandbox_mode)h->o.sandbox;
    s->wrapper = h->o.worker_wrapper;
    s->tmp_bytes = NB_WORKER_TMP_BYTES;
    size_t k = 0;
    if (h->o.ref_cache) { /* the answers: the worker never sees them */
        static char cache[PATH_MAX];
        if (realpath(h->o.ref_cache, cache))
            s->hidden[k++] = cache;
    }
    for (size_t j = 0; j < 4 && h->o.sandbox_hide[j] && k < NB_SANDBOX_HIDDEN_MAX; ++j)
        s->hidden[k++] = h->o.sandbox_hide[j];
    return NB_EXIT_OK;
}

/* Bounded workers (common/README.md): what one worker may take, from the run's size. Its CPU time: the
 * wall-clock limits of every call it can get (the checks' worker gets at most NB_WORKER_CALLS), on each of
 * its threads and ranks, twice over for the driver's own threads; its files: its private /tmp; its tasks
 * and memory (2 GiB a rank and 8 times the state) in a control group of its own where one can be made,
 * else (a CPU step) its address space. */
#define NB_WORKER_CALLS 6
#define NB_WORKER_TASKS 1024
#define NB_WORKER_MEMORY_BASE ((uint64_t)2 << 30)
static void worker_limits(harness *h)
{
    nb_worker_spec *s = &h->spec;
    const nb_state *init = &h->initial;
    const uint64_t state_bytes = nb_state_count(init) * NB_FIELDS * sizeof(float);
    const double steps = 2.0 * (double)(h->o.steps > NB_CHECK_STEPS ? h->o.steps : NB_CHECK_STEPS) + 2.0;
    const double pairs = (double)init->systems * (double)init->bodies * (double)init->bodies;
    const double wall = START_LIMIT_S + NB_WORKER_CALLS * NB_CALL_BASE_S + call_limit(h, pairs * steps);
    const double cpus = (double)(s->threads ? s->threads : 1) * (double)(s->ranks ? s->ranks : 1);
    s->limits.cpu_s = (uint64_t)(2.0 * cpus * wall) + 1;
    s->limits.file_bytes = s->tmp_bytes;
    s->limits.cpus = NB_STEP_RANKS ? 0 : s->threads; /* it runs on as many CPUs as it is sent threads */
    s->limits.cpus_locked = !NB_STEP_GPU;           /* a CPU step's speed is its CPUs: it keeps to those */
    s->tasks = NB_WORKER_TASKS;
    uint64_t memory = NB_WORKER_MEMORY_BASE * (s->ranks ? s->ranks : 1) + 8 * state_bytes; /* a base a rank */
    const uint64_t avail = nb_host_memory_available();
    if (avail && memory > avail)
        memory = avail;
    s->memory_bytes = memory;
#if defined(__SANITIZE_ADDRESS__)
    const int sanitized = 1; /* AddressSanitizer's shadow reserves terabytes of address space */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    const int sanitized = 1;
#else
    const int sanitized = 0;
#endif
#else
    const int sanitized = 0;
#endif
    s->limits.address_bytes = NB_STEP_GPU || NB_STEP_RANKS || sanitized ? 0 : memory;
}

static int setup(harness *h)
{
    nb_options *o = &h->o;
    h->features = nb_features_parse(NB_STEP_FEATURES);
    int rc = refuse_options(h);
    if (rc != NB_EXIT_OK)
        return rc;
    if (o->validate_only && o->snapshot_dir) { /* it would run no step to write them from */
        nb_error("--validate-only writes no snapshots: drop it, or drop --validate-only");
        return NB_EXIT_ERROR;
    }
    if (o->output_format && !o->output) {
        nb_error("--output-format %s: there is no --output to write in it", o->output_format);
        return NB_EXIT_ERROR;
    }
    if (o->output_format && nb_format_parse(o->output_format, "--output-format", &h->output_format) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    if (o->csv && !o->validate_only && o->steps == 0) {
        nb_error("--csv needs at least one step to time (--steps 0 only validates and writes --output)");
        return NB_EXIT_ERROR;
    }
    /* Outputs that cannot be written are refused now, not after the run (which would leave the other). */
    if ((o->output && nb_output_check(o->output) != NB_EXIT_OK) || (o->csv && nb_results_check(o->csv) != NB_EXIT_OK) ||
        (o->snapshot_dir && nb_sink_check(o->snapshot_dir) != NB_EXIT_OK))
        return NB_EXIT_ERROR;
    if ((rc = worker_spec(h)) != NB_EXIT_OK)
        return rc;

    uint64_t systems = o->systems, bodies = o->bodies;
    if (o->input) {
        nb_snapshot_info info;
        rc = nb_format_read(o->input, &h->initial, &info, NULL);
        if (rc != NB_EXIT_OK)
            return rc;
        if (!o->dt_set && info.dt > 0.0)
            o->dt = info.dt;
        if (!o->eps_set && info.eps >= 0.0)
            o->eps = info.eps;
        systems = h->initial.systems;
        bodies = h->initial.bodies;
    }
    if (o->output && nb_format_check(h->output_format, (size_t)systems, o->output) != NB_EXIT_OK)
        return NB_EXIT_ERROR;

    /* Host memory, before allocating: the judge's copies (initial, work, result, back, trial, queued
     * snapshots), the fp64 references, and the worker's own copy. The worker checks the GPU's. */
    uint64_t total = systems * bodies, host = 0, tmp;
    const uint64_t fp32 = total * NB_FIELDS * sizeof(float), fp64 = total * NB_FIELDS * sizeof(double);
    if (nb_mul_overflows(fp32, 9, &host) || __builtin_add_overflow(host, 3 * fp64, &tmp)) {
        nb_error("%llu bodies do not fit in memory", (unsigned long long)total);
        return NB_EXIT_ERROR;
    }
    host = tmp;
    const uint64_t avail = nb_host_memory_available();
    if (avail && host > avail) {
        char need[32], have[32];
        nb_error("%llu systems of %llu bodies need about %s of host memory, %s is available",
                 (unsigned long long)systems, (unsigned long long)bodies, nb_format_bytes(host, need, sizeof need),
                 nb_format_bytes(avail, have, sizeof have));
        return NB_EXIT_ERROR;
    }

    if (!o->input) {
        if ((rc = nb_state_alloc(&h->initial, (size_t)systems, (size_t)bodies)) != NB_EXIT_OK)
            return rc;
        nb_progress("initial conditions");
        nb_init(&h->initial, o->model, o->masses, o->seed);
        nb_progress_done();
    }
    if (o->eps == 0.0 && (rc = nb_refuse_coincident(&h->initial)) != NB_EXIT_OK)
        return rc;
    nb_sha256 sha; /* every float of the initial state, and its shape */
    nb_sha256_init(&sha);
    const uint64_t shape[2] = {h->initial.systems, h->initial.bodies};
    nb_sha256_update(&sha, shape, sizeof shape);
    for (int k = 0; k < NB_FIELDS; ++k)
        nb_sha256_update(&sha, nb_state_field(&h->initial, k), nb_state_count(&h->initial) * sizeof(float));
    nb_sha256_hex(&sha, h->initial_sha);

    h->eps2 = o->eps * o->eps;
    const float eps2 = (float)h->eps2;
    h->run.steps = o->steps;
    h->run.dt = (float)o->dt;
    h->run.eps2 = eps2 > NB_EPS2_FLOOR ? eps2 : NB_EPS2_FLOOR;
    if (!(eps2 > NB_EPS2_FLOOR)) /* the reference computes the force the step can: with the same floor */
        h->eps2 = (double)h->run.eps2;
    if ((rc = nb_refuse_out_of_float_range(&h->initial, h->run.eps2)) != NB_EXIT_OK)
        return rc;
    h->problem.initial = &h->initial;
    h->problem.sha = h->initial_sha;
    h->problem.eps2 = h->eps2;
    h->problem.cache = o->ref_cache;
    h->run.block = o->block;
    h->run.extra.gpus = o->gpus;
    h->run.extra.no_overlap = o->no_overlap;
    h->run.extra.decompose = o->decompose;
    h->run.extra.deterministic = o->deterministic;
    h->run.extra.theta = o->theta >= 0.0 ? (float)o->theta : NB_THETA_DEFAULT; /* the default's one place */
    h->run.extra.levels = o->levels ? (unsigned)o->levels : NB_LEVELS_DEFAULT;
    h->run.extra.eta = o->eta >= 0.0 ? (float)o->eta : NB_ETA_DEFAULT;
    worker_limits(h);
    own_device(h);
    return NB_EXIT_OK;
}

/* ---- the record ----------------------------------------------------------------------- */

/* How the timed runs went, as the judge's clock took them. */
typedef struct timing {
    double loop[3];   /* median, min, max: the time loop (GPU: a call of 2k steps less one of k) */
    double call[3];   /* median, min, max: a whole call of k steps, handed over to received */
    double region;    /* the step's own nb_region_begin/end, median: shown, never graded */
    const char *method;
    unsigned bounded; /* repeats whose loop is the pair's bound, not the difference (pair_loop) */
} timing;

/* The one place a results row is made and appended (to --csv, if given): `t` is NULL for a run that
 * was only checked, or failed; `timed` the timed calls' worst errors, or NULL. */
static int record_row(const harness *h, const nb_check *c, const char *pass, const nb_check *timed, const timing *t)
{
    const nb_options *o = &h->o;
    if (!o->csv)
        return NB_EXIT_OK;
    static char date[32];
    nb_result r;
    memset(&r, 0, sizeof r);
    r.step = NB_STEP_ID;
    r.name = NB_STEP_NAME;
    r.build = NB_BUILD_LABEL;
    r.tag = o->tag ? o->tag : "";
    r.model = o->input ? "file" : nb_model_name(o->model);
    r.masses = o->input ? "file" : nb_masses_name(o->masses);
    r.systems = h->initial.systems;
    r.bodies = h->initial.bodies;
    r.steps = o->steps;
    r.dt = o->dt;
    r.eps = o->eps;
    r.seed = o->seed;
    r.repeat = o->repeat;
    r.e2e_s = r.e2e_min_s = r.e2e_max_s = -1.0;
    r.kernel_s = r.kernel_min_s = r.kernel_max_s = -1.0;
    r.region_s = -1.0;
    r.ginteractions_s = r.gflops = -1.0;
    r.acc_rms = c->acc_done ? c->acc_rms : -1.0;
    r.acc_max = c->acc_done ? c->acc_max : -1.0;
    r.acc_ratio = c->acc_done ? c->acc_ratio : -1.0;
    r.state_pos = c->state_done ? c->pos_max : -1.0;
    r.state_vel = c->state_done ? c->vel_max : -1.0;
    r.timed_change = timed ? timed->acc_max : -1.0;
    r.timed_state = timed ? fmax(timed->pos_max, timed->vel_max) : -1.0;
    r.checked = c->compared;
    r.pass = pass;
    r.device = h->device[0] ? h->device : "unknown";
    r.gpus = h->gpus;
#ifdef _OPENMP
    r.threads = (unsigned)omp_get_max_threads();
#else
    r.threads = 1;
#endif
    r.block = h->block;
    /* What the judge handed the step (run->extra), where the step takes it: the tables read these
     * columns, never the step's config. theta as the float the step gets, printed %g. */
    static char theta[32], levels[16], eta[32];
    static const char *const decompose[] = {"auto", "systems", "bodies"};
    if (h->features & NB_FEATURE_THETA) {
        snprintf(theta, sizeof theta, "%g", (double)h->run.extra.theta);
        r.theta = theta;
    }
    if (h->features & NB_FEATURE_BLOCK_STEPS) {
        snprintf(levels, sizeof levels, "%u", h->run.extra.levels);
        snprintf(eta, sizeof eta, "%g", (double)h->run.extra.eta);
        r.levels = levels;
        r.eta = eta;
    }
    if ((h->features & NB_FEATURE_DECOMPOSE) && h->run.extra.decompose >= 0 && h->run.extra.decompose <= 2)
        r.decompose = decompose[h->run.extra.decompose];
    r.config = h->config;
    r.worker = h->sandboxed ? "sandboxed" : "unsandboxed";
    r.timing = "";
    r.date = nb_utc_now(date, sizeof date);
    r.commit = NB_COMMIT;
    if (t) {
        const double interactions = (double)h->initial.systems * (double)h->initial.bodies *
                                    (double)h->initial.bodies * (double)o->steps;
        r.e2e_s = t->call[0];
        r.e2e_min_s = t->call[1];
        r.e2e_max_s = t->call[2];
        r.kernel_s = t->loop[0];
        r.kernel_min_s = t->loop[1];
        r.kernel_max_s = t->loop[2];
        r.region_s = t->region;
        r.ginteractions_s = r.kernel_s > 0.0 ? interactions / r.kernel_s * 1e-9 : -1.0;
        r.gflops = r.ginteractions_s > 0.0 ? r.ginteractions_s * NB_FLOPS_PER_INTERACTION : -1.0;
        r.clock_mhz = h->clock_mhz;
        r.timing = t->method;
    }
    return nb_results_append(o->csv, &r);
}


/* ---- the timed pair -------------------------------------------------------------------- */

/* A GPU repeat's loop time is a call of 2k steps less one of k, each on a fresh worker, so that what a call
 * costs besides its steps cancels. A worker sees how many steps it is asked for, so a step could stretch
 * its k-step calls (sleep) and shrink the difference: the loop is therefore never taken under the 2k
 * call's half over NB_PAIR_GAIN, the 2k call counted from the moment its worker holds the bodies (handing
 * them over, the judge's own clock says how long, is no time it can compute in). That costs an honest
 * step nothing while the rest of its call's own costs (allocations, copies to and from the GPU, the
 * answer's way back) are at most 0.6 of its k steps' loop (the decoy call before each timed one keeps
 * them small), and bounds what any stretching can buy to NB_PAIR_GAIN: that part of the 2k call holds at
 * least 2k steps of real work. */
#define NB_PAIR_GAIN 1.3
/* A 2k call under this fraction of its k call (medians) did less work: no honest step's noise does that. */
#define NB_PAIR_FASTER 0.75

static double pair_loop(double call_k, double call_2k, double request_2k, unsigned *bounded)
{
    const double floor = (call_2k - request_2k) / (2.0 * NB_PAIR_GAIN), difference = call_2k - call_k;
    if (difference >= floor)
        return difference;
    *bounded += 1;
    return floor;
}

/* The pair's arithmetic: twice the steps cannot take less time. NB_EXIT_MISMATCH after the line. */
static int check_pair(const harness *h, const double *call_k, const double *call_2k, uint64_t k)
{
    const uint64_t repeats = h->o.repeat;
    const double tk = nb_median(call_k, repeats), t2k = nb_median(call_2k, repeats);
    if (t2k >= NB_PAIR_FASTER * tk)
        return NB_EXIT_OK;
    nb_progress_done();
    fprintf(stderr, "%s: timing FAIL: its calls of %llu steps took %.4g ms (median of %llu), its calls of %llu "
            "steps %.4g ms: twice the steps in %.0f %% of the time (a step does every step it is asked for, and "
            "takes no longer over fewer)\n", NB_STEP_NAME, (unsigned long long)(2 * k), 1e3 * t2k,
            (unsigned long long)repeats, (unsigned long long)k, 1e3 * tk, 100.0 * t2k / tk);
    return NB_EXIT_MISMATCH;
}

/* The decoy: the run's shape, bodies of a seed drawn now (a Plummer sphere for an --input run). */
static int make_decoy(harness *h)
{
    const nb_state *init = &h->initial;
    uint64_t seed = 0;
    if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
        seed = (uint64_t)nb_now() * 1000003u ^ (uint64_t)getpid();
    if (nb_state_alloc(&h->decoy, init->systems, init->bodies) != NB_EXIT_OK ||
        nb_state_alloc(&h->decoy_work, init->systems, init->bodies) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    nb_init(&h->decoy, h->o.input ? NB_MODEL_PLUMMER : h->o.model, h->o.input ? NB_MASSES_EQUAL : h->o.masses,
            seed | 1);
    return NB_EXIT_OK;
}


/* ---- the run -------------------------------------------------------------------------- */

/* What the phases of a run share besides the harness. One per process, static: what it holds lives until
 * exit, so an early error return leaves nothing unreachable for LeakSanitizer or valgrind to report. */
typedef struct run_state {
    nb_check check, timed;       /* the validation's; the timed calls' worst */
    const char *validation;      /* PASS, FAIL or UNCHECKED */
    nb_state work, result, back; /* what a worker runs on; repeat 0's final state (--output's); a later one's */
    nb_state64 ref_k, ref_2k;    /* the fp64 states a timed call of k, of 2k steps must end near */
    int check_k, check_2k;       /* whether the calls of k and 2k steps are checked against them */
    int difference;              /* a GPU repeat is a pair of calls, its loop their difference */
    double *call_s, *call2k_s, *loop_s, *region_s; /* each repeat's */
    timing t;
    nb_diag before, after;
} run_state;

/* The checks' worker first, so that a step that cannot run here (no GPU) says so before any fp64 work;
 * then the run's line. */
static int announce(harness *h)
{
    const nb_options *o = &h->o;
    const nb_state *init = &h->initial;
    nb_progress("starting the step's worker");
    const int rc = start_worker(h, &h->checker);
    if (rc != NB_EXIT_OK)
        return rc;
    nb_progress_done();
    if (!o->quiet)
        printf("%s: %s%s N=%zu S=%zu, %llu steps of dt=%g, eps=%g, on %s (worker %s)\n", NB_STEP_NAME,
               o->input ? o->input : nb_model_name(o->model),
               !o->input && o->masses == NB_MASSES_RANDOM ? " (random masses)" : "", init->bodies, init->systems,
               (unsigned long long)o->steps, o->dt, o->eps, h->device, h->sandboxed ? "sandboxed" : "unsandboxed");
    return NB_EXIT_OK;
}

/* Correct first: the checks, printed. *ended when the run ends with them (a FAIL, --validate-only), its
 * row written and, with --validate-only --output, the state check's state. */
static int check_phase(harness *h, run_state *s, int *ended)
{
    const nb_options *o = &h->o;
    int rc;
    *ended = 0;
    nb_check_init(&s->check);
    s->validation = "UNCHECKED";
    if (o->validate == NB_VALIDATE_OFF) {
        if (o->validate_only) {
            nb_error("--validate-only with --validate off checks nothing");
            return NB_EXIT_ERROR;
        }
        nb_worker_stop(&h->checker);
        return NB_EXIT_OK;
    }
    if ((rc = validate(h, &s->check)) != NB_EXIT_OK)
        return rc;
    const int passed = nb_check_passed(&s->check);
    s->validation = passed ? "PASS" : "FAIL";
    if (!o->quiet || !passed) {
        FILE *out = passed ? stdout : stderr;
        if (o->quiet)
            fprintf(out, "%s: validation FAIL\n", NB_STEP_NAME);
        nb_check_print(out, &s->check, h->initial.bodies);
        if (!o->quiet)
            fprintf(out, "  validation %s%s\n", s->validation,
                    s->check.state_done ? "" : " (state check skipped at this size: accelerations only)");
    }
    nb_worker_stop(&h->checker); /* the timed calls each get a fresh one */
    if (passed && !o->validate_only)
        return NB_EXIT_OK;
    *ended = 1;
    if (passed && o->output) { /* the race check's bytes: the state check's run, as every case makes it */
        if (!h->validated.x) {
            nb_error("--validate-only --output: no state check ran at this size (S*N^2*%d over 2^33)", NB_CHECK_STEPS);
            return NB_EXIT_ERROR;
        }
        nb_replace staged = {0};
        if ((rc = nb_format_stage(&staged, h->output_format, o->output, &h->validated, o->eps,
                                  fmin(o->dt, NB_CHECK_DT))) !=
                NB_EXIT_OK ||
            (rc = nb_replace_commit(&staged, NULL)) != NB_EXIT_OK)
            return rc;
    }
    if (record_row(h, &s->check, s->validation, NULL, NULL) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    return passed ? NB_EXIT_OK : NB_EXIT_MISMATCH;
}

/* Check what is timed: the fp64 states every timed call must end near, refused where float32 cannot hold
 * them. On a GPU a repeat is two calls, of k and of 2k steps, and its time their difference, taken only
 * where the 2k call is checked as the k call is (or neither is), and without snapshots (their files are
 * written in one call alone). */
static int timed_references(harness *h, run_state *s)
{
    const nb_options *o = &h->o;
    const nb_state *init = &h->initial;
    const uint64_t k = o->steps;
    s->check_k = timed_checkable(h, k);
    s->check_2k = timed_checkable(h, 2 * k);
    s->difference = NB_STEP_GPU && k > 0 && !o->snapshot_dir && !o->timing_call && s->check_2k == s->check_k;
    if (!s->check_k)
        return NB_EXIT_OK;
    int rc = timed_reference(h, k, NULL, 0, &s->ref_k);
    if (rc == NB_EXIT_OK && s->difference)
        rc = timed_reference(h, 2 * k, &s->ref_k, k, &s->ref_2k);
    for (int pass = 0; rc == NB_EXIT_OK && pass < 1 + s->difference; ++pass) {
        const nb_state64 *ref = pass ? &s->ref_2k : &s->ref_k;
        const double *const want[6] = {ref->x, ref->y, ref->z, ref->vx, ref->vy, ref->vz};
        char what[64];
        snprintf(what, sizeof what, "state after %llu steps", (unsigned long long)(pass ? 2 * k : k));
        rc = nb_refuse_reference_out_of_range(want, 6, NULL, nb_state_count(init), what, init->bodies);
    }
    nb_progress_done();
    return rc;
}

/* One repeat: its k-step call (repeat 0's on the problem as it is, the others on a variant drawn now),
 * checked; on a GPU its 2k-step call too, and the loop time the pair gives. */
static int repeat_once(harness *h, run_state *s, uint64_t r, nb_snapshot_sink *sink)
{
    const nb_options *o = &h->o;
    const nb_state *init = &h->initial;
    const uint64_t k = o->steps;
    nb_variant variant;
    if (r == 0)
        nb_variant_pick(&variant, 0, init->bodies);
    else
        nb_variant_draw(&variant, init->bodies);
    nb_variant_apply(&variant, init, &s->work);
    if (sink)
        nb_sink_present(sink, &variant);
    double request_k, request_2k, region_2k;
    int rc = timed_call(h, &s->work, k, o->snapshot_dir != NULL, sink, &s->call_s[r], &s->region_s[r], &request_k);
    s->loop_s[r] = s->call_s[r];
    nb_state *final = r == 0 ? &s->result : &s->back;
    if (rc == NB_EXIT_OK)
        nb_variant_undo(&variant, &s->work, final);
    if (rc == NB_EXIT_OK && s->check_k)
        rc = check_timed_call(h, final, &s->ref_k, k, r, &s->timed, r == 0);
    if (rc != NB_EXIT_OK || !s->difference)
        return rc;
    nb_variant_draw(&variant, init->bodies);
    nb_variant_apply(&variant, init, &s->work);
    rc = timed_call(h, &s->work, 2 * k, o->snapshot_dir != NULL, NULL, &s->call2k_s[r], &region_2k, &request_2k);
    if (rc == NB_EXIT_OK)
        nb_variant_undo(&variant, &s->work, &s->back);
    if (rc == NB_EXIT_OK && s->check_2k)
        rc = check_timed_call(h, &s->back, &s->ref_2k, 2 * k, r, &s->timed, 0);
    s->loop_s[r] = pair_loop(s->call_s[r], s->call2k_s[r], request_2k, &s->t.bounded);
    return rc;
}

/* Then fast: on a GPU an untimed warm-up call of one step (the card idled while the host made the
 * references), then the repeats, each on fresh workers, and what their times say. A CPU step has no
 * warm-up: every timed call is a fresh worker, so a warm-up would leave nothing behind for it. A FAIL
 * writes its row. */
static int timed_phase(harness *h, run_state *s)
{
    const nb_options *o = &h->o;
    const nb_state *init = &h->initial;
    const uint64_t k = o->steps;
    nb_check_init(&s->timed);
    s->call_s = (double *)nb_malloc(o->repeat * sizeof(double), "timings");
    s->call2k_s = (double *)nb_malloc(o->repeat * sizeof(double), "timings");
    s->loop_s = (double *)nb_malloc(o->repeat * sizeof(double), "timings");
    s->region_s = (double *)nb_malloc(o->repeat * sizeof(double), "timings");
    if (!s->call_s || !s->call2k_s || !s->loop_s || !s->region_s)
        return NB_EXIT_ERROR;
    int rc;
    if (k == 0)
        return NB_EXIT_OK;
    if (s->difference && (rc = make_decoy(h)) != NB_EXIT_OK)
        return rc;
    if (NB_STEP_GPU) {
        double seconds, region, request;
        nb_variant variant;
        nb_progress("warm-up");
        nb_variant_draw(&variant, init->bodies);
        nb_variant_apply(&variant, init, &s->work);
        if ((rc = timed_call(h, &s->work, 1, 0, NULL, &seconds, &region, &request)) != NB_EXIT_OK)
            return rc;
    }
    nb_snapshot_sink *sink = NULL;
    if (o->snapshot_dir && !(sink = nb_sink_open(o->snapshot_dir, o->eps, o->dt)))
        return NB_EXIT_ERROR;
    rc = NB_EXIT_OK;
    for (uint64_t r = 0; rc == NB_EXIT_OK && r < o->repeat; ++r) {
        char phase[64];
        snprintf(phase, sizeof phase, "repeat %llu/%llu", (unsigned long long)r + 1, (unsigned long long)o->repeat);
        nb_progress(phase);
        rc = repeat_once(h, s, r, sink);
    }
    if (rc != NB_EXIT_OK) {
        nb_sink_close(sink);
    } else {
        nb_progress_done();
        rc = nb_sink_close(sink);
    }
    if (rc == NB_EXIT_OK && s->check_k && !o->quiet) {
        const uint64_t calls = o->repeat * (s->difference ? 2 : 1);
        printf("  the timed runs (worst of %llu call%s, checked against fp64):\n", (unsigned long long)calls,
               calls == 1 ? "" : "s");
        nb_check_print(stdout, &s->timed, init->bodies);
    }
    if (rc == NB_EXIT_OK && s->difference)
        rc = check_pair(h, s->call_s, s->call2k_s, k);
    if (rc != NB_EXIT_OK) {
        if (rc == NB_EXIT_MISMATCH && record_row(h, &s->check, "FAIL", &s->timed, NULL) != NB_EXIT_OK)
            return NB_EXIT_ERROR;
        return rc;
    }
    timing *t = &s->t;
    t->method = s->difference ? (t->bounded ? "k-2k-bound" : "k-2k") : "call";
    t->call[0] = nb_median(s->call_s, o->repeat);
    t->call[1] = nb_min(s->call_s, o->repeat);
    t->call[2] = nb_max(s->call_s, o->repeat);
    t->loop[0] = nb_median(s->loop_s, o->repeat);
    t->loop[1] = nb_min(s->loop_s, o->repeat);
    t->loop[2] = nb_max(s->loop_s, o->repeat);
    t->region = nb_median(s->region_s, o->repeat);
    if (t->bounded && !o->quiet)
        printf("  (%u of %llu repeats: the difference was under the 2k call's half over %.2f, which is given: "
               "the calls' own costs are large beside %llu steps)\n", t->bounded, (unsigned long long)o->repeat,
               NB_PAIR_GAIN, (unsigned long long)k);
    return NB_EXIT_OK;
}

/* The record, in an order that leaves no half-done set of outputs behind a run that exits 2: the final
 * state checked for NaN (where it was checked against the reference it is finite; beyond, nothing says
 * whether float32 or the step failed), --diagnostics, --output staged, the row appended, then --output
 * renamed into place (a failed rename after the row went in says so: the row stays, it was measured). */
static int finish(harness *h, run_state *s)
{
    const nb_options *o = &h->o;
    const nb_state *init = &h->initial;
    const uint64_t k = o->steps;
    const nb_state *result = &s->result;
    int rc;
    for (int f = 0; f < NB_FIELDS - 1; ++f) {
        const float *v = nb_state_field(result, f);
        for (size_t i = 0; i < nb_state_count(result); ++i)
            if (!isfinite(v[i])) {
                nb_error("body %zu of system %zu is not finite after %llu steps: float32 overflowed (try a smaller "
                         "--dt or larger --eps), or the step is wrong; no fp64 reference of the run is affordable at "
                         "this size to tell which", i % result->bodies, i / result->bodies, (unsigned long long)k);
                return NB_EXIT_ERROR;
            }
    }
    if (o->diagnostics) {
        if ((rc = diagnostics(h, result, &s->after)) != NB_EXIT_OK)
            return rc;
        print_diag("before", &s->before);
        print_diag("after ", &s->after);
        printf("  relative energy error %.3e after %llu steps\n",
               fabs(s->before.energy) > 0.0 ? (s->after.energy - s->before.energy) / fabs(s->before.energy) : 0.0,
               (unsigned long long)k);
    }
    nb_replace output = {0};
    if (o->output && (rc = nb_format_stage(&output, h->output_format, o->output, result, o->eps, o->dt)) != NB_EXIT_OK)
        return rc;
    const timing *t = &s->t;
    if (k > 0) {
        if (!o->quiet) {
            const double interactions = (double)init->systems * (double)init->bodies * (double)init->bodies * (double)k;
            const char *how = !strcmp(t->method, "k-2k")          ? "a call of 2k steps less one of k"
                              : !strcmp(t->method, "k-2k-bound") ? "a call of 2k steps less one of k, or its bound"
                                                                  : "the whole call";
            printf("  time loop %.4g ms (median of %llu; %s; min %.4g, max %.4g), a whole call %.4g ms; the step's "
                   "own region %.4g ms\n", 1e3 * t->loop[0], (unsigned long long)o->repeat, how, 1e3 * t->loop[1],
                   1e3 * t->loop[2], 1e3 * t->call[0], 1e3 * t->region);
            const double gint = t->loop[0] > 0.0 ? interactions / t->loop[0] * 1e-9 : 0.0;
            printf("  %.4g G interactions/s, %.4g GFLOP/s (%d flops per interaction)%s%s\n", gint,
                   gint * NB_FLOPS_PER_INTERACTION, NB_FLOPS_PER_INTERACTION, h->config[0] ? "; " : "", h->config);
            printf("  %u fresh workers for the timed calls, %.0f ms each to start (%s), never timed\n", h->startups,
                   h->startups ? 1e3 * h->startup_s / h->startups : 0.0, h->sandboxed ? "sandboxed" : "unsandboxed");
        }
        if (record_row(h, &s->check, s->validation, s->check_k ? &s->timed : NULL, t) != NB_EXIT_OK) {
            nb_replace_discard(&output);
            return NB_EXIT_ERROR;
        }
    }
    if (output.tmp) {
        char note[4200];
        snprintf(note, sizeof note, "(the run's results row is in %s already)", o->csv ? o->csv : "");
        if ((rc = nb_replace_commit(&output, o->csv && k > 0 ? note : NULL)) != NB_EXIT_OK)
            return rc;
    }
    return NB_EXIT_OK;
}

static void release(harness *h, run_state *s)
{
    free(s->call_s);
    free(s->call2k_s);
    free(s->loop_s);
    free(s->region_s);
    nb_state_free(&s->work);
    nb_state_free(&s->result);
    nb_state_free(&s->back);
    nb_state64_free(&s->ref_k);
    nb_state64_free(&s->ref_2k);
    nb_state_free(&h->initial);
}

/* A run: parse, set up, check, time, record (each phase above). */
static int run_main(int argc, char **argv)
{
    static harness h;
    static run_state s;
    memset(&h, 0, sizeof h);
    h.checker.request = h.checker.response = -1;
    const nb_step_facts facts = {NB_STEP_NAME, NB_STEP_SUMMARY, NB_STEP_GPU, nb_features_parse(NB_STEP_FEATURES),
                                 NB_STEP_RANKS};
    int rc = nb_parse_args(argc, argv, &h.o, &facts);
    if (rc >= 0)
        return rc;
    nb_progress_enable(!h.o.quiet);
    int ended = 0;
    if ((rc = setup(&h)) != NB_EXIT_OK || (rc = announce(&h)) != NB_EXIT_OK ||
        (rc = check_phase(&h, &s, &ended)) != NB_EXIT_OK || ended)
        return rc;
    const nb_state *init = &h.initial;
    if ((rc = nb_state_alloc(&s.work, init->systems, init->bodies)) != NB_EXIT_OK ||
        (rc = nb_state_alloc(&s.result, init->systems, init->bodies)) != NB_EXIT_OK ||
        (rc = nb_state_alloc(&s.back, init->systems, init->bodies)) != NB_EXIT_OK)
        return rc;
    nb_state_copy(&s.result, init);
    if ((h.o.diagnostics && (rc = diagnostics(&h, init, &s.before)) != NB_EXIT_OK) ||
        (rc = timed_references(&h, &s)) != NB_EXIT_OK || (rc = timed_phase(&h, &s)) != NB_EXIT_OK ||
        (rc = finish(&h, &s)) != NB_EXIT_OK)
        return rc;
    release(&h, &s);
    return NB_EXIT_OK;
}

int main(int argc, char **argv)
{
    nb_set_progname(NB_STEP_NAME);
    /* A write past a file-size limit (ulimit -f) then fails with EFBIG, said in one line, instead of
     * ending the program with a temporary left behind; a worker gone is EPIPE on the write. */
    signal(SIGXFSZ, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    return run_main(argc, argv);
}
