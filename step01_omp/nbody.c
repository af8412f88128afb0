/* step01_omp: In this version, we split the bodies over OpenMP threads (the outer loop: every body's
 * sum is independent), handed out in small chunks as threads come free, and let each thread sweep the
 * inner loop with SIMD lanes, for two bodies at a time. */
#include "nbody.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>

/* Acceleration of every body from every other body of its own system. */
static void accelerations(const nb_state *s, float eps2, float *ax, float *ay, float *az)
{
    /* BEGIN SOLUTION */
    enum { PASS = 2 }; /* bodies i per pass over the bodies j: each x[j], y[j], z[j], m[j] serves PASS of them */
    const size_t n = s->bodies, passes = (n + PASS - 1) / PASS, work = s->systems * passes;
    const float *x = s->x, *y = s->y, *z = s->z, *m = s->m;
#pragma omp parallel for schedule(dynamic, 8) /* a thread that falls behind takes fewer passes */
    for (size_t w = 0; w < work; ++w) {
        const size_t first = w / passes * n, last = first + n - 1; /* this pass's system */
        float xi[PASS], yi[PASS], zi[PASS], axi[PASS] = {0}, ayi[PASS] = {0}, azi[PASS] = {0};
        for (int k = 0; k < PASS; ++k) {
            const size_t i = first + w % passes * PASS + k;
            xi[k] = x[i <= last ? i : last]; /* an odd system's last pass repeats its last body */
            yi[k] = y[i <= last ? i : last];
            zi[k] = z[i <= last ? i : last];
        }
#pragma omp simd reduction(+ : axi, ayi, azi) /* lanes keep partial sums: the order of the sum changes */
        for (size_t j = first; j <= last; ++j) {
            const float xj = x[j], yj = y[j], zj = z[j], mj = m[j]; /* read once, used for PASS bodies */
            for (int k = 0; k < PASS; ++k) {
                const float dx = xj - xi[k];
                const float dy = yj - yi[k];
                const float dz = zj - zi[k];
                const float d2 = dx * dx + dy * dy + dz * dz + eps2; /* softening: j = i gives 0, no test needed */
                const float inv = 1.0f / sqrtf(d2);
                const float f = mj * inv * inv * inv;
                axi[k] += dx * f;
                ayi[k] += dy * f;
                azi[k] += dz * f;
            }
        }
        for (int k = 0; k < PASS; ++k) {
            const size_t i = first + w % passes * PASS + k;
            if (i <= last) {
                ax[i] = axi[k];
                ay[i] = ayi[k];
                az[i] = azi[k];
            }
        }
    }
    /* STUB
    // Replace these lines with your step00 loop, its bodies split over threads, its pairs over SIMD lanes.
    (void)s, (void)eps2, (void)ax, (void)ay, (void)az;
    nb_die(NB_EXIT_ERROR, "TODO: accelerations() is yours to parallelise (see step01_omp/README.md)");
    END SOLUTION */
}

int nb_step_run(nb_state *s, const nb_run *run)
{
    const size_t total = nb_state_count(s);
    float *acc = (float *)nb_malloc(3 * total * sizeof(float), "accelerations");
    if (!acc)
        return NB_EXIT_ERROR;
    float *ax = acc, *ay = acc + total, *az = acc + 2 * total;

    nb_region_begin(run);
    for (uint64_t step = 0; step < run->steps; ++step) {
        accelerations(s, run->eps2, ax, ay, az);
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < total; ++i) { /* kick */
            s->vx[i] += ax[i] * run->dt;
            s->vy[i] += ay[i] * run->dt;
            s->vz[i] += az[i] * run->dt;
        }
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < total; ++i) { /* drift */
            s->x[i] += s->vx[i] * run->dt;
            s->y[i] += s->vy[i] * run->dt;
            s->z[i] += s->vz[i] * run->dt;
        }
    }
    nb_region_end(run);
    free(acc);
    return NB_EXIT_OK;
}
