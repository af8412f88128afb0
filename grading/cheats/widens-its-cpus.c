/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: widens-its-cpus | 00 | HONEST | sent one thread (the self-test grades it with OMP_NUM_THREADS=1),
 * it sets its CPU mask back to every CPU of the machine and computes step00's sum on all of them: the
 * judge's seccomp filter must refuse the new mask, so it runs on its one CPU at the honest speed */
#define _GNU_SOURCE /* sched_setaffinity, CPU_* */
#include "honest00.h"

#include <omp.h>
#include <sched.h>
#include <unistd.h>

static void accelerations_everywhere(const nb_state *s, float eps2, float *ax, float *ay, float *az, int threads)
{
    const size_t n = s->bodies, total = nb_state_count(s);
    const float *x = s->x, *y = s->y, *z = s->z, *m = s->m;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < total; ++i) {
        const size_t first = i / n * n;
        float axi = 0.0f, ayi = 0.0f, azi = 0.0f;
        for (size_t j = first; j < first + n; ++j) {
            const float dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
            const float inv = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz + eps2);
            const float f = m[j] * inv * inv * inv;
            axi += dx * f;
            ayi += dy * f;
            azi += dz * f;
        }
        ax[i] = axi;
        ay[i] = ayi;
        az[i] = azi;
    }
}

int nb_step_run(nb_state *s, const nb_run *run)
{
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t all;
    CPU_ZERO(&all);
    for (long c = 0; c < cpus && c < CPU_SETSIZE; ++c)
        CPU_SET((int)c, &all);
    (void)sched_setaffinity(0, sizeof all, &all); /* the threads started below inherit it */
    const int threads = cpus > 1 ? (int)cpus : 1;
    const size_t total = nb_state_count(s);
    float *acc = (float *)nb_malloc(3 * total * sizeof(float), "accelerations");
    if (!acc)
        return NB_EXIT_ERROR;
    float *ax = acc, *ay = acc + total, *az = acc + 2 * total;
    nb_region_begin(run);
    for (uint64_t step = 0; step < run->steps; ++step) {
        accelerations_everywhere(s, run->eps2, ax, ay, az, threads);
        for (size_t i = 0; i < total; ++i) {
            s->vx[i] += ax[i] * run->dt;
            s->vy[i] += ay[i] * run->dt;
            s->vz[i] += az[i] * run->dt;
        }
        for (size_t i = 0; i < total; ++i) {
            s->x[i] += s->vx[i] * run->dt;
            s->y[i] += s->vy[i] * run->dt;
            s->z[i] += s->vz[i] * run->dt;
        }
    }
    nb_region_end(run);
    free(acc);
    return NB_EXIT_OK;
}
