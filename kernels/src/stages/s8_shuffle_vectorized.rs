//! # Stage 8 — one pass: warp shuffles, 16-byte loads, last block finishes
//!
//! Seed step: **beyond the seeds**. The blog stops at Kernel 5, still slower than PyTorch; this
//! stage is what a modern reduction (CUB's `DeviceReduce`, PyTorch's `sum`) does, in one kernel
//! launch, and is the library's main entry point.
//!
//! What changed from stage 7, and why each step is faster:
//!
//! 1. **16-byte vector loads.** Each thread reads a [`crate::gpu::Vec4`] (4 × `f32` or
//!    2 × `f64`) per load through the read-only path (`ld.global.nc.v4`): a quarter of the load
//!    instructions for the same bytes.
//! 2. **Loads in flight, in contiguous tiles.** The input is cut into tiles of `BLOCK * UNROLL`
//!    vectors and each block owns one contiguous run of tiles (CUB's "even share"). In a tile every
//!    thread issues `UNROLL` independent, coalesced vector loads before it uses any of them, so it
//!    keeps `16 * UNROLL` bytes in flight — across the grid, enough to cover HBM latency. (On the
//!    H200 this beat the same loads in grid-stride order by ~0.6% at 2^30 and ~10% at
//!    2^22–2^24: each block streams through its own DRAM pages.)
//! 3. **Warp shuffles instead of shared memory.** Inside a warp, `__shfl_down_sync` passes values
//!    register to register: five shuffle-and-add steps reduce 32 values with no shared memory and
//!    no barrier. Shared memory is used once, for one value per warp. (The warp and block steps
//!    are the device layer's [`crate::primitives::warp::reduce_op`] and
//!    [`crate::primitives::block::reduce_op`], which every production kernel shares.)
//! 4. **One launch.** Stages 1–7 need a second launch (and a round trip) to reduce the per-block
//!    partials. Here each block stores its partial and takes a ticket from an atomic counter;
//!    the block that draws the last ticket reduces every partial and writes the result (then
//!    resets the counter for the next call). This is the "threadFenceReduction" pattern of the
//!    CUDA samples, with the ordering the PTX memory model actually guarantees: the ticket is an
//!    `atom.acq_rel.gpu` ([`crate::gpu::Counter::take_ticket`]). Its *release* half publishes the
//!    partial stored before it; its *acquire* half, in the thread that draws the last ticket,
//!    makes every released partial visible to that thread (the increments read each other's
//!    values, so they form one release sequence: PTX ISA, "Memory Consistency Model", *release
//!    and acquire patterns* / *synchronizes-with*, and *causality order* is transitive); the
//!    block barrier that follows (`bar.red`) extends that order to the block's other threads.
//!    The samples' form — a `__threadfence()` and a relaxed ticket, then plain loads of the
//!    partials — relies on how today's hardware behaves, not on the model: nothing there
//!    *acquires*. The partials live in [`crate::gpu::Coherent`] memory (morally strong loads
//!    and stores, never the read-only path).
//! 5. **A grid sized from the device.** The host picks `gridDim` from the SM count and the
//!    occupancy of this kernel; an input that fits in one tile of a 256-, 512- or 1024-thread
//!    block runs as that single block, which skips step 4's round trips through L2.
//! 6. **No copy back.** `out` may point into pinned host memory mapped into the device (the host
//!    library does this): the last block's store lands in host RAM, so the caller has the result
//!    when the kernel ends, without a separate device-to-host copy.
//!
//! Determinism: each block visits a fixed set of elements in a fixed order, and the last block
//! combines the partials in block order through a fixed tree. For the same input, length, device
//! and configuration the result is **bit-identical on every run** — no floating-point atomics.
//!
//! Operators and accumulators: the body is generic over the operator ([`crate::ReduceOp`]: sum,
//! min, max, prod, the NaN-ignoring forms, count) and over the accumulator type — [`reduce`]
//! accumulates in the element type, [`reduce_wide`] sums 32-bit integers in 64 bits. Each element
//! is [lifted](crate::ReduceOp::lift) once as it is loaded (the identity for every operator but
//! `nansum` and `count`, so those kernels' PTX is what it was without the hook).
//!
//! Tails and alignment: elements before the first 16-byte boundary (a sub-slice may start
//! anywhere) and after the last whole vector are read one by one by block 0 and the last block.
//!
//! ## In PTX: `reduce_s8_sum_b512_f32`
//!
//! Each step above is a few lines of the PTX (`cargo xtask ptx 8` shows the whole kernel beside
//! this file, `--op max --type f64 --block 1024` another instantiation):
//!
//! ```text
//! { .reg .u64 g; cvta.to.global.u64 g, %rd44; ld.global.nc.v4.u32 {%r13, %r14, %r15, %r16}, [g]; }
//! { .reg .u64 g; cvta.to.global.u64 g, %rd45; ld.global.nc.v4.u32 {%r17, %r18, %r19, %r20}, [g]; }
//! { .reg .u64 g; cvta.to.global.u64 g, %rd46; ld.global.nc.v4.u32 {%r21, %r22, %r23, %r24}, [g]; }
//! { .reg .u64 g; cvta.to.global.u64 g, %rd47; ld.global.nc.v4.u32 {%r25, %r26, %r27, %r28}, [g]; }
//! add.rn.f32    %r29, %r13, %r14;             // (1, 2) four 16-byte loads in flight, then adds
//! shfl.sync.down.b32 %r77, %r118, 16, 31, -1; // (3) __shfl_down_sync(0xffffffff, v, 16)
//! add.rn.f32    %r78, %r118, %r77;
//! shfl.sync.down.b32 %r79, %r78, 8, 31, -1;   //     … 8, 4, 2, 1: no shared memory, no barrier
//! st.relaxed.sys.u32 [%rd66], %r124;          // (4) partials[block], a Coherent store
//! atom.acq_rel.gpu.add.u32 %r95, [%rd23], %r96; //   the ticket: release + acquire
//! { .reg .pred p; setp.ne.u32 p, %r125, 0; bar.red.or.pred p, 0, p; selp.u32 %r97, 1, 0, p; }
//! ld.relaxed.sys.u32 %r98, [%rd81];           //     the last block reads the partials
//! ```

use crate::gpu::WARP_SIZE;
use crate::gpu::{fail, sync_threads_or, Coherent, Counter, Global, GlobalMut, Shared, Vec4};
use crate::primitives::block;
use crate::{thread, Element, ReduceOp};

/// Reduce all of `input` with `O` into `out[0]`, in one launch.
///
/// Launch with `blockDim.x == BLOCK` (a power of two, 32..=1024; any other block traps), `BLOCK /
/// 32` elements of dynamic shared memory, any grid size; `partials` must hold `gridDim.x` elements
/// and `counter` must be 0 (the kernel leaves it 0 again). With a single block, `partials` and
/// `counter` are not touched.
pub fn reduce<T: Element, O: ReduceOp, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    partials: Coherent<T>,
    counter: Counter,
    out: GlobalMut<T>,
) {
    reduce_into::<T, T, O, BLOCK, UNROLL>(
        input,
        partials,
        counter,
        out,
        |x| O::lift(x),
        T::reduce_vec4::<O>,
    )
}

/// [`reduce`] with a 64-bit accumulator and result for 32-bit integers (`T::Wide`: `i32` → `i64`,
/// `u32` → `u64`, as NumPy and PyTorch promote integer sums): the same loads of 4 × 32 bits, each
/// element sign- or zero-extended before it is combined, so the sum of up to 2^32 `i32` cannot
/// wrap. The warp shuffles, the shared memory (`BLOCK / 32` elements of `T::Wide`) and the
/// partials are 64-bit. The cost: a `cvt` per element and two shuffles per step instead of one, in
/// a kernel bound by memory bandwidth.
///
/// The same body reduces `f16` / `bf16` (`T::Wide = f32`): each 16-byte load brings 8 halves,
/// each widened exactly (`cvt.f32.f16`, or a 16-bit shift for `bf16`) and combined in `f32` — sums
/// and products do not round to 11 or 8 bits at every step, and `min`/`max` are exact (the result
/// is one of the inputs, NaN rules as for `f32`). The cost: one conversion per element.
pub fn reduce_wide<T: Element, O: ReduceOp, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    partials: Coherent<T::Wide>,
    counter: Counter,
    out: GlobalMut<T::Wide>,
) {
    reduce_into::<T, T::Wide, O, BLOCK, UNROLL>(
        input,
        partials,
        counter,
        out,
        |x| O::lift(x.widen()),
        T::reduce_vec4_wide::<O>,
    )
}

/// The body of [`reduce`] and [`reduce_wide`]: elements of `T` are read as accumulators of `A`
/// by `one` (a single element) and `vec` (a 16-byte vector of them), then combined in `A`.
#[inline(always)]
fn reduce_into<T: Element, A: Element, O: ReduceOp, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    partials: Coherent<A>,
    counter: Counter,
    out: GlobalMut<A>,
    one: impl Fn(T) -> A,
    vec: impl Fn(Vec4) -> A,
) {
    // The proofs below need `tid < BLOCK` and `blockIdx.x < partials.len()`: check both once.
    if thread::block_dim_x() as usize != BLOCK || partials.len() < thread::grid_dim_x() as usize {
        fail("stage 8 needs blockDim.x == BLOCK and gridDim.x partials");
    }
    // SAFETY: the launch reserves `BLOCK / 32` elements of shared memory (see the host's plan).
    let smem = unsafe { Shared::<A>::dynamic(BLOCK as u32 / WARP_SIZE) };
    let tid = thread::thread_idx_x() as usize;
    let (block, grid) = (
        thread::block_idx_x() as usize,
        thread::grid_dim_x() as usize,
    );
    // SAFETY: `blockDim.x == BLOCK`, checked on entry.
    let block_total = unsafe { block_partial::<T, A, O, BLOCK, UNROLL>(input, smem, one, vec) };
    if grid == 1 {
        if tid == 0 {
            out.set(0, block_total);
        }
        return;
    }

    // Publish this block's partial, then take a ticket: the ticket's release half makes the
    // partial visible to whoever acquires a later ticket (see the module docs).
    let mut last_ticket = false;
    if tid == 0 {
        // SAFETY: `block < gridDim.x <= partials.len()` (checked on entry).
        unsafe { partials.set_unchecked(block, block_total) };
        last_ticket = counter.take_ticket() as usize == grid - 1;
    }
    // Every thread learns whether its block drew the last ticket. The barrier also orders thread
    // 0's acquire before the other threads' loads below (and lets `smem` be reused).
    if sync_threads_or(last_ticket) {
        let total = combine_partials::<A, O, BLOCK>(partials, grid, smem);
        if tid == 0 {
            out.set(0, total);
            counter.reset();
        }
    }
}

/// This block's share of the input, reduced to one value (thread 0 gets it; the other threads get
/// a partial sum of their warp or less): the streaming loop of steps 1–3 and the block tree.
/// Every thread of the block must call it; `smem` should hold `BLOCK / 32` elements (a smaller
/// one traps).
///
/// # Safety
/// `blockDim.x == BLOCK` (the loads' bounds proofs use `threadIdx.x < BLOCK`); the kernels check
/// it once on entry.
#[inline(always)]
pub(crate) unsafe fn block_partial<
    T: Element,
    A: Element,
    O: ReduceOp,
    const BLOCK: usize,
    const UNROLL: usize,
>(
    input: Global<T>,
    smem: Shared<A>,
    one: impl Fn(T) -> A,
    vec: impl Fn(Vec4) -> A,
) -> A {
    let tid = thread::thread_idx_x() as usize;
    let (block, grid) = (
        thread::block_idx_x() as usize,
        thread::grid_dim_x() as usize,
    );
    let n = input.len();
    let lanes = 16 / core::mem::size_of::<T>();

    let mut acc = O::identity::<A>();

    // Elements before the first 16-byte boundary: block 0, one per thread.
    let head = input.misaligned_head();
    if block == 0 && tid < head {
        // SAFETY: `tid < head <= input.len()` (`misaligned_head` is at most the length).
        acc = O::combine(acc, one(unsafe { input.get_unchecked(tid) }));
    }

    // The body: whole 16-byte vectors in tiles of BLOCK * UNROLL. Each block owns one contiguous
    // run of tiles; in a tile, thread `tid` loads vectors `tid, tid + BLOCK, …` — UNROLL
    // independent, coalesced loads in flight before the first add.
    let vectors = (n - head) / lanes;
    let tile = BLOCK * UNROLL;
    let (start, end) = if grid == 1 {
        // One block owns everything (every input of one tile: the small-N policy). No division
        // on the way to the first load: the loads wait for `start`.
        (0, vectors)
    } else {
        let per_block = vectors.div_ceil(tile).div_ceil(grid) * tile;
        let start = block * per_block;
        (start, (start + per_block).min(vectors))
    };
    let mut t = start;
    while t + tile <= end {
        // All loads first (they are independent, so they are all in flight at once) …
        let mut loaded = [Vec4([0; 4]); UNROLL];
        #[allow(clippy::needless_range_loop)] // `u` is part of the address, not just an index
        for u in 0..UNROLL {
            // SAFETY: `t + u * BLOCK + tid < t + tile <= end <= vectors` (loop condition,
            // `u < UNROLL`, `tid < BLOCK`), and `head + vectors * lanes <= n`; element `head` is
            // the first on a 16-byte boundary.
            loaded[u] = unsafe { input.get_vec4_unchecked(head, t + u * BLOCK + tid) };
        }
        // … then the arithmetic.
        for x in &loaded {
            acc = O::combine(acc, vec(*x));
        }
        t += tile;
    }
    // The block's last, partial tile: the same UNROLL loads, each guarded, all in flight at once
    // (a small input is one partial tile, so this is its whole body).
    if t < end {
        let mut loaded = [Vec4([0; 4]); UNROLL];
        let mut valid = [false; UNROLL];
        for u in 0..UNROLL {
            let v = t + u * BLOCK + tid;
            if v < end {
                // SAFETY: `v < end <= vectors`, as in the loop above.
                loaded[u] = unsafe { input.get_vec4_unchecked(head, v) };
                valid[u] = true;
            }
        }
        for u in 0..UNROLL {
            if valid[u] {
                acc = O::combine(acc, vec(loaded[u]));
            }
        }
    }

    // Fewer than one vector's worth left at the end: the last block, one per thread.
    let tail = head + vectors * lanes;
    if block == grid - 1 && tail + tid < n {
        // SAFETY: `tail + tid < n`, tested just above.
        acc = O::combine(acc, one(unsafe { input.get_unchecked(tail + tid) }));
    }

    block::reduce_op::<A, O, BLOCK>(acc, smem)
}

/// The first `count` partials combined in a fixed order — thread `tid` folds partials `tid, tid +
/// BLOCK, …`, then the block tree — so the result depends only on the partials, `count` and
/// `BLOCK`, never on which block (or kernel) runs it. Thread 0 gets the result. Every thread of
/// the block must call it, after the partials are visible to it; `count <= partials.len()`.
#[inline(always)]
pub(crate) fn combine_partials<A: Element, O: ReduceOp, const BLOCK: usize>(
    partials: Coherent<A>,
    count: usize,
    smem: Shared<A>,
) -> A {
    let count = count.min(partials.len());
    let mut acc = O::identity::<A>();
    let mut i = thread::thread_idx_x() as usize;
    while i < count {
        // SAFETY: `i < count <= partials.len()` (loop condition, the `min` above).
        acc = O::combine(acc, unsafe { partials.get_unchecked(i) });
        i += BLOCK;
    }
    block::reduce_op::<A, O, BLOCK>(acc, smem)
}
