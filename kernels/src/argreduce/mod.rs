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
use crate::table::ElemKind;
use crate::Element;
use core::marker::PhantomData;

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

/// `v` is a NaN (never, for integers: the test folds away). On the bits: one `and` and one
/// compare, the same for every float width.
#[inline(always)]
fn is_nan<T: Element>(v: T) -> bool {
    let b = v.to_bits64();
    match T::KIND {
        ElemKind::F32 => (b as u32 & 0x7fff_ffff) > 0x7f80_0000,
        ElemKind::F64 => (b & 0x7fff_ffff_ffff_ffff) > 0x7ff0_0000_0000_0000,
        ElemKind::F16 => (b as u16 & 0x7fff) > 0x7c00,
        ElemKind::BF16 => (b as u16 & 0x7fff) > 0x7f80,
        _ => false,
    }
}

/// `a == b` in `T`'s own order (`-0.0 == 0.0`; false for a NaN; halves compared as `f32`).
#[inline(always)]
fn same<T: Element>(a: T, b: T) -> bool {
    let (x, y) = (a.to_bits64(), b.to_bits64());
    match T::KIND {
        ElemKind::F32 => f32::from_bits(x as u32) == f32::from_bits(y as u32),
        ElemKind::F64 => f64::from_bits(x) == f64::from_bits(y),
        ElemKind::F16 => {
            crate::half::f16_bits_to_f32(x as u16) == crate::half::f16_bits_to_f32(y as u16)
        }
        ElemKind::BF16 => {
            crate::half::bf16_bits_to_f32(x as u16) == crate::half::bf16_bits_to_f32(y as u16)
        }
        _ => x == y,
    }
}

/// `a > b` (argmax) or `a < b` (argmin) in `T`'s own order: one `setp` on the bits as `T` (the
/// casts are free); false if either is a NaN, and `-0.0` and `0.0` are equal.
#[inline(always)]
fn better<T: Element, D: Direction>(a: T, b: T) -> bool {
    let (x, y) = (a.to_bits64(), b.to_bits64());
    macro_rules! cmp {
        ($t:ty, $conv:expr) => {{
            let (a, b): ($t, $t) = ($conv(x), $conv(y));
            if D::LARGEST {
                a > b
            } else {
                a < b
            }
        }};
    }
    match T::KIND {
        ElemKind::F32 => cmp!(f32, |v: u64| f32::from_bits(v as u32)),
        ElemKind::F64 => cmp!(f64, f64::from_bits),
        ElemKind::I32 => cmp!(i32, |v: u64| v as u32 as i32),
        ElemKind::U32 => cmp!(u32, |v: u64| v as u32),
        ElemKind::I64 => cmp!(i64, |v: u64| v as i64),
        ElemKind::U64 => cmp!(u64, |v: u64| v),
        ElemKind::F16 => cmp!(f32, |v: u64| crate::half::f16_bits_to_f32(v as u16)),
        ElemKind::BF16 => cmp!(f32, |v: u64| crate::half::bf16_bits_to_f32(v as u16)),
    }
}

/// `b`, a later element than `a`, replaces it: it is strictly better (the first occurrence
/// keeps ties), or — NaN being the most extreme value for `argmin`/`argmax` and the least for
/// `nanargmin`/`nanargmax` — it is a NaN and `a` is not (a number and `a` is a NaN).
#[inline(always)]
fn later_wins<T: Element, D: Direction>(a: T, b: T) -> bool {
    let (an, bn) = (is_nan(a), is_nan(b));
    if D::SKIP_NAN {
        (an && !bn) || better::<T, D>(b, a)
    } else {
        (bn && !an) || better::<T, D>(b, a)
    }
}

/// The worst value in direction `D` (the identity's value): nothing is worse, and the identity's
/// index ([`NO_INDEX`]) loses every tie. (A quiet NaN for the NaN-skipping floats.)
#[inline(always)]
fn worst<T: Element, D: Direction>() -> T {
    if D::SKIP_NAN {
        let nan: Option<u64> = match T::KIND {
            ElemKind::F32 => Some(0x7fc0_0000),
            ElemKind::F64 => Some(0x7ff8_0000_0000_0000),
            ElemKind::F16 => Some(0x7e00),
            ElemKind::BF16 => Some(0x7fc0),
            _ => None,
        };
        if let Some(bits) = nan {
            return T::from_bits64(bits);
        }
    }
    let bits: u64 = match (T::KIND, D::LARGEST) {
        (ElemKind::F32, true) => f32::NEG_INFINITY.to_bits() as u64,
        (ElemKind::F32, false) => f32::INFINITY.to_bits() as u64,
        (ElemKind::F64, true) => f64::NEG_INFINITY.to_bits(),
        (ElemKind::F64, false) => f64::INFINITY.to_bits(),
        (ElemKind::I32, true) => i32::MIN as u32 as u64,
        (ElemKind::I32, false) => i32::MAX as u64,
        (ElemKind::I64, true) => i64::MIN as u64,
        (ElemKind::I64, false) => i64::MAX as u64,
        (ElemKind::U32, true) | (ElemKind::U64, true) => 0,
        (ElemKind::U32, false) => u32::MAX as u64,
        (ElemKind::U64, false) => u64::MAX,
        (ElemKind::F16, true) => 0xfc00,
        (ElemKind::F16, false) => 0x7c00,
        (ElemKind::BF16, true) => 0xff80,
        (ElemKind::BF16, false) => 0x7f80,
    };
    T::from_bits64(bits)
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

/// Element `k` of a 16-byte vector of `T`s (`k < 16 / size_of::<T>()`).
#[inline(always)]
fn lane<T: Element>(v: Vec4, k: usize) -> T {
    let w = v.0;
    match core::mem::size_of::<T>() {
        2 => T::from_bits64(((w[k / 2] >> (16 * (k % 2))) & 0xffff) as u64),
        4 => T::from_bits64(w[k] as u64),
        _ => T::from_bits64(w[2 * k] as u64 | ((w[2 * k + 1] as u64) << 32)),
    }
}

/// The best value of one 16-byte vector (the first NaN if it holds one): the lanes are in index
/// order, so a later lane replaces the best so far only if it wins outright.
#[inline(always)]
fn vector_best<T: Element, D: Direction>(v: Vec4) -> T {
    let lanes = 16 / core::mem::size_of::<T>();
    let mut best = lane::<T>(v, 0);
    for k in 1..lanes {
        let x = lane::<T>(v, k);
        if later_wins::<T, D>(best, x) {
            best = x;
        }
    }
    best
}

/// The first lane of `v` holding `best` (a value [`vector_best`] returned for `v`): its position
/// and its own bits (of `-0.0` and `0.0`, the one that is there).
#[inline(always)]
fn find_lane<T: Element>(v: Vec4, best: T) -> (usize, T) {
    let lanes = 16 / core::mem::size_of::<T>();
    let nan = is_nan(best);
    let mut k = 0;
    for j in (0..lanes).rev() {
        let x = lane::<T>(v, j);
        if (nan && is_nan(x)) || same(x, best) {
            k = j;
        }
    }
    (k, lane::<T>(v, k))
}

/// No vector yet (the hot loop's position before the first one).
const NO_POS: u32 = u32::MAX;

/// Whether a launch of `grid` blocks of `block` threads over `n` elements keeps every thread's
/// vector count below 2^32 - 1 (the kernel's 32-bit position; it stops with an error otherwise).
/// Conservative: counts `n` vectors (at most `n` elements per vector's lane count) plus a tile.
pub const fn fits_positions(n: usize, grid: usize, block: usize) -> bool {
    let threads = if grid == 0 || block == 0 {
        1
    } else {
        grid * block
    };
    n / threads + 2 * UNROLL < NO_POS as usize
}

/// Argmin/argmax of `input` into `out` (an [`ArgItem`] as words), in one launch of `BLOCK`
/// threads, `UNROLL` vector loads in flight per thread (see [`device::reduce`] for the launch
/// contract). An empty input writes the identity (`index == NO_INDEX`), which the host never
/// asks for.
pub fn reduce<T: Element, D: Direction, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    ws: Workspace,
    out: GlobalMut<u32>,
) {
    let n = input.len();
    let lanes = 16 / core::mem::size_of::<T>();
    let head = input.misaligned_head();
    let vectors = (n - head) / lanes;
    let body_end = head + vectors * lanes;
    // The elements outside whole vectors (before the first 16-byte boundary, after the last whole
    // vector: fewer than `2 * lanes <= 16`) are the seeds of the first threads of block 0.
    let (tid, block, grid) = (
        crate::thread::thread_idx_x() as usize,
        crate::thread::block_idx_x() as usize,
        crate::thread::grid_dim_x() as usize,
    );
    let mut seed = Arg::<T, D>::identity();
    let odd = head + (n - body_end);
    if block == 0 && tid < odd {
        let i = if tid < head {
            tid
        } else {
            body_end + (tid - head)
        };
        seed = ArgItem {
            index: i as u64,
            value: input.get(i), // checked; `i < n` by construction
        };
    }
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

#[cfg(test)]
mod tests;
