/* main.c: the harness every step binary shares. It reads the command line, makes the bodies,
 * validates the step against the fp64 reference, times it and writes the results.
 *
 * Compiled once per step with NB_STEP_ID, NB_STEP_NAME, NB_STEP_SUMMARY and NB_BUILD_LABEL
 * (the Makefile takes them from steps.list), and linked with the step's nb_step_run(). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "comm.h"
#include "nbody.h"
#include "platform.h"
#include "progress.h"
#include "reference.h"
#include "results.h"
#include "sha256.h"
#include "sink.h"
#include "snapshot.h"
#include "timing.h"
#include "util.h"
#include "validate.h"
#include "variant.h"

#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
#ifndef NB_STEP_CHECK /* the step's tolerance class (steps.list): exact, or tree (an approximation) */
#define NB_STEP_CHECK "exact"
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
/* Every timed repeat's final state is checked against the fp64 reference while S*N^2*steps is at most
 * this (the grader's ladder run, N = 65536 for 10 steps, is 2^35.3); beyond, only for finiteness. */
#define NB_TIMED_CHECK_PAIRS ((uint64_t)1 << 36)
/* eps = 0 is carried as this eps^2 in float32 and in the reference alike, so the j = i term stays
 * 0 * finite and both sides compute the same force (see README). */
#define NB_EPS2_FLOOR 1e-24f
/* What float32 must hold with room to spare: the largest term a step forms is m / eps^3 (the j = i term
 * before it is multiplied by 0), a body's acceleration is at most about M / eps^2. */
#define NB_FLOAT_ROOM (FLT_MAX / 16.0)

typedef struct harness {
    nb_options o;
    nb_state initial;
    char initial_sha[65]; /* SHA-256 of the initial state: binds a cached reference to its exact input */
    double eps2;          /* fp64 softening squared, as asked */
    nb_run run;           /* the template every call starts from */
    nb_run_info info;
    nb_clock clock;
} harness;

static uint64_t pairs_of(const nb_state *s, uint64_t factor)
{
    uint64_t p;
    if (nb_mul_overflows(s->bodies, s->bodies, &p) || nb_mul_overflows(p, s->systems, &p) ||
        nb_mul_overflows(p, factor, &p))
        return UINT64_MAX;
    return p;
}

/* ---- the fp64 reference, with an optional cache ------------------------------------------ */

/* DIR/<kind>-<hash of key>.nbs, where the key names everything the result depends on. */
static void cache_key(const harness *h, const char *kind, uint64_t steps, double dt, char *key, size_t len)
{
    snprintf(key, len, "v4 %s state=%s S=%zu N=%zu eps2=%a dt=%a steps=%llu", kind, h->initial_sha,
             h->initial.systems, h->initial.bodies, h->eps2, dt, (unsigned long long)steps);
}

static void cache_path(const harness *h, const char *key, const char *kind, char *path, size_t len)
{
    char digest[65];
    nb_sha256 sha;
    nb_sha256_init(&sha);
    nb_sha256_update(&sha, key, strlen(key));
    nb_sha256_hex(&sha, digest);
    snprintf(path, len, "%s/%s-%.32s.nbs", h->o.ref_cache, kind, digest);
}

/* The binding of a cache file: SHA-256 of its key and of the file's CRC-32 (which covers every byte
 * before it, and which the reader checks). The reference writes it beside the file (PATH.key) after the
 * file; a file without it, or whose contents or key differ (a step's snapshot copied there, an old
 * cache, another run's), is not the reference's. */
static void cache_binding(const char *key, uint32_t crc, char out[65])
{
    const unsigned char bytes[4] = {(unsigned char)crc, (unsigned char)(crc >> 8), (unsigned char)(crc >> 16),
                                    (unsigned char)(crc >> 24)};
    nb_sha256 sha;
    nb_sha256_init(&sha);
    nb_sha256_update(&sha, key, strlen(key) + 1);
    nb_sha256_update(&sha, bytes, sizeof bytes);
    nb_sha256_hex(&sha, out);
}

/* A cache file is only a warning when it cannot be used, and said once per run. */
static void cache_warning(const char *path, const char *why)
{
    static int said;
    if (!said++)
        fprintf(stderr, "%s: warning: reference cache %s not used (%s); computing the reference again\n",
                NB_STEP_NAME, path, why);
}

/* Write the reference into the cache, then its binding; a cache that cannot be written is only slower. */
static void cache_store(const char *path, const char *key, const nb_state64 *ref, double eps, double dt)
{
    if (nb_comm_rank() != 0 || nb_snapshot_write64(path, ref, eps, dt) != NB_EXIT_OK)
        return;
    char binding[65], keypath[4300];
    cache_binding(key, nb_snapshot_crc(path), binding);
    snprintf(keypath, sizeof keypath, "%s.key", path);
    nb_replace r;
    const int fd = nb_replace_open(&r, keypath);
    if (fd < 0)
        return;
    const int ok = write(fd, binding, 64) == 64 && close(fd) == 0;
    if (ok)
        nb_replace_commit(&r, NULL);
    else
        nb_replace_discard(&r);
}

/* A cached fp64 state is used only if the reference wrote it for exactly this key (its binding holds),
 * it is a regular file (a FIFO would block) in fp64, of the same shape and masses; a cache of
 * accelerations must also hold the exact initial positions, and four bodies drawn at random are
 * recomputed and must agree. Anything else is said once and recomputed. */
static int cache_load(const char *path, const char *key, const nb_state *initial, double eps2, int is_accel,
                      nb_state64 *out)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    if (!S_ISREG(st.st_mode)) {
        cache_warning(path, "not a regular file");
        return 0;
    }
    nb_snapshot_info info;
    if (nb_snapshot_read64(path, out, &info) != NB_EXIT_OK) {
        cache_warning(path, "unreadable");
        return 0;
    }
    char keypath[4300], want[65], have[65] = "";
    snprintf(keypath, sizeof keypath, "%s.key", path);
    const int kfd = open(keypath, O_RDONLY | O_NONBLOCK);
    if (kfd >= 0) {
        struct stat kst;
        if (fstat(kfd, &kst) == 0 && S_ISREG(kst.st_mode) && read(kfd, have, 64) == 64)
            have[64] = '\0';
        else
            have[0] = '\0';
        close(kfd);
    }
    cache_binding(key, info.crc, want);
    if (strcmp(have, want) != 0) {
        cache_warning(path, "the reference did not write it for this input, step count, dt and eps");
        nb_state64_free(out);
        return 0;
    }
    const size_t total = nb_state_count(initial);
    int ok = info.precision == 8 && out->systems == initial->systems && out->bodies == initial->bodies;
    for (size_t i = 0; ok && i < total; ++i)
        ok = out->m[i] == (double)initial->m[i] &&
             (!is_accel || (out->x[i] == (double)initial->x[i] && out->y[i] == (double)initial->y[i] &&
                            out->z[i] == (double)initial->z[i]));
    if (ok && is_accel) {
        size_t pick[4];
        double a[12];
        uint64_t r = (uint64_t)(nb_now() * 1e9) ^ (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
        for (int k = 0; k < 4; ++k) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            pick[k] = (size_t)((r >> 17) % total);
        }
        nb_ref_accel(out, eps2, pick, 4, a, a + 4, a + 8);
        for (int k = 0; k < 4 && ok; ++k) {
            const double want_a = fabs(a[k]) + fabs(a[4 + k]) + fabs(a[8 + k]);
            const double err = fabs(a[k] - out->vx[pick[k]]) + fabs(a[4 + k] - out->vy[pick[k]]) +
                               fabs(a[8 + k] - out->vz[pick[k]]);
            ok = err <= 1e-9 * want_a + 1e-300;
        }
    }
    if (!ok) {
        cache_warning(path, "it does not match this run's input");
        nb_state64_free(out);
    }
    return ok;
}

/* Reference accelerations of all bodies, kept in the vx/vy/vz arrays of an fp64 state. */
static int reference_accel_all(const harness *h, nb_state64 *ref)
{
    char key[512], path[4200];
    if (h->o.ref_cache) {
        cache_key(h, "acc", 0, 0.0, key, sizeof key);
        cache_path(h, key, "acc", path, sizeof path);
        if (cache_load(path, key, &h->initial, h->eps2, 1, ref))
            return NB_EXIT_OK;
    }
    if (nb_state64_alloc(ref, h->initial.systems, h->initial.bodies) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    nb_state64_from(ref, &h->initial);
    nb_progress("fp64 reference accelerations");
    nb_ref_accel(ref, h->eps2, NULL, 0, ref->vx, ref->vy, ref->vz);
    if (h->o.ref_cache)
        cache_store(path, key, ref, sqrt(h->eps2), 0.0);
    return NB_EXIT_OK;
}

static int reference_state(const harness *h, uint64_t steps, double dt, nb_state64 *ref)
{
    char key[512], path[4200];
    if (h->o.ref_cache) {
        cache_key(h, "state", steps, dt, key, sizeof key);
        cache_path(h, key, "state", path, sizeof path);
        if (cache_load(path, key, &h->initial, h->eps2, 0, ref))
            return NB_EXIT_OK;
    }
    if (nb_state64_alloc(ref, h->initial.systems, h->initial.bodies) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    nb_state64_from(ref, &h->initial);
    nb_progress("fp64 reference steps");
    if (nb_ref_run(ref, steps, dt, h->eps2) != NB_EXIT_OK) {
        nb_state64_free(ref);
        return NB_EXIT_ERROR;
    }
    if (h->o.ref_cache)
        cache_store(path, key, ref, sqrt(h->eps2), dt);
    return NB_EXIT_OK;
}

/* ---- validation ----------------------------------------------------------------------- */

static int refuse_reference_out_of_range(const double *const v[], int fields, const size_t *index, size_t count,
                                         const char *what, size_t bodies);
static int refuse_reference_too_small(const double *const a[3], const size_t *index, size_t count, size_t bodies,
                                      size_t systems);

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
        if (reference_accel_all(h, &ref_all) != NB_EXIT_OK)
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
    if (refuse_reference_out_of_range(want_acc, 3, index, count, "acceleration", init->bodies) != NB_EXIT_OK ||
        refuse_reference_too_small(want_acc, index, count, init->bodies, init->systems) != NB_EXIT_OK) {
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
        rc = nb_trial_accel(nb_step_run, run, init, &trial);
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
        rc = reference_state(h, NB_CHECK_STEPS, dt, &ref_state);
        if (rc == NB_EXIT_OK) {
            const double *const want_state[6] = {ref_state.x, ref_state.y, ref_state.z, ref_state.vx, ref_state.vy, ref_state.vz};
            rc = refuse_reference_out_of_range(want_state, 6, NULL, nb_state_count(init), "state after a few steps", init->bodies);
            if (rc != NB_EXIT_OK)
                nb_state64_free(&ref_state);
        }
        if (rc == NB_EXIT_OK) {
            nb_progress("validating: state after a few steps");
            rc = nb_trial_state(nb_step_run, run, init, (float)dt, &trial);
            if (rc == NB_EXIT_OK)
                rc = nb_check_state(check, &trial, &ref_state);
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
    return !strcmp(NB_STEP_CHECK, "tree") && h->run.extra.theta > 0.0f ? h->run.extra.theta : 0.0;
}

/* An exact step: one check. A tree step at theta > 0: first the exact sum at theta = 0 (where
 * affordable), then the approximation at its theta against the tree class's limits. */
static int validate(harness *h, nb_check *check)
{
    if (tree_theta(h) == 0.0)
        return validate_run(h, &h->run, 0.0, check);
    if (pairs_of(&h->initial, 1) <= NB_TREE_EXACT_PAIRS) {
        nb_run exact = h->run;
        exact.extra.theta = 0.0f;
        const int rc = validate_run(h, &exact, 0.0, check);
        if (rc != NB_EXIT_OK || !nb_check_passed(check)) {
            if (!h->o.quiet)
                printf("%s at --theta 0 (every cell opened: the direct sum, exact limits):\n", NB_STEP_NAME);
            return rc;
        }
    }
    return validate_run(h, &h->run, tree_theta(h), check);
}

/* ---- the timed runs ------------------------------------------------------------------- */

/* One run of `steps` steps from the current state, with snapshots if asked for. */
static int run_steps(harness *h, nb_state *work, uint64_t steps, nb_snapshot_sink *sink)
{
    nb_run r = h->run;
    r.steps = steps;
    r.extra.sink = sink;
    if (!sink || (nb_step_features & NB_FEATURE_SNAPSHOTS)) {
        r.extra.snapshot_every = sink ? h->o.snapshot_every : 0;
        const int rc = nb_step_run(work, &r);
        work->step += steps;
        work->time += (double)steps * h->o.dt;
        return rc;
    }
    /* The step does not write snapshots itself: run it in chunks and write them between. */
    r.extra.snapshot_every = 0; /* counted from this run's start, also when it resumes from an --input snapshot */
    for (uint64_t done = 0; done < steps;) {
        const uint64_t every = h->o.snapshot_every;
        const uint64_t chunk = steps - done < every ? steps - done : every;
        r.steps = chunk;
        int rc = nb_step_run(work, &r);
        done += chunk;
        work->step += chunk;
        work->time += (double)chunk * h->o.dt;
        if (rc == NB_EXIT_OK && done % every == 0)
            rc = nb_sink_push(sink, work);
        if (rc != NB_EXIT_OK)
            return rc;
    }
    return NB_EXIT_OK;
}

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

/* ---- set-up -------------------------------------------------------------------------- */

/* With eps = 0 two bodies at one place have an infinite force: refuse them up front. */
static int compare_position(const void *a, const void *b)
{
    const float *p = (const float *)a, *q = (const float *)b;
    for (int d = 0; d < 3; ++d)
        if (p[d] != q[d])
            return p[d] < q[d] ? -1 : 1;
    return 0;
}

static int reject_coincident(const nb_state *s)
{
    const size_t n = s->bodies;
    float *p = (float *)nb_malloc(3 * n * sizeof(float), "the coincidence check");
    if (!p)
        return NB_EXIT_ERROR;
    for (size_t sys = 0; sys < s->systems; ++sys) {
        for (size_t i = 0; i < n; ++i) {
            p[3 * i] = s->x[sys * n + i];
            p[3 * i + 1] = s->y[sys * n + i];
            p[3 * i + 2] = s->z[sys * n + i];
        }
        qsort(p, n, 3 * sizeof(float), compare_position);
        for (size_t i = 1; i < n; ++i)
            if (compare_position(p + 3 * (i - 1), p + 3 * i) == 0) {
                nb_error("--eps 0: two bodies of system %zu are both at (%g, %g, %g), where the force is "
                         "infinite; use a softening length > 0",
                         sys, p[3 * i], p[3 * i + 1], p[3 * i + 2]);
                free(p);
                return NB_EXIT_ERROR;
            }
    }
    free(p);
    return NB_EXIT_OK;
}

/* A correct float32 step is never blamed for what float32 cannot hold: such an input is refused here,
 * before any step runs, with one line naming what is out of range (exit 2). */
static int refuse_out_of_float_range(const nb_state *s, float eps2)
{
    const size_t n = s->bodies;
    const double soft = (double)eps2, soft3 = soft * sqrt(soft);
    for (size_t sys = 0; sys < s->systems; ++sys) {
        double m_max = 0.0, m_sum = 0.0, lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (size_t i = sys * n; i < (sys + 1) * n; ++i) {
            const double m = s->m[i], p[3] = {s->x[i], s->y[i], s->z[i]};
            if (m != 0.0 && m < FLT_MIN) {
                nb_error("body %zu of system %zu has mass %g, below float32's normal range (%g): float32 steps "
                         "flush it to zero; use masses of 0 or at least %g", i - sys * n, sys, m, FLT_MIN, FLT_MIN);
                return NB_EXIT_ERROR;
            }
            m_max = fmax(m_max, m);
            m_sum += m;
            for (int d = 0; d < 3; ++d) {
                lo[d] = fmin(lo[d], p[d]);
                hi[d] = fmax(hi[d], p[d]);
            }
        }
        if (m_max / soft3 > NB_FLOAT_ROOM || m_sum / soft > NB_FLOAT_ROOM) {
            /* the smallest eps with m/eps^3 and M/eps^2 inside the room */
            const double need = fmax(cbrt(m_max / NB_FLOAT_ROOM), sqrt(m_sum / NB_FLOAT_ROOM));
            nb_error("system %zu: masses up to %g (total %g) with softening %g make forces of m/eps^3 = %.3g, "
                     "beyond float32's range (%g); use --eps %.3g or more, or smaller masses",
                     sys, m_max, m_sum, sqrt(soft), m_max / soft3, FLT_MAX, need * 1.01);
            return NB_EXIT_ERROR;
        }
        /* Distances up to sqrt(3) x the widest span: their squares must stay finite, their inverse cubes
         * normal (a step forms m r^-3; below FLT_MIN a far pair's pull is flushed to zero). */
        double span = 0.0;
        int along = 0;
        for (int d = 0; d < 3; ++d)
            if (hi[d] - lo[d] > span) {
                span = hi[d] - lo[d];
                along = d;
            }
        const double far = span * sqrt(3.0);
        if (far * far > NB_FLOAT_ROOM || (far > 0.0 && 1.0 / (far * far * far) < 16.0 * FLT_MIN)) {
            nb_error("system %zu spans %g along %c: the inverse cube of its bodies' distances (down to %g) is below "
                     "float32's normal range (%g); scale the positions down to spans of at most %g",
                     sys, span, "xyz"[along], 1.0 / (far * far * far), FLT_MIN, cbrt(1.0 / (16.0 * FLT_MIN)) / sqrt(3.0));
            return NB_EXIT_ERROR;
        }
    }
    return NB_EXIT_OK;
}

/* The same rule for what the fp64 reference says a correct step must return: refused (exit 2) if float32
 * cannot hold it. `what` names it ("acceleration", "state after 10 steps"); index[j] is the body of the
 * j-th value (NULL: the j-th body). */
static int refuse_reference_out_of_range(const double *const v[], int fields, const size_t *index, size_t count,
                                         const char *what, size_t bodies)
{
    for (int k = 0; k < fields; ++k)
        for (size_t j = 0; j < count; ++j)
            if (!(fabs(v[k][j]) <= NB_FLOAT_ROOM)) {
                const size_t i = index ? index[j] : j;
                nb_error("the fp64 reference's %s of body %zu of system %zu is %g, beyond float32's range (%g): "
                         "use a larger --eps, a smaller --dt, or fewer --steps", what, i % bodies, i / bodies,
                         v[k][j], FLT_MAX);
                return NB_EXIT_ERROR;
            }
    return NB_EXIT_OK;
}

/* Reference accelerations so small that float32 loses their digits (a system's rms under 2^24 FLT_MIN)
 * are refused too: one pass, the sums of squares per system. */
static int refuse_reference_too_small(const double *const a[3], const size_t *index, size_t count, size_t bodies,
                                      size_t systems)
{
    double *sum2 = (double *)calloc(systems, sizeof(double));
    size_t *seen = (size_t *)calloc(systems, sizeof(size_t));
    int rc = sum2 && seen ? NB_EXIT_OK : NB_EXIT_ERROR;
    if (rc != NB_EXIT_OK)
        nb_error("out of host memory for the range check of the reference");
    for (size_t j = 0; rc == NB_EXIT_OK && j < count; ++j) {
        const size_t sys = (index ? index[j] : j) / bodies;
        sum2[sys] += a[0][j] * a[0][j] + a[1][j] * a[1][j] + a[2][j] * a[2][j];
        seen[sys] += 1;
    }
    for (size_t sys = 0; rc == NB_EXIT_OK && sys < systems; ++sys) {
        const double rms = seen[sys] ? sqrt(sum2[sys] / (double)seen[sys]) : 0.0;
        if (rms > 0.0 && rms < 0x1p24 * FLT_MIN) {
            nb_error("the fp64 reference's accelerations of system %zu are about %g, below what float32 holds to "
                     "full precision (%g); use larger masses or smaller distances", sys, rms, 0x1p24 * FLT_MIN);
            rc = NB_EXIT_ERROR;
        }
    }
    free(sum2);
    free(seen);
    return rc;
}

static int setup(harness *h)
{
    nb_options *o = &h->o;
    if (!nb_platform_is_gpu() && (o->block || o->gpus || o->no_overlap || o->decompose)) {
        nb_error("--block, --gpus, --no-overlap and --decompose are for the GPU steps; %s runs on the CPU", NB_STEP_NAME);
        return NB_EXIT_ERROR;
    }
    if (o->deterministic && !(nb_step_features & NB_FEATURE_DETERMINISTIC)) {
        nb_error("--deterministic: %s always sums in a fixed order (the option is for step09_newton)", NB_STEP_NAME);
        return NB_EXIT_ERROR;
    }
    if (o->theta >= 0.0 && !(nb_step_features & NB_FEATURE_THETA)) {
        nb_error("--theta: %s is a direct sum with no opening angle (the option is for tree steps)", NB_STEP_NAME);
        return NB_EXIT_ERROR;
    }
    if (o->validate_only && (o->output || o->snapshot_dir)) { /* it would run no step to write them from */
        nb_error("--validate-only writes no %s: drop it, or drop --validate-only", o->output ? "--output" : "snapshots");
        return NB_EXIT_ERROR;
    }
    if (o->csv && !o->validate_only && o->steps == 0) {
        nb_error("--csv needs at least one step to time (--steps 0 only validates and writes --output)");
        return NB_EXIT_ERROR;
    }
    /* Outputs that cannot be written are refused now, not after the run (which would leave the other). */
    if ((o->output && nb_output_check(o->output) != NB_EXIT_OK) || (o->csv && nb_results_check(o->csv) != NB_EXIT_OK) ||
        (o->snapshot_dir && nb_sink_check(o->snapshot_dir) != NB_EXIT_OK))
        return NB_EXIT_ERROR;
    int rc = nb_platform_open(o->gpus);
    if (rc != NB_EXIT_OK)
        return rc;

    uint64_t systems = o->systems, bodies = o->bodies;
    if (o->input) {
        nb_snapshot_info info;
        rc = nb_snapshot_read(o->input, &h->initial, &info);
        if (rc != NB_EXIT_OK)
            return rc;
        if (!o->dt_set && info.dt > 0.0)
            o->dt = info.dt;
        if (!o->eps_set && info.eps >= 0.0)
            o->eps = info.eps;
        systems = h->initial.systems;
        bodies = h->initial.bodies;
    }

    /* Memory, before allocating: host copies (initial, work, result, back, trial, queued snapshots) and
     * the fp64 references; on the GPU the state twice over (the steps' buffers and scratch). */
    uint64_t total = systems * bodies, host = 0, dev = 0, tmp;
    const uint64_t fp32 = total * NB_FIELDS * sizeof(float), fp64 = total * NB_FIELDS * sizeof(double);
    if (nb_mul_overflows(fp32, 8, &host) || nb_mul_overflows(fp32, 2, &dev) || __builtin_add_overflow(host, 2 * fp64, &tmp)) {
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
    if (nb_platform_is_gpu() && (rc = nb_platform_check_memory(dev)) != NB_EXIT_OK)
        return rc;

    if (!o->input) {
        if ((rc = nb_state_alloc(&h->initial, (size_t)systems, (size_t)bodies)) != NB_EXIT_OK)
            return rc;
        nb_progress("initial conditions");
        nb_init(&h->initial, o->model, o->masses, o->seed);
        nb_progress_done();
    }
    if (o->eps == 0.0 && (rc = reject_coincident(&h->initial)) != NB_EXIT_OK)
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
    if ((rc = refuse_out_of_float_range(&h->initial, h->run.eps2)) != NB_EXIT_OK)
        return rc;
    h->run.block = o->block;
    h->run.extra.gpus = o->gpus;
    h->run.extra.no_overlap = o->no_overlap;
    h->run.extra.decompose = o->decompose;
    h->run.extra.deterministic = o->deterministic;
    h->run.extra.theta = o->theta >= 0.0 ? (float)o->theta : NB_THETA_DEFAULT;
    h->run.info = &h->info;
    h->run.clock = &h->clock; /* every run has one: a step cannot tell the checked runs from the timed ones */
    return NB_EXIT_OK;
}

/* ---- reporting ------------------------------------------------------------------------ */

static void fill_result(const harness *h, nb_result *r, const nb_check *c, const char *pass)
{
    const nb_options *o = &h->o;
    static char date[32];
    memset(r, 0, sizeof *r);
    r->step = NB_STEP_ID;
    r->name = NB_STEP_NAME;
    r->build = NB_BUILD_LABEL;
    r->tag = o->tag ? o->tag : "";
    r->model = o->input ? "file" : nb_model_name(o->model);
    r->masses = o->input ? "file" : nb_masses_name(o->masses);
    r->systems = h->initial.systems;
    r->bodies = h->initial.bodies;
    r->steps = o->steps;
    r->dt = o->dt;
    r->eps = o->eps;
    r->seed = o->seed;
    r->repeat = o->repeat;
    r->e2e_s = r->e2e_min_s = r->e2e_max_s = -1.0;
    r->kernel_s = r->kernel_min_s = r->kernel_max_s = -1.0;
    r->ginteractions_s = r->gflops = -1.0;
    r->acc_rms = c->acc_done ? c->acc_rms : -1.0;
    r->acc_max = c->acc_done ? c->acc_max : -1.0;
    r->acc_ratio = c->acc_done ? c->acc_ratio : -1.0;
    r->state_pos = c->state_done ? c->pos_max : -1.0;
    r->state_vel = c->state_done ? c->vel_max : -1.0;
    r->timed_change = r->timed_state = -1.0; /* the timed runs' check, filled in where it ran */
    r->checked = c->compared;
    r->pass = pass;
    r->device = nb_platform_device();
    r->gpus = h->info.gpus ? h->info.gpus : nb_platform_gpus(); /* steps that use one GPU leave it 0 */
#ifdef _OPENMP
    r->threads = (unsigned)omp_get_max_threads();
#else
    r->threads = 1;
#endif
    r->block = h->info.block;
    r->config = h->info.config;
    r->date = nb_utc_now(date, sizeof date);
    r->commit = NB_COMMIT;
}

static int run_main(int argc, char **argv)
{
    /* Static, like work, e2e and loop below: they live until exit, so an early error return leaves
     * nothing unreachable for LeakSanitizer or valgrind to report. */
    static harness h;
    memset(&h, 0, sizeof h);
    int rc = nb_parse_args(argc, argv, &h.o, NB_STEP_NAME, NB_STEP_SUMMARY);
    if (rc >= 0)
        return rc;
    const nb_options *o = &h.o;
    nb_progress_enable(!o->quiet);
    if ((rc = setup(&h)) != NB_EXIT_OK)
        return rc;
    const nb_state *init = &h.initial;
    if (!o->quiet)
        printf("%s: %s%s N=%zu S=%zu, %llu steps of dt=%g, eps=%g, on %s\n", NB_STEP_NAME,
               o->input ? o->input : nb_model_name(o->model),
               !o->input && o->masses == NB_MASSES_RANDOM ? " (random masses)" : "", init->bodies, init->systems,
               (unsigned long long)o->steps, o->dt, o->eps, nb_platform_device());

    /* Correct first. */
    nb_check check;
    nb_check_init(&check);
    const char *verdict = "UNCHECKED";
    if (o->validate != NB_VALIDATE_OFF) {
        if ((rc = validate(&h, &check)) != NB_EXIT_OK)
            return rc;
        const int passed = nb_check_passed(&check);
        verdict = passed ? "PASS" : "FAIL";
        if (!o->quiet || !passed) {
            FILE *out = passed ? stdout : stderr;
            if (o->quiet)
                fprintf(out, "%s: validation FAIL\n", NB_STEP_NAME);
            nb_check_print(out, &check, init->bodies);
            if (!o->quiet)
                fprintf(out, "  validation %s%s\n", verdict,
                        check.state_done ? "" : " (state check skipped at this size: accelerations only)");
        }
        if (!passed || o->validate_only) {
            if (o->csv && nb_comm_rank() == 0) {
                nb_result r;
                fill_result(&h, &r, &check, verdict);
                if (nb_results_append(o->csv, &r) != NB_EXIT_OK)
                    return NB_EXIT_ERROR;
            }
            return passed ? NB_EXIT_OK : NB_EXIT_MISMATCH;
        }
    } else if (o->validate_only) {
        nb_error("--validate-only with --validate off checks nothing");
        return NB_EXIT_ERROR;
    }

    /* `work` is what the step runs on; `result` the first repeat's final state, which --output,
     * --diagnostics and the checks read. */
    static nb_state work, result, back; /* back: a later repeat's final state, mapped back */
    if ((rc = nb_state_alloc(&work, init->systems, init->bodies)) != NB_EXIT_OK ||
        (rc = nb_state_alloc(&result, init->systems, init->bodies)) != NB_EXIT_OK)
        return rc;
    nb_state_copy(&result, init);
    nb_diag before, after;
    if (o->diagnostics && (rc = diagnostics(&h, init, &before)) != NB_EXIT_OK)
        return rc;

    /* Check what is timed: every repeat's final state against the fp64 reference of the same run. */
    static nb_state64 timed_ref;
    const int check_timed = o->steps > 0 && (double)o->steps * o->dt <= NB_TIMED_CHECK_TIME &&
                            (o->validate == NB_VALIDATE_FULL ||
                             (o->validate == NB_VALIDATE_AUTO && pairs_of(init, o->steps) <= NB_TIMED_CHECK_PAIRS));
    if (check_timed) {
        if ((rc = reference_state(&h, o->steps, o->dt, &timed_ref)) != NB_EXIT_OK)
            return rc;
        const double *const want[6] = {timed_ref.x, timed_ref.y, timed_ref.z, timed_ref.vx, timed_ref.vy, timed_ref.vz};
        char what[64];
        snprintf(what, sizeof what, "state after %llu steps", (unsigned long long)o->steps);
        if ((rc = refuse_reference_out_of_range(want, 6, NULL, nb_state_count(init), what, init->bodies)) != NB_EXIT_OK)
            return rc;
        nb_progress_done();
    }
    nb_check timed;
    nb_check_init(&timed);

    /* Then fast: one untimed warm-up step, then the median of the repeats. Repeat 0 runs the problem
     * as it is, each later one (and the warm-up) an exact variant of it (variant.h). */
    static double *e2e, *loop;
    e2e = (double *)nb_malloc(o->repeat * sizeof(double), "timings");
    loop = (double *)nb_malloc(o->repeat * sizeof(double), "timings");
    if (!e2e || !loop)
        return NB_EXIT_ERROR;
    nb_snapshot_sink *sink = NULL;
    if (o->steps > 0) {
        nb_variant variant;
        nb_progress("warm-up");
        nb_variant_pick(&variant, o->repeat, init->bodies);
        nb_variant_apply(&variant, init, &work);
        if ((rc = run_steps(&h, &work, 1, NULL)) != NB_EXIT_OK)
            return rc;
        if (o->snapshot_dir && !(sink = nb_sink_open(o->snapshot_dir, o->eps, o->dt)))
            return NB_EXIT_ERROR;
        for (uint64_t r = 0; r < o->repeat; ++r) {
            char phase[64];
            snprintf(phase, sizeof phase, "repeat %llu/%llu", (unsigned long long)r + 1, (unsigned long long)o->repeat);
            nb_progress(phase);
            nb_variant_pick(&variant, r, init->bodies);
            nb_variant_apply(&variant, init, &work);
            if (sink)
                nb_sink_present(sink, &variant);
            h.clock.elapsed = 0.0;
            const double t0 = nb_now();
            rc = run_steps(&h, &work, o->steps, sink);
            if (rc == NB_EXIT_OK && sink)
                rc = nb_sink_flush(sink); /* the files are part of the run */
            e2e[r] = nb_comm_max(nb_now() - t0); /* the slowest rank's (one process: its own) */
            loop[r] = nb_comm_max(h.clock.elapsed);
            if (rc != NB_EXIT_OK) {
                nb_sink_close(sink);
                return rc;
            }
            /* This repeat's final state, mapped back to the problem as it is: repeat 0's is kept (for
             * --output and --diagnostics), a later one's only checked. */
            if (r > 0 && !check_timed)
                continue;
            if (r > 0 && !back.x && (rc = nb_state_alloc(&back, init->systems, init->bodies)) != NB_EXIT_OK)
                return rc;
            nb_state *final = r == 0 ? &result : &back;
            nb_variant_undo(&variant, &work, final);
            if (!check_timed)
                continue;
            nb_progress("checking the timed run against fp64");
            nb_check c;
            nb_check_init(&c);
            c.theta = tree_theta(&h);
            if ((rc = nb_check_timed(&c, init, final, &timed_ref, o->steps, o->dt)) != NB_EXIT_OK)
                return rc;
            if (!nb_check_passed(&c)) {
                nb_sink_close(sink);
                fprintf(stderr, "%s: timed run %llu of %llu FAIL: its final state after %llu steps is not the fp64 "
                        "reference's (a step must do the same work, every step asked for, whether it is timed or not)\n",
                        NB_STEP_NAME, (unsigned long long)r + 1, (unsigned long long)o->repeat,
                        (unsigned long long)o->steps);
                nb_check_print(stderr, &c, init->bodies);
                if (o->csv && nb_comm_rank() == 0) {
                    nb_result row;
                    fill_result(&h, &row, &check, "FAIL");
                    row.timed_change = c.acc_max;
                    row.timed_state = fmax(c.pos_max, c.vel_max);
                    if (nb_results_append(o->csv, &row) != NB_EXIT_OK)
                        return NB_EXIT_ERROR;
                }
                return NB_EXIT_MISMATCH;
            }
            if (r == 0) { /* the worst of the repeats, measure by measure (all passed: no NaN) */
                timed = c;
            } else {
                timed.acc_max = fmax(timed.acc_max, c.acc_max);
                timed.acc_rms = fmax(timed.acc_rms, c.acc_rms);
                timed.pos_max = fmax(timed.pos_max, c.pos_max);
                timed.vel_max = fmax(timed.vel_max, c.vel_max);
            }
        }
        nb_progress_done();
        if ((rc = nb_sink_close(sink)) != NB_EXIT_OK)
            return rc;
        if (check_timed && !o->quiet) {
            printf("  the timed runs (worst of %llu, checked against fp64):\n", (unsigned long long)o->repeat);
            nb_check_print(stdout, &timed, init->bodies);
        }
    }

    /* The final state is checked for NaN before anything is written. Where it was checked against the
     * reference above, it is finite; beyond that size, nothing says whether float32 or the step failed. */
    for (int k = 0; k < NB_FIELDS - 1; ++k) {
        const float *f = nb_state_field(&result, k);
        for (size_t i = 0; i < nb_state_count(&result); ++i)
            if (!isfinite(f[i])) {
                nb_error("body %zu of system %zu is not finite after %llu steps: float32 overflowed (try a smaller "
                         "--dt or larger --eps), or the step is wrong; no fp64 reference of the run is affordable at "
                         "this size to tell which", i % result.bodies, i / result.bodies, (unsigned long long)o->steps);
                return NB_EXIT_ERROR;
            }
    }
    if (o->diagnostics) {
        if ((rc = diagnostics(&h, &result, &after)) != NB_EXIT_OK)
            return rc;
        print_diag("before", &before);
        print_diag("after ", &after);
        printf("  relative energy error %.3e after %llu steps\n",
               fabs(before.energy) > 0.0 ? (after.energy - before.energy) / fabs(before.energy) : 0.0,
               (unsigned long long)o->steps);
    }

    /* --output is written now but renamed into place last, after the results row: a run that exits 2
     * because the row could not be appended leaves no new --output (and an old one as it was). */
    nb_replace output = {0};
    if (o->output && nb_comm_rank() == 0 && (rc = nb_snapshot_stage(&output, o->output, &result, o->eps, o->dt)) != NB_EXIT_OK)
        return rc;
    if (o->steps > 0) {
        const double interactions = (double)init->systems * (double)init->bodies * (double)init->bodies * (double)o->steps;
        nb_result r;
        fill_result(&h, &r, &check, verdict);
        r.e2e_s = nb_median(e2e, o->repeat);
        r.e2e_min_s = nb_min(e2e, o->repeat);
        r.e2e_max_s = nb_max(e2e, o->repeat);
        r.kernel_s = nb_median(loop, o->repeat);
        r.kernel_min_s = nb_min(loop, o->repeat);
        r.kernel_max_s = nb_max(loop, o->repeat);
        r.ginteractions_s = r.kernel_s > 0.0 ? interactions / r.kernel_s * 1e-9 : -1.0;
        r.gflops = r.ginteractions_s > 0.0 ? r.ginteractions_s * NB_FLOPS_PER_INTERACTION : -1.0;
        r.clock_mhz = nb_platform_clock_mhz();
        if (check_timed) {
            r.timed_change = timed.acc_max;
            r.timed_state = fmax(timed.pos_max, timed.vel_max);
        }
        if (!o->quiet) {
            printf("  time loop %.4g ms (median of %llu, min %.4g, max %.4g), end to end %.4g ms\n", 1e3 * r.kernel_s,
                   (unsigned long long)o->repeat, 1e3 * r.kernel_min_s, 1e3 * r.kernel_max_s, 1e3 * r.e2e_s);
            printf("  %.4g G interactions/s, %.4g GFLOP/s (%d flops per interaction)%s%s\n", r.ginteractions_s,
                   r.gflops, NB_FLOPS_PER_INTERACTION, h.info.config[0] ? "; " : "", h.info.config);
        }
        if (o->csv && nb_comm_rank() == 0 && nb_results_append(o->csv, &r) != NB_EXIT_OK) {
            nb_replace_discard(&output);
            return NB_EXIT_ERROR;
        }
    }
    if (output.tmp) { /* a failed rename after the row went in says so: the row stays, it was measured */
        char note[4200];
        snprintf(note, sizeof note, "(the run's results row is in %s already)", o->csv ? o->csv : "");
        if ((rc = nb_replace_commit(&output, o->csv && o->steps > 0 ? note : NULL)) != NB_EXIT_OK)
            return rc;
    }
    free(e2e);
    free(loop);
    nb_state_free(&work);
    nb_state_free(&result);
    nb_state_free(&back);
    nb_state64_free(&timed_ref);
    nb_state_free(&h.initial);
    return NB_EXIT_OK;
}

/* Every rank of an MPI step runs all of the above (common/comm.h); a rank that fails ends the job. */
int main(int argc, char **argv)
{
    nb_set_progname(NB_STEP_NAME);
    /* A write past a file-size limit (ulimit -f) then fails with EFBIG, said in one line, instead of
     * ending the program with a temporary left behind. */
    signal(SIGXFSZ, SIG_IGN);
    const int rc = nb_comm_init(&argc, &argv);
    return nb_comm_finalize(rc != NB_EXIT_OK ? rc : run_main(argc, argv));
}
