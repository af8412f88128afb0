// INSTRUCTORS ONLY: it holds a step's force kernel; grading/handout.sh keeps it out of the handout.
// forces-bench.cu: the exploration behind the tuning of steps 04-06, kept with what it printed on an
// H100 (report/data/h100-2026-11-22/explore-*.txt; report/explore/README.md). One file, no lab code:
// force-kernel variants with template knobs (B threads, R bodies per thread, unroll U, tiles of L x B
// bodies, __launch_bounds__ minimum MINB blocks, and the interaction's form MODE: 0 as in the steps,
// 3 with (m*inv)*(inv*inv), 1 and 2 the mass folded into the coordinates), each checked against fp64
// on 512 bodies (a sphere at the origin and one 20 away) and timed with CUDA events; and pipe
// micro-benchmarks (MUFU.RSQ, FFMA).
//   nvcc -O3 -std=c++17 -arch=sm_90 -ftz=true -o forces-bench report/explore/forces-bench.cu (bench.h beside it)
//   ./forces-bench 2 (checks)   ./forces-bench 3 (timings)   ./forces-bench 4 (two launches for ncu)
#include "bench.h"

// ---------------- pipe micro-benchmarks ----------------
__global__ void mufu_bench(float *out, int iters, unsigned long long *cyc)
{
    float v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = 1.0f + 0.01f * (threadIdx.x + k);
    long long c0 = clock64();
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int k = 0; k < 8; ++k) v[k] = rsqrtf(v[k]);
    }
    long long c1 = clock64();
    float s = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += v[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
    if (threadIdx.x == 0) atomicMax(cyc, (unsigned long long)(c1 - c0));
}
__global__ void ffma_bench(float *out, int iters, unsigned long long *cyc)
{
    float v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = 1.0f + 0.01f * (threadIdx.x + k);
    const float a = 0.999f, b = 0.001f;
    long long c0 = clock64();
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int k = 0; k < 8; ++k) v[k] = fmaf(v[k], a, b);
    }
    long long c1 = clock64();
    float s = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += v[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
    if (threadIdx.x == 0) atomicMax(cyc, (unsigned long long)(c1 - c0));
}
// one MUFU per MIX FFMA
template <int MIX>
__global__ void mix_bench(float *out, int iters, unsigned long long *cyc)
{
    float v[8], w[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) { v[k] = 1.0f + 0.01f * (threadIdx.x + k); w[k] = v[k]; }
    const float a = 0.999f, b = 0.001f;
    long long c0 = clock64();
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            v[k] = rsqrtf(v[k]);
#pragma unroll
            for (int q = 0; q < MIX; ++q) w[k] = fmaf(w[k], a, b);
        }
    }
    long long c1 = clock64();
    float s = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += v[k] + w[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
    if (threadIdx.x == 0) atomicMax(cyc, (unsigned long long)(c1 - c0));
}

static int g_sms;
template <typename K>
static void pipe_run(const char *name, K kernel, int ops_per_iter_thread)
{
    const int blocks = g_sms * 8, threads = 256, iters = 4096;
    float *out; unsigned long long *cyc, h = 0;
    CK(cudaMalloc(&out, blocks * threads * 4)); CK(cudaMalloc(&cyc, 8));
    kernel<<<blocks, threads>>>(out, 16, cyc); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemset(cyc, 0, 8));
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    cudaEventRecord(a);
    kernel<<<blocks, threads>>>(out, iters, cyc); CK(cudaGetLastError());
    cudaEventRecord(b); CK(cudaEventSynchronize(b));
    float ms; cudaEventElapsedTime(&ms, a, b);
    CK(cudaMemcpy(&h, cyc, 8, cudaMemcpyDeviceToHost));
    // 8 blocks of 256 per SM resident at once (2048 threads): ops per SM per cycle from the block's cycle count
    double ops_sm = 8.0 * threads * (double)iters * ops_per_iter_thread;
    printf("pipe %-10s %8.2f ops/clk/SM (cycles %llu)  %.3f ms  => %.3g ops/s GPU\n", name, ops_sm / (double)h, h, ms,
           (double)blocks * threads * iters * ops_per_iter_thread / (ms * 1e-3));
    cudaFree(out); cudaFree(cyc);
}

// ---------------- force kernels ----------------
// MODE 0: standard (x,y,z,m) tiles, 13 ALU + MUFU per interaction.
// MODE 1: mass folded into coordinates: tile (sx, sy, sz, s) with s = 1/sqrt(m), E = s*s*eps2; 12 ALU + MUFU.
// MODE 2: as 1, coordinates relative to the block's first body (error independent of where the system sits).
// L: each tile holds L*B bodies (fewer barriers). MINB: __launch_bounds__ min blocks per SM (0: none).
template <int B, int R, int U, int MODE, int L, int MINB>
__global__ void __launch_bounds__(B, MINB) forces(const float *__restrict__ x, const float *__restrict__ y,
                                            const float *__restrict__ z, const float *__restrict__ m,
                                            float4 *partial, int n, int tiles_per_slice, float eps2)
{
    constexpr int T = B * L;
    __shared__ float4 tile[T];
    __shared__ float tileE[T];
    const int tiles = (n + T - 1) / T;
    const int first = blockIdx.z * tiles_per_slice;
    const int last = min(first + tiles_per_slice, tiles);
    const int i0 = blockIdx.x * B * R;
    const float cx = MODE == 2 ? x[i0] : 0.0f, cy = MODE == 2 ? y[i0] : 0.0f, cz = MODE == 2 ? z[i0] : 0.0f;
    float xi[R], yi[R], zi[R], ax[R], ay[R], az[R];
#pragma unroll
    for (int u = 0; u < R; ++u) {
        const int i = i0 + u * B + threadIdx.x;
        xi[u] = i < n ? x[i] - cx : 0.0f;
        yi[u] = i < n ? y[i] - cy : 0.0f;
        zi[u] = i < n ? z[i] - cz : 0.0f;
        ax[u] = ay[u] = az[u] = 0.0f;
    }
    for (int t = first; t < last; ++t) {
#pragma unroll
        for (int l = 0; l < L; ++l) {
            const int k = l * B + threadIdx.x;
            const int j = t * T + k;
            if (MODE == 0 || MODE == 3) {
                tile[k] = j < n ? make_float4(x[j], y[j], z[j], m[j]) : make_float4(0.f, 0.f, 0.f, 0.f);
            } else {
                const float mj = j < n ? m[j] : 0.0f;
                if (mj > 0.0f) {
                    const float sg = 1.0f / sqrtf(mj);
                    tile[k] = make_float4(sg * (x[j] - cx), sg * (y[j] - cy), sg * (z[j] - cz), sg);
                    tileE[k] = sg * sg * eps2;
                } else {
                    tile[k] = make_float4(0.f, 0.f, 0.f, 0.f);
                    tileE[k] = 1.0f;
                }
            }
        }
        __syncthreads();
#pragma unroll U
        for (int k = 0; k < T; ++k) {
            const float4 p = tile[k];
            if (MODE == 0 || MODE == 3) {
#pragma unroll
                for (int u = 0; u < R; ++u) {
                    const float dx = p.x - xi[u], dy = p.y - yi[u], dz = p.z - zi[u];
                    const float d2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
                    const float inv = rsqrtf(d2);
                    const float f = MODE == 0 ? p.w * inv * inv * inv : (p.w * inv) * (inv * inv);
                    ax[u] = fmaf(dx, f, ax[u]);
                    ay[u] = fmaf(dy, f, ay[u]);
                    az[u] = fmaf(dz, f, az[u]);
                }
            } else {
                const float e = tileE[k];
#pragma unroll
                for (int u = 0; u < R; ++u) {
                    const float dx = fmaf(-p.w, xi[u], p.x), dy = fmaf(-p.w, yi[u], p.y), dz = fmaf(-p.w, zi[u], p.z);
                    const float d2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, e)));
                    const float inv = rsqrtf(d2);
                    const float f = inv * inv * inv;
                    ax[u] = fmaf(dx, f, ax[u]);
                    ay[u] = fmaf(dy, f, ay[u]);
                    az[u] = fmaf(dz, f, az[u]);
                }
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int u = 0; u < R; ++u) {
        const int i = i0 + u * B + threadIdx.x;
        if (i < n) partial[(size_t)blockIdx.z * n + i] = make_float4(ax[u], ay[u], az[u], 0.0f);
    }
}

template <int B, int R, int U, int MODE, int L = 1, int MINB = 0>
static double run_variant(const char *label, Data &d, int slices_arg, float eps2, int reps, bool check)
{
    auto kern = forces<B, R, U, MODE, L, MINB>;
    const int n = d.n, tiles = (n + B * L - 1) / (B * L), row_blocks = (n + B * R - 1) / (B * R);
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, B, 0));
    int slices = slices_arg;
    if (slices <= 0) {
        double resident = (double)per_sm * g_sms;
        slices = row_blocks >= resident ? 1 : (int)(resident / row_blocks);
        slices = std::max(1, std::min(slices, tiles));
    }
    const int tps = (tiles + slices - 1) / slices;
    slices = (tiles + tps - 1) / tps;
    float4 *partial;
    CK(cudaMalloc(&partial, (size_t)slices * n * sizeof(float4)));
    dim3 grid(row_blocks, 1, slices);
    kern<<<grid, B>>>(d.x, d.y, d.z, d.m, partial, n, tps, eps2);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    const double maxerr = check ? max_error(d, partial, slices, eps2) : 0.0;
    const std::vector<float> t = time_launches([&] { kern<<<grid, B>>>(d.x, d.y, d.z, d.m, partial, n, tps, eps2); }, reps);
    double med = t[t.size() / 2];
    double gis = (double)n * n / (med * 1e-3) / 1e9;
    printf("%-6s B=%3d R=%d U=%2d mode=%d L=%d minb=%2d n=%7d slices=%3d blocks=%5d per_sm=%2d  %8.1f Gint/s  (min %.1f)  err=%.2e\n",
           label, B, R, U, MODE, L, MINB, n, slices, row_blocks * slices, per_sm, gis, (double)n * n / (t[0] * 1e-3) / 1e9, maxerr);
    cudaFree(partial);
    return gis;
}

int main(int argc, char **argv)
{
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    g_sms = prop.multiProcessorCount;
    printf("device %s, %d SMs\n", prop.name, g_sms);
    const int which = argc > 1 ? atoi(argv[1]) : 0;
    if (which == 0 || which == 1) {
        pipe_run("rsqrt", mufu_bench, 8);
        pipe_run("ffma", ffma_bench, 8);
        pipe_run("mix1:12", mix_bench<12>, 13);
        pipe_run("mix1:8", mix_bench<8>, 9);
    }
    const float eps2 = 1e-4f;
    if (which == 0 || which == 2) {
        for (int off = 0; off < 2; ++off) {
            Data d; make_data(d, 20011, off ? 20.0 : 0.0, 1);
            printf("-- check n=20011 offset=%d\n", off ? 20 : 0);
            run_variant<128, 4, 8, 0>("base", d, 0, eps2, 1, true);
            run_variant<128, 4, 8, 1>("sigma", d, 0, eps2, 1, true);
            run_variant<128, 4, 8, 2>("sigmac", d, 0, eps2, 1, true);
            run_variant<128, 4, 8, 0, 2>("base", d, 0, eps2, 1, true);
            run_variant<128, 4, 8, 3, 2>("base3", d, 0, eps2, 1, true);
            run_variant<128, 8, 4, 0, 2>("base", d, 0, eps2, 1, true);
            free_data(d);
        }
    }
    if (which == 0 || which == 3) {
        Data d; make_data(d, 131072, 0.0, 0);
        const int reps = 5;
        printf("-- timing n=131072\n");
        for (int sl : {64, 128}) run_variant<128, 4, 8, 0, 2>("base", d, sl, eps2, reps, false);
        for (int sl : {64, 128}) run_variant<128, 4, 8, 0, 2, 10>("base", d, sl, eps2, reps, false);
        for (int sl : {64}) run_variant<128, 4, 8, 0, 4, 10>("base", d, sl, eps2, reps, false);
        for (int sl : {64, 128}) run_variant<128, 4, 8, 3, 2>("base3", d, sl, eps2, reps, false);
        for (int sl : {64}) run_variant<128, 4, 4, 0, 2>("base", d, sl, eps2, reps, false);
        for (int sl : {64}) run_variant<128, 4, 16, 0, 2>("base", d, sl, eps2, reps, false);
        for (int sl : {32, 64}) run_variant<128, 4, 8, 0, 4>("base", d, sl, eps2, reps, false);
        for (int sl : {32, 64}) run_variant<256, 4, 8, 0, 2>("base", d, sl, eps2, reps, false);
        for (int sl : {32, 64}) run_variant<64, 4, 8, 0, 4>("base", d, sl, eps2, reps, false);
        for (int sl : {64}) run_variant<128, 8, 4, 0, 2>("base", d, sl, eps2, reps, false);
        for (int sl : {64}) run_variant<128, 8, 4, 3, 2>("base3", d, sl, eps2, reps, false);
        for (int sl : {64}) run_variant<64, 8, 4, 0, 4>("base", d, sl, eps2, reps, false);
        for (int sl : {64, 128}) run_variant<128, 4, 8, 2, 2>("sigmac", d, sl, eps2, reps, false);
        for (int sl : {64}) run_variant<256, 4, 8, 2, 2>("sigmac", d, sl, eps2, reps, false);
        for (int sl : {64}) run_variant<128, 8, 4, 2, 2>("sigmac", d, sl, eps2, reps, false);
        free_data(d);
        Data e; make_data(e, 16384, 0.0, 0);
        printf("-- timing n=16384\n");
        for (int sl : {32, 64}) run_variant<128, 4, 8, 0, 2>("base", e, sl, eps2, 21, false);
        for (int sl : {32, 64}) run_variant<128, 4, 8, 3, 2>("base3", e, sl, eps2, 21, false);
        for (int sl : {16, 32}) run_variant<128, 4, 8, 0, 4>("base", e, sl, eps2, 21, false);
        for (int sl : {32, 64}) run_variant<64, 4, 8, 0, 2>("base", e, sl, eps2, 21, false);
        free_data(e);
        Data f; make_data(f, 1048576, 0.0, 0);
        printf("-- timing n=1048576\n");
        for (int sl : {4, 8, 16}) run_variant<128, 4, 8, 0, 2>("base", f, sl, eps2, 3, false);
        free_data(f);
    }
    if (which == 4) {
        Data d; make_data(d, 65536, 0.0, 0);
        run_variant<128, 4, 8, 0, 2>("base", d, 32, eps2, 1, false);
        run_variant<128, 8, 4, 0, 2>("base", d, 32, eps2, 1, false);
        free_data(d);
    }
    return 0;
}
