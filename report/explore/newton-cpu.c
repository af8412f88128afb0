/* INSTRUCTORS ONLY: a worked answer (a step's solution); grading/handout.sh keeps it out of the handout. */
/* newton-cpu.c: step09's idea on the CPU, the worked answer of step09_newton/README.md's exercise 3.
 * step01 with each pair computed once: body i against the bodies j > i of its system, the force added
 * to i in registers and subtracted from j in the thread's own partial sums; the threads' partial sums
 * are then added in thread order. Rows are cut cyclically over the threads (row i has n - 1 - i pairs),
 * so every thread gets the same share and the same rows every run: the result is the same bits run to
 * run for a given thread count. Built and checked on the harness by report/explore/newton-cpu.sh. */
#include "nbody.h"
#include "util.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Acceleration of every body from every other body of its own system, each pair once. `partial`:
 * 3 * total floats per thread. */
static void accelerations(const nb_state *s, float eps2, float *ax, float *ay, float *az, float *partial, int threads)
{
    const size_t n = s->bodies, total = nb_state_count(s);
    const float *x = s->x, *y = s->y, *z = s->z, *m = s->m;
#pragma omp parallel num_threads(threads)
    {
        float *px = partial + (size_t)omp_get_thread_num() * 3 * total, *py = px + total, *pz = py + total;
        memset(px, 0, 3 * total * sizeof(float));
#pragma omp for schedule(static, 1)
        for (size_t i = 0; i < total; ++i) {
            const size_t end = i / n * n + n; /* body i's system ends here */
            const float xi = x[i], yi = y[i], zi = z[i], mi = m[i];
            float axi = 0.0f, ayi = 0.0f, azi = 0.0f;
#pragma omp simd reduction(+ : axi, ayi, azi)
            for (size_t j = i + 1; j < end; ++j) {
                const float dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
                const float d2 = dx * dx + dy * dy + dz * dz + eps2;
                const float inv = 1.0f / sqrtf(d2);
                const float inv3 = inv * inv * inv;
                const float fi = m[j] * inv3, fj = mi * inv3;
                axi += dx * fi;
                ayi += dy * fi;
                azi += dz * fi;
                px[j] -= dx * fj; /* the same pair pulls j the other way */
                py[j] -= dy * fj;
                pz[j] -= dz * fj;
            }
            px[i] += axi;
            py[i] += ayi;
            pz[i] += azi;
        }
        /* the implicit barrier: every thread's sums are complete */
#pragma omp for schedule(static)
        for (size_t i = 0; i < total; ++i) {
            float sx = 0.0f, sy = 0.0f, sz = 0.0f;
            for (int t = 0; t < threads; ++t) { /* thread order: a fixed order */
                const float *q = partial + (size_t)t * 3 * total;
                sx += q[i];
                sy += q[total + i];
                sz += q[2 * total + i];
            }
            ax[i] = sx;
            ay[i] = sy;
            az[i] = sz;
        }
    }
}

int nb_step_run(nb_state *s, const nb_run *run)
{
    const size_t total = nb_state_count(s);
    const int threads = omp_get_max_threads();
    float *acc = (float *)nb_malloc(3 * total * sizeof(float), "accelerations");
    float *partial = (float *)nb_malloc((size_t)threads * 3 * total * sizeof(float), "per-thread partial sums");
    if (!acc || !partial) {
        free(acc);
        free(partial);
        return NB_EXIT_ERROR;
    }
    float *ax = acc, *ay = acc + total, *az = acc + 2 * total;

    nb_region_begin(run);
    for (uint64_t step = 0; step < run->steps; ++step) {
        accelerations(s, run->eps2, ax, ay, az, partial, threads);
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < total; ++i) { /* kick, then drift */
            s->vx[i] += ax[i] * run->dt;
            s->vy[i] += ay[i] * run->dt;
            s->vz[i] += az[i] * run->dt;
            s->x[i] += s->vx[i] * run->dt;
            s->y[i] += s->vy[i] * run->dt;
            s->z[i] += s->vz[i] * run->dt;
        }
    }
    nb_region_end(run);
    free(partial);
    free(acc);
    return NB_EXIT_OK;
}
