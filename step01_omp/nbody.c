/* step01_omp: In this version, we split the bodies over OpenMP threads (the outer loop: every body's
 * sum is independent), handed out in small chunks as threads come free, and let each thread sweep the
 * inner loop with SIMD lanes, for four bodies at a time: every x[j] read serves all four. Two of them
 * take 1/sqrtf, which -ffast-math makes an estimate and a Newton step on the multiply pipes; the other
 * two a true square root and division (steps.list: -mrecip=!vec-div,!vec-sqrt), on the divider, which
 * works beside those pipes. */
#include "nbody.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>

/* Acceleration of every body from every other body of its own system. */
static void accelerations(const nb_state *s, float eps2, float *ax, float *ay, float *az)
{
    /* BEGIN SOLUTION */
    const size_t n = s->bodies, items = (n + 3) / 4, work = s->systems * items; /* an item: bodies a, b, c, d */
    const float *x = s->x, *y = s->y, *z = s->z, *m = s->m;
#pragma omp parallel for schedule(dynamic, 8) /* 8 items at a time: a thread that falls behind takes fewer */
    for (size_t w = 0; w < work; ++w) {
        const size_t first = w / items * n, last = first + n - 1; /* the item's system */
        const size_t a = first + w % items * 4; /* past a system's end, b, c, d are its last body again */
        const size_t b = a + 1 < last ? a + 1 : last, c = a + 2 < last ? a + 2 : last, d = a + 3 < last ? a + 3 : last;
        float axa = 0.0f, aya = 0.0f, aza = 0.0f, axb = 0.0f, ayb = 0.0f, azb = 0.0f;
        float axc = 0.0f, ayc = 0.0f, azc = 0.0f, axd = 0.0f, ayd = 0.0f, azd = 0.0f;
#pragma omp simd reduction(+ : axa, aya, aza, axb, ayb, azb, axc, ayc, azc, axd, ayd, azd) /* lanes keep partial sums */
        for (size_t j = first; j <= last; ++j) {
            const float dxa = x[j] - x[a], dya = y[j] - y[a], dza = z[j] - z[a];
            const float dxb = x[j] - x[b], dyb = y[j] - y[b], dzb = z[j] - z[b];
            const float dxc = x[j] - x[c], dyc = y[j] - y[c], dzc = z[j] - z[c];
            const float dxd = x[j] - x[d], dyd = y[j] - y[d], dzd = z[j] - z[d];
            const float r2a = dxa * dxa + dya * dya + dza * dza + eps2; /* softening: j = i gives 0 */
            const float r2b = dxb * dxb + dyb * dyb + dzb * dzb + eps2;
            const float r2c = dxc * dxc + dyc * dyc + dzc * dzc + eps2;
            const float r2d = dxd * dxd + dyd * dyd + dzd * dzd + eps2;
            const float ia = 1.0f / sqrtf(r2a), ib = 1.0f / sqrtf(r2b); /* a, b: estimate, Newton (multiply pipes) */
            const float fa = m[j] * ia * ia * ia, fb = m[j] * ib * ib * ib;
            const float fc = m[j] / (r2c * sqrtf(r2c)), fd = m[j] / (r2d * sqrtf(r2d)); /* c, d: the divider */
            axa += dxa * fa, aya += dya * fa, aza += dza * fa;
            axb += dxb * fb, ayb += dyb * fb, azb += dzb * fb;
            axc += dxc * fc, ayc += dyc * fc, azc += dzc * fc;
            axd += dxd * fd, ayd += dyd * fd, azd += dzd * fd;
        }
        ax[a] = axa, ay[a] = aya, az[a] = aza;
        ax[b] = axb, ay[b] = ayb, az[b] = azb; /* where b = last, the same body again */
        ax[c] = axc, ay[c] = ayc, az[c] = azc;
        ax[d] = axd, ay[d] = ayd, az[d] = azd;
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
