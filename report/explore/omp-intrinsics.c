/* INSTRUCTORS ONLY: a worked answer (a step's solution); grading/handout.sh keeps it out of the handout. */
/* omp-intrinsics.c: the worked answer of step01_omp/README.md's exercise 3: step01 with its inner loop
 * written in x86 intrinsics, to see what the compiler's `1.0f / sqrtf` costs. Same threads, same two
 * bodies a pass, same arithmetic but for the inverse square root: gcc -ffast-math turns 1/sqrtf(d2)
 * into an estimate r (vrsqrtps) and one Newton step, r * -0.5 * (d2*r*r - 3), and step01 then cubes
 * it and multiplies by the mass: 7 multiplies after the estimate. Here the Newton step is applied to
 * the cube directly, r^3 * (2.5 - 1.5*d2*r^2) (the same first-order correction: relative error
 * 7.5 e^2 for an estimate off by e, 1e-6 for AVX2's 12-bit estimate, 3e-8 for AVX-512's 14-bit one),
 * and the mass joins it: 6. With AVX-512 the loop takes 16 pairs at a time (gcc's own 512-bit code
 * computes a square root and then divides, 11 instructions where this has 1: why step01 keeps
 * -mprefer-vector-width=256). Built, validated and timed on the harness by report/sweeps/cpu-peer.sh. */
#include "nbody.h"
#include "util.h"

#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { PASS = 2 }; /* bodies i per pass over the bodies j, as in step01 */

#if defined(__AVX512F__)
#define LANES 16
typedef __m512 vf;
#define vset(a) _mm512_set1_ps(a)
#define vsub(a, b) _mm512_sub_ps(a, b)
#define vmul(a, b) _mm512_mul_ps(a, b)
#define vfma(a, b, c) _mm512_fmadd_ps(a, b, c)
#define vrsqrt(a) _mm512_rsqrt14_ps(a)
#define vload(p) _mm512_loadu_ps(p)
#define vsum(a) _mm512_reduce_add_ps(a)
#elif defined(__AVX2__) && defined(__FMA__)
#define LANES 8
typedef __m256 vf;
#define vset(a) _mm256_set1_ps(a)
#define vsub(a, b) _mm256_sub_ps(a, b)
#define vmul(a, b) _mm256_mul_ps(a, b)
#define vfma(a, b, c) _mm256_fmadd_ps(a, b, c)
#define vrsqrt(a) _mm256_rsqrt_ps(a)
#define vload(p) _mm256_loadu_ps(p)
static float vsum(__m256 a)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}
#else
#define LANES 0 /* no AVX2: only the plain loop below */
#endif

/* The pull of body j on body i (xi, yi, zi) added to acc[0..2], in plain C: the loop's tail. */
static void pull(const nb_state *s, size_t j, float xi, float yi, float zi, float eps2, float *acc)
{
    const float dx = s->x[j] - xi, dy = s->y[j] - yi, dz = s->z[j] - zi;
    const float inv = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz + eps2);
    const float f = s->m[j] * inv * inv * inv;
    acc[0] += dx * f;
    acc[1] += dy * f;
    acc[2] += dz * f;
}

static void accelerations(const nb_state *s, float eps2, float *ax, float *ay, float *az)
{
    const size_t n = s->bodies, passes = (n + PASS - 1) / PASS, work = s->systems * passes;
#pragma omp parallel for schedule(dynamic, 8)
    for (size_t w = 0; w < work; ++w) {
        const size_t first = w / passes * n, last = first + n - 1;
        size_t i[PASS];
        float acc[PASS][3] = {{0}};
        for (int k = 0; k < PASS; ++k) {
            const size_t b = first + w % passes * PASS + k;
            i[k] = b <= last ? b : last; /* an odd system's last pass repeats its last body */
        }
        size_t j = first;
#if LANES
        const vf eps = vset(eps2), c15 = vset(-1.5f), c25 = vset(2.5f);
        vf xi[PASS], yi[PASS], zi[PASS], sx[PASS], sy[PASS], sz[PASS];
        for (int k = 0; k < PASS; ++k) {
            xi[k] = vset(s->x[i[k]]), yi[k] = vset(s->y[i[k]]), zi[k] = vset(s->z[i[k]]);
            sx[k] = sy[k] = sz[k] = vset(0.0f);
        }
        for (; j + LANES <= last + 1; j += LANES) {
            const vf xj = vload(s->x + j), yj = vload(s->y + j), zj = vload(s->z + j), mj = vload(s->m + j);
            for (int k = 0; k < PASS; ++k) {
                const vf dx = vsub(xj, xi[k]), dy = vsub(yj, yi[k]), dz = vsub(zj, zi[k]);
                const vf d2 = vfma(dx, dx, vfma(dy, dy, vfma(dz, dz, eps)));
                const vf r = vrsqrt(d2), r2 = vmul(r, r);                       /* r ~ d2^-1/2 */
                const vf f = vmul(vmul(vmul(r2, r), mj), vfma(vmul(d2, r2), c15, c25)); /* m d2^-3/2 */
                sx[k] = vfma(dx, f, sx[k]);
                sy[k] = vfma(dy, f, sy[k]);
                sz[k] = vfma(dz, f, sz[k]);
            }
        }
        for (int k = 0; k < PASS; ++k)
            acc[k][0] = vsum(sx[k]), acc[k][1] = vsum(sy[k]), acc[k][2] = vsum(sz[k]);
#endif
        for (; j <= last; ++j)
            for (int k = 0; k < PASS; ++k)
                pull(s, j, s->x[i[k]], s->y[i[k]], s->z[i[k]], eps2, acc[k]);
        for (int k = 0; k < PASS; ++k)
            if (first + w % passes * PASS + k <= last) {
                ax[i[k]] = acc[k][0];
                ay[i[k]] = acc[k][1];
                az[i[k]] = acc[k][2];
            }
    }
}

int nb_step_run(nb_state *s, const nb_run *run)
{
    const size_t total = nb_state_count(s);
    float *acc = (float *)nb_malloc(3 * total * sizeof(float), "accelerations");
    if (!acc)
        return NB_EXIT_ERROR;
    float *ax = acc, *ay = acc + total, *az = acc + 2 * total;
    snprintf(run->info->config, sizeof run->info->config, "lanes=%d", LANES);

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
