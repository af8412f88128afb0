// bench.h: what the two exploration benches share (forces-bench.cu, schedule-bench.cu): a seeded
// clustered sphere on the device, the check of summed partial accelerations against fp64, and the
// timing of repeated launches with CUDA events. No lab code: the benches stand alone.
#pragma once
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#define CK(x)                                                                                                  \
    do {                                                                                                       \
        cudaError_t e_ = (x);                                                                                  \
        if (e_ != cudaSuccess) {                                                                               \
            printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_));                               \
            exit(2);                                                                                           \
        }                                                                                                      \
    } while (0)

struct Data {
    int n;
    float *x, *y, *z, *m; // device
    std::vector<float> hx, hy, hz, hm;
};

static unsigned long long rng_state = 88172645463325252ull;
static double urand()
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (rng_state >> 11) * (1.0 / 9007199254740992.0);
}

// n bodies in a unit sphere with a concentrated core, centred `offset` along x; masses in [0.5, 1.5)/n,
// every 97th massless when zero_masses is set.
static void make_data(Data &d, int n, double offset, int zero_masses)
{
    d.n = n;
    d.hx.resize(n);
    d.hy.resize(n);
    d.hz.resize(n);
    d.hm.resize(n);
    for (int i = 0; i < n; ++i) {
        double a, b, c;
        do {
            a = 2 * urand() - 1;
            b = 2 * urand() - 1;
            c = 2 * urand() - 1;
        } while (a * a + b * b + c * c > 1);
        double r = pow(urand(), 2.0); // concentrated core
        d.hx[i] = (float)(offset + a * r);
        d.hy[i] = (float)(b * r);
        d.hz[i] = (float)(c * r);
        d.hm[i] = (float)((0.5 + urand()) / n);
        if (zero_masses && i % 97 == 5)
            d.hm[i] = 0.0f;
    }
    float **p[4] = {&d.x, &d.y, &d.z, &d.m};
    std::vector<float> *h[4] = {&d.hx, &d.hy, &d.hz, &d.hm};
    for (int k = 0; k < 4; ++k) {
        CK(cudaMalloc(p[k], n * 4));
        CK(cudaMemcpy(*p[k], h[k]->data(), n * 4, cudaMemcpyHostToDevice));
    }
}
static void free_data(Data &d)
{
    cudaFree(d.x);
    cudaFree(d.y);
    cudaFree(d.z);
    cudaFree(d.m);
}

// The largest relative error over 512 sampled bodies of the device's accelerations (the `slices`
// partial sums of `partial`, each n float4) against an fp64 sum; relative to max(|a|, 0.1 rms). NaN sticks.
static double max_error(const Data &d, const float4 *partial, int slices, float eps2)
{
    const int n = d.n, samples = 512;
    std::vector<float4> hp((size_t)slices * n);
    CK(cudaMemcpy(hp.data(), partial, hp.size() * sizeof(float4), cudaMemcpyDeviceToHost));
    std::vector<double> ref(3 * samples), got(3 * samples);
    double rms = 0;
    for (int s = 0; s < samples; ++s) {
        int i = (int)((long long)s * n / samples);
        if (s == samples - 1)
            i = n - 1;
        double a[3] = {0, 0, 0};
        for (int j = 0; j < n; ++j) {
            double dx = (double)d.hx[j] - d.hx[i], dy = (double)d.hy[j] - d.hy[i], dz = (double)d.hz[j] - d.hz[i];
            double r2 = dx * dx + dy * dy + dz * dz + eps2;
            double f = d.hm[j] / (r2 * sqrt(r2));
            a[0] += f * dx;
            a[1] += f * dy;
            a[2] += f * dz;
        }
        double g[3] = {0, 0, 0};
        for (int sl = 0; sl < slices; ++sl) {
            float4 v = hp[(size_t)sl * n + i];
            g[0] += v.x;
            g[1] += v.y;
            g[2] += v.z;
        }
        for (int k = 0; k < 3; ++k) {
            ref[3 * s + k] = a[k];
            got[3 * s + k] = g[k];
        }
        rms += a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
    }
    rms = sqrt(rms / samples);
    double maxerr = 0;
    for (int s = 0; s < samples; ++s) {
        double e2 = 0, r2 = 0;
        for (int k = 0; k < 3; ++k) {
            double e = got[3 * s + k] - ref[3 * s + k];
            e2 += e * e;
            r2 += ref[3 * s + k] * ref[3 * s + k];
        }
        double err = sqrt(e2) / std::max(sqrt(r2), 0.1 * rms);
        if (err != err)
            return NAN;
        maxerr = std::max(maxerr, err);
    }
    return maxerr;
}

// `reps` launches, each timed alone with CUDA events; the times in ms, sorted (median in the middle).
template <typename Launch> static std::vector<float> time_launches(Launch launch, int reps)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> t;
    for (int r = 0; r < reps; ++r) {
        CK(cudaEventRecord(a));
        launch();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaGetLastError());
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t;
}
