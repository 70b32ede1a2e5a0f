// half_roof.cu — the read-only roof for the f16/bf16 rows of `benches/gpu.sh toolbox`: a kernel
// that reads every byte of N halves (2N bytes) once with 16-byte loads, 4 in flight per thread,
// and does nothing else (one word per block, never written for this data). Its bandwidth is the
// most any reduction of those bytes can reach. One JSON line per N on stdout.
//
// Build (on the GPU machine): nvcc -O3 -arch=sm_90 -std=c++17 -o half_roof half_roof.cu
// Run:   ./half_roof EXP [EXP ...]      (N = 2^EXP halves)
// Times: minimum and median of 50 CUDA-event runs after 5 warm-ups.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void __launch_bounds__(256) read_kernel(const uint4* __restrict__ in, size_t n16, unsigned* out) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    unsigned a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (; i + 3 * stride < n16; i += 4 * stride) {
        uint4 a = __ldg(in + i), b = __ldg(in + i + stride), c = __ldg(in + i + 2 * stride), d = __ldg(in + i + 3 * stride);
        a0 ^= a.x ^ a.y ^ a.z ^ a.w; a1 ^= b.x ^ b.y ^ b.z ^ b.w; a2 ^= c.x ^ c.y ^ c.z ^ c.w; a3 ^= d.x ^ d.y ^ d.z ^ d.w;
    }
    for (; i < n16; i += stride) { uint4 a = __ldg(in + i); a0 ^= a.x ^ a.y ^ a.z ^ a.w; }
    unsigned s = a0 ^ a1 ^ a2 ^ a3;
    if (s == 0xdeadbeefu) out[blockIdx.x] = s;  // pairs of equal words cancel: never true; keeps the loads
}

int main(int argc, char** argv) {
    if (argc < 2) { fprintf(stderr, "usage: half_roof EXP [EXP ...]\n"); return 2; }
    int sms; CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaStream_t st; CHECK(cudaStreamCreate(&st));
    for (int k = 1; k < argc; ++k) {
        int e = atoi(argv[k]);
        size_t n = (size_t)1 << e, bytes = 2 * n, n16 = bytes / 16;
        uint4* in; unsigned* out;
        CHECK(cudaMalloc(&in, std::max<size_t>(bytes, 16))); CHECK(cudaMemset(in, 0x3c, std::max<size_t>(bytes, 16)));
        CHECK(cudaMalloc(&out, sizeof(unsigned) * sms * 8));
        // No more blocks than 4 vectors per thread need (small N), at most 8 per SM.
        size_t grid = std::min<size_t>((size_t)sms * 8, std::max<size_t>(1, (n16 + 1023) / 1024));
        cudaEvent_t a, b; CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b));
        std::vector<double> t;
        for (int r = 0; r < 55; ++r) {
            CHECK(cudaEventRecord(a, st)); read_kernel<<<grid, 256, 0, st>>>(in, n16, out); CHECK(cudaEventRecord(b, st));
            CHECK(cudaEventSynchronize(b)); CHECK(cudaGetLastError());
            float ms; CHECK(cudaEventElapsedTime(&ms, a, b)); if (r >= 5) t.push_back(ms);
        }
        std::sort(t.begin(), t.end());
        double mn = t[0], med = (t[24] + t[25]) / 2;
        printf("{\"record\":\"toolbox\",\"impl\":\"read_roof\",\"case\":\"read_2n_bytes\",\"op\":\"read\",\"type\":\"half\",\"n\":%zu,\"bytes\":%zu,\"min_ms\":%.6f,\"median_ms\":%.6f,\"gbps\":%.2f,\"ok\":true}\n",
               n, bytes, mn, med, bytes / (mn * 1e6));
        cudaEventDestroy(a); cudaEventDestroy(b); cudaFree(in); cudaFree(out);
    }
    return 0;
}
