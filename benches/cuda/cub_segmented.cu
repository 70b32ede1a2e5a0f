// cub_segmented.cu — baselines for `reduce axis`: CUB DeviceSegmentedReduce::Sum over the rows of
// a row-major f32 matrix of ones, the same over ragged segments, and a read-only kernel's time on
// the same bytes (the roof). One JSON line per measurement on stdout.
//
// Build (on the GPU machine): nvcc -O3 -arch=sm_90 -std=c++17 -o cub_segmented cub_segmented.cu
// Run:   ./cub_segmented rows R C      (R×C matrix, segments = rows)
//        ./cub_segmented ragged K MAX SEED   (K segments, lengths log-uniform in 1..=MAX, the
//                                            generator of `reduce axis --axis segments`)
// Times: minimum and median of 50 CUDA-event runs after 5 warm-ups; temp storage allocated once.
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void fill_ones(float* p, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) p[i] = 1.0f;
}

// The roof: every byte read once with 16-byte loads, 4 in flight per thread; one float per block.
__global__ void __launch_bounds__(256) read_kernel(const float* __restrict__ in, size_t n, float* out) {
    const float4* in4 = reinterpret_cast<const float4*>(in);
    size_t n4 = n / 4, stride = (size_t)gridDim.x * blockDim.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        float4 a = __ldg(in4 + i), b = __ldg(in4 + i + stride), c = __ldg(in4 + i + 2 * stride), d = __ldg(in4 + i + 3 * stride);
        a0 += a.x + a.y + a.z + a.w; a1 += b.x + b.y + b.z + b.w; a2 += c.x + c.y + c.z + c.w; a3 += d.x + d.y + d.z + d.w;
    }
    for (; i < n4; i += stride) { float4 a = __ldg(in4 + i); a0 += a.x + a.y + a.z + a.w; }
    float s = (a0 + a1) + (a2 + a3);
    if (s == -1.0f) out[blockIdx.x] = s;  // never true for ones: keeps the loads, writes nothing
}

template <class F> static void time_it(cudaStream_t st, F f, double& mn, double& med) {
    cudaEvent_t a, b; CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b));
    std::vector<double> t;
    for (int r = 0; r < 55; ++r) {
        CHECK(cudaEventRecord(a, st)); f(); CHECK(cudaEventRecord(b, st)); CHECK(cudaEventSynchronize(b));
        float ms; CHECK(cudaEventElapsedTime(&ms, a, b)); if (r >= 5) t.push_back(ms);
    }
    std::sort(t.begin(), t.end()); mn = t[0]; med = (t[24] + t[25]) / 2;
    cudaEventDestroy(a); cudaEventDestroy(b);
}

int main(int argc, char** argv) {
    if (argc < 4) { fprintf(stderr, "usage: cub_segmented rows R C | ragged K MAX SEED\n"); return 2; }
    bool ragged = std::string(argv[1]) == "ragged";
    std::vector<long long> begin, end;
    size_t rows = 0, cols = 0, n = 0;
    if (ragged) {
        size_t k = strtoull(argv[2], 0, 10), mx = strtoull(argv[3], 0, 10);
        unsigned long long x = (argc > 4 ? strtoull(argv[4], 0, 10) : 42) * 0x9E3779B97F4A7C15ull | 1;
        for (size_t i = 0; i < k; ++i) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            double u = (double)(x >> 11) / (double)(1ull << 53);
            unsigned long long len = (unsigned long long)pow((double)mx, u);
            len = std::min<unsigned long long>(std::max<unsigned long long>(len, 1), mx);
            begin.push_back(n); n += len; end.push_back(n);
        }
        rows = k;
    } else {
        rows = strtoull(argv[2], 0, 10); cols = strtoull(argv[3], 0, 10); n = rows * cols;
        for (size_t i = 0; i < rows; ++i) { begin.push_back(i * cols); end.push_back((i + 1) * cols); }
    }
    cudaStream_t st; CHECK(cudaStreamCreate(&st));
    float *in, *out, *blk; long long *db, *de;
    CHECK(cudaMalloc(&in, n * 4)); CHECK(cudaMalloc(&out, rows * 4)); CHECK(cudaMalloc(&blk, 1 << 20));
    CHECK(cudaMalloc(&db, rows * 8)); CHECK(cudaMalloc(&de, rows * 8));
    CHECK(cudaMemcpy(db, begin.data(), rows * 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(de, end.data(), rows * 8, cudaMemcpyHostToDevice));
    fill_ones<<<4096, 256, 0, st>>>(in, n); CHECK(cudaStreamSynchronize(st));
    size_t temp = 0; void* dt = nullptr;
    CHECK(cub::DeviceSegmentedReduce::Sum(dt, temp, in, out, (int)rows, db, de, st));
    CHECK(cudaMalloc(&dt, std::max<size_t>(temp, 1)));
    double mn, med;
    time_it(st, [&] { CHECK(cub::DeviceSegmentedReduce::Sum(dt, temp, in, out, (int)rows, db, de, st)); }, mn, med);
    std::vector<float> h(rows); CHECK(cudaMemcpy(h.data(), out, rows * 4, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (size_t i = 0; i < rows; ++i) ok &= h[i] == (float)(end[i] - begin[i]);
    const char* axis = ragged ? "segments" : "rows";
    printf("{\"record\":\"axis\",\"impl\":\"cub_segmented\",\"axis\":\"%s\",\"rows\":%zu,\"cols\":%zu,\"segments\":%zu,\"n\":%zu,\"type\":\"f32\",\"op\":\"sum\",\"bytes\":%zu,\"min_ms\":%.6f,\"median_ms\":%.6f,\"gbps\":%.2f,\"ok\":%s}\n",
           axis, ragged ? 0 : rows, cols, ragged ? rows : 0, n, n * 4, mn, med, n * 4 / (mn * 1e6), ok ? "true" : "false");
    int sms; CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    time_it(st, [&] { read_kernel<<<sms * 8, 256, 0, st>>>(in, n, blk); }, mn, med);
    printf("{\"record\":\"axis\",\"impl\":\"read_roof\",\"axis\":\"%s\",\"rows\":%zu,\"cols\":%zu,\"segments\":%zu,\"n\":%zu,\"type\":\"f32\",\"op\":\"read\",\"bytes\":%zu,\"min_ms\":%.6f,\"median_ms\":%.6f,\"gbps\":%.2f,\"ok\":true}\n",
           axis, ragged ? 0 : rows, cols, ragged ? rows : 0, n, n * 4, mn, med, n * 4 / (mn * 1e6));
    return ok ? 0 : 1;
}
