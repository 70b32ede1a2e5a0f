// cub_determinism.cu — CUB 3.5's DeviceReduce::Sum at its three determinism levels, for the exact
// sums' benchmark (`benches/gpu.sh exact`).
//
//   nvcc -O3 -arch=sm_90 -std=c++17 -I<cccl 3.5 include dir> cub_determinism.cu -o cub_determinism
//   ./cub_determinism time f32 12 16 20 24 28 30   # timing rows, uniform data made on the device
//   ./cub_determinism file f64 PATH LABEL         # one row per level: the sum of the raw values in PATH
//                                                 # ("data":LABEL in each row)
//
// Levels: cuda::execution::determinism::{not_guaranteed, run_to_run, gpu_to_gpu}, requested through
// the execution environment of the env overload `cub::DeviceReduce::Sum(d_in, d_out, n, env)`.
// The environment also holds the stream and a memory resource (`fixed_resource`) that hands out
// one buffer allocated once, up front, for the largest N: CUB's temporary storage is never
// allocated inside a timed call (CUB's default resource would call cudaMallocAsync/cudaFree per
// call).
//
// Timing (like cub_bench.cu): 10 warm-ups, then 50 runs, each between two CUDA events on the
// stream; min and median in microseconds. The result is read back once, outside the timing.
// Output: JSON lines
//   {"impl":"cub_run_to_run","type":"f32","n":N,"min_us":..,"median_us":..,"result":..,"bits":"0x.."}
// ("mode":"file" rows carry the result only). Diagnostics go to stderr.

#include <cub/device/device_reduce.cuh>
#include <cuda/__execution/determinism.h>
#include <cuda/__execution/require.h>
#include <cuda/memory_resource>
#include <cuda/std/execution>
#include <cuda/stream_ref>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CHECK(call)                                                                                 \
    do {                                                                                            \
        cudaError_t e_ = (call);                                                                    \
        if (e_ != cudaSuccess) {                                                                    \
            std::fprintf(stderr, "CUDA error at %s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
                         cudaGetErrorString(e_));                                                   \
            std::exit(1);                                                                           \
        }                                                                                           \
    } while (0)

// A memory resource over one device buffer allocated before the timing: every allocation returns
// it (CUB makes one temporary allocation per call and frees it before the next). Should a call ask
// for more than the buffer holds, the buffer is replaced by a larger one — that can only happen
// in the first (warm-up) call of a level, and is reported on stderr.
struct pool {
    void* base = nullptr;
    size_t capacity = 0;
};
struct fixed_resource {
    pool* p;

    void* allocate(cuda::stream_ref s, size_t bytes, size_t) {
        if (bytes > p->capacity) {
            std::fprintf(stderr, "temporary storage grows from %zu to %zu bytes\n", p->capacity, bytes);
            CHECK(cudaStreamSynchronize(s.get()));
            CHECK(cudaFree(p->base));
            CHECK(cudaMalloc(&p->base, bytes));
            p->capacity = bytes;
        }
        return p->base;
    }
    void deallocate(cuda::stream_ref, void*, size_t, size_t) noexcept {}
    void* allocate_sync(size_t bytes, size_t alignment) {
        return allocate(cuda::stream_ref{cudaStream_t{}}, bytes, alignment);
    }
    void deallocate_sync(void*, size_t, size_t) noexcept {}
    bool operator==(const fixed_resource& o) const noexcept { return p == o.p; }
    bool operator!=(const fixed_resource& o) const noexcept { return p != o.p; }
    friend void get_property(const fixed_resource&, cuda::mr::device_accessible) noexcept {}
};

template <class Level>
auto make_env(Level level, cudaStream_t stream, fixed_resource& mr) {
    return cuda::std::execution::env{
        cuda::execution::require(level),
        cuda::std::execution::prop{cuda::get_stream, cuda::stream_ref{stream}},
        cuda::std::execution::prop{cuda::mr::get_memory_resource, mr}};
}

template <class T, class Level>
void sum(Level level, const T* d_in, T* d_out, size_t n, cudaStream_t s, fixed_resource& mr) {
    CHECK(cub::DeviceReduce::Sum(d_in, d_out, n, make_env(level, s, mr)));
}

// Uniform [0, 1) from a counter-based hash of the index (24 / 53 random bits).
__device__ inline uint64_t mix(uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
template <class T>
__global__ void fill_uniform(T* p, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint64_t r = mix(i);
        if (sizeof(T) == 4) {
            p[i] = (T)((r >> 40) * (1.0 / 16777216.0));
        } else {
            p[i] = (T)((r >> 11) * (1.0 / 9007199254740992.0));
        }
    }
}

template <class T>
uint64_t bits_of(T v) {
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}

const char* NAMES[3] = {"cub_not_guaranteed", "cub_run_to_run", "cub_gpu_to_gpu"};

template <class T>
void run_level(int level, const T* d_in, T* d_out, size_t n, cudaStream_t s, fixed_resource& mr) {
    switch (level) {
        case 0: sum<T>(cuda::execution::determinism::not_guaranteed, d_in, d_out, n, s, mr); break;
        case 1: sum<T>(cuda::execution::determinism::run_to_run, d_in, d_out, n, s, mr); break;
        default: sum<T>(cuda::execution::determinism::gpu_to_gpu, d_in, d_out, n, s, mr); break;
    }
}

template <class T>
size_t temp_bytes(size_t n) {
    // The run_to_run path's temporary storage at the largest N (the legacy overload's query),
    // with room to spare; a level that needs more grows the pool in its first warm-up call.
    size_t bytes = 0;
    CHECK(cub::DeviceReduce::Sum(nullptr, bytes, (const T*)nullptr, (T*)nullptr, n));
    return std::max<size_t>(bytes, 1 << 20) * 4;
}

template <class T>
int main_typed(int argc, char** argv, bool file_mode, const char* ty) {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::vector<size_t> ns;
    std::vector<T> host;
    if (file_mode) {
        FILE* f = std::fopen(argv[3], "rb");
        if (!f) { std::fprintf(stderr, "cannot open %s\n", argv[3]); return 1; }
        std::fseek(f, 0, SEEK_END);
        size_t bytes = std::ftell(f);
        std::fseek(f, 0, SEEK_SET);
        host.resize(bytes / sizeof(T));
        if (std::fread(host.data(), sizeof(T), host.size(), f) != host.size()) return 1;
        std::fclose(f);
        ns.push_back(host.size());
    } else {
        for (int i = 3; i < argc; ++i) ns.push_back(size_t(1) << std::atoi(argv[i]));
    }
    size_t max_n = *std::max_element(ns.begin(), ns.end());
    T* d_in; T* d_out;
    CHECK(cudaMalloc(&d_in, std::max<size_t>(max_n, 1) * sizeof(T)));
    CHECK(cudaMalloc(&d_out, sizeof(T)));
    if (file_mode) {
        CHECK(cudaMemcpy(d_in, host.data(), max_n * sizeof(T), cudaMemcpyHostToDevice));
    } else {
        fill_uniform<T><<<1024, 256, 0, s>>>(d_in, max_n);
        CHECK(cudaGetLastError());
    }
    pool storage;
    storage.capacity = temp_bytes<T>(max_n);
    CHECK(cudaMalloc(&storage.base, storage.capacity));
    fixed_resource mr{&storage};
    CHECK(cudaStreamSynchronize(s));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (size_t n : ns) {
        for (int level = 0; level < 3; ++level) {
            std::vector<float> ms;
            int warm = file_mode ? 1 : 10, runs = file_mode ? 0 : 50;
            for (int r = 0; r < warm + runs; ++r) {
                CHECK(cudaEventRecord(a, s));
                run_level<T>(level, d_in, d_out, n, s, mr);
                CHECK(cudaEventRecord(b, s));
                CHECK(cudaEventSynchronize(b));
                float t;
                CHECK(cudaEventElapsedTime(&t, a, b));
                if (r >= warm) ms.push_back(t);
            }
            T result;
            CHECK(cudaMemcpy(&result, d_out, sizeof(T), cudaMemcpyDeviceToHost));
            std::printf("{\"impl\":\"%s\",\"mode\":\"%s\",\"type\":\"%s\",\"n\":%zu", NAMES[level],
                        file_mode ? "file" : "time", ty, n);
            if (file_mode && argc > 4) std::printf(",\"data\":\"%s\"", argv[4]);
            if (!ms.empty()) {
                std::sort(ms.begin(), ms.end());
                std::printf(",\"runs\":%zu,\"min_us\":%.3f,\"median_us\":%.3f", ms.size(),
                            ms.front() * 1e3, ms[ms.size() / 2] * 1e3);
            }
            std::printf(",\"result\":%.17g,\"bits\":\"0x%llx\"}\n", (double)result,
                        (unsigned long long)bits_of(result));
            std::fflush(stdout);
        }
    }
    return 0;
}

int main(int argc, char** argv) {
    if (argc < 4 || (std::strcmp(argv[1], "time") && std::strcmp(argv[1], "file"))) {
        std::fprintf(stderr, "usage: %s time f32|f64 EXP... | %s file f32|f64 PATH [LABEL]\n", argv[0], argv[0]);
        return 2;
    }
    bool file_mode = !std::strcmp(argv[1], "file");
    if (!std::strcmp(argv[2], "f32")) return main_typed<float>(argc, argv, file_mode, "f32");
    if (!std::strcmp(argv[2], "f64")) return main_typed<double>(argc, argv, file_mode, "f64");
    std::fprintf(stderr, "type must be f32 or f64\n");
    return 2;
}
