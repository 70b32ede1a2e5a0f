// cub_bench.cu — CUB baseline and memory-bandwidth ceilings for the f32 sum benchmark.
//
//   nvcc -O3 -arch=sm_90 -std=c++17 cub_bench.cu -o cub_bench
//   ./cub_bench            # N = 2^12, 2^14, ..., 2^30
//   ./cub_bench 20 24 30   # only these exponents
//   ./cub_bench --gated 22 # every timed run queued behind a gate kernel (see "Protocol")
//   ./cub_bench --runs 100 # timed runs per row (default 50)
//
// For every N it prints JSON lines (one object per line) to stdout:
//   {"impl":"cub","op":"sum","type":"f32","n":N,"runs":50,"min_ms":..,"median_ms":..,
//    "mean_ms":..,"result":..,"reference":..,"protocol":..}
// and the same with "impl":"cub_mapped" (CUB writing its result into mapped pinned memory),
// and, for N >= 2^20, two ceilings with an extra "bytes" field (bytes read + written):
//   "impl":"read_kernel"  — a float4 grid-stride read-and-sum kernel, one float per block;
//   "impl":"memcpy_d2d"   — cudaMemcpyAsync device-to-device of the whole buffer.
// Once, first: "impl":"empty_launch_copy", n=0 — an empty kernel + 4-byte D2H copy (the fixed
// cost of any launch-then-read-back measurement), and "impl":"empty_kernel" — the kernel alone.
// Diagnostics and warnings go to stderr.
//
// Protocol (same as the Rust benches and benches/python/baselines.py): 10 warm-ups, then 50
// timed runs, each timed on its own with two cudaEvents recorded on the stream. Every row has a
// "protocol" field:
//   "plain" (default): record(start), the work, record(stop) on an idle stream. The GPU passes
//           `start` at once and then waits for the host to submit the work, so the window also
//           holds the host's launch latency.
//   "gated" (--gated): the same, queued behind a one-thread gate kernel that spins on a flag in
//           mapped pinned memory; the host sets the flag once the whole run is queued (nvbench's
//           "blocking kernel"), so the window holds GPU time only. Same as `reduce sweep
//           --protocol gated`.
// The cub row times DeviceReduce::Sum + cudaMemcpyAsync of the 4-byte result into pinned host
// memory; the ceiling rows time only the kernel / the copy. Temp storage is allocated once per N outside
// the timing.
//
// Data: one device buffer of max(N) floats filled by an init kernel with a counter-based hash
// of the element index, uniform in [0,1) (24 random mantissa bits), so every N uses the prefix
// of the same buffer and element i is the same value whatever the N list. The reference is the
// double-precision host sum of the first N elements (the buffer is copied back once).

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                                 \
    do {                                                                                            \
        cudaError_t check_err_ = (call);                                                            \
        if (check_err_ != cudaSuccess) {                                                            \
            std::fprintf(stderr, "CUDA error at %s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__,   \
                         #call, cudaGetErrorString(check_err_), cudaGetErrorName(check_err_));      \
            std::exit(1);                                                                           \
        }                                                                                           \
    } while (0)

#define CHECK_LAUNCH() CHECK(cudaGetLastError())

static const int kWarmups = 10;
static int kRuns = 50; // --runs N
static const double kRelTol = 1e-5;
static const unsigned int kSeed = 0x5eed1234u;

// ---------------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------------

// 32-bit integer hash (lowbias32 by Chris Wellons): good avalanche, cheap.
__host__ __device__ inline unsigned int hash32(unsigned int x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// data[i] = uniform [0,1) float from (i, seed): top 24 bits of a hash of the 64-bit index.
__global__ void init_uniform(float* data, size_t n, unsigned int seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        unsigned int lo = (unsigned int)(i & 0xffffffffu);
        unsigned int hi = (unsigned int)(i >> 32);
        unsigned int h = hash32(lo ^ hash32(hi ^ seed));
        data[i] = (float)(h >> 8) * (1.0f / 16777216.0f);
    }
}

__global__ void empty_kernel() {}

// The gate of the "gated" protocol: spin until the host sets flag[0], or give up after
// timeout_ns and set flag[1]. One thread.
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

// Read ceiling: grid-stride over float4 (4 independent 16-byte loads in flight per step),
// sum in registers, one float per block. Launched with 256 threads and 4 * SMs blocks.
#define READ_THREADS 256

__global__ void __launch_bounds__(READ_THREADS) read_kernel(const float* __restrict__ in, size_t n,
                                                   float* __restrict__ block_sums)
{
    __shared__ float warp_sums[READ_THREADS / 32];
    const float4* in4 = reinterpret_cast<const float4*>(in);
    size_t n4 = n / 4;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

    float acc0 = 0.0f, acc1 = 0.0f, acc2 = 0.0f, acc3 = 0.0f;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        float4 a = __ldg(in4 + i);
        float4 b = __ldg(in4 + i + stride);
        float4 c = __ldg(in4 + i + 2 * stride);
        float4 d = __ldg(in4 + i + 3 * stride);
        acc0 += (a.x + a.y) + (a.z + a.w);
        acc1 += (b.x + b.y) + (b.z + b.w);
        acc2 += (c.x + c.y) + (c.z + c.w);
        acc3 += (d.x + d.y) + (d.z + d.w);
    }
    for (; i < n4; i += stride) {
        float4 a = __ldg(in4 + i);
        acc0 += (a.x + a.y) + (a.z + a.w);
    }
    float acc = (acc0 + acc1) + (acc2 + acc3);
    // Scalar tail (n not a multiple of 4): block 0, one element per thread.
    if (blockIdx.x == 0) {
        size_t t = n4 * 4 + threadIdx.x;
        if (t < n) acc += in[t];
    }

    for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
    unsigned int warp = threadIdx.x / 32;
    unsigned int lane = threadIdx.x % 32;
    if (lane == 0) warp_sums[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        float v = (lane < READ_THREADS / 32) ? warp_sums[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
        if (lane == 0) block_sums[blockIdx.x] = v;
    }
}

// ---------------------------------------------------------------------------------------------
// Host helpers
// ---------------------------------------------------------------------------------------------

// The protocol (see the header): gated when g_flag is non-null.
static volatile unsigned int* g_flag = nullptr; // host view of 2 words of mapped pinned memory
static unsigned int* g_flag_dev = nullptr;      // its device address
static const unsigned long long kGateTimeoutNs = 1000000000ull;

static const char* protocol_name() { return g_flag ? "gated" : "plain"; }

struct Stats {
    double min_ms;
    double median_ms;
    double mean_ms;
};

static Stats summarize(std::vector<float> ms)
{
    std::sort(ms.begin(), ms.end());
    Stats s;
    s.min_ms = ms.front();
    size_t k = ms.size();
    s.median_ms = (k % 2 == 1) ? ms[k / 2] : 0.5 * ((double)ms[k / 2 - 1] + (double)ms[k / 2]);
    double sum = 0.0;
    for (size_t j = 0; j < k; ++j) sum += ms[j];
    s.mean_ms = sum / (double)k;
    return s;
}

// A JSON number, or null for NaN / inf (which JSON cannot represent).
static void json_number(char* buf, size_t len, double x, int digits)
{
    if (std::isfinite(x)) {
        std::snprintf(buf, len, "%.*g", digits, x);
    } else {
        std::snprintf(buf, len, "null");
    }
}

static void print_row(const char* impl, const char* op, size_t n, const Stats& s, bool has_value,
                      double result, double reference, bool has_bytes, unsigned long long bytes)
{
    std::printf("{\"impl\":\"%s\",\"op\":\"%s\",\"type\":\"f32\",\"n\":%llu,\"runs\":%d,"
                "\"min_ms\":%.6f,\"median_ms\":%.6f,\"mean_ms\":%.6f,\"protocol\":\"%s\"",
                impl, op, (unsigned long long)n, kRuns, s.min_ms, s.median_ms, s.mean_ms,
                protocol_name());
    if (has_value) {
        char r[64], ref[64];
        json_number(r, sizeof r, result, 9);
        json_number(ref, sizeof ref, reference, 17);
        std::printf(",\"result\":%s,\"reference\":%s", r, ref);
    }
    if (has_bytes) std::printf(",\"bytes\":%llu", bytes);
    std::printf("}\n");
    std::fflush(stdout);
}

static void check_close(const char* impl, size_t n, double result, double reference)
{
    double err = std::fabs(result - reference);
    double scale = std::fabs(reference);
    bool ok = std::isfinite(result) && (scale > 0.0 ? err / scale <= kRelTol : err <= kRelTol);
    if (!ok) {
        std::fprintf(stderr, "WARNING: %s n=%llu result %.9g differs from reference %.17g (rel err %.3g > %.1g)\n",
                     impl, (unsigned long long)n, result, reference, scale > 0.0 ? err / scale : err, kRelTol);
    }
}

// Time `body` (which enqueues work on `stream`): kWarmups untimed runs, then kRuns runs each
// bracketed by two events on the stream (behind the gate in the gated protocol).
template <typename F>
static Stats time_runs(cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop, F body)
{
    std::vector<float> ms(kRuns);
    for (int r = -kWarmups; r < kRuns; ++r) {
        if (g_flag) {
            g_flag[0] = 0;
            g_flag[1] = 0;
            gate_kernel<<<1, 1, 0, stream>>>(g_flag_dev, kGateTimeoutNs);
            CHECK_LAUNCH();
        }
        CHECK(cudaEventRecord(start, stream));
        body();
        CHECK(cudaEventRecord(stop, stream));
        if (g_flag) g_flag[0] = 1; // the whole run is queued: let the GPU start it
        CHECK(cudaEventSynchronize(stop));
        if (g_flag && g_flag[1]) {
            std::fprintf(stderr, "the gate timed out: queuing one run took over %llu ms\n",
                         kGateTimeoutNs / 1000000ull);
            std::exit(1);
        }
        if (r >= 0) CHECK(cudaEventElapsedTime(&ms[r], start, stop));
    }
    return summarize(ms);
}

// cub::DeviceReduce::Sum with the offset type chosen by the caller (int for n < 2^31, the usual
// CUB usage; long long above that). Two rows:
//   "cub":        d_out in device memory + cudaMemcpyAsync of the 4 bytes into pinned memory;
//   "cub_mapped": d_out is the device address of mapped pinned host memory, so CUB's last
//                 kernel stores the result straight into host RAM and no copy is queued (what
//                 stage 8 does by default).
template <typename NumItemsT>
static void bench_cub(const float* d_in, size_t n, float* d_out, float* h_out, float* h_mapped,
                      float* d_mapped, cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop,
                      double reference)
{
    NumItemsT num_items = (NumItemsT)n;
    void* d_temp = nullptr;
    size_t temp_bytes = 0;
    CHECK(cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, num_items, stream));
    CHECK(cudaMalloc(&d_temp, temp_bytes > 0 ? temp_bytes : 1));

    auto body = [&]() {
        CHECK(cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, num_items, stream));
        CHECK(cudaMemcpyAsync(h_out, d_out, sizeof(float), cudaMemcpyDeviceToHost, stream));
    };
    *h_out = -1.0f;
    Stats s = time_runs(stream, start, stop, body);
    double result = (double)*h_out; // the last timed run's result (its stop event has completed)
    check_close("cub", n, result, reference);
    print_row("cub", "sum", n, s, true, result, reference, false, 0);

    // The same temp storage size applies: only the output pointer differs.
    auto mapped = [&]() {
        CHECK(cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_mapped, num_items, stream));
    };
    *(volatile float*)h_mapped = -1.0f;
    Stats m = time_runs(stream, start, stop, mapped);
    double mresult = (double)*(volatile float*)h_mapped;
    check_close("cub_mapped", n, mresult, reference);
    print_row("cub_mapped", "sum", n, m, true, mresult, reference, false, 0);

    CHECK(cudaFree(d_temp));
}

static std::vector<int> parse_exponents(int argc, char** argv, bool* gated)
{
    std::vector<int> exps;
    *gated = false;
    for (int a = 1; a < argc; ++a) {
        if (std::strcmp(argv[a], "--gated") == 0) {
            *gated = true;
            continue;
        }
        if (std::strcmp(argv[a], "--runs") == 0 && a + 1 < argc) {
            kRuns = std::atoi(argv[++a]);
            if (kRuns < 1 || kRuns > 100000) {
                std::fprintf(stderr, "--runs takes 1..100000\n");
                std::exit(2);
            }
            continue;
        }
        char* end = nullptr;
        long e = std::strtol(argv[a], &end, 10);
        if (end == argv[a] || *end != '\0' || e < 0 || e > 34) {
            std::fprintf(stderr, "usage: %s [--gated] [--runs N] [exponent ...]   (each 0..34; N = 2^exponent)\n",
                         argv[0]);
            std::exit(2);
        }
        exps.push_back((int)e);
    }
    if (exps.empty()) {
        for (int e = 12; e <= 30; e += 2) exps.push_back(e);
    }
    return exps;
}

int main(int argc, char** argv)
{
    bool gated = false;
    std::vector<int> exps = parse_exponents(argc, argv, &gated);
    size_t max_n = 0;
    for (size_t k = 0; k < exps.size(); ++k) max_n = std::max(max_n, (size_t)1 << exps[k]);

    int dev = 0;
    CHECK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, dev));
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    std::fprintf(stderr, "device: %s, %d SMs, CUDA runtime %d, CUB %d.%d.%d\n", prop.name, sms,
                 CUDART_VERSION, CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION);

    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));

    if (gated) {
        unsigned int* h_flag = nullptr;
        CHECK(cudaHostAlloc((void**)&h_flag, 2 * sizeof(unsigned int), cudaHostAllocMapped));
        CHECK(cudaHostGetDevicePointer((void**)&g_flag_dev, h_flag, 0));
        g_flag = h_flag;
    }

    float* h_out = nullptr; // pinned, 1 float
    CHECK(cudaMallocHost((void**)&h_out, sizeof(float)));
    float* d_out = nullptr;
    CHECK(cudaMalloc((void**)&d_out, sizeof(float)));
    float* h_mapped = nullptr; // pinned, mapped into the device: CUB's output for "cub_mapped"
    float* d_mapped = nullptr;
    CHECK(cudaHostAlloc((void**)&h_mapped, sizeof(float), cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer((void**)&d_mapped, h_mapped, 0));

    // Fixed launch + read-back cost.
    {
        Stats s = time_runs(stream, start, stop, [&]() {
            empty_kernel<<<1, 1, 0, stream>>>();
            CHECK_LAUNCH();
            CHECK(cudaMemcpyAsync(h_out, d_out, sizeof(float), cudaMemcpyDeviceToHost, stream));
        });
        print_row("empty_launch_copy", "none", 0, s, false, 0.0, 0.0, false, 0);
        Stats k = time_runs(stream, start, stop, [&]() {
            empty_kernel<<<1, 1, 0, stream>>>();
            CHECK_LAUNCH();
        });
        print_row("empty_kernel", "none", 0, k, false, 0.0, 0.0, false, 0);
    }

    // Input: one buffer of max_n floats; each N uses its prefix.
    float* d_in = nullptr;
    CHECK(cudaMalloc((void**)&d_in, max_n * sizeof(float)));
    {
        unsigned int blocks = (unsigned int)std::min<size_t>((max_n + 255) / 256, (size_t)sms * 32);
        if (blocks == 0) blocks = 1;
        init_uniform<<<blocks, 256, 0, stream>>>(d_in, max_n, kSeed);
        CHECK_LAUNCH();
        CHECK(cudaStreamSynchronize(stream));
    }

    // References: double-precision prefix sums on the host, one pass over the copied-back data.
    std::vector<size_t> ns;
    for (size_t k = 0; k < exps.size(); ++k) ns.push_back((size_t)1 << exps[k]);
    std::vector<size_t> sorted_ns = ns;
    std::sort(sorted_ns.begin(), sorted_ns.end());
    sorted_ns.erase(std::unique(sorted_ns.begin(), sorted_ns.end()), sorted_ns.end());
    std::vector<double> sorted_refs(sorted_ns.size(), 0.0);
    {
        std::vector<float> h_data(max_n);
        CHECK(cudaMemcpy(h_data.data(), d_in, max_n * sizeof(float), cudaMemcpyDeviceToHost));
        double acc = 0.0;
        size_t pos = 0;
        for (size_t k = 0; k < sorted_ns.size(); ++k) {
            for (; pos < sorted_ns[k]; ++pos) acc += (double)h_data[pos];
            sorted_refs[k] = acc;
        }
    }

    // Ceiling buffers (only if some N >= 2^20).
    const size_t kCeilingMin = (size_t)1 << 20;
    float* d_copy = nullptr;
    float* d_block_sums = nullptr;
    unsigned int read_blocks = (unsigned int)(4 * sms);
    std::vector<float> h_block_sums(read_blocks);
    if (max_n >= kCeilingMin) {
        CHECK(cudaMalloc((void**)&d_copy, max_n * sizeof(float)));
        CHECK(cudaMalloc((void**)&d_block_sums, read_blocks * sizeof(float)));
    }

    for (size_t k = 0; k < ns.size(); ++k) {
        size_t n = ns[k];
        size_t ri = (size_t)(std::lower_bound(sorted_ns.begin(), sorted_ns.end(), n) - sorted_ns.begin());
        double reference = sorted_refs[ri];

        if (n <= (size_t)INT_MAX) {
            bench_cub<int>(d_in, n, d_out, h_out, h_mapped, d_mapped, stream, start, stop, reference);
        } else {
            bench_cub<long long>(d_in, n, d_out, h_out, h_mapped, d_mapped, stream, start, stop,
                                 reference);
        }

        if (n >= kCeilingMin) {
            // Read ceiling.
            Stats rs = time_runs(stream, start, stop, [&]() {
                read_kernel<<<read_blocks, READ_THREADS, 0, stream>>>(d_in, n, d_block_sums);
                CHECK_LAUNCH();
            });
            CHECK(cudaMemcpy(h_block_sums.data(), d_block_sums, read_blocks * sizeof(float),
                             cudaMemcpyDeviceToHost));
            double rsum = 0.0;
            for (unsigned int b = 0; b < read_blocks; ++b) rsum += (double)h_block_sums[b];
            check_close("read_kernel", n, rsum, reference);
            print_row("read_kernel", "sum", n, rs, true, rsum, reference, true,
                      (unsigned long long)n * sizeof(float) + (unsigned long long)read_blocks * sizeof(float));

            // Copy ceiling: read n*4 bytes + write n*4 bytes.
            Stats cs = time_runs(stream, start, stop, [&]() {
                CHECK(cudaMemcpyAsync(d_copy, d_in, n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
            });
            print_row("memcpy_d2d", "copy", n, cs, false, 0.0, 0.0, true,
                      2ull * (unsigned long long)n * sizeof(float));
        }
    }

    if (d_copy) CHECK(cudaFree(d_copy));
    if (d_block_sums) CHECK(cudaFree(d_block_sums));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFreeHost(h_out));
    CHECK(cudaFreeHost(h_mapped));
    if (g_flag) CHECK(cudaFreeHost((void*)g_flag));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaStreamDestroy(stream));
    return 0;
}
