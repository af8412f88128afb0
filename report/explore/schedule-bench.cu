// INSTRUCTORS ONLY: it holds a step's force kernel; grading/handout.sh keeps it out of the handout.
// schedule-bench.cu: the second round of exploration of the best step's kernel (report/explore/README.md,
// "Where the last issue slots go"). One file, no lab code: the force kernel of steps 05-06 with template
// knobs (B threads, R bodies per thread, unroll U, tiles of L x B bodies, __launch_bounds__ minimum MINB
// blocks) and forms MODE: 3 as in the steps, 0 with the product chained, 1 the mass folded into
// coordinates taken from the system's centre of mass, and 9 a PROBE with MUFU.RSQ replaced by an FMUL
// (same instruction count, wrong physics: it only tells whether the MUFU limits the speed).
// Each variant is checked against fp64 (512 bodies of a clustered sphere at the origin and 20 away)
// and timed with CUDA events at N = 131072, with the lab's rule for slices (12 waves).
//   nvcc -O3 -std=c++17 -arch=sm_90 -ftz=true -lineinfo -o schedule-bench report/explore/schedule-bench.cu
//   ./schedule-bench 3 (timings)   ./schedule-bench 2 (checks)   ./schedule-bench 5 (three launches for ncu)
#include "bench.h"
static int g_sms;
// MODE 0: m*inv*inv*inv; 3: (m*inv)*(inv*inv) (the lab's form);
// 1: mass folded into coordinates relative to a centre (cx,cy,cz): tile (s(x-c), s(y-c), s(z-c), s), s=1/sqrt(m), E=eps2/m;
// 9: PROBE (wrong physics): MUFU.RSQ replaced by an FMUL, same instruction count.
template <int B, int R, int U, int MODE, int L, int MINB>
__global__ void __launch_bounds__(B, MINB) forces(const float *__restrict__ x, const float *__restrict__ y,
                                            const float *__restrict__ z, const float *__restrict__ m,
                                            float4 *partial, int n, int tiles_per_slice, float eps2,
                                            float cx, float cy, float cz)
{
    constexpr int T = B * L;
    __shared__ float4 tile[T];
    __shared__ float tileE[MODE == 1 ? T : 1];
    const int tiles = (n + T - 1) / T;
    const int first = blockIdx.z * tiles_per_slice;
    const int last = min(first + tiles_per_slice, tiles);
    const int i0 = blockIdx.x * B * R;
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
            if (MODE != 1) {
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
            if (MODE != 1) {
#pragma unroll
                for (int u = 0; u < R; ++u) {
                    const float dx = p.x - xi[u], dy = p.y - yi[u], dz = p.z - zi[u];
                    const float d2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
                    const float inv = MODE == 9 ? d2 * 0.37f : rsqrtf(d2);
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
static double g_cx, g_cy, g_cz;
static void centre(Data &d)
{
    double s[3] = {0, 0, 0}, mt = 0;
    for (int i = 0; i < d.n; ++i) { s[0] += d.hm[i] * d.hx[i]; s[1] += d.hm[i] * d.hy[i]; s[2] += d.hm[i] * d.hz[i]; mt += d.hm[i]; }
    g_cx = s[0] / mt; g_cy = s[1] / mt; g_cz = s[2] / mt;
}
template <int B, int R, int U, int MODE, int L = 2, int MINB = 0>
static double run_variant(const char *label, Data &d, float eps2, int reps, bool check, int slices_arg = 0)
{
    auto kern = forces<B, R, U, MODE, L, MINB>;
    const int n = d.n, tiles = (n + B * L - 1) / (B * L), row_blocks = (n + B * R - 1) / (B * R);
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, B, 0));
    cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, kern));
    int slices = slices_arg;
    if (slices <= 0) { // the lab's rule: 12 waves of resident blocks
        long resident = (long)per_sm * g_sms;
        slices = (int)std::max(1L, std::min((long)tiles, (12 * resident + row_blocks - 1) / row_blocks));
    }
    const int tps = (tiles + slices - 1) / slices;
    slices = (tiles + tps - 1) / tps;
    float4 *partial;
    CK(cudaMalloc(&partial, (size_t)slices * n * sizeof(float4)));
    dim3 grid(row_blocks, 1, slices);
    const float cx = MODE == 1 ? (float)g_cx : 0.f, cy = MODE == 1 ? (float)g_cy : 0.f, cz = MODE == 1 ? (float)g_cz : 0.f;
    kern<<<grid, B>>>(d.x, d.y, d.z, d.m, partial, n, tps, eps2, cx, cy, cz);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    const double maxerr = check ? max_error(d, partial, slices, eps2) : 0.0;
    const std::vector<float> t =
        time_launches([&] { kern<<<grid, B>>>(d.x, d.y, d.z, d.m, partial, n, tps, eps2, cx, cy, cz); }, reps);
    double med = t[t.size() / 2];
    double gis = (double)n * n / (med * 1e-3) / 1e9;
    printf("%-7s B=%3d R=%d U=%2d mode=%d T=%5d minb=%2d regs=%3d n=%7d slices=%3d per_sm=%2d  %8.1f Gint/s (best %.1f)  err=%.2e\n",
           label, B, R, U, MODE, B * L, MINB, fa.numRegs, n, slices, per_sm, gis, (double)n * n / (t[0] * 1e-3) / 1e9, maxerr);
    fflush(stdout);
    cudaFree(partial);
    return gis;
}
#define ALL(F)                                                                                                   \
    F(128, 4, 8, 3, 2, 0, "lab")                                                                                 \
    F(128, 4, 8, 3, 16, 0, "lab")                                                                                \
    F(128, 4, 8, 3, 2, 8, "lab")                                                                                 \
    F(128, 4, 8, 3, 2, 9, "lab")                                                                                 \
    F(128, 4, 4, 3, 2, 0, "lab")                                                                                 \
    F(128, 4, 16, 3, 2, 0, "lab")                                                                                \
    F(128, 5, 8, 3, 2, 0, "r5")                                                                                  \
    F(128, 5, 4, 3, 2, 0, "r5")                                                                                  \
    F(128, 6, 4, 3, 2, 0, "r6")                                                                                  \
    F(128, 6, 8, 3, 2, 0, "r6")                                                                                  \
    F(128, 8, 2, 3, 2, 0, "r8")                                                                                  \
    F(128, 8, 4, 3, 2, 6, "r8")                                                                                  \
    F(64, 4, 8, 3, 4, 0, "b64")                                                                                  \
    F(192, 4, 8, 3, 2, 0, "b192")                                                                                \
    F(128, 4, 8, 0, 2, 0, "chain")                                                                               \
    F(128, 4, 8, 1, 2, 0, "sigma")                                                                               \
    F(128, 4, 8, 1, 16, 0, "sigma")                                                                              \
    F(128, 6, 4, 1, 2, 0, "sigma")                                                                               \
    F(128, 4, 8, 9, 2, 0, "PROBE")                                                                               \
    F(128, 8, 4, 9, 2, 0, "PROBE")

int main(int argc, char **argv)
{
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    g_sms = prop.multiProcessorCount;
    printf("device %s, %d SMs\n", prop.name, g_sms);
    const int which = argc > 1 ? atoi(argv[1]) : 0;
    const float eps2 = 1e-4f;
    if (which == 0 || which == 2) {
        for (int off = 0; off < 2; ++off) {
            Data d; make_data(d, 20011, off ? 20.0 : 0.0, 1); centre(d);
            printf("-- check n=20011 offset=%d (err: max over 512 bodies, relative)\n", off ? 20 : 0);
#define CHECK(B, R, U, M, L, MB, NAME) run_variant<B, R, U, M, L, MB>(NAME, d, eps2, 1, true);
            ALL(CHECK)
            free_data(d);
        }
    }
    if (which == 0 || which == 3) {
        Data d; make_data(d, 131072, 0.0, 0); centre(d);
        printf("-- timing n=131072 (median of 7)\n");
#define TIME(B, R, U, M, L, MB, NAME) run_variant<B, R, U, M, L, MB>(NAME, d, eps2, 7, false);
        ALL(TIME)
        printf("-- repeat of the lab form and the best candidates\n");
        run_variant<128, 4, 8, 3, 2, 0>("lab", d, eps2, 7, false);
        run_variant<128, 4, 8, 3, 16, 0>("lab", d, eps2, 7, false);
        run_variant<128, 4, 8, 1, 2, 0>("sigma", d, eps2, 7, false);
        free_data(d);
    }
    if (which == 5) { // one launch each, for ncu
        Data d; make_data(d, 131072, 0.0, 0); centre(d);
        run_variant<128, 4, 8, 3, 2, 0>("lab", d, eps2, 1, false);
        run_variant<128, 4, 8, 9, 2, 0>("PROBE", d, eps2, 1, false);
        run_variant<128, 8, 4, 3, 2, 6>("r8", d, eps2, 1, false);
        free_data(d);
    }
    return 0;
}
