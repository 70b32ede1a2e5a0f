// CUB DeviceReduce::TransformReduce baselines: sum of x*x (L2 norm squared) and of |x|, with a
// float and a double accumulator. Data: uniform [0,1) from an index hash, made on the device.
#include <cub/cub.cuh>
#include <cuda/std/functional>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)
__global__ void fill(float* x, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long h = (i + 1) * 0x9E3779B97F4A7C15ull; h ^= h >> 31; h *= 0xBF58476D1CE4E5B9ull; h ^= h >> 29;
        x[i] = (float)(h >> 40) * (1.0f / 16777216.0f);
    }
}
template <class A> struct Sq { __device__ A operator()(float v) const { return (A)v * (A)v; } };
template <class A> struct Abs { __device__ A operator()(float v) const { return (A)fabsf(v); } };
template <class A, class F>
void bench(const char* op, const char* acc, const float* x, size_t n, cudaStream_t s) {
    A* out; CHECK(cudaMalloc(&out, sizeof(A)));
    size_t bytes = 0; void* tmp = nullptr;
    CHECK(cub::DeviceReduce::TransformReduce(tmp, bytes, x, out, (long long)n, cuda::std::plus<A>{}, F{}, A(0), s));
    CHECK(cudaMalloc(&tmp, std::max<size_t>(bytes, 1)));
    cudaEvent_t a, b; CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b));
    std::vector<float> t;
    for (int r = 0; r < 55; ++r) {
        CHECK(cudaEventRecord(a, s));
        CHECK(cub::DeviceReduce::TransformReduce(tmp, bytes, x, out, (long long)n, cuda::std::plus<A>{}, F{}, A(0), s));
        CHECK(cudaEventRecord(b, s)); CHECK(cudaEventSynchronize(b));
        float ms; CHECK(cudaEventElapsedTime(&ms, a, b)); if (r >= 5) t.push_back(ms);
    }
    A v; CHECK(cudaMemcpy(&v, out, sizeof(A), cudaMemcpyDeviceToHost));
    std::sort(t.begin(), t.end());
    std::printf("{\"record\":\"transform\",\"impl\":\"cub\",\"op\":\"%s\",\"acc\":\"%s\",\"type\":\"f32\",\"n\":%zu,"
                "\"runs\":50,\"min_ms\":%.6f,\"median_ms\":%.6f,\"value\":%.17g,\"bytes\":%zu}\n",
                op, acc, n, t.front(), (t[24] + t[25]) / 2, (double)v, n * sizeof(float));
    CHECK(cudaFree(tmp)); CHECK(cudaFree(out));
}
int main(int argc, char** argv) {
    size_t most = 0; std::vector<size_t> ns;
    for (int i = 1; i < argc; ++i) { ns.push_back(std::strtoull(argv[i], nullptr, 10)); most = std::max(most, ns.back()); }
    float* x; CHECK(cudaMalloc(&x, most * sizeof(float)));
    fill<<<1024, 256>>>(x, most); CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize());
    cudaStream_t s; CHECK(cudaStreamCreate(&s));
    for (size_t n : ns) {
        bench<float, Sq<float>>("sumsq", "f32", x, n, s);
        bench<double, Sq<double>>("sumsq", "f64", x, n, s);
        bench<float, Abs<float>>("l1", "f32", x, n, s);
        bench<double, Abs<double>>("l1", "f64", x, n, s);
    }
    return 0;
}
