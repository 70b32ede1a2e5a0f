//! # Reductions along an axis and over segments
//!
//! `x.sum(dim=1)`, `x.sum(dim=0)` and CUB's `DeviceSegmentedReduce`: one result per row, per
//! column or per caller-given segment, instead of one for the whole input. Built from the same
//! device primitives as stage 8 (warp shuffles, [`crate::primitives::block::reduce_op`]).
//!
//! | file | reduces | one result per |
//! |---|---|---|
//! | [`segments`] | contiguous runs: the rows of a row-major matrix, or `[begin[i], end[i])` | row / segment |
//! | [`columns`] | strided runs: the columns of a row-major matrix | column |
//! | [`columns_once`] | the same in one launch (the last block finishes) | column |
//! | [`columns_flat`] | a narrow matrix's columns in one launch, read as one flat vector | column |
//! | [`columns_short`] | a wide matrix's columns: 16-byte stores, short columns at once | column |
//!
//! Both split their work into **work items** that a *group* of threads (a sub-warp, a warp or a
//! block) reduces to one value. A long run can be cut into `parts` work items whose partial
//! results a second launch of the same kernel combines, in a fixed order: that is how a few long
//! rows (or a tall matrix's columns) still fill the GPU, and why the result is still
//! **bit-identical run to run** (no atomics, every value visited in a fixed order and combined
//! through a fixed tree). The host's plan (`host/src/axis_plan/`) picks the group size, the
//! split and the grid from the shape — policy as data, apart from these algorithms.
//!
//! Both kernels take one calling convention, [`crate::exports::axis`]:
//! `(const T* input, size_t n, const u64* begin, const u64* end, T* out, size_t out_len,
//! size_t count, size_t len, size_t parts, size_t group)`, read into [`AxisParams`].

pub mod columns;
pub mod columns_flat;
pub mod columns_once;
pub mod columns_short;
pub mod segments;

/// The scalars of an axis launch (what each kernel reads them as is in its docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxisParams {
    /// Runs: rows (row and column kernels) or segments.
    pub count: usize,
    /// Elements per row (row and column kernels); unused for explicit segments.
    pub len: usize,
    /// Work items per run (the split); `1` means the kernel writes final results.
    pub parts: usize,
    /// Threads per work item for [`segments`]: 1, 2, 4, 8, 16, 32 or `blockDim.x`; for
    /// [`columns`], the tile width in (vector) columns (clamped to `1..=blockDim.x`).
    pub group: usize,
}

/// Stage 8's ticket, for the one-launch column kernels: after a block barrier, thread 0 takes a
/// ticket (`atom.acq_rel.gpu`); returns, in every thread of the block, whether this block drew
/// the last of `tickets`. Every thread of the block must call it, after its stores of partials.
///
/// Why no fence per writer (the kernels once had a `fence.sc.gpu` — `MEMBAR.SC.GPU` and
/// an L1 invalidation in SASS — in every thread that wrote a partial): in the PTX memory model
/// the barrier's `bar.sync` operations synchronize with each other, so every writer's stores
/// precede thread 0's atomic in causality order, and a *release* is cumulative over what
/// precedes it — the atomic's release makes the whole block's partials visible to whoever
/// acquires the counter after it. It is the pattern of CUDA's cooperative-groups grid sync
/// (`__syncthreads()`, then one thread's fence and atomic). On the acquiring side, thread 0's
/// acquire and the second barrier order the block's loads of the partials after every block's
/// release.
#[inline(always)]
pub(crate) fn last_block(counter: crate::gpu::Counter, tickets: usize) -> bool {
    crate::gpu::sync_threads();
    let mut last_ticket = false;
    if crate::gpu::thread_idx() == 0 {
        last_ticket = counter.take_ticket() as usize == tickets - 1;
    }
    crate::gpu::sync_threads_or(last_ticket)
}

/// Where the `part`-th of `parts` equal pieces of `[begin, end)` lies (the last pieces may be
/// shorter or empty).
#[inline(always)]
pub fn piece(begin: usize, end: usize, part: usize, parts: usize) -> (usize, usize) {
    let chunk = (end - begin).div_ceil(parts);
    let b = begin.saturating_add(part.saturating_mul(chunk)).min(end);
    let e = b.saturating_add(chunk).min(end);
    (b, e)
}
