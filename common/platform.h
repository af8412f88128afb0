/* platform.h: what differs between the CPU and the GPU programs. CPU steps link common/host.c,
 * GPU steps common/device.cu; both provide these and nb_region_begin/end of nbody.h. */
#ifndef NB_PLATFORM_H
#define NB_PLATFORM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Get ready to run. GPU: find the GPUs, fail with one line if there are none or fewer than
 * `gpus` (0 = all; more than one only for a step with NB_FEATURE_MULTI_GPU, `multi_gpu`). Returns 0 or
 * NB_EXIT_ERROR. */
int nb_platform_open(unsigned gpus, int multi_gpu);
/* 1 for GPU programs. */
int nb_platform_is_gpu(void);
/* What the results CSV calls the device: the GPU's name, or the CPU's model. */
const char *nb_platform_device(void);
/* GPUs the run may use (after nb_platform_open), 0 on the CPU. */
unsigned nb_platform_gpus(void);
/* Refuse, with one line, a run that needs more than `bytes` of memory on one GPU. Returns 0 or NB_EXIT_ERROR. */
int nb_platform_check_memory(uint64_t bytes);

#ifdef __cplusplus
}
#endif
#endif
