// roof_schedules.cu — where the transform kernels' fixed ~3 µs over the read-only kernel comes
// from (issue #14, session 20): the same bytes read by one kernel under several schedules, with
// and without the arithmetic and the cross-block finish of a real sum.
//
//   schedule  stride : grid-stride, UNR loads spaced gridDim*blockDim vectors apart (half_roof.cu)
//             runs   : each block one contiguous run of whole tiles of blockDim*UNR vectors, the
//                      run ceil(tiles / grid) tiles long (the Rust kernels' schedule)
//             tiles  : tile k to block k % grid, in order (the runs' tiles, interleaved)
//   work      xor    : the words xored (nothing else; as half_roof.cu)
//             sum    : 8 f16 -> f32 per vector, summed in f32, then a block reduce, the partial,
//                      a fence and a ticket; the last block adds the partials (stage 8's finish)
//
// Build (on the GPU machine): nvcc -O3 -arch=sm_90 -std=c++17 -o roof_schedules roof_schedules.cu
// Run:   ./roof_schedules ROUNDS EXP [EXP ...]   (N = 2^EXP halves, 2N bytes)
// Times: minimum and median of 50 CUDA-event runs after 5 warm-ups, each run `record; launch;
// record` on an idle stream (the "plain" protocol of half_roof.cu and `reduce transform`).
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

enum { STRIDE = 0, RUNS = 1, TILES = 2 };

__device__ __forceinline__ float vsum(uint4 v) {
    const __half2* h = reinterpret_cast<const __half2*>(&v);
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < 4; ++k) { float2 f = __half22float2(h[k]); s += f.x + f.y; }
    return s;
}

template <int UNR, int SCHED, bool SUM>
__global__ void rd(const uint4* __restrict__ in, size_t nv, unsigned* out, float* partials,
                   unsigned* ticket, float* result) {
    const size_t B = blockDim.x, G = gridDim.x, tid = threadIdx.x, blk = blockIdx.x;
    unsigned x[UNR];
    float f[UNR];
#pragma unroll
    for (int u = 0; u < UNR; ++u) { x[u] = 0; f[u] = 0.f; }
    auto use = [&](int u, uint4 v) {
        if (SUM) f[u] += vsum(v); else x[u] ^= v.x ^ v.y ^ v.z ^ v.w;
    };
    if (SCHED == STRIDE) {
        size_t stride = G * B, i = blk * B + tid;
        for (; i + (UNR - 1) * stride < nv; i += UNR * stride) {
            uint4 v[UNR];
#pragma unroll
            for (int u = 0; u < UNR; ++u) v[u] = __ldg(in + i + u * stride);
#pragma unroll
            for (int u = 0; u < UNR; ++u) use(u, v[u]);
        }
        for (; i < nv; i += stride) use(0, __ldg(in + i));
    } else {
        size_t tile = B * UNR, tiles = (nv + tile - 1) / tile;
        size_t start, end, step;
        if (SCHED == RUNS) {
            size_t per = (tiles + G - 1) / G * tile;
            start = blk * per; end = start + per < nv ? start + per : nv; step = tile;
        } else {
            start = blk * tile; end = nv; step = G * tile;
        }
        size_t t = start;
        for (; t + tile <= end; t += step) {
            uint4 v[UNR];
#pragma unroll
            for (int u = 0; u < UNR; ++u) v[u] = __ldg(in + t + u * B + tid);
#pragma unroll
            for (int u = 0; u < UNR; ++u) use(u, v[u]);
        }
        if (t < end) {
#pragma unroll
            for (int u = 0; u < UNR; ++u) if (t + u * B + tid < end) use(u, __ldg(in + t + u * B + tid));
        }
    }
    if (!SUM) {
        unsigned s = 0;
#pragma unroll
        for (int u = 0; u < UNR; ++u) s ^= x[u];
        if (s == 0xdeadbeefu) out[blk] = s;  // pairs of equal words cancel: never true; keeps the loads
        return;
    }
    float s = 0.f;
#pragma unroll
    for (int u = 0; u < UNR; ++u) s += f[u];
    __shared__ float warp_sums[32];
    __shared__ bool last;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if ((tid & 31) == 0) warp_sums[tid / 32] = s;
    __syncthreads();
    if (tid < 32) {
        s = tid < B / 32 ? warp_sums[tid] : 0.f;
        for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
        if (tid == 0) {
            partials[blk] = s;
            __threadfence();
            last = atomicAdd(ticket, 1u) == G - 1;
        }
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    s = 0.f;
    for (size_t i = tid; i < G; i += B) s += *(volatile float*)(partials + i);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if ((tid & 31) == 0) warp_sums[tid / 32] = s;
    __syncthreads();
    if (tid < 32) {
        s = tid < B / 32 ? warp_sums[tid] : 0.f;
        for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
        if (tid == 0) { *result = s; *ticket = 0; }
    }
}

struct Variant {
    const char* name;
    void (*k)(const uint4*, size_t, unsigned*, float*, unsigned*, float*);
    int unr, block, per_sm;
};

int main(int argc, char** argv) {
    if (argc < 3) { fprintf(stderr, "usage: roof_schedules ROUNDS EXP [EXP ...]\n"); return 2; }
    int rounds = atoi(argv[1]);
    int sms; CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const Variant vs[] = {
        {"stride_xor_u4_b256x8", rd<4, STRIDE, false>, 4, 256, 8},
        {"stride_xor_u4_b512x2", rd<4, STRIDE, false>, 4, 512, 2},
        {"runs_xor_u4_b256x8", rd<4, RUNS, false>, 4, 256, 8},
        {"runs_xor_u4_b512x2", rd<4, RUNS, false>, 4, 512, 2},
        {"runs_xor_u4_b256x3", rd<4, RUNS, false>, 4, 256, 3},
        {"runs_xor_u8_b512x2", rd<8, RUNS, false>, 8, 512, 2},
        {"tiles_xor_u4_b512x2", rd<4, TILES, false>, 4, 512, 2},
        {"tiles_xor_u4_b256x3", rd<4, TILES, false>, 4, 256, 3},
        {"stride_sum_u4_b256x8", rd<4, STRIDE, true>, 4, 256, 8},
        {"stride_sum_u4_b512x2", rd<4, STRIDE, true>, 4, 512, 2},
        {"runs_sum_u4_b512x2", rd<4, RUNS, true>, 4, 512, 2},
        {"runs_sum_u4_b256x8", rd<4, RUNS, true>, 4, 256, 8},
        {"tiles_sum_u4_b512x2", rd<4, TILES, true>, 4, 512, 2},
        {"tiles_sum_u4_b256x8", rd<4, TILES, true>, 4, 256, 8},
    };
    cudaStream_t st; CHECK(cudaStreamCreate(&st));
    for (int r = 0; r < rounds; ++r) {
        for (int k = 2; k < argc; ++k) {
            int e = atoi(argv[k]);
            size_t n = (size_t)1 << e, bytes = 2 * n, nv = bytes / 16;
            uint4* in; unsigned* out; float* partials; unsigned* ticket; float* result;
            CHECK(cudaMalloc(&in, bytes)); CHECK(cudaMemset(in, 0x3c, bytes));  // 0x3c3c: 1.06 in f16
            CHECK(cudaMalloc(&out, sizeof(unsigned) * sms * 8));
            CHECK(cudaMalloc(&partials, sizeof(float) * sms * 8));
            CHECK(cudaMalloc(&ticket, sizeof(unsigned))); CHECK(cudaMemset(ticket, 0, sizeof(unsigned)));
            CHECK(cudaMalloc(&result, sizeof(float)));
            for (const Variant& v : vs) {
                size_t tile = (size_t)v.block * v.unr;
                size_t grid = std::min<size_t>((size_t)sms * v.per_sm, std::max<size_t>(1, (nv + tile - 1) / tile));
                cudaEvent_t a, b; CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b));
                std::vector<double> t;
                for (int i = 0; i < 55; ++i) {
                    CHECK(cudaEventRecord(a, st));
                    v.k<<<grid, v.block, 0, st>>>(in, nv, out, partials, ticket, result);
                    CHECK(cudaEventRecord(b, st));
                    CHECK(cudaEventSynchronize(b)); CHECK(cudaGetLastError());
                    float ms; CHECK(cudaEventElapsedTime(&ms, a, b)); if (i >= 5) t.push_back(ms);
                }
                float res = 0.f; CHECK(cudaMemcpy(&res, result, sizeof(float), cudaMemcpyDeviceToHost));
                std::sort(t.begin(), t.end());
                printf("{\"record\":\"roof_schedule\",\"round\":%d,\"variant\":\"%s\",\"n\":%zu,\"bytes\":%zu,"
                       "\"grid\":%zu,\"block\":%d,\"min_us\":%.2f,\"median_us\":%.2f,\"gbps\":%.1f,\"result\":%.6g}\n",
                       r, v.name, n, bytes, grid, v.block, t[0] * 1e3, (t[24] + t[25]) / 2 * 1e3,
                       bytes / (t[0] * 1e6), res);
                fflush(stdout);
                cudaEventDestroy(a); cudaEventDestroy(b);
            }
            cudaFree(in); cudaFree(out); cudaFree(partials); cudaFree(ticket); cudaFree(result);
        }
    }
    return 0;
}
