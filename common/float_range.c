/* float_range.c: what float32 can hold (float_range.h). A correct float32 step is never blamed for what
 * float32 cannot hold: such an input, or a reference a float32 step cannot return, is refused before any
 * step runs, with one line naming what is out of range (exit 2). */
#include "float_range.h"
#include "util.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* With eps = 0 two bodies at one place have an infinite force: refuse them up front. */
static int compare_position(const void *a, const void *b)
{
    const float *p = (const float *)a, *q = (const float *)b;
    for (int d = 0; d < 3; ++d)
        if (p[d] != q[d])
            return p[d] < q[d] ? -1 : 1;
    return 0;
}

int nb_refuse_coincident(const nb_state *s)
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
int nb_refuse_out_of_float_range(const nb_state *s, float eps2)
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
int nb_refuse_reference_out_of_range(const double *const v[], int fields, const size_t *index, size_t count,
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
int nb_refuse_reference_too_small(const double *const a[3], const size_t *index, size_t count, size_t bodies,
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

