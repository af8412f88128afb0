/* device_query.h: the judge's own look at the devices (the CPU's name; the GPUs, never the worker's word:
 * NVIDIA's management library, NVML: libnvidia-ml.so.1, which the driver installs, opened at run time, so
 * that the judge links no CUDA). What the results row says of the device, its GPU count and its clock
 * comes from here. */
#ifndef NB_DEVICE_QUERY_H
#define NB_DEVICE_QUERY_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nb_gpu_facts {
    unsigned count;       /* GPUs the workers may use (CUDA_VISIBLE_DEVICES respected), 0 where unknown */
    char name[256];       /* the first of them, "unknown" where NVML could not tell */
    double max_clock_mhz; /* its highest SM clock (0: unknown): the bound of what it can issue */
} nb_gpu_facts;

/* Fills `f` once per process and returns it; never fails (unknowns stay as above). */
const nb_gpu_facts *nb_gpu_query(void);

/* The GPUs a worker may be given: the first `want` (at most NB_GPU_GIVEN_MAX) of those the judge may use,
 * in CUDA_VISIBLE_DEVICES's order where it is set (indices taken as NVML's, UUIDs as they are), else in
 * NVML's index order: each one's device minor (/dev/nvidiaN) and UUID. Returns how many were found (fewer
 * where fewer are visible), or -1 where NVML is missing or fails or an entry cannot be resolved (a MIG
 * instance, a UUID's prefix). */
#define NB_GPU_GIVEN_MAX 64
#define NB_GPU_UUID_LEN 96 /* NVML_DEVICE_UUID_V2_BUFFER_SIZE */
int nb_gpu_given(unsigned want, unsigned minors[], char uuids[][NB_GPU_UUID_LEN]);

/* The CPU's model name (/proc/cpuinfo), or "CPU". */
const char *nb_cpu_name(void);

#ifdef __cplusplus
}
#endif
#endif
