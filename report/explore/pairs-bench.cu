// INSTRUCTORS ONLY: it holds a step's force kernel; grading/handout.sh keeps it out of the handout.
// pairs-bench.cu: issue #3's option (a), measured. Every pair of bodies is computed once and its
// force applied to both (Newton's third law), instead of once from each side as in the ladder. It is a
// different algorithm, not a ladder step: a stand-alone bench (bench.h) for the owner's decision.
//
// A block is W warps; each lane holds B i-bodies (a block: GROUP = W*B*32 of them). A work item is one
// group of i-bodies against a run of j-chunks of 32 bodies that come after the group: for each chunk,
// every warp rotates the chunk's 32 bodies through its lanes (32 steps; the positions from shared
// memory, the j-side accelerations passed on by one shuffle each); the warps' j-sums meet in shared
// memory and go to global memory with one atomic add per body and component. Pairs inside a group are
// computed from both sides ("diagonal" items), as in the ladder. The atomics make the last bits of the
// sums depend on scheduling: the ladder's fixed order is lost here too.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -ftz=true -o pairs-bench report/explore/pairs-bench.cu
//   ./pairs-bench [N [PIECE]]   # N a multiple of GROUP (default 131072), PIECE j-chunks per item (64)
#include "bench.h"

#ifndef B // i-bodies per lane
#define B 8
#endif
#ifndef W // warps per block
#define W 8
#endif
#define GROUP (W * B * 32)
#define FULL 0xffffffffu

struct Item {
    int group; // i-bodies group*GROUP ... +GROUP
    int c0, c1; // j-chunks [c0, c1) of 32 bodies; c0 < 0: the group against itself, both sides
};

__global__ void __launch_bounds__(W * 32) pairs(const float *__restrict__ x, const float *__restrict__ y,
                                                const float *__restrict__ z, const float *__restrict__ m,
                                                float4 *acc, const Item *items, float eps2)
{
    __shared__ float4 jpos[64]; // the chunk twice: lane l at step s reads jpos[l + s], no wrap-around
    __shared__ float jsum[3][32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const Item it = items[blockIdx.x];
    const int first = it.group * GROUP + warp * B * 32 + lane;
    float xi[B], yi[B], zi[B], nmi[B], ax[B], ay[B], az[B];
#pragma unroll
    for (int b = 0; b < B; ++b) {
        const int i = first + b * 32;
        xi[b] = x[i];
        yi[b] = y[i];
        zi[b] = z[i];
        nmi[b] = -m[i]; // the j-side force has the opposite sign
        ax[b] = ay[b] = az[b] = 0.0f;
    }
    const bool diagonal = it.c0 < 0;
    const int c0 = diagonal ? it.group * (GROUP / 32) : it.c0, c1 = diagonal ? c0 + GROUP / 32 : it.c1;
    for (int c = c0; c < c1; ++c) {
        if (warp == 0) {
            const int j = c * 32 + lane;
            const float4 p = make_float4(x[j], y[j], z[j], m[j]);
            jpos[lane] = p;
            jpos[lane + 32] = p;
            jsum[0][lane] = jsum[1][lane] = jsum[2][lane] = 0.0f;
        }
        __syncthreads();
        float bx = 0.0f, by = 0.0f, bz = 0.0f; // the j-side sum of the body this lane holds now
#pragma unroll 8
        for (int s = 0; s < 32; ++s) {
            const float4 pj = jpos[lane + s];
#pragma unroll
            for (int b = 0; b < B; ++b) {
                const float dx = pj.x - xi[b], dy = pj.y - yi[b], dz = pj.z - zi[b];
                const float d2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
                const float inv = rsqrtf(d2);
                const float inv3 = inv * inv * inv;
                const float fi = pj.w * inv3, fj = nmi[b] * inv3;
                ax[b] = fmaf(dx, fi, ax[b]);
                ay[b] = fmaf(dy, fi, ay[b]);
                az[b] = fmaf(dz, fi, az[b]);
                bx = fmaf(dx, fj, bx);
                by = fmaf(dy, fj, by);
                bz = fmaf(dz, fj, bz);
            }
            // Next step this lane holds body lane + s + 1: its sum so far is the next lane's.
            bx = __shfl_sync(FULL, bx, lane + 1);
            by = __shfl_sync(FULL, by, lane + 1);
            bz = __shfl_sync(FULL, bz, lane + 1);
        }
        if (!diagonal) { // after 32 shifts lane l holds body l's sum again
            atomicAdd(&jsum[0][lane], bx);
            atomicAdd(&jsum[1][lane], by);
            atomicAdd(&jsum[2][lane], bz);
        }
        __syncthreads();
        if (warp == 0 && !diagonal) {
            float4 *a = &acc[c * 32 + lane];
            atomicAdd(&a->x, jsum[0][lane]);
            atomicAdd(&a->y, jsum[1][lane]);
            atomicAdd(&a->z, jsum[2][lane]);
        }
        __syncthreads(); // jpos and jsum are overwritten next
    }
#pragma unroll
    for (int b = 0; b < B; ++b) {
        float4 *a = &acc[first + b * 32];
        atomicAdd(&a->x, ax[b]);
        atomicAdd(&a->y, ay[b]);
        atomicAdd(&a->z, az[b]);
    }
}

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 131072, piece = argc > 2 ? atoi(argv[2]) : 64;
    if (n < GROUP || n % GROUP != 0 || piece < 1) {
        fprintf(stderr, "usage: pairs-bench [N [PIECE]]: N a multiple of %d, PIECE at least 1\n", GROUP);
        return 2;
    }
    const float eps2 = 1e-4f;
    Data d;
    make_data(d, n, 0.0, 1);
    // Items: each group against itself, then against the chunks after it in runs of PIECE; longest first.
    const int groups = n / GROUP, chunks = n / 32;
    std::vector<Item> items;
    for (int g = 0; g < groups; ++g)
        items.push_back({g, -1, -1});
    for (int g = 0; g < groups; ++g)
        for (int c = (g + 1) * (GROUP / 32); c < chunks; c += piece)
            items.push_back({g, c, std::min(c + piece, chunks)});
    std::stable_sort(items.begin() + groups, items.end(),
                     [](const Item &a, const Item &b) { return a.c1 - a.c0 > b.c1 - b.c0; });
    Item *ditems;
    float4 *acc;
    CK(cudaMalloc(&ditems, items.size() * sizeof(Item)));
    CK(cudaMemcpy(ditems, items.data(), items.size() * sizeof(Item), cudaMemcpyHostToDevice));
    CK(cudaMalloc(&acc, (size_t)n * sizeof(float4)));
    auto launch = [&] {
        CK(cudaMemsetAsync(acc, 0, (size_t)n * sizeof(float4)));
        pairs<<<(int)items.size(), W * 32>>>(d.x, d.y, d.z, d.m, acc, ditems, eps2);
    };
    launch();
    CK(cudaDeviceSynchronize());
    CK(cudaGetLastError());
    const double err = max_error(d, acc, 1, eps2);
    const std::vector<float> t = time_launches(launch, 7);
    const double ms = t[t.size() / 2];
    printf("pairs B=%d W=%d PIECE=%d N=%d items=%zu: max error %.2e, %.3f ms (median of 7), %.0f G interactions/s "
           "(N^2 / time)\n",
           B, W, piece, n, items.size(), err, ms, (double)n * n / (ms * 1e-3) / 1e9);
    free_data(d);
    cudaFree(ditems);
    cudaFree(acc);
    return err <= 1e-4 ? 0 : 1; // NaN fails too
}
