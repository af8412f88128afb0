/* gpuinfo.cu: the shape of each visible GPU as CSV, for the report's ceiling (SMs x 4 x 32 x clock).
 *
 *   gpuinfo    prints "index,name,sms,compute_capability,warp_size,l2_bytes,shared_per_sm_bytes"
 *
 * nvidia-smi does not report the multiprocessor count; the CUDA runtime does.
 * Exit status: 0, or 2 after one line on stderr (no GPU, driver error). */
#include <cuda_runtime.h>
#include <stdio.h>

static int attr(cudaDeviceAttr what, int dev, int *out)
{
    const cudaError_t err = cudaDeviceGetAttribute(out, what, dev);
    if (err != cudaSuccess) {
        fprintf(stderr, "gpuinfo: device %d: %s\n", dev, cudaGetErrorString(err));
        return 0;
    }
    return 1;
}

int main(void)
{
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        fprintf(stderr, "gpuinfo: no CUDA device (%s)\n", err != cudaSuccess ? cudaGetErrorString(err) : "none visible");
        return 2;
    }
    printf("index,name,sms,compute_capability,warp_size,l2_bytes,shared_per_sm_bytes\n");
    for (int dev = 0; dev < count; ++dev) {
        cudaDeviceProp prop;
        int sms, major, minor, warp, l2, shared;
        if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess || !attr(cudaDevAttrMultiProcessorCount, dev, &sms) ||
            !attr(cudaDevAttrComputeCapabilityMajor, dev, &major) ||
            !attr(cudaDevAttrComputeCapabilityMinor, dev, &minor) || !attr(cudaDevAttrWarpSize, dev, &warp) ||
            !attr(cudaDevAttrL2CacheSize, dev, &l2) ||
            !attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev, &shared)) {
            fprintf(stderr, "gpuinfo: cannot query device %d\n", dev);
            return 2;
        }
        for (char *p = prop.name; *p; ++p) /* the name goes into a CSV field */
            if (*p == ',' || *p == '"')
                *p = ' ';
        printf("%d,%s,%d,%d.%d,%d,%d,%d\n", dev, prop.name, sms, major, minor, warp, l2, shared);
    }
    return 0;
}
