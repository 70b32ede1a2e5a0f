//! # Device primitives: warp → block → device, for any element type and combine function
//!
//! The stages under [`crate::stages`] are lessons: each spells out one technique for one job (a
//! sum, min or max of one of six element types). This module is the same machinery as a small
//! **library**, in the layers of NVIDIA CUB (`warp/`, `block/`, `agent/` + `dispatch/`), and the
//! one warp and block layer of every production kernel (stage 8, axis, transform, exact, arg):
//!
//! | layer | here | CUB |
//! |---|---|---|
//! | what is reduced | [`Combine`] (an item type, its identity, an associative combine), [`Item`] (how an item crosses registers and memory: up to [`MAX_WORDS`] 32-bit words) | the `ReductionOp` functor, `T` |
//! | warp | [`warp::reduce`], [`warp::shfl_down`]; for an [`crate::Element`] and a [`crate::ReduceOp`]: [`warp::reduce_op`], [`warp::reduce_group`], [`warp::reduce_strided`]; the trees under them: [`warp::tree`], [`warp::tree_mut`], [`warp::tree_strided`] | `WarpReduce` |
//! | block | [`block::reduce`]; [`block::reduce_op`] for an element and an operator | `BlockReduce` (warp-reductions algorithm) |
//! | schedule | [`tiles`]: contiguous per-block tiles, `UNROLL` loads in flight, items in index order per thread | `GridEvenShare` |
//! | device | [`device::reduce`]: tiled accumulation, block partials, an acq_rel ticket, the last block combines in a fixed order | `DeviceReduce::Reduce` (single pass, as stage 8) |
//! | tuning policy | [`Policy`], [`DEFAULT_POLICY`]: data, apart from the algorithm | `AgentReducePolicy` |
//!
//! **Why a library.** Argmin/argmax ([`crate::argreduce`]) reduce an `(index, value)` pair; a user's
//! own crate may reduce a `(min, max)` pair, a max-abs or a `(count, sum)` struct
//! (`examples/custom-op/`). None of these is an [`crate::Element`]: the stages' memory views and
//! shuffles are sealed to six 4- or 8-byte scalars. Here every item travels as `u32` words —
//! shuffled one word at a time, stored in shared memory, in the block partials and in the result
//! as arrays of `u32` — so any `Copy` type that can be written as at most [`MAX_WORDS`] words works,
//! through the same checked views ([`crate::gpu::Shared`], [`crate::gpu::Coherent`],
//! [`crate::gpu::GlobalMut`]) with no new `unsafe` code.
//!
//! **What it costs.** An item of `W` words takes `W` shuffles per warp step (a `(u64, f32)` argmax
//! item: 3, where a plain `f32` sum takes 1) and `W` words of shared memory per warp; the loads of
//! the input are scalar (the caller's `load` closure), not stage 8's 16-byte vectors. For a
//! memory-bound reduction the shuffles are hidden behind the loads; the scalar loads cost a little
//! bandwidth at mid sizes.
//!
//! **Determinism.** Each thread visits a fixed set of indices in a fixed order, each block and
//! warp combines in a fixed tree, and the last block combines the partials in block order: for the
//! same input, length, grid and block the result is bit-identical on every run, whatever the
//! combine function (associativity is needed only for the result to be *the* reduction; the order
//! is fixed either way).
//!
//! **Safety.** Every function here is safe. Memory comes in through the checked views, whose
//! `unsafe` constructors state the launch contract once ([`device::item_pass`] makes them from
//! the raw item ABI); an item too large for [`MAX_WORDS`] is a compile-time error.
//!
//! Contracts every primitive shares (as `__syncthreads()` has): all threads of the block (warp,
//! for [`warp`]) call it together, `blockDim.x` is a multiple of 32.

pub mod block;
pub mod device;
mod item;
pub mod tiles;
pub mod warp;

pub use item::{load_item, store_item, Item, ItemCheck, WordStore, Words, MAX_WORDS};

/// What a reduction computes: an item type, the identity, and an associative combine.
///
/// `combine(identity(), x) == x`, associativity and commutativity make the result independent of
/// how the work is split (the primitives interleave indices: a thread combines `i`, `i + stride`,
/// …, a warp combines lane 0 with lane 16). The order is fixed, so a combine that is only
/// approximately associative (float sums) still gives the same bits on every run; one that must see
/// its operands in index order (first occurrence of a tie) carries the index in the item and breaks
/// the tie on it, as [`crate::argreduce`] does.
pub trait Combine {
    /// The value being reduced (see [`Item`]).
    type Item: Item;
    /// The identity of [`Combine::combine`]: what an empty range reduces to.
    fn identity() -> Self::Item;
    /// Combine two partial results.
    fn combine(a: Self::Item, b: Self::Item) -> Self::Item;
}

/// The tuning policy of [`device::reduce`]: data, read by the kernel's instantiation (block size,
/// loads in flight) and by the host's launch (grid size).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Threads per block (a multiple of 32, at most 1024).
    pub block: usize,
    /// Independent loads each thread issues before it combines them.
    pub unroll: usize,
    /// Resident blocks per SM the grid is sized for (the grid is `sm_count * blocks_per_sm`, or
    /// fewer for a small input).
    pub blocks_per_sm: usize,
}

impl Policy {
    /// The grid for `n` elements on a device with `sm_count` SMs: enough blocks to give each
    /// thread `unroll` elements, at most `sm_count * blocks_per_sm`, at least 1.
    pub const fn grid(&self, n: usize, sm_count: usize) -> usize {
        let per_block = self.block * self.unroll;
        let want = n.div_ceil(per_block);
        let cap = sm_count * self.blocks_per_sm;
        let g = if want < cap { want } else { cap };
        if g == 0 {
            1
        } else {
            g
        }
    }
    /// Dynamic shared memory of one launch reducing items of `words` words: one item per warp.
    pub const fn shared_bytes(&self, words: usize) -> usize {
        self.block / 32 * words * 4
    }
}

/// The policy of the library's own item kernels (argmin/argmax) and of `examples/custom-op`: 256
/// threads, 4 loads in flight per thread, 4 blocks (1024 threads) per SM.
///
/// Why 4 blocks and not a full SM's 8: an item kernel keeps its running item (an argmax: index and
/// value) in registers and uses 40–56 of them per thread, so 8 blocks of 256 do not fit in an
/// SM's 65,536 registers; a grid sized for 8 would run in 1.3 waves, the last one mostly idle. Four
/// resident blocks always fit (up to 64 registers), the grid is one wave, and 1024 threads × 4
/// loads of 16 bytes per SM (64 KiB in flight) cover the HBM latency several times over.
pub const DEFAULT_POLICY: Policy = Policy {
    block: 256,
    unroll: 4,
    blocks_per_sm: 4,
};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tree_tests;
