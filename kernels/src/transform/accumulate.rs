//! # Accumulators: what a transform-reduce carries, and how two of them combine
//!
//! A transform-reduce is a fold whose running value (the *accumulator*) need not be the element
//! type: a sum of squares carries one `f64`, a variance carries `(count, mean, M2)`. What the
//! one-pass driver ([`super::one_pass`]) needs from an op is exactly two small functions:
//!
//! * [`TransformOp::item`] — one input element (or pair) → an accumulator;
//! * [`Accumulator::merge`] — two accumulators → one, **in a fixed order** (`self` covers earlier
//!   elements than `later`); it must be associative up to rounding and have [`Accumulator::empty`]
//!   as its identity.
//!
//! The driver calls them in the same pattern on every run (threads in element order, warps by
//! shuffle tree, blocks in index order), so every result is **bit-identical run to run**.
//!
//! On the wire — warp shuffles, shared memory, the per-block partials — an accumulator is up to
//! [`super::WORDS`] `f64` words ([`Accumulator::word`], [`Accumulator::from_words`]); a one-word
//! accumulator moves only its word. Cost: a 3-word merge in the warp tree is six 32-bit shuffles
//! instead of two, once per warp per launch — nothing next to the loads.

use super::WORDS;
use crate::gpu::WARP_SIZE;
use crate::gpu::{sync_threads, Global, Shared};
use crate::{primitives, thread, warp, Element};

/// A reduction's running value, up to [`WORDS`] `f64` words.
pub trait Accumulator: Copy + Send + Sync + 'static {
    /// How many of the [`WORDS`] words carry information.
    const WORDS: usize;
    /// The identity of [`Accumulator::merge`] (nothing accumulated yet).
    fn empty() -> Self;
    /// `self` (earlier elements) combined with `later` (later elements).
    fn merge(self, later: Self) -> Self;
    /// Word `i < WORDS` (0.0 past [`Accumulator::WORDS`]).
    fn word(&self, i: usize) -> f64;
    /// Inverse of [`Accumulator::word`].
    fn from_words(w: [f64; WORDS]) -> Self;
}

/// How one thread folds the accumulators of its own elements and tiles, in order, before the
/// warp and block trees merge the threads' results ([`Merged`] for every op but the moments,
/// which fold around a shift: the thread's own, [`super::moments::Shifted`], or one shared by the
/// whole grid, [`super::grid_shift::GridShifted`]).
pub trait Running<A: Accumulator>: Copy {
    /// What the warp, block and grid trees merge: the thread's fold as [`Running::finish`] gives
    /// it.
    type Total: Accumulator;
    /// What a lane reads of the input before its fold starts ([`Running::seed`]; `()` when the
    /// fold needs nothing).
    type Seed: Copy;
    /// Issue the reads the fold starts from. The driver calls it first, and [`Running::start`]
    /// after it has issued its first tile's loads, so that the two wait together. Every lane of
    /// the warp calls both.
    fn seed<T: Element>(a: &Global<T>) -> Self::Seed;
    /// Nothing folded yet (from what [`Running::seed`] read).
    fn start<T: Element>(seed: Self::Seed) -> Self;
    /// Fold in `a`, which covers later elements than everything folded so far.
    fn add(&mut self, a: A);
    /// The accumulator of everything folded.
    fn finish(self) -> Self::Total;
    /// The result words of `total`, the merge of every thread's [`Running::finish`] in the grid
    /// (`self`: the fold of the thread that writes them). By default, `total`'s words.
    #[inline(always)]
    fn result(&self, total: Self::Total) -> [f64; WORDS] {
        [total.word(0), total.word(1), total.word(2)]
    }
}

/// The plain fold: each accumulator merged into a running one ([`Accumulator::merge`]).
#[derive(Clone, Copy, Debug)]
pub struct Merged<A>(pub A);

impl<A: Accumulator> Running<A> for Merged<A> {
    type Total = A;
    type Seed = ();
    #[inline(always)]
    fn seed<T: Element>(_: &Global<T>) {}
    #[inline(always)]
    fn start<T: Element>(_: ()) -> Self {
        Merged(A::empty())
    }
    #[inline(always)]
    fn add(&mut self, a: A) {
        self.0 = self.0.merge(a);
    }
    #[inline(always)]
    fn finish(self) -> A {
        self.0
    }
}

/// A transform-reduce operator: what one element becomes.
pub trait TransformOp: Copy + Send + Sync + 'static {
    /// What it accumulates.
    type Acc: Accumulator;
    /// How a thread folds its tiles' accumulators ([`Merged`] unless the op has a cheaper fold).
    type Run: Running<Self::Acc>;
    /// Reads a second input of the same length (the dot product)?
    const TWO_INPUTS: bool;
    /// Does the op read |x| instead of x (one-input ops)? Then the driver hands [`item`] and
    /// [`chunk`] the absolute values: on the vector path it clears the sign bits of the loaded
    /// 16-byte vectors before widening them (one AND per 32-bit word: two halves, one `f32`, or
    /// the high half of an `f64`), on the scalar head and tail it takes `f64::abs`. An `f64`
    /// abs per element after widening cost the halves' `l1` a `LOP3` and an `IMAD.MOV` per
    /// element: 43.8 µs at 2^26 against `sumsq`'s 36.9 (round 11, call 3).
    ///
    /// [`item`]: TransformOp::item
    /// [`chunk`]: TransformOp::chunk
    const ABS_INPUT: bool = false;
    /// The accumulator of one element `a` (and its partner `b`; 0.0 for one-input ops); `a` is
    /// already `|x|` for an [`TransformOp::ABS_INPUT`] op.
    fn item(a: f64, b: f64) -> Self::Acc;
    /// The accumulator of `a.len() ≥ 1` consecutive elements (`b` as long as `a`): by default
    /// their items merged left to right. [`super::Moments`] overrides it with a cheaper exact form.
    #[inline(always)]
    fn chunk(a: &[f64], b: &[f64]) -> Self::Acc {
        let mut acc = Self::Acc::empty();
        for (x, y) in a.iter().zip(b) {
            acc = acc.merge(Self::item(*x, *y));
        }
        acc
    }
    /// Does this one-input op take the tiles of `f32`, `f16` and `bf16` inputs as `f32`
    /// ([`TransformOp::chunk_f32`]) instead of widening every element to `f64` first? Only for
    /// ops whose tile arithmetic in `f32` keeps their stated bound ([`super::Moments`]; and
    /// [`super::NanTotal`], which still adds in `f64` but tests and counts in `f32`/`u32`).
    const F32_TILES: bool = false;
    /// The accumulator of `a.len() ≥ 1` consecutive `f32` values (one input), used when
    /// [`TransformOp::F32_TILES`] is set: by default, each value widened and merged left to right.
    /// `FROM` says what the values were widened from ([`Widened`]: `f32` itself, `f16` or
    /// `bf16`), which an op may use: finite `f16` values differ by at most 2^17, and two that
    /// differ at all by at least 2^-24 (no range checks needed); any half has at most 11
    /// significant bits.
    #[inline(always)]
    fn chunk_f32<const FROM: u8>(a: &[f32]) -> Self::Acc {
        let mut acc = Self::Acc::empty();
        for x in a {
            acc = acc.merge(Self::item(*x as f64, 0.0));
        }
        acc
    }
}

/// What the trees of an op `O` merge: its [`TransformOp::Run`]'s [`Running::Total`].
pub type TotalOf<O> = <<O as TransformOp>::Run as Running<<O as TransformOp>::Acc>>::Total;

/// What the `f32` values of a [`TransformOp::chunk_f32`] call were widened from (its `FROM`).
#[derive(Clone, Copy, Debug)]
pub struct Widened;

impl Widened {
    /// `f32` inputs: the values as loaded.
    pub const F32: u8 = 0;
    /// `f16` inputs, widened exactly.
    pub const F16: u8 = 1;
    /// `bf16` inputs, widened exactly.
    pub const BF16: u8 = 2;
}

/// A plain `f64` sum: the accumulator of Σx², Σ|x| and Σxy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct F64Sum(pub f64);

impl Accumulator for F64Sum {
    const WORDS: usize = 1;
    #[inline(always)]
    fn empty() -> Self {
        F64Sum(0.0)
    }
    #[inline(always)]
    fn merge(self, later: Self) -> Self {
        F64Sum(self.0 + later.0)
    }
    #[inline(always)]
    fn word(&self, i: usize) -> f64 {
        if i == 0 {
            self.0
        } else {
            0.0
        }
    }
    #[inline(always)]
    fn from_words(w: [f64; WORDS]) -> Self {
        F64Sum(w[0])
    }
}

/// An `f64` sum and an `f64` count (exact up to 2^53): the accumulator of the NaN-ignoring sum
/// that also counts what it added ([`super::NanTotal`], NumPy's `nanmean` in one pass).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct F64SumCount {
    /// The sum.
    pub sum: f64,
    /// How many elements went into it.
    pub count: f64,
}

/// Implements [`Accumulator`] for a struct of `f64` sums merged field by field by adding: its
/// fields, in order, are its words (`summed_words!(F64SumCount { sum: 0, count: 1 }, 2)`).
macro_rules! summed_words {
    ($ty:ident { $($field:ident: $i:literal),+ }, $words:literal) => {
        impl Accumulator for $ty {
            const WORDS: usize = $words;
            #[inline(always)]
            fn empty() -> Self {
                $ty { $($field: 0.0),+ }
            }
            #[inline(always)]
            fn merge(self, later: Self) -> Self {
                $ty { $($field: self.$field + later.$field),+ }
            }
            #[inline(always)]
            fn word(&self, i: usize) -> f64 {
                match i {
                    $($i => self.$field,)+
                    _ => 0.0,
                }
            }
            #[inline(always)]
            fn from_words(w: [f64; WORDS]) -> Self {
                $ty { $($field: w[$i]),+ }
            }
        }
    };
}
pub(crate) use summed_words;

summed_words!(F64SumCount { sum: 0, count: 1 }, 2);

/// `__shfl_down_sync` of every word of `v` (see [`crate::warp::shfl_down_sync`]). Written word by
/// word, not as a loop over an array, so that the words stay in registers.
#[inline(always)]
fn shfl_down<A: Accumulator>(v: A, delta: u32) -> A {
    let shfl = |x: f64| {
        // SAFETY: the full mask holds the calling lane and every lane passes the same mask and
        // delta; that all 32 lanes get here is the caller's correctness rule (as in stage 8).
        unsafe { warp::shfl_down_sync(warp::FULL_MASK, x, delta) }
    };
    let w0 = shfl(v.word(0));
    let w1 = if A::WORDS > 1 { shfl(v.word(1)) } else { 0.0 };
    let w2 = if A::WORDS > 2 { shfl(v.word(2)) } else { 0.0 };
    A::from_words([w0, w1, w2])
}

/// Merge the accumulators of a warp's 32 lanes with shuffles, lane order kept (lane `l` merges
/// lane `l + offset` after itself); lane 0 gets the result. Every lane must call it.
#[inline(always)]
pub fn warp_merge<A: Accumulator>(v: A) -> A {
    primitives::warp::tree(v, WARP_SIZE / 2, |v, offset| v.merge(shfl_down(v, offset)))
}

/// Merge one accumulator per thread over the block, in thread order; thread 0 gets the result.
/// `smem` holds `WORDS * BLOCK / 32` `f64`; every thread of the block must call it.
/// Kept beside its accumulator, not `primitives::block`: its words go through shared memory as
/// `f64`, each guarded by `A::WORDS` (as items of `u32` words the SASS would change).
#[inline(always)]
pub fn block_merge<A: Accumulator, const BLOCK: usize>(v: A, smem: Shared<f64>) -> A {
    let tid = thread::thread_idx_x();
    let (warp_id, lane) = (tid / WARP_SIZE, warp::lane_id());
    let warp_total = warp_merge(v);
    if lane == 0 {
        let at = warp_id * WORDS as u32; // `smem.set` is checked
        smem.set(at, warp_total.word(0));
        if A::WORDS > 1 {
            smem.set(at + 1, warp_total.word(1));
        }
        if A::WORDS > 2 {
            smem.set(at + 2, warp_total.word(2));
        }
    }
    sync_threads();
    let mut total = A::empty();
    if warp_id == 0 {
        let mine = if lane < BLOCK as u32 / WARP_SIZE {
            let at = lane * WORDS as u32; // `smem.get` is checked
            let w1 = if A::WORDS > 1 { smem.get(at + 1) } else { 0.0 };
            let w2 = if A::WORDS > 2 { smem.get(at + 2) } else { 0.0 };
            A::from_words([smem.get(at), w1, w2])
        } else {
            A::empty()
        };
        total = warp_merge(mine);
    }
    total
}
