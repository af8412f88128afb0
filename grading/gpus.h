/* gpus.h: the GPUs here (floor 2: includes proc.h and text.h): how many, their names and SM counts, from
 * the probe (grading/gpu_probe.cu: cudaGetDeviceCount) or else nvidia-smi -L; any failure counts as none. */
#ifndef GRADING_GPUS_H
#define GRADING_GPUS_H

#define MAX_GPUS 16

typedef struct gpu_info {
    int count;
    int sms[MAX_GPUS];
    char name[MAX_GPUS][128];
    char how[160];  /* how the count was found: "cudaGetDeviceCount", "nvidia-smi -L" */
    char none[160]; /* why there is none, when there is none */
} gpu_info;

/* Runs `probe` (NULL or not there: nvidia-smi -L), its output in out_dir/logs/gpu-probe.txt. */
void probe_gpus(const char *probe, const char *out_dir, gpu_info *g);
/* "2x NVIDIA H200" (a run on several GPUs) names the same GPU as "NVIDIA H200". */
const char *single_gpu_name(const char *device);
/* SMs of the GPU called `device`, 0 if unknown. */
int sms_of(const gpu_info *g, const char *device);
/* The GPUs a recorded gpu.csv names (report/tools/gpuinfo.cu: columns name and sms; a later row of the
 * same name replaces an earlier one), for the ceiling where no GPU is here to ask. g->count stays the
 * number of names: not GPUs here. 0, or 2 (NB_EXIT_ERROR) with one line on stderr. */
int read_gpu_info(const char *path, gpu_info *g);

#endif
