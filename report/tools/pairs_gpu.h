/* pairs_gpu.h: diag-gpu's pair sums (report/tools/pairs_gpu.cu). */
#ifndef NB_PAIRS_GPU_H
#define NB_PAIRS_GPU_H

#include "reference.h"

#ifdef __cplusplus
extern "C" {
#endif

/* nb_ref_accel_potential's contract and bits, the pair sums on the current GPU (exit status 2 on a CUDA
 * error or a full GPU, one line). */
int nb_gpu_accel_potential(const nb_state64 *s, double eps2, double *ax, double *ay, double *az, double *potential);

#ifdef __cplusplus
}
#endif

#endif
