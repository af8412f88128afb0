/* gpu_probe: how many CUDA GPUs the grader may use, with their SM counts and names. Prints the count on
 * the first line, then "SMs<TAB>name" per GPU. Any failure (no driver, no device) prints 0: no GPU. */
#include <cuda_runtime.h>
#include <stdio.h>

int main(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess)
        count = 0;
    printf("%d\n", count);
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp prop;
        if (cudaGetDeviceProperties(&prop, d) == cudaSuccess)
            printf("%d\t%s\n", prop.multiProcessorCount, prop.name);
        else
            printf("0\tunknown\n");
    }
    return 0;
}
