/* INSTRUCTORS ONLY: a worked answer (a step's solution); grading/handout.sh keeps it out of the handout. */
/* peer-soa.c: the lab's own stand-in for the best-known simple CPU kernel, for side-by-side timing with
 * step01 (report/sweeps/cpu-peer.sh). Written for this lab from a description of that kernel, not copied: the
 * structure-of-arrays float kernel of mini-nbody (Mark Harris), whose arithmetic it repeats term for
 * term (step01_omp/README.md says what was compared):
 *   - one `#pragma omp parallel for schedule(dynamic)` over the bodies i, int indices;
 *   - a plain inner loop over all bodies j that the compiler vectorises (no pragma, no masses):
 *     dx = x[j] - x[i], ...; d2 = dx*dx + dy*dy + dz*dz + SOFTENING; inv = 1/sqrtf(d2);
 *     inv3 = inv*inv*inv; F += d*inv3; then v[i] += dt*F (the kick inside the force loop);
 *   - the drift, x += v*dt, in a serial loop after it; six arrays of n floats in one block;
 *   - positions and velocities uniform in [-1, 1), softening 1e-9.
 * It times itself in one process: one untimed warm-up step, which starts its threads (the lab's timed calls
 * each run in a fresh worker, whose threads start inside the time), then REPEAT runs of STEPS steps each from
 * the same initial state, the median reported (common/timing.c's); interactions/s = N^2 * steps / time.
 * Build: gcc -std=c11 -O3 -march=native -ffast-math -fopenmp -Icommon report/tools/peer-soa.c common/timing.c -o peer-soa -lm
 * (common/timing.c: the lab's clock and median, outside the kernel's translation unit).
 * Usage: peer-soa N [STEPS [REPEAT]]. Prints one CSV row: kernel,bodies,threads,steps,repeat,
 * time_s,time_min_s,ginteractions_s (with --header, the header line first). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

#define SOFTENING 1e-9f

typedef struct {
    float *x, *y, *z, *vx, *vy, *vz;
} bodies;

/* The forces and the kick: the kernel being compared. */
static void body_force(bodies p, float dt, int n)
{
#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < n; i++) {
        float fx = 0.0f, fy = 0.0f, fz = 0.0f;
        for (int j = 0; j < n; j++) {
            const float dx = p.x[j] - p.x[i];
            const float dy = p.y[j] - p.y[i];
            const float dz = p.z[j] - p.z[i];
            const float dist_sqr = dx * dx + dy * dy + dz * dz + SOFTENING;
            const float inv_dist = 1.0f / sqrtf(dist_sqr);
            const float inv_dist3 = inv_dist * inv_dist * inv_dist;
            fx += dx * inv_dist3;
            fy += dy * inv_dist3;
            fz += dz * inv_dist3;
        }
        p.vx[i] += dt * fx;
        p.vy[i] += dt * fy;
        p.vz[i] += dt * fz;
    }
}

static void run_steps(bodies p, float dt, int n, long steps)
{
    for (long s = 0; s < steps; s++) {
        body_force(p, dt, n);
        for (int i = 0; i < n; i++) { /* the drift, serial as in the original */
            p.x[i] += p.vx[i] * dt;
            p.y[i] += p.vy[i] * dt;
            p.z[i] += p.vz[i] * dt;
        }
    }
}

/* A positive integer argument no larger than max, or -1. */
static long parse_count(const char *text, long max)
{
    char *end;
    errno = 0;
    const long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < 1 || v > max)
        return -1;
    return v;
}

int main(int argc, char **argv)
{
    int header = 0, arg = 1;
    if (arg < argc && strcmp(argv[arg], "--header") == 0)
        header = 1, arg++;
    const int given = argc - arg;
    if (given < 1 || given > 3) {
        fprintf(stderr, "usage: peer-soa [--header] N [STEPS [REPEAT]] (N bodies, default 1 step, 3 repeats)\n");
        return 2;
    }
    /* N <= 2^24: int indices, as in the original, stay far from INT_MAX. */
    const long n = parse_count(argv[arg], 1L << 24);
    const long steps = given > 1 ? parse_count(argv[arg + 1], 1000000) : 1;
    const long repeat = given > 2 ? parse_count(argv[arg + 2], 1000) : 3;
    if (n < 0 || steps < 0 || repeat < 0) {
        fprintf(stderr, "peer-soa: N must be 1..%ld, STEPS 1..1000000 and REPEAT 1..1000\n", 1L << 24);
        return 2;
    }

    const size_t count = (size_t)n;
    float *init = malloc(6 * count * sizeof(float)), *work = malloc(6 * count * sizeof(float));
    double *times = malloc((size_t)repeat * sizeof(double));
    if (!init || !work || !times) {
        fprintf(stderr, "peer-soa: out of memory for %ld bodies\n", n);
        return 2;
    }
    uint64_t state = 0x9e3779b97f4a7c15u; /* xorshift64*: the same bodies every run */
    for (size_t k = 0; k < 6 * count; k++) {
        state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
        init[k] = 2.0f * (float)((state * 0x2545f4914f6cdd1du) >> 40) / 16777216.0f - 1.0f;
    }
    const bodies p = {work, work + count, work + 2 * count, work + 3 * count, work + 4 * count, work + 5 * count};
    const float dt = 0.01f;

    memcpy(work, init, 6 * count * sizeof(float));
    run_steps(p, dt, (int)n, 1); /* warm-up: threads started, caches and clocks up */
    for (long r = 0; r < repeat; r++) {
        memcpy(work, init, 6 * count * sizeof(float));
        const double t0 = nb_now();
        run_steps(p, dt, (int)n, steps);
        times[r] = nb_now() - t0;
    }
    for (size_t k = 0; k < 3 * count; k++) { /* read the result; by its bits: -ffast-math folds isfinite() */
        uint32_t bits;
        memcpy(&bits, &work[k], sizeof bits);
        if ((bits & 0x7f800000u) == 0x7f800000u) {
            fprintf(stderr, "peer-soa: body %zu is not finite after the run\n", k % count);
            return 1;
        }
    }
    const double median = nb_median(times, (size_t)repeat), fastest = nb_min(times, (size_t)repeat);
    if (header)
        printf("kernel,bodies,threads,steps,repeat,time_s,time_min_s,ginteractions_s\n");
    printf("peer-soa,%ld,%d,%ld,%ld,%.6g,%.6g,%.6g\n", n, omp_get_max_threads(), steps, repeat, median, fastest,
           1e-9 * (double)n * (double)n * (double)steps / median);
    free(init);
    free(work);
    free(times);
    return 0;
}
