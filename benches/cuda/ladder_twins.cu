// ladder_twins.cu — CUDA C "parity twins" of the project's Rust reduction kernels.
//
// Purpose
// -------
// Every kernel in this file is a line-for-line CUDA C translation of one Rust kernel in
// kernels/src/stages/*.rs (exported by kernels/src/exports.rs). Same algorithm, same index
// arithmetic, same tail guards, same order of additions, same kernel name, same parameter list,
// same launch configuration and same dynamic shared-memory size. The only difference is the
// compiler: nvcc instead of rustc + LLVM NVPTX. The Rust host loads the PTX built from this file
// exactly the way it loads the Rust PTX, so any time difference between the two is the compiler's.
//
//   nvcc -O3 -arch=sm_90 -ptx ladder_twins.cu -o ladder_twins.ptx
//
// ABI (identical to exports.rs)
// -----------------------------
//   stages 1-7 and the broken variants: (const T* input, size_t n, T* partials)
//       partials has gridDim.x elements; dynamic shared memory = blockDim.x * sizeof(T) bytes.
//   stage 8: (const T* input, size_t n, T* partials, unsigned int* counter, T* out)
//       dynamic shared memory = (BLOCK / 32) * sizeof(T) bytes; *counter must be 0 on entry and
//       is 0 again on exit.
//
// Names: reduce_s{1..5}_{what}_{f32,i32}, reduce_s6_complete_unroll_b{64..1024}_{f32,i32},
// reduce_s7_grid_stride_b{64..1024}_{f32,i32}, reduce_s8_sum_b{256,512,1024}_{f32,i32},
// reduce_broken_{racy_last_warp,missing_barrier}_{f32,i32}.
//
// Conventions, chosen to mirror the Rust
// --------------------------------------
// * In-block indices are `unsigned int` (tid, strides), the way a CUDA programmer writes the
//   seed kernels; global element indices are `size_t`, because the Rust uses 64-bit `usize`
//   indices (so both versions handle n >= 2^32 and compare the same algorithm).
//   Note: the Rust keeps tid / s in usize too; LLVM narrows or strength-reduces some of that
//   (e.g. stage 1's `tid % (2*s)` becomes a 64-bit `and`), nvcc sees 32-bit operands here.
// * Integer sums WRAP (two's complement), like the Rust `wrapping_add`: int additions are done
//   in `unsigned int` and converted back (well defined for unsigned, and the conversion back is
//   modular with nvcc/gcc), so there is no signed-overflow UB. The generated instruction is the
//   same 32-bit add either way.
// * Float sums are plain IEEE `+` in float (there are no multiplies, so --fmad does not matter).
// * The input pointer is NOT declared __restrict__, because the Rust passes raw pointers without
//   noalias: both sides then use ordinary `ld.global` for scalar loads. Stage 8's 16-byte loads
//   use the read-only path explicitly (`__ldg` -> `ld.global.nc.v4.u32`) on both sides.
//   Build with -DTWIN_RESTRICT=__restrict__ to see what `const T* __restrict__` changes.
// * The dynamic shared array is declared once as raw bytes and cast to T*, because declaring
//   `extern __shared__ T sdata[]` in a template instantiated for both float and int is an error
//   in CUDA C++ (conflicting declarations of the same symbol).

#include <cuda_runtime.h>
#include <stddef.h>

#ifndef TWIN_RESTRICT
#define TWIN_RESTRICT
#endif

namespace twins {

// ---------------------------------------------------------------------------------------------
// Helpers (kernels/src/gpu.rs and element.rs)
// ---------------------------------------------------------------------------------------------

// extern __shared__ T sdata[];  (Shared::<T>::dynamic())
template <typename T>
__device__ __forceinline__ T* dynamic_smem()
{
    extern __shared__ __align__(16) unsigned char twin_dynamic_smem[];
    return reinterpret_cast<T*>(twin_dynamic_smem);
}

// Element::plus: IEEE add for float, wrapping add for int.
__device__ __forceinline__ float plus(float a, float b) { return a + b; }
__device__ __forceinline__ int plus(int a, int b)
{
    return (int)((unsigned int)a + (unsigned int)b);
}

// Element::from_bits64 for the 32-bit types (used on the 16-byte vector loads of stage 8).
template <typename T> __device__ __forceinline__ T from_bits(unsigned int b);
template <> __device__ __forceinline__ float from_bits<float>(unsigned int b) { return __uint_as_float(b); }
template <> __device__ __forceinline__ int from_bits<int>(unsigned int b) { return (int)b; }

// ---------------------------------------------------------------------------------------------
// Stage 1 — interleaved addressing with a divergent branch (s1_interleaved_divergent.rs)
// ---------------------------------------------------------------------------------------------
template <typename T>
__device__ __forceinline__ void s1_interleaved_divergent(const T* TWIN_RESTRICT input, size_t n, T* partials)
{
    T* sdata = dynamic_smem<T>();
    unsigned int tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + tid;

    sdata[tid] = (i < n) ? input[i] : T(0);
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) {
            sdata[tid] = plus(sdata[tid], sdata[tid + s]);
        }
        __syncthreads();
    }

    if (tid == 0) partials[blockIdx.x] = sdata[0];
}

// ---------------------------------------------------------------------------------------------
// Stage 2 — interleaved addressing, strided index (s2_interleaved_strided.rs)
// ---------------------------------------------------------------------------------------------
template <typename T>
__device__ __forceinline__ void s2_interleaved_strided(const T* TWIN_RESTRICT input, size_t n, T* partials)
{
    T* sdata = dynamic_smem<T>();
    unsigned int tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + tid;

    sdata[tid] = (i < n) ? input[i] : T(0);
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int index = 2 * s * tid;
        if (index < blockDim.x) {
            sdata[index] = plus(sdata[index], sdata[index + s]);
        }
        __syncthreads();
    }

    if (tid == 0) partials[blockIdx.x] = sdata[0];
}

// ---------------------------------------------------------------------------------------------
// Stage 3 — sequential addressing (s3_sequential.rs)
// ---------------------------------------------------------------------------------------------
template <typename T>
__device__ __forceinline__ void s3_sequential(const T* TWIN_RESTRICT input, size_t n, T* partials)
{
    T* sdata = dynamic_smem<T>();
    unsigned int tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + tid;

    sdata[tid] = (i < n) ? input[i] : T(0);
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] = plus(sdata[tid], sdata[tid + s]);
        }
        __syncthreads();
    }

    if (tid == 0) partials[blockIdx.x] = sdata[0];
}

// ---------------------------------------------------------------------------------------------
// Stage 4 — first add during the global load (s4_first_add_during_load.rs)
// ---------------------------------------------------------------------------------------------

// input[i] + input[i + stride], 0 for indices past the end (load_two).
template <typename T>
__device__ __forceinline__ T load_two(const T* TWIN_RESTRICT input, size_t n, size_t i, size_t stride)
{
    T a = (i < n) ? input[i] : T(0);
    T b = (i + stride < n) ? input[i + stride] : T(0);
    return plus(a, b);
}

template <typename T>
__device__ __forceinline__ void s4_first_add_during_load(const T* TWIN_RESTRICT input, size_t n, T* partials)
{
    T* sdata = dynamic_smem<T>();
    unsigned int tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (blockDim.x * 2) + tid;

    sdata[tid] = load_two(input, n, i, (size_t)blockDim.x);
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] = plus(sdata[tid], sdata[tid + s]);
        }
        __syncthreads();
    }

    if (tid == 0) partials[blockIdx.x] = sdata[0];
}

// ---------------------------------------------------------------------------------------------
// Stage 5 — unroll the last warp (s5_unroll_last_warp.rs)
// ---------------------------------------------------------------------------------------------

// Sums sdata[0..64] into sdata[0]; called by the 32 threads of the first warp. Each step is
// read — __syncwarp() — write — __syncwarp(), NOT the seeds' racy volatile `smem[tid] += ...`.
template <typename T>
__device__ __forceinline__ void warp_reduce(T* sdata, unsigned int tid)
{
    T v = sdata[tid];
#pragma unroll
    for (unsigned int offset = 32; offset > 0; offset >>= 1) {
        v = plus(v, sdata[tid + offset]); // read the partner ...
        __syncwarp();                     // ... every lane has read ...
        sdata[tid] = v;                   // ... then write ...
        __syncwarp();                     // ... every lane has written.
    }
}

template <typename T>
__device__ __forceinline__ void s5_unroll_last_warp(const T* TWIN_RESTRICT input, size_t n, T* partials)
{
    T* sdata = dynamic_smem<T>();
    unsigned int tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (blockDim.x * 2) + tid;

    sdata[tid] = load_two(input, n, i, (size_t)blockDim.x);
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) {
            sdata[tid] = plus(sdata[tid], sdata[tid + s]);
        }
        __syncthreads();
    }

    if (tid < 32) warp_reduce(sdata, tid);

    if (tid == 0) partials[blockIdx.x] = sdata[0];
}

// ---------------------------------------------------------------------------------------------
// Stage 6 — complete unrolling, block size a template parameter (s6_complete_unroll.rs)
// ---------------------------------------------------------------------------------------------
template <typename T, unsigned int BLOCK>
__device__ __forceinline__ void tree_reduce(T* sdata, unsigned int tid)
{
    if (BLOCK >= 1024) { if (tid < 512) { sdata[tid] = plus(sdata[tid], sdata[tid + 512]); } __syncthreads(); }
    if (BLOCK >= 512)  { if (tid < 256) { sdata[tid] = plus(sdata[tid], sdata[tid + 256]); } __syncthreads(); }
    if (BLOCK >= 256)  { if (tid < 128) { sdata[tid] = plus(sdata[tid], sdata[tid + 128]); } __syncthreads(); }
    if (BLOCK >= 128)  { if (tid < 64)  { sdata[tid] = plus(sdata[tid], sdata[tid + 64]);  } __syncthreads(); }
    if (tid < 32) warp_reduce(sdata, tid);
}

template <typename T, unsigned int BLOCK>
__device__ __forceinline__ void s6_complete_unroll(const T* TWIN_RESTRICT input, size_t n, T* partials)
{
    T* sdata = dynamic_smem<T>();
    unsigned int tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (BLOCK * 2) + tid;

    sdata[tid] = load_two(input, n, i, (size_t)BLOCK);
    __syncthreads();

    tree_reduce<T, BLOCK>(sdata, tid);

    if (tid == 0) partials[blockIdx.x] = sdata[0];
}

// ---------------------------------------------------------------------------------------------
// Stage 7 — grid-stride loop, running sum in a register (s7_grid_stride.rs)
// ---------------------------------------------------------------------------------------------
template <typename T, unsigned int BLOCK>
__device__ __forceinline__ void s7_grid_stride(const T* TWIN_RESTRICT input, size_t n, T* partials)
{
    T* sdata = dynamic_smem<T>();
    unsigned int tid = threadIdx.x;
    size_t grid_size = (size_t)BLOCK * 2 * gridDim.x;

    T sum = T(0);
    size_t i = (size_t)blockIdx.x * (BLOCK * 2) + tid;
    while (i < n) {
        sum = plus(sum, input[i]);
        if (i + BLOCK < n) sum = plus(sum, input[i + BLOCK]);
        i += grid_size;
    }
    sdata[tid] = sum;
    __syncthreads();

    tree_reduce<T, BLOCK>(sdata, tid);

    if (tid == 0) partials[blockIdx.x] = sdata[0];
}

// ---------------------------------------------------------------------------------------------
// Stage 8 — one pass: shuffles, 16-byte loads, last block finishes (s8_shuffle_vectorized.rs)
// Sum only; 32-bit element types only (4 lanes per 16-byte vector).
// ---------------------------------------------------------------------------------------------

// Reduce the 32 values of a warp with shuffles; lane 0 gets the result.
template <typename T>
__device__ __forceinline__ T warp_reduce_shfl(T v)
{
#pragma unroll
    for (unsigned int offset = 32 / 2; offset > 0; offset /= 2) {
        v = plus(v, __shfl_down_sync(0xffffffffu, v, offset));
    }
    return v;
}

// One value per thread -> thread 0 gets the block's total. Uses BLOCK/32 elements of smem and
// must be called by every thread of the block.
template <typename T, unsigned int BLOCK>
__device__ __forceinline__ T block_reduce(T v, T* smem)
{
    unsigned int tid = threadIdx.x;
    unsigned int warp = tid / 32;
    unsigned int lane = tid % 32;
    T warp_total = warp_reduce_shfl(v);
    if (lane == 0) smem[warp] = warp_total;
    __syncthreads();
    T total = T(0);
    if (warp == 0) {
        T mine = (lane < BLOCK / 32) ? smem[lane] : T(0);
        total = warp_reduce_shfl(mine);
    }
    return total;
}

// The 4 elements of one 16-byte vector, combined pairwise: (e0 + e1) + (e2 + e3).
template <typename T>
__device__ __forceinline__ T reduce_vec4(uint4 w)
{
    return plus(plus(from_bits<T>(w.x), from_bits<T>(w.y)), plus(from_bits<T>(w.z), from_bits<T>(w.w)));
}

// Elements before the first 16-byte boundary (Global::misaligned_head).
template <typename T>
__device__ __forceinline__ size_t misaligned_head(const T* p, size_t n)
{
    size_t off = reinterpret_cast<size_t>(p) % 16;
    if (off == 0) return 0;
    size_t h = (16 - off) / sizeof(T);
    return (h < n) ? h : n;
}

template <typename T, unsigned int BLOCK, unsigned int UNROLL>
__device__ __forceinline__ void s8_sum(const T* TWIN_RESTRICT input, size_t n, T* partials,
                                       unsigned int* counter, T* out)
{
    static_assert(sizeof(T) == 4, "stage-8 twins cover 32-bit element types only");
    T* smem = dynamic_smem<T>();
    unsigned int tid = threadIdx.x;
    unsigned int block = blockIdx.x;
    unsigned int grid = gridDim.x;
    const size_t lanes = 16 / sizeof(T);

    T acc = T(0);

    // Elements before the first 16-byte boundary: block 0, one per thread.
    size_t head = misaligned_head(input, n);
    if (block == 0 && tid < head) acc = plus(acc, input[tid]);

    // The body: whole 16-byte vectors in tiles of BLOCK * UNROLL; each block owns a contiguous
    // run of tiles; in a tile, UNROLL independent coalesced loads per thread.
    size_t vectors = (n - head) / lanes;
    const uint4* vin = reinterpret_cast<const uint4*>(input + head);
    size_t tile = (size_t)BLOCK * UNROLL;
    size_t per_block = ((vectors + tile - 1) / tile + grid - 1) / grid * tile;
    size_t start = (size_t)block * per_block;
    size_t end = (start + per_block < vectors) ? start + per_block : vectors;
    size_t t = start;
    while (t + tile <= end) {
        // All loads first (independent, so all in flight at once) ...
        uint4 loaded[UNROLL];
#pragma unroll
        for (unsigned int u = 0; u < UNROLL; ++u) loaded[u] = __ldg(vin + (t + u * BLOCK + tid));
        // ... then the arithmetic.
#pragma unroll
        for (unsigned int u = 0; u < UNROLL; ++u) acc = plus(acc, reduce_vec4<T>(loaded[u]));
        t += tile;
    }
    // The block's last, partial tile.
    for (size_t v = t + tid; v < end; v += BLOCK) acc = plus(acc, reduce_vec4<T>(__ldg(vin + v)));

    // Fewer than one vector's worth left at the end: the last block, one per thread.
    size_t tail = head + vectors * lanes;
    if (block == grid - 1 && tail + tid < n) acc = plus(acc, input[tail + tid]);

    T block_total = block_reduce<T, BLOCK>(acc, smem);
    if (grid == 1) {
        if (tid == 0) out[0] = block_total;
        return;
    }

    // Publish this block's partial, then take a ticket.
    bool last_ticket = false;
    if (tid == 0) {
        partials[block] = block_total;
        __threadfence(); // the partial is visible GPU-wide before the ticket is
        last_ticket = atomicAdd(counter, 1u) == grid - 1;
    }
    // Every thread learns whether its block drew the last ticket (also a barrier, so smem can be
    // reused below).
    if (__syncthreads_or(last_ticket)) {
        const volatile T* vpartials = partials;
        T acc2 = T(0);
        for (size_t i = tid; i < grid; i += BLOCK) {
            T p = vpartials[i];
            acc2 = plus(acc2, p);
        }
        T total = block_reduce<T, BLOCK>(acc2, smem);
        if (tid == 0) {
            out[0] = total;
            *counter = 0;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Broken on purpose (broken.rs) — for compute-sanitizer racecheck parity; never used for results.
// Plain (non-volatile) shared accesses, exactly as the Rust.
// ---------------------------------------------------------------------------------------------
template <typename T>
__device__ __forceinline__ void warp_reduce_seed_racy(T* sdata, unsigned int tid)
{
#pragma unroll
    for (unsigned int offset = 32; offset > 0; offset >>= 1) {
        sdata[tid] = plus(sdata[tid], sdata[tid + offset]);
    }
}

template <typename T>
__device__ __forceinline__ void broken_racy_last_warp(const T* TWIN_RESTRICT input, size_t n, T* partials)
{
    T* sdata = dynamic_smem<T>();
    unsigned int tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (blockDim.x * 2) + tid;
    sdata[tid] = load_two(input, n, i, (size_t)blockDim.x);
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) {
            sdata[tid] = plus(sdata[tid], sdata[tid + s]);
        }
        __syncthreads();
    }
    if (tid < 32) warp_reduce_seed_racy(sdata, tid);
    if (tid == 0) partials[blockIdx.x] = sdata[0];
}

template <typename T>
__device__ __forceinline__ void broken_missing_barrier(const T* TWIN_RESTRICT input, size_t n, T* partials)
{
    T* sdata = dynamic_smem<T>();
    unsigned int tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = (i < n) ? input[i] : T(0);
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] = plus(sdata[tid], sdata[tid + s]);
        }
        // missing: __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = sdata[0];
}

} // namespace twins

// =============================================================================================
// Exported kernels: names and parameter lists identical to kernels/src/exports.rs.
// =============================================================================================

#define TWIN_LADDER(NAME, FN, T, SUFFIX)                                                            \
    extern "C" __global__ void NAME##_##SUFFIX(const T* input, size_t n, T* partials)              \
    {                                                                                               \
        twins::FN<T>(input, n, partials);                                                           \
    }

#define TWIN_LADDER_TYPES(NAME, FN)                                                                 \
    TWIN_LADDER(NAME, FN, float, f32)                                                               \
    TWIN_LADDER(NAME, FN, int, i32)

TWIN_LADDER_TYPES(reduce_s1_interleaved_divergent, s1_interleaved_divergent)
TWIN_LADDER_TYPES(reduce_s2_interleaved_strided, s2_interleaved_strided)
TWIN_LADDER_TYPES(reduce_s3_sequential, s3_sequential)
TWIN_LADDER_TYPES(reduce_s4_first_add_during_load, s4_first_add_during_load)
TWIN_LADDER_TYPES(reduce_s5_unroll_last_warp, s5_unroll_last_warp)
TWIN_LADDER_TYPES(reduce_broken_racy_last_warp, broken_racy_last_warp)
TWIN_LADDER_TYPES(reduce_broken_missing_barrier, broken_missing_barrier)

// Stages 6 and 7: explicit instantiations for BLOCK = 64, 128, 256, 512, 1024.
#define TWIN_UNROLLED(B, T, SUFFIX)                                                                 \
    extern "C" __global__ void reduce_s6_complete_unroll_b##B##_##SUFFIX(const T* input, size_t n,  \
                                                                        T* partials)                \
    {                                                                                               \
        twins::s6_complete_unroll<T, B>(input, n, partials);                                        \
    }                                                                                               \
    extern "C" __global__ void reduce_s7_grid_stride_b##B##_##SUFFIX(const T* input, size_t n,      \
                                                                    T* partials)                    \
    {                                                                                               \
        twins::s7_grid_stride<T, B>(input, n, partials);                                            \
    }

#define TWIN_UNROLLED_BLOCKS(T, SUFFIX)                                                             \
    TWIN_UNROLLED(64, T, SUFFIX)                                                                    \
    TWIN_UNROLLED(128, T, SUFFIX)                                                                   \
    TWIN_UNROLLED(256, T, SUFFIX)                                                                   \
    TWIN_UNROLLED(512, T, SUFFIX)                                                                   \
    TWIN_UNROLLED(1024, T, SUFFIX)

TWIN_UNROLLED_BLOCKS(float, f32)
TWIN_UNROLLED_BLOCKS(int, i32)

// Stage 8 (sum), UNROLL = SINGLE_PASS_UNROLL = 4, BLOCK = 256, 512, 1024.
#define TWIN_SINGLE_PASS(B, T, SUFFIX)                                                              \
    extern "C" __global__ void reduce_s8_sum_b##B##_##SUFFIX(const T* input, size_t n, T* partials, \
                                                            unsigned int* counter, T* out)          \
    {                                                                                               \
        twins::s8_sum<T, B, 4>(input, n, partials, counter, out);                                   \
    }

TWIN_SINGLE_PASS(256, float, f32)
TWIN_SINGLE_PASS(512, float, f32)
TWIN_SINGLE_PASS(1024, float, f32)
TWIN_SINGLE_PASS(256, int, i32)
TWIN_SINGLE_PASS(512, int, i32)
TWIN_SINGLE_PASS(1024, int, i32)
