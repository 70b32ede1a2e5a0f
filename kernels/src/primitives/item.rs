//! How an item crosses registers and memory: as at most [`MAX_WORDS`] `u32` words.

use super::tiles::unrolled;
use crate::gpu::{Coherent, GlobalMut, Shared};

/// The largest item, in 32-bit words (32 bytes: e.g. an `(u64, f64)` pair and two more `f64`).
pub const MAX_WORDS: usize = 8;

/// An item written as words; only the first [`Item::WORDS`] are meaningful.
pub type Words = [u32; MAX_WORDS];

/// A `Copy` value the primitives can shuffle and store: it converts to and from
/// [`Item::WORDS`] 32-bit words (at most [`MAX_WORDS`]; more is a compile-time error where the
/// primitives use the type).
///
/// Implemented for the six scalars (`f32`, `f64`, `i32`, `u32`, `i64`, `u64`) and for pairs of
/// items, so `(u64, f32)` or `((f32, f32), u32)` need no code; a struct implements it by listing its
/// fields' words (see `examples/custom-op`). The conversion is plain safe code, so no bit pattern
/// read back can be an invalid value.
pub trait Item: Copy {
    /// How many words [`Item::to_words`] fills, `1..=MAX_WORDS`.
    const WORDS: usize;
    /// The item as words (`WORDS` meaningful, the rest 0).
    fn to_words(self) -> Words;
    /// The inverse of [`Item::to_words`] (reads the first `WORDS` words).
    fn from_words(w: &Words) -> Self;
}

/// The compile-time check of an [`Item`]'s size, referenced by every primitive.
pub struct ItemCheck<I>(core::marker::PhantomData<I>);

impl<I: Item> ItemCheck<I> {
    /// Evaluating it fails the build for an item of 0 or more than [`MAX_WORDS`] words.
    pub const OK: () = assert!(
        I::WORDS >= 1 && I::WORDS <= MAX_WORDS,
        "an Item must be 1..=MAX_WORDS (8) words"
    );
}

macro_rules! word_item {
    ($($t:ty => $bits:expr, $from:expr);*) => {$(
        impl Item for $t {
            const WORDS: usize = 1;
            #[inline(always)]
            fn to_words(self) -> Words {
                let mut w = [0; MAX_WORDS];
                w[0] = $bits(self);
                w
            }
            #[inline(always)]
            fn from_words(w: &Words) -> Self {
                $from(w[0])
            }
        }
    )*};
}
word_item!(
    f32 => f32::to_bits, f32::from_bits;
    u32 => |x: u32| x, |x: u32| x;
    i32 => |x: i32| x as u32, |x: u32| x as i32
);

macro_rules! dword_item {
    ($($t:ty => $bits:expr, $from:expr);*) => {$(
        impl Item for $t {
            const WORDS: usize = 2;
            #[inline(always)]
            fn to_words(self) -> Words {
                let b: u64 = $bits(self);
                let mut w = [0; MAX_WORDS];
                w[0] = b as u32;
                w[1] = (b >> 32) as u32;
                w
            }
            #[inline(always)]
            fn from_words(w: &Words) -> Self {
                $from(w[0] as u64 | ((w[1] as u64) << 32))
            }
        }
    )*};
}
dword_item!(
    f64 => f64::to_bits, f64::from_bits;
    u64 => |x: u64| x, |x: u64| x;
    i64 => |x: i64| x as u64, |x: u64| x as i64
);

impl<A: Item, B: Item> Item for (A, B) {
    const WORDS: usize = A::WORDS + B::WORDS;
    #[inline(always)]
    fn to_words(self) -> Words {
        let (a, b) = (self.0.to_words(), self.1.to_words());
        let mut w = a;
        // Written out ([`unrolled`]): constant word indices keep the arrays in registers.
        unrolled::<MAX_WORDS>(|k| {
            if k < B::WORDS && A::WORDS + k < MAX_WORDS {
                w[A::WORDS + k] = b[k];
            }
        });
        w
    }
    #[inline(always)]
    fn from_words(w: &Words) -> Self {
        let mut b = [0; MAX_WORDS];
        unrolled::<MAX_WORDS>(|k| {
            if k < B::WORDS && A::WORDS + k < MAX_WORDS {
                b[k] = w[A::WORDS + k];
            }
        });
        (A::from_words(w), B::from_words(&b))
    }
}

/// Where an item lives in a word array: slot `slot` is words `slot * WORDS .. (slot + 1) * WORDS`.
/// Implemented by the three checked views the primitives store items in.
pub trait WordStore {
    /// Words in the view.
    fn words(&self) -> usize;
    /// Read word `i` (checked by the view).
    fn read(&self, i: usize) -> u32;
    /// Write word `i` (checked by the view).
    fn write(&self, i: usize, v: u32);
}

impl WordStore for Shared<u32> {
    #[inline(always)]
    fn words(&self) -> usize {
        self.len() as usize
    }
    #[inline(always)]
    #[track_caller]
    fn read(&self, i: usize) -> u32 {
        // Out of `u32` range is out of bounds too: saturate and let `get` trap.
        self.get(u32::try_from(i).unwrap_or(u32::MAX))
    }
    #[inline(always)]
    #[track_caller]
    fn write(&self, i: usize, v: u32) {
        self.set(u32::try_from(i).unwrap_or(u32::MAX), v)
    }
}

impl WordStore for Coherent<u32> {
    #[inline(always)]
    fn words(&self) -> usize {
        self.len()
    }
    #[inline(always)]
    #[track_caller]
    fn read(&self, i: usize) -> u32 {
        self.get(i)
    }
    #[inline(always)]
    #[track_caller]
    fn write(&self, i: usize, v: u32) {
        self.set(i, v)
    }
}

impl WordStore for GlobalMut<u32> {
    #[inline(always)]
    fn words(&self) -> usize {
        self.len()
    }
    #[inline(always)]
    #[track_caller]
    fn read(&self, _i: usize) -> u32 {
        // A `GlobalMut` is write-only for the kernel (nobody reads it during the launch).
        crate::gpu::fail("a GlobalMut result is write-only")
    }
    #[inline(always)]
    #[track_caller]
    fn write(&self, i: usize, v: u32) {
        self.set(i, v)
    }
}

/// Store `v` into slot `slot` of `mem` (each word checked by the view: an out-of-range slot traps
/// on the GPU and panics in the emulator).
#[inline(always)]
#[track_caller]
pub fn store_item<I: Item>(mem: &impl WordStore, slot: usize, v: I) {
    let () = ItemCheck::<I>::OK;
    let w = v.to_words();
    let base = slot.saturating_mul(I::WORDS);
    unrolled::<MAX_WORDS>(|k| {
        if k < I::WORDS {
            mem.write(base.saturating_add(k), w[k]);
        }
    });
}

/// Load the item in slot `slot` of `mem` (checked as [`store_item`]).
#[inline(always)]
#[track_caller]
pub fn load_item<I: Item>(mem: &impl WordStore, slot: usize) -> I {
    let () = ItemCheck::<I>::OK;
    let mut w = [0; MAX_WORDS];
    let base = slot.saturating_mul(I::WORDS);
    // Written out ([`unrolled`]): as an iterator loop the compiler kept `w` in local memory —
    // every argmin/argmax kernel had a 32-byte stack for it (ptxas 12.9, round 8).
    unrolled::<MAX_WORDS>(|k| {
        if k < I::WORDS {
            w[k] = mem.read(base.saturating_add(k));
        }
    });
    I::from_words(&w)
}
