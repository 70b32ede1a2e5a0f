// hopper_combine.cu — issue #20's feasibility experiment: what does the cross-block combine of a
// one-kernel sum cost, and do Hopper's thread-block clusters (DSMEM) or programmatic dependent
// launch (PDL) make it cheaper? Written in CUDA C first, so the H200 answers the question before
// the Rust kernels (stage 8) are changed; every variant reads the same bytes the same way (the
// read loop of cub_bench.cu's read_kernel: float4 grid-stride, 4 loads in flight per thread).
//
//   nvcc -O3 -arch=sm_90 -std=c++17 hopper_combine.cu -o hopper_combine
//   ./hopper_combine [exponent ...]        (default 12 14 16 18 20 22 24 26 28)
//
// Variants (one JSON line each per N, grid and block; "gated" protocol of cub_bench.cu: every
// timed run is queued behind a gate kernel, so the CUDA events time the GPU only):
//   read      — no combine: one partial per block to global memory (the floor of a one-kernel read);
//   ticket    — stage 8's scheme: partial, fence, atomic ticket, the last block sums the partials
//               in a fixed order and stores the result in mapped pinned host memory;
//   clusterC  — blocks in clusters of C (2, 4, 8, 16): each block stores its partial into the
//               cluster leader's shared memory (DSMEM, map_shared_rank), barrier.cluster, the
//               leader alone takes part in the ticket: C× fewer partials and tickets;
//   pdl       — two kernels: the first writes partials and triggers its dependent at once
//               (griddepcontrol.launch_dependents); the second (one block, launched with
//               programmatic stream serialization) waits (griddepcontrol.wait) and combines;
//   single    — one block, no partials, no ticket (CUB's single-tile idea), for N <= 2^18.
// Every result is checked against the host's double sum (relative 1e-5) and each variant is run
// twice more to check the bits are the same (determinism).

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace cg = cooperative_groups;

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "CUDA error at %s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
                         cudaGetErrorString(e_));                                                  \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

static const int kWarmups = 10;
static const int kRuns = 100;

__host__ __device__ inline unsigned int hash32(unsigned int x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

__global__ void init_uniform(float* data, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        data[i] = (float)(hash32((unsigned int)i ^ 0x5eed1234u) >> 8) * (1.0f / 16777216.0f);
}

__global__ void gate_kernel(volatile unsigned int* flag, unsigned long long timeout_ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (flag[0] == 0) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start > timeout_ns) {
            flag[1] = 1;
            return;
        }
    }
}

// This thread's share of the input (float4 grid-stride, 4 loads in flight), summed over the
// block; the block's sum is valid in thread 0. `part`/`parts` cut the grid-stride index space
// the same way for every variant.
template <int BLOCK>
__device__ __forceinline__ float block_sum(const float* __restrict__ in, size_t n, unsigned int block,
                                           unsigned int grid)
{
    __shared__ float warp_sums[BLOCK / 32];
    const float4* in4 = reinterpret_cast<const float4*>(in);
    size_t n4 = n / 4;
    size_t stride = (size_t)grid * BLOCK;
    size_t i = (size_t)block * BLOCK + threadIdx.x;
    float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        float4 a = __ldg(in4 + i), b = __ldg(in4 + i + stride), c = __ldg(in4 + i + 2 * stride),
               d = __ldg(in4 + i + 3 * stride);
        a0 += (a.x + a.y) + (a.z + a.w);
        a1 += (b.x + b.y) + (b.z + b.w);
        a2 += (c.x + c.y) + (c.z + c.w);
        a3 += (d.x + d.y) + (d.z + d.w);
    }
    for (; i < n4; i += stride) {
        float4 a = __ldg(in4 + i);
        a0 += (a.x + a.y) + (a.z + a.w);
    }
    float acc = (a0 + a1) + (a2 + a3);
    if (block == 0) {
        size_t t = n4 * 4 + threadIdx.x;
        if (t < n) acc += in[t];
    }
    for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
    __syncthreads();
    float v = 0.f;
    if (threadIdx.x < 32) {
        v = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : 0.f;
        for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    }
    return v;
}

// The last block's fixed-order combine of `count` partials (block-strided, then a fixed tree).
template <int BLOCK>
__device__ __forceinline__ float combine(const volatile float* partials, unsigned int count)
{
    __shared__ float warp_sums[BLOCK / 32];
    float acc = 0.f;
    for (unsigned int i = threadIdx.x; i < count; i += BLOCK) acc += partials[i];
    for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
    __syncthreads();
    float v = 0.f;
    if (threadIdx.x < 32) {
        v = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : 0.f;
        for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    }
    return v;
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) k_read(const float* __restrict__ in, size_t n, float* partials)
{
    float s = block_sum<BLOCK>(in, n, blockIdx.x, gridDim.x);
    if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

// The ticket hand-off: `unit` is this block's (or cluster's) index among `units`.
template <int BLOCK>
__device__ __forceinline__ void ticket_finish(float s, unsigned int unit, unsigned int units, float* partials,
                                              unsigned int* ticket, float* out)
{
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partials[unit] = s;
        __threadfence();
        unsigned int t = atomicAdd(ticket, 1u);
        last = (t == units - 1);
    }
    __syncthreads();
    if (last) {
        __threadfence();
        float r = combine<BLOCK>(partials, units);
        if (threadIdx.x == 0) {
            *out = r;
            *ticket = 0;
        }
    }
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) k_ticket(const float* __restrict__ in, size_t n, float* partials,
                                                  unsigned int* ticket, float* out)
{
    float s = block_sum<BLOCK>(in, n, blockIdx.x, gridDim.x);
    ticket_finish<BLOCK>(s, blockIdx.x, gridDim.x, partials, ticket, out);
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) k_cluster(const float* __restrict__ in, size_t n, float* partials,
                                                   unsigned int* ticket, float* out)
{
    __shared__ float cluster_sums[16];
    cg::cluster_group cluster = cg::this_cluster();
    // DSMEM may be written only once the target block runs: arrive now, wait before the store
    // (the split barrier overlaps that wait with the whole read).
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
    float s = block_sum<BLOCK>(in, n, blockIdx.x, gridDim.x);
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
    unsigned int rank = cluster.block_rank();
    unsigned int csize = cluster.num_blocks();
    if (threadIdx.x == 0) {
        float* leader = cluster.map_shared_rank(cluster_sums, 0);
        leader[rank] = s; // st.shared::cluster into the leader's shared memory
    }
    cluster.sync(); // barrier.cluster.arrive.release + wait.acquire
    if (rank != 0) return;
    float c = 0.f;
    if (threadIdx.x == 0)
        for (unsigned int r = 0; r < csize; ++r) c += cluster_sums[r]; // fixed order
    ticket_finish<BLOCK>(c, blockIdx.x / csize, gridDim.x / csize, partials, ticket, out);
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) k_pdl_first(const float* __restrict__ in, size_t n, float* partials)
{
    asm volatile("griddepcontrol.launch_dependents;");
    float s = block_sum<BLOCK>(in, n, blockIdx.x, gridDim.x);
    if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) k_pdl_second(const float* partials, unsigned int count, float* out)
{
    asm volatile("griddepcontrol.wait;" ::: "memory");
    float r = combine<BLOCK>(partials, count);
    if (threadIdx.x == 0) *out = r;
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) k_single(const float* __restrict__ in, size_t n, float* out)
{
    float s = block_sum<BLOCK>(in, n, 0, 1);
    if (threadIdx.x == 0) *out = s;
}

// ------------------------------------------------------------------------------------------------

static volatile unsigned int* g_flag;
static unsigned int* g_flag_dev;

struct Stats {
    double min_ms, median_ms;
};

template <typename F>
static Stats time_runs(cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop, F body)
{
    std::vector<float> ms(kRuns);
    for (int r = -kWarmups; r < kRuns; ++r) {
        g_flag[0] = 0;
        g_flag[1] = 0;
        gate_kernel<<<1, 1, 0, stream>>>(g_flag_dev, 1000000000ull);
        CHECK(cudaEventRecord(start, stream));
        body();
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(stop, stream));
        g_flag[0] = 1;
        CHECK(cudaEventSynchronize(stop));
        if (g_flag[1]) {
            std::fprintf(stderr, "gate timed out\n");
            std::exit(1);
        }
        if (r >= 0) CHECK(cudaEventElapsedTime(&ms[r], start, stop));
    }
    std::sort(ms.begin(), ms.end());
    return Stats{ms.front(), 0.5 * (ms[kRuns / 2 - 1] + ms[kRuns / 2])};
}

static void row(const char* impl, size_t n, int grid, int block, int cluster, Stats s, double result,
                double reference, bool same_bits)
{
    bool ok = std::fabs(result - reference) <= 1e-5 * std::fabs(reference) + 1e-6;
    std::printf("{\"impl\":\"%s\",\"n\":%zu,\"grid\":%d,\"block\":%d,\"cluster\":%d,\"runs\":%d,"
                "\"min_us\":%.3f,\"median_us\":%.3f,\"result\":%.9g,\"reference\":%.17g,\"ok\":%s,"
                "\"same_bits\":%s}\n",
                impl, n, grid, block, cluster, kRuns, s.min_ms * 1e3, s.median_ms * 1e3, result, reference,
                ok ? "true" : "false", same_bits ? "true" : "false");
    std::fflush(stdout);
    if (!ok || !same_bits) std::fprintf(stderr, "FAILED: %s n=%zu grid=%d cluster=%d\n", impl, n, grid, cluster);
}

int main(int argc, char** argv)
{
    std::vector<int> exps;
    for (int a = 1; a < argc; ++a) exps.push_back(std::atoi(argv[a]));
    if (exps.empty()) exps = {12, 14, 16, 18, 20, 22, 24, 26, 28};
    size_t max_n = 0;
    for (int e : exps) max_n = std::max(max_n, (size_t)1 << e);
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    unsigned int* h_flag;
    CHECK(cudaHostAlloc((void**)&h_flag, 8, cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer((void**)&g_flag_dev, h_flag, 0));
    g_flag = h_flag;
    float *h_out, *d_out;
    CHECK(cudaHostAlloc((void**)&h_out, 4, cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer((void**)&d_out, h_out, 0));
    float* d_in;
    CHECK(cudaMalloc(&d_in, max_n * 4));
    init_uniform<<<sms * 8, 256, 0, stream>>>(d_in, max_n);
    std::vector<float> h(max_n);
    CHECK(cudaMemcpyAsync(h.data(), d_in, max_n * 4, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    float* d_partials;
    CHECK(cudaMalloc(&d_partials, 65536 * 4));
    unsigned int* d_ticket;
    CHECK(cudaMalloc(&d_ticket, 4));
    CHECK(cudaMemset(d_ticket, 0, 4));
    std::fprintf(stderr, "device: %d SMs\n", sms);

    constexpr int B = 512;
    for (int e : exps) {
        size_t n = (size_t)1 << e;
        double ref = 0;
        for (size_t i = 0; i < n; ++i) ref += h[i];
        size_t n4 = n / 4;
        // Grids: 1, 2 and 4 blocks per SM, never more blocks than float4 chunks of BLOCK.
        for (int bps : {1, 2, 4}) {
            int grid = std::max<int>(1, std::min<size_t>((size_t)sms * bps, (n4 + B - 1) / B));
            auto run3 = [&](const char* name, int cl, auto body) {
                Stats s = time_runs(stream, start, stop, body);
                float r1 = *(volatile float*)h_out;
                body();
                CHECK(cudaStreamSynchronize(stream));
                float r2 = *(volatile float*)h_out;
                row(name, n, grid, B, cl, s, r1, ref, std::memcmp(&r1, &r2, 4) == 0);
            };
            {
                Stats s = time_runs(stream, start, stop, [&] { k_read<B><<<grid, B, 0, stream>>>(d_in, n, d_partials); });
                row("read", n, grid, B, 0, s, ref, ref, true);
            }
            run3("ticket", 0, [&] { k_ticket<B><<<grid, B, 0, stream>>>(d_in, n, d_partials, d_ticket, d_out); });
            for (int c : {2, 4, 8, 16}) {
                int cgrid = ((grid + c - 1) / c) * c;
                cudaLaunchConfig_t cfg = {};
                cfg.gridDim = dim3(cgrid);
                cfg.blockDim = dim3(B);
                cfg.stream = stream;
                cudaLaunchAttribute attr[1];
                attr[0].id = cudaLaunchAttributeClusterDimension;
                attr[0].val.clusterDim.x = c;
                attr[0].val.clusterDim.y = 1;
                attr[0].val.clusterDim.z = 1;
                cfg.attrs = attr;
                cfg.numAttrs = 1;
                if (c == 16)
                    CHECK(cudaFuncSetAttribute(k_cluster<B>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
                char name[32];
                std::snprintf(name, sizeof name, "cluster%d", c);
                cudaError_t probe = cudaLaunchKernelEx(&cfg, k_cluster<B>, (const float*)d_in, n, d_partials, d_ticket, d_out);
                if (probe == cudaSuccess) probe = cudaStreamSynchronize(stream);
                if (probe != cudaSuccess) {
                    std::printf("{\"impl\":\"%s\",\"n\":%zu,\"grid\":%d,\"cluster\":%d,\"error\":\"%s\"}\n", name, n,
                                cgrid, c, cudaGetErrorString(probe));
                    (void)cudaGetLastError();
                    continue;
                }
                int saved = grid;
                grid = cgrid;
                run3(name, c, [&] { CHECK(cudaLaunchKernelEx(&cfg, k_cluster<B>, (const float*)d_in, n, d_partials, d_ticket, d_out)); });
                grid = saved;
            }
            run3("pdl", 0, [&] {
                k_pdl_first<B><<<grid, B, 0, stream>>>(d_in, n, d_partials);
                cudaLaunchConfig_t cfg = {};
                cfg.gridDim = dim3(1);
                cfg.blockDim = dim3(B);
                cfg.stream = stream;
                cudaLaunchAttribute attr[1];
                attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
                attr[0].val.programmaticStreamSerializationAllowed = 1;
                cfg.attrs = attr;
                cfg.numAttrs = 1;
                CHECK(cudaLaunchKernelEx(&cfg, k_pdl_second<B>, (const float*)d_partials, (unsigned int)grid, d_out));
            });
        }
        if (e <= 18) {
            auto body = [&] { k_single<1024><<<1, 1024, 0, stream>>>(d_in, n, d_out); };
            Stats s = time_runs(stream, start, stop, body);
            float r1 = *(volatile float*)h_out;
            row("single", n, 1, 1024, 0, s, r1, ref, true);
        }
    }
    return 0;
}
