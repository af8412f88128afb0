/* timing.h: one timing discipline for the whole lab. Warm-up excluded, median of repeats;
 * interactions/s = S * N^2 * steps / time; GFLOP/s at NB_FLOPS_PER_INTERACTION flops each. */
#ifndef NB_TIMING_H
#define NB_TIMING_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The conventional count (NVIDIA's cuda-samples nbody, the ECL-BH course slides: REFERENCES.md),
 * stated once for the whole lab. */
#define NB_FLOPS_PER_INTERACTION 20

/* The timed region of a run (nb_region_begin/end in nbody.h). */
typedef struct nb_clock {
    double host_begin;  /* nb_now() at the last nb_region_begin */
    double elapsed;     /* seconds spent in regions since the harness zeroed it */
    int open;           /* inside a region */
    void *device;       /* the CUDA events of GPU programs (common/device.cu) */
} nb_clock;

/* Seconds on the monotonic clock. */
double nb_now(void);

/* Median, minimum and maximum of n > 0 values (the array is left as it was). */
double nb_median(const double *v, size_t n);
double nb_min(const double *v, size_t n);
double nb_max(const double *v, size_t n);

#ifdef __cplusplus
}
#endif
#endif
