/* timing.c: the monotonic clock and the statistics of repeated runs. */
#define _POSIX_C_SOURCE 200809L
#include "timing.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double nb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double nb_median(const double *v, size_t n)
{
    if (n == 0)
        return 0.0;
    double small[64];
    double *sorted = n <= 64 ? small : (double *)malloc(n * sizeof *v);
    if (!sorted)
        return v[0];
    memcpy(sorted, v, n * sizeof *v);
    qsort(sorted, n, sizeof *v, by_value);
    const double m = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    if (sorted != small)
        free(sorted);
    return m;
}

double nb_min(const double *v, size_t n)
{
    double m = n ? v[0] : 0.0;
    for (size_t i = 1; i < n; ++i)
        m = v[i] < m ? v[i] : m;
    return m;
}

double nb_max(const double *v, size_t n)
{
    double m = n ? v[0] : 0.0;
    for (size_t i = 1; i < n; ++i)
        m = v[i] > m ? v[i] : m;
    return m;
}
