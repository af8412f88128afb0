/* step01_omp: In this version, we split the bodies over OpenMP threads (the outer loop: every body's
 * sum is independent) and let each thread sweep the inner loop with SIMD lanes. */
#include "nbody.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>

/* Acceleration of every body from every other body of its own system. */
static void accelerations(const nb_state *s, float eps2, float *ax, float *ay, float *az)
{
    /* BEGIN SOLUTION */
    const size_t n = s->bodies, total = nb_state_count(s);
    const float *x = s->x, *y = s->y, *z = s->z, *m = s->m;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < total; ++i) {
        const size_t first = i / n * n; /* body i's system starts here */
        float axi = 0.0f, ayi = 0.0f, azi = 0.0f;
#pragma omp simd reduction(+ : axi, ayi, azi) /* lanes keep partial sums: the order of the sum changes */
        for (size_t j = first; j < first + n; ++j) {
            const float dx = x[j] - x[i];
            const float dy = y[j] - y[i];
            const float dz = z[j] - z[i];
            const float d2 = dx * dx + dy * dy + dz * dz + eps2; /* softening: j = i gives 0, no test needed */
            const float inv = 1.0f / sqrtf(d2);
            const float f = m[j] * inv * inv * inv;
            axi += dx * f;
            ayi += dy * f;
            azi += dz * f;
        }
        ax[i] = axi;
        ay[i] = ayi;
        az[i] = azi;
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
