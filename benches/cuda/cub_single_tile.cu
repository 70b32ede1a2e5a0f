// cub_single_tile.cu — the smallest program that runs cub::DeviceReduce::Sum over f32, so that
// `cuobjdump -sass` of it shows CUB's kernels (DeviceReduceSingleTileKernel among them) next to
// stage 8's one-block kernel, instruction by instruction (issue #20: at 2^12 CUB's single-tile
// kernel took 3.49 µs, stage 8 3.94, on the H200; benches/s7-hopper-on-gpu.sh dumps both).
//
//   nvcc -O3 -arch=sm_90 -std=c++17 cub_single_tile.cu -o cub_single_tile
//   ./cub_single_tile [n]          (default 4096; prints n, the sum and the reference)
//   cuobjdump -sass cub_single_tile
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                     \
                         cudaGetErrorString(e_));                                                  \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char** argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 4096;
    if (n < 1) n = 1;
    std::vector<float> h(n);
    double reference = 0.0;
    for (int i = 0; i < n; ++i) {
        h[i] = (float)((i * 7919u) % 1000u) / 1000.0f;
        reference += h[i];
    }
    float *d_in = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, sizeof(float)));
    CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    void* d_temp = nullptr;
    size_t temp_bytes = 0;
    CHECK(cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, n));
    CHECK(cudaMalloc(&d_temp, temp_bytes > 0 ? temp_bytes : 1));
    CHECK(cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, n));
    float out = 0.0f;
    CHECK(cudaMemcpy(&out, d_out, sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("n=%d sum=%.9g reference=%.17g temp_bytes=%zu\n", n, out, reference, temp_bytes);
    return 0;
}
