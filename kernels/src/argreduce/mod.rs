//! # ArgMin / ArgMax: the index and value of the smallest / largest element
//!
//! What: the input is read as stage 8 reads it — 16-byte vectors (8 × 16-bit, 4 × 32-bit or
//! 2 × 64-bit elements; a misaligned head and a short tail one element at a time), in contiguous
//! per-block tiles ([`crate::primitives::tiles`]). In the hot loop a thread keeps only **the best
//! value so far and a 32-bit vector number**: each vector is folded to its best value, which
//! replaces the running one only if it is strictly better (or the first NaN). After the loop the
//! thread loads its winning vector once more, picks the lane (the first one equal to the best),
//! and only then builds the `(u64 index, value)` item ([`ArgItem`]) that the block and the grid
//! combine ([`crate::primitives::device::finish`]).
//!
//! Semantics, those of NumPy's `argmin`/`argmax` (and PyTorch's):
//! * **first occurrence**: of equal values the lowest index wins (`-0.0 == 0.0`, so they tie);
//! * **NaN wins**: if the input holds a NaN, the result is the index of the first NaN (for both
//!   argmin and argmax, as NumPy: a NaN compares as "more extreme" than any number);
//! * `f16` / `bf16` compare as the `f32` they widen to exactly; the value returned is the half;
//! * an empty input has no argmin: the host reports it as an error before launching.
//!
//! Why the hot loop needs no index compare: a thread visits its vectors in increasing order
//! (the tiled schedule's promise), so "strictly better replaces" keeps the first occurrence; the
//! index tie-break is needed only when items of different threads meet, once per thread.
//!
//! Why it is fast: per element a few compares and selects against 2–8 bytes of HBM traffic, and
//! per thread 3–4 registers of state (value + position) instead of a 64-bit index and a value
//! updated per element, so the kernel fits stage 8's occupancy and runs at the loads' speed.
//! What it costs: one extra 16-byte load per thread at the end, and a bound: a thread counts its
//! vectors in 32 bits, so a launch must give no thread 2^32 or more of them ([`fits_positions`];
//! the host's grid gives each at most a few thousand; a launch that breaks it stops with an
//! error, never a wrong index).

use crate::gpu::{fail, Global, GlobalMut, Vec4};
use crate::primitives::device::{self, item_pass, Workspace};
use crate::primitives::tiles::{self, EvenShare};
use crate::primitives::{Combine, Item, Words, MAX_WORDS};
use crate::Element;
use core::marker::PhantomData;
use order::{better, is_nan, later_wins, same, worst};
use vector::{find_lane, vector_best};

/// Loads in flight per thread (16-byte vectors) in the argmin/argmax kernels.
pub const UNROLL: usize = crate::primitives::DEFAULT_POLICY.unroll;

/// The index that marks the identity (no element yet); no input reaches it.
pub const NO_INDEX: u64 = u64::MAX;

/// An element and its index. `index == NO_INDEX` is the identity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArgItem<T> {
    /// Position in the input.
    pub index: u64,
    /// The element there.
    pub value: T,
}

impl<T: Element> Item for ArgItem<T> {
    /// The index (2 words), then the value (1 word for 2- and 4-byte values, 2 for 8-byte).
    const WORDS: usize = 2 + core::mem::size_of::<T>().div_ceil(4);
    #[inline(always)]
    fn to_words(self) -> Words {
        let bits = self.value.to_bits64();
        let mut w = [0u32; MAX_WORDS];
        w[0] = self.index as u32;
        w[1] = (self.index >> 32) as u32;
        w[2] = bits as u32;
        w[3] = (bits >> 32) as u32; // 0 for a 4-byte value
        w
    }
    #[inline(always)]
    fn from_words(w: &Words) -> Self {
        let bits = if Self::WORDS == 4 {
            w[2] as u64 | ((w[3] as u64) << 32)
        } else {
            w[2] as u64
        };
        ArgItem {
            index: w[0] as u64 | ((w[1] as u64) << 32),
            value: T::from_bits64(bits),
        }
    }
}

/// Which end an arg-reduction looks for.
pub trait Direction: 'static {
    /// Name in kernel symbols and messages (`argmin`).
    const NAME: &'static str;
    /// Larger is better (argmax), or smaller (argmin).
    const LARGEST: bool;
    /// NaN is skipped (NumPy's `nanargmin`/`nanargmax`: a NaN loses to every number), instead of
    /// winning (`argmin`/`argmax`).
    const SKIP_NAN: bool = false;
}

/// The smallest element.
pub struct ArgMin;
/// The largest element.
pub struct ArgMax;

impl Direction for ArgMin {
    const NAME: &'static str = "argmin";
    const LARGEST: bool = false;
}
impl Direction for ArgMax {
    const NAME: &'static str = "argmax";
    const LARGEST: bool = true;
}

/// The smallest element, NaN skipped (NumPy's `nanargmin`; all NaN: the first NaN, which the
/// host reports as an error).
pub struct NanArgMin;
/// The largest element, NaN skipped (NumPy's `nanargmax`; all NaN: as [`NanArgMin`]).
pub struct NanArgMax;

impl Direction for NanArgMin {
    const NAME: &'static str = "nanargmin";
    const LARGEST: bool = false;
    const SKIP_NAN: bool = true;
}
impl Direction for NanArgMax {
    const NAME: &'static str = "nanargmax";
    const LARGEST: bool = true;
    const SKIP_NAN: bool = true;
}

/// The [`Combine`] of an arg-reduction over `T` in direction `D`.
pub struct Arg<T, D>(PhantomData<(T, D)>);

impl<T: Element, D: Direction> Combine for Arg<T, D> {
    type Item = ArgItem<T>;
    #[inline(always)]
    fn identity() -> ArgItem<T> {
        ArgItem {
            index: NO_INDEX,
            value: worst::<T, D>(),
        }
    }
    /// `a` wins if it is a NaN and `b` is not (for `nanarg*`: a number and `b` a NaN), if it is
    /// strictly better, or if they tie (equal, or both NaN) and its index is lower. That is a
    /// total preorder on (NaN first or last, value, index): associative and commutative, so the
    /// order of the work does not matter.
    #[inline(always)]
    fn combine(a: ArgItem<T>, b: ArgItem<T>) -> ArgItem<T> {
        let (an, bn) = (is_nan(a.value), is_nan(b.value));
        let tie = (an && bn) || same(a.value, b.value);
        let nan_wins = if D::SKIP_NAN { bn && !an } else { an && !bn };
        let a_wins = nan_wins || better::<T, D>(a.value, b.value) || (tie && a.index < b.index);
        if a_wins {
            a
        } else {
            b
        }
    }
}

/// No vector yet (the hot loop's position before the first one).
const NO_POS: u32 = u32::MAX;

/// Whether a launch of `grid` blocks of `block` threads over `n` elements keeps every thread's
/// position below 2^32 - 1 (the kernels' 32-bit position: a vector number, or for
/// [`reduce_lean`] a vector number × lanes + lane; a kernel stops with an error otherwise).
/// Conservative for every variant: a thread's elements are at most `n / threads` plus two tiles'
/// worth (`2 * DEEP_UNROLL` vectors of at most 8 lanes).
pub const fn fits_positions(n: usize, grid: usize, block: usize) -> bool {
    let threads = if grid == 0 || block == 0 {
        1
    } else {
        grid * block
    };
    n / threads + 2 * DEEP_UNROLL * 8 < NO_POS as usize
}

/// Where an input's 16-byte vectors lie (stage 8's layout: a misaligned head, whole vectors, a
/// short tail) and this thread's place in the launch.
#[derive(Clone, Copy)]
struct Layout {
    /// Elements before the first 16-byte boundary.
    head: usize,
    /// Elements per vector.
    lanes: usize,
    /// Whole vectors from `head` on.
    vectors: usize,
    /// One past the last element of the last whole vector.
    body_end: usize,
    /// Elements in all.
    n: usize,
    tid: usize,
    block: usize,
    grid: usize,
}

impl Layout {
    #[inline(always)]
    fn of<T: Element>(input: &Global<T>) -> Layout {
        let n = input.len();
        let lanes = 16 / core::mem::size_of::<T>();
        let head = input.misaligned_head();
        let vectors = (n - head) / lanes;
        Layout {
            head,
            lanes,
            vectors,
            body_end: head + vectors * lanes,
            n,
            tid: crate::thread::thread_idx_x() as usize,
            block: crate::thread::block_idx_x() as usize,
            grid: crate::thread::grid_dim_x() as usize,
        }
    }
    /// This thread's seed: the elements outside whole vectors (before the first 16-byte
    /// boundary, after the last whole vector: fewer than `2 * lanes <= 16`) are the seeds of the
    /// first threads of block 0; every other thread's is the identity.
    #[inline(always)]
    fn seed<T: Element, D: Direction>(&self, input: &Global<T>) -> ArgItem<T> {
        let odd = self.head + (self.n - self.body_end);
        if self.block != 0 || self.tid >= odd {
            return Arg::<T, D>::identity();
        }
        let i = if self.tid < self.head {
            self.tid
        } else {
            self.body_end + (self.tid - self.head)
        };
        ArgItem {
            index: i as u64,
            value: input.get(i), // checked; `i < n` by construction
        }
    }
}

/// Argmin/argmax of `input` into `out` (an [`ArgItem`] as words), in one launch of `BLOCK`
/// threads, `UNROLL` vector loads in flight per thread (see [`device::reduce`] for the launch
/// contract). An empty input writes the identity (`index == NO_INDEX`), which the host never
/// asks for.
///
pub fn reduce<T: Element, D: Direction, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    ws: Workspace,
    out: GlobalMut<u32>,
) {
    let l = Layout::of(&input);
    let (lanes, head, vectors, tid, block, grid) =
        (l.lanes, l.head, l.vectors, l.tid, l.block, l.grid);
    let seed = l.seed::<T, D>(&input);
    let load = |v: usize| -> Vec4 {
        // SAFETY: `tiles::for_each` calls this with `v < share.end <= vectors` only, and the
        // re-load below with a `v` it passed to `visit`; so
        // `head + (v + 1) * lanes <= body_end <= n`; element `head` is the first on a 16-byte
        // boundary (`misaligned_head`).
        unsafe { input.get_vec4_unchecked(head, v) }
    };
    let share = EvenShare::new(vectors, BLOCK * UNROLL, grid.max(1), block);
    device::check::<ArgItem<T>, BLOCK>(&ws, &out);
    if share.per_block / BLOCK >= NO_POS as usize {
        // More than 2^32 - 1 vectors per thread: the 32-bit position cannot count them. The
        // host sizes the grid so that this never happens (`fits_positions`).
        fail("argreduce: more than 2^32 - 1 vectors per thread; launch a larger grid");
    }

    // The hot loop: the best value and its vector's number among this thread's, nothing else.
    let mut best = worst::<T, D>();
    let mut pos = NO_POS;
    tiles::for_each::<Vec4, BLOCK, UNROLL>(share, tid, load, |v, x| {
        let vb = vector_best::<T, D>(x);
        if pos == NO_POS || later_wins::<T, D>(best, vb) {
            best = vb;
            // The thread's vectors are `start + tid + j * BLOCK`: `j` fits (checked above).
            pos = ((v - share.start) / BLOCK) as u32;
        }
    });
    let mut acc = seed;
    if pos != NO_POS {
        // Once per thread: the winning vector again, its lane, the 64-bit index.
        let v = share.start + pos as usize * BLOCK + tid;
        let (k, value) = find_lane::<T>(load(v), best);
        let mine = ArgItem {
            index: (head + v * lanes + k) as u64,
            value,
        };
        acc = Arg::<T, D>::combine(acc, mine);
    }
    device::finish::<Arg<T, D>, BLOCK>(acc, ws, out)
}

/// The raw entry point of an argmin/argmax kernel (the kernel table's [`Abi::Item`] rows): the item
/// ABI of [`item_pass`] with `WORDS = ArgItem::<T>::WORDS`.
///
/// # Safety
/// [`item_pass`]'s contract, with `I = ArgItem<T>`.
///
/// [`Abi::Item`]: crate::table::Abi::Item
pub unsafe fn entry<T: Element, D: Direction, const BLOCK: usize>(
    input: *const T,
    n: usize,
    partials: *mut u32,
    counter: *mut u32,
    out: *mut u32,
) {
    // SAFETY: this function's contract.
    unsafe {
        item_pass::<T, ArgItem<T>>(
            reduce::<T, D, BLOCK, UNROLL>,
            input,
            n,
            partials,
            counter,
            out,
        )
    }
}

mod lean;
mod order;
mod vector;

pub use lean::{entry_lean, entry_lean8, entry_u8, reduce_lean, DEEP_UNROLL};

#[cfg(test)]
mod tests;
