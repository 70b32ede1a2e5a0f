// cub_argreduce.cu — CUB baseline for argmin/argmax (`benches/gpu.sh toolbox`): cub::DeviceReduce::ArgMin /
// ArgMax on uniform data (f32, or f64 / f16 / bf16), timed like `reduce arg` (10 warm-ups, 50
// runs, each between two CUDA events on an idle stream; the result stays in device memory).
//
//   nvcc -O3 -arch=sm_90 -std=c++17 cub_argreduce.cu -o cub_argreduce
//   ./cub_argreduce 12 20 26 30          # exponents: N = 2^e, f32
//   ./cub_argreduce bf16 12 20 26 30     # another type first: f32, f64, f16, bf16
//
// One JSON object per line on stdout, the fields of `reduce arg --format json`:
//   {"impl":"cub_argmax","op":"argmax","type":"f32","n":N,"runs":50,"min_us":..,"median_us":..,
//    "gbps":..,"index":..,"value":..,"ok":true|false}
// "ok": the index is the first occurrence of the extreme value, checked on the host over a copy
// of the data. Data: a counter-based hash of the element index, uniform in [0, 1) (24 random
// mantissa bits; the extremes repeat at large N, so the first-occurrence rule matters).

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// Host-side widening, for the check (exact for every type here).
static double widen(float v) { return v; }
static double widen(double v) { return v; }
static double widen(__half v) { return __half2float(v); }
static double widen(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T> __device__ T narrow(float v) { return T(v); }
template <> __device__ __half narrow<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __nv_bfloat16 narrow<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            std::fprintf(stderr, "CUDA error at %s:%d: %s: %s\n", __FILE__, __LINE__, #call,     \
                         cudaGetErrorString(e_));                                                \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

template <class T>
__global__ void fill_uniform(T* x, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint64_t h = i * 0x9E3779B97F4A7C15ull;
        h ^= h >> 31;
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 29;
        x[i] = narrow<T>((float)(h >> 40) * (1.0f / 16777216.0f));
    }
}

template <class T>
struct Run {
    float min_us, median_us;
    int64_t index;
    T value;
};

template <bool MAX, class T>
static Run<T> time_cub(const T* d_x, int64_t n, cudaStream_t s) {
    T* d_val;
    int64_t* d_idx;
    CHECK(cudaMalloc(&d_val, sizeof(T)));
    CHECK(cudaMalloc(&d_idx, sizeof(int64_t)));
    size_t temp_bytes = 0;
    auto call = [&](void* temp) {
        if (MAX) {
            return cub::DeviceReduce::ArgMax(temp, temp_bytes, d_x, d_val, d_idx, n, s);
        } else {
            return cub::DeviceReduce::ArgMin(temp, temp_bytes, d_x, d_val, d_idx, n, s);
        }
    };
    CHECK(call(nullptr));
    void* d_temp;
    CHECK(cudaMalloc(&d_temp, std::max<size_t>(temp_bytes, 1)));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<float> ms;
    for (int r = 0; r < 60; r++) {
        CHECK(cudaEventRecord(a, s));
        CHECK(call(d_temp));
        CHECK(cudaEventRecord(b, s));
        CHECK(cudaEventSynchronize(b));
        float t;
        CHECK(cudaEventElapsedTime(&t, a, b));
        if (r >= 10) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    Run<T> out;
    out.min_us = ms.front() * 1e3f;
    out.median_us = (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) * 0.5e3f;
    CHECK(cudaMemcpy(&out.index, d_idx, sizeof(int64_t), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&out.value, d_val, sizeof(T), cudaMemcpyDeviceToHost));
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    CHECK(cudaFree(d_temp));
    CHECK(cudaFree(d_val));
    CHECK(cudaFree(d_idx));
    return out;
}

template <class T>
static void run_type(const char* ty, const std::vector<int>& exps) {
    int max_e = *std::max_element(exps.begin(), exps.end());
    size_t cap = size_t(1) << max_e;
    T* d_x;
    CHECK(cudaMalloc(&d_x, cap * sizeof(T)));
    fill_uniform<T><<<1024, 256>>>(d_x, cap);
    CHECK(cudaGetLastError());
    std::vector<T> h(cap);
    CHECK(cudaMemcpy(h.data(), d_x, cap * sizeof(T), cudaMemcpyDeviceToHost));
    std::vector<float> k(cap);
    for (size_t i = 0; i < cap; i++) k[i] = (float)widen(h[i]);
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int e : exps) {
        int64_t n = int64_t(1) << e;
        for (int max = 0; max < 2; max++) {
            Run<T> r = max ? time_cub<true, T>(d_x, n, s) : time_cub<false, T>(d_x, n, s);
            int64_t want = 0;
            for (int64_t i = 1; i < n; i++) {
                if (max ? k[i] > k[want] : k[i] < k[want]) want = i;
            }
            bool ok = r.index == want && widen(r.value) == (double)k[want];
            double gbps = double(n) * sizeof(T) / (r.min_us * 1e-6) / 1e9;
            const char* op = max ? "argmax" : "argmin";
            std::printf("{\"impl\":\"cub_%s\",\"op\":\"%s\",\"type\":\"%s\",\"n\":%lld,\"runs\":50,"
                        "\"min_us\":%.3f,\"median_us\":%.3f,\"gbps\":%.1f,\"index\":%lld,"
                        "\"value\":%.9g,\"ok\":%s}\n",
                        op, op, ty, (long long)n, r.min_us, r.median_us, gbps, (long long)r.index,
                        widen(r.value), ok ? "true" : "false");
            if (!ok)
                std::fprintf(stderr, "cub %s %s n=%lld: index %lld, first extreme at %lld\n", op, ty,
                             (long long)n, (long long)r.index, (long long)want);
            std::fflush(stdout);
        }
    }
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d_x));
}

int main(int argc, char** argv) {
    const char* ty = "f32";
    int first = 1;
    if (argc > 1 && (argv[1][0] < '0' || argv[1][0] > '9')) {
        ty = argv[1];
        first = 2;
    }
    std::vector<int> exps;
    for (int i = first; i < argc; i++) exps.push_back(std::atoi(argv[i]));
    if (exps.empty()) exps = {12, 20, 26, 30};
    if (!std::strcmp(ty, "f32")) run_type<float>(ty, exps);
    else if (!std::strcmp(ty, "f64")) run_type<double>(ty, exps);
#ifndef NO_HALF_CUB  // (built with -DNO_HALF_CUB if this CUB's ArgMax rejects the halves)
    else if (!std::strcmp(ty, "f16")) run_type<__half>(ty, exps);
    else if (!std::strcmp(ty, "bf16")) run_type<__nv_bfloat16>(ty, exps);
#endif
    else {
        std::fprintf(stderr, "unknown type %s (f32, f64, f16, bf16)\n", ty);
        return 2;
    }
    return 0;
}
