//! # The long accumulator: an exact fixed-point integer in carry-save words
//!
//! **What.** Every finite `f32` is an integer multiple of `2^-149` and every finite `f64` one of
//! `2^-1074` (the smallest subnormal), and so is every TwoSum result built from them. So the exact
//! sum is an integer `S` in those units — one that fits in `32 · W` bits ([`Format::words`]:
//! `W = 11` for f32, enough for `n · 2^128` with `n < 2^40`; `W = 68` for f64, enough for
//! `n · 2^1024`). `S` is kept as `W` signed 64-bit words of 32-bit digits (*carry-save*): word
//! `k` weighs `2^(32k)` and may hold more than 32 bits, so adding a double is three plain integer
//! additions ([`place`]) with no carry chain, and **integer addition is associative**: the words
//! come out bit-identical whatever the order of the additions — which thread, warp, block, grid or
//! block size did them. That is the whole reproducibility argument.
//!
//! **Why it is fast enough.** It is used rarely: once per warp at the end of a block (its
//! expansion, [`super::expansion`]), for the rare residuals, and once per block and word in the
//! last block. The block's copy lives in shared memory and is updated with 64-bit shared atomics
//! ([`SharedWords`]).
//!
//! **What it costs.** 16 · (W + 4) bytes of shared memory per block, 8 · (W + 4) of global workspace
//! (f64: 576 bytes), a few global atomics per block, and one careful rounding at the end
//! ([`super::round::round`]).
//!
//! Across blocks, each block adds its words into one global copy ([`GlobalWords`]) with 64-bit
//! atomics — again integer additions, again order-free — skipping the words that are zero (for
//! ordinary data all but three or four), and the last block reads that copy back.
//!
//! Headroom: a word takes at most one digit (< 2^32) per addition, so 2^31 additions cannot
//! overflow it; the kernel keeps each block under 2^29 elements and the grid under 2^24 blocks
//! and, before publishing, normalizes each word once ([`normalize_step`]) so that summing all
//! blocks' words stays in range.

use crate::vocabulary::ElemType;

/// Extra words after the `W` digit words: NaNs, +infs, -infs, not-all-negative-zero counts.
pub const FLAGS: usize = 4;
/// The largest `W + FLAGS` (f64).
pub const MAX_SLOTS: usize = 68 + FLAGS;

/// The fixed-point format of one element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// Digit words (32 bits each, the lowest weighing `2^-unit_exp`).
    pub words: usize,
    /// The unit is `2^-unit_exp` (149 for f32, 1074 for f64).
    pub unit_exp: i32,
    /// Significand bits including the hidden bit (24, 53).
    pub precision: u32,
    /// Bits of the result type (32, 64).
    pub bits: u32,
}

impl Format {
    /// f32 sums.
    pub const F32: Format = Format {
        words: 11,
        unit_exp: 149,
        precision: 24,
        bits: 32,
    };
    /// f64 sums.
    pub const F64: Format = Format {
        words: 68,
        unit_exp: 1074,
        precision: 53,
        bits: 64,
    };
    /// The format of `kind`, `None` for integers.
    pub const fn of(kind: ElemType) -> Option<Format> {
        match kind {
            ElemType::F32 => Some(Format::F32),
            ElemType::F64 => Some(Format::F64),
            _ => None,
        }
    }
    /// Words per block in shared memory and in the global workspace (`W + FLAGS`).
    pub const fn slots(&self) -> usize {
        self.words + FLAGS
    }
    /// The positive infinity's bits.
    pub const fn inf_bits(&self) -> u64 {
        ((1u64 << (self.bits - self.precision)) - 1) << (self.precision - 1)
    }
    /// The canonical quiet NaN's bits.
    pub const fn nan_bits(&self) -> u64 {
        self.inf_bits() | 1 << (self.precision - 2)
    }
    /// The sign bit.
    pub const fn sign_bit(&self) -> u64 {
        1 << (self.bits - 1)
    }
}

/// The significand and exponent of the finite `v`: `|v| = m · 2^e` with `m < 2^53` — the
/// hidden bit set for a normal value, not for a subnormal (whose exponent is the normals' least,
/// `-1074`). The sign is `v`'s sign bit. One decoding for every place that splits a value into
/// digit words ([`place`]).
#[inline(always)]
pub fn significand(v: f64) -> (u64, i32) {
    let bits = v.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    if field == 0 {
        (frac, -1074)
    } else {
        (frac | 1 << 52, field - 1075)
    }
}

/// The digits of a finite `v` in units of `2^-unit_exp`: `(k, [d0, d1, d2])` with
/// `v = (d0 + d1·2^32 + d2·2^64) · 2^(32k - unit_exp)` (signed digits, `|d| < 2^32`); `None` for 0.
/// `v` must be a multiple of the unit (every value the kernel handles is).
#[inline(always)]
pub fn place(v: f64, unit_exp: i32) -> Option<(usize, [i64; 3])> {
    let bits = v.to_bits();
    if bits << 1 == 0 {
        return None;
    }
    let (mut m, e) = significand(v);
    let mut shift = e + unit_exp;
    if shift < 0 {
        // The low bits are zero: `v` is a multiple of the unit.
        m >>= (-shift) as u32;
        shift = 0;
    }
    let (k, off) = ((shift / 32) as usize, (shift % 32) as u32);
    let low = m << off; // m < 2^53, off < 32: the bits past 64 are in `high`
    let high = if off == 0 { 0 } else { m >> (64 - off) };
    let mut d = [(low & 0xffff_ffff) as i64, (low >> 32) as i64, high as i64];
    if bits >> 63 != 0 {
        for x in &mut d {
            *x = -*x;
        }
    }
    Some((k, d))
}

/// One carry step over carry-save words, for word `i`: its own value `own` and the carry out of
/// word `i - 1` (`words[i - 1] >> 32`, 0 for `i = 0`) give its low 32 bits (as a non-negative
/// number) plus that carry; the top digit word keeps its high bits; flag words (`i >= words`) are
/// unchanged. Applied to every word at once it keeps the value and leaves each digit word below
/// `2^33` in magnitude, so `2^24` blocks' words can be summed in an `i64`.
#[inline(always)]
pub fn normalize_step(own: i64, carry_in: i64, i: usize, words: usize) -> i64 {
    if i >= words {
        own
    } else if i + 1 == words {
        own + carry_in
    } else {
        (own & 0xffff_ffff) + carry_in
    }
}

/// The block's long accumulator: `len` 64-bit words of dynamic shared memory, added to with
/// atomics (`red.add.u64`) by any thread at any time between two barriers.
#[derive(Clone, Copy)]
pub struct SharedWords {
    ptr: *mut u64,
    len: usize,
    unit_exp: i32,
}

impl SharedWords {
    /// The first `f.slots()` words of the block's dynamic shared memory.
    ///
    /// # Safety
    /// The launch reserves at least `8 · f.slots()` bytes of dynamic shared memory, and between
    /// the barriers where threads call [`SharedWords::add`] nobody reads or writes those words
    /// other than through it.
    #[inline(always)]
    pub unsafe fn new(f: Format) -> Self {
        SharedWords {
            ptr: crate::shared::dynamic_shared_mem::<u64>(),
            len: f.slots(),
            unit_exp: f.unit_exp,
        }
    }

    /// `words[i] += v`, atomically; an index past the words stops the kernel (checked).
    #[inline(always)]
    #[track_caller]
    pub fn add(&self, i: usize, v: i64) {
        if i >= self.len {
            crate::gpu::fail("exact-sum word index out of range");
        }
        // SAFETY: `i < len` (checked above) words are reserved and only accessed atomically
        // meanwhile (the constructor's contract).
        unsafe { crate::gpu::imp::atomic_add_u64(self.ptr.add(i), v as u64) }
    }

    /// Add the finite `v` exactly (up to three digit additions). Out of line: it runs once per
    /// warp and on the rare path only, and one copy serves every kernel.
    #[inline(never)]
    pub fn add_f64(&self, v: f64) {
        self.add_f64_inline(v)
    }

    /// [`SharedWords::add_f64`] inlined (the lean kernels' per-warp adds,
    /// [`super::lean`]): the out-of-line call takes `self` by reference, so the callee first
    /// loads the words' address and unit back from the stack — a local-memory round trip on
    /// the block's finish (Nsight Compute: `long_sb` stalls in `add_f64`, f32 2^24).
    #[inline(always)]
    pub fn add_f64_inline(&self, v: f64) {
        if let Some((k, d)) = place(v, self.unit_exp) {
            for (j, &x) in d.iter().enumerate() {
                if x != 0 {
                    self.add(k + j, x);
                }
            }
        }
    }
}

impl super::expansion::Spill for SharedWords {
    #[inline(always)]
    fn spill(&self, v: f64) {
        self.add_f64(v);
    }
}

/// The grid's long accumulator: `len` 64-bit words of global memory that every block adds its
/// (normalized, non-zero) words into with atomics, and the last block reads and zeroes again.
#[derive(Clone, Copy)]
pub struct GlobalWords {
    ptr: *mut u64,
    len: usize,
}

impl GlobalWords {
    /// # Safety
    /// `ptr` points to `len` aligned 64-bit words of device memory that stay allocated during the
    /// launch and are only accessed through a [`GlobalWords`] (atomics, relaxed loads and stores)
    /// while it runs.
    #[inline(always)]
    pub unsafe fn from_raw(ptr: *mut i64, len: usize) -> Self {
        GlobalWords {
            ptr: ptr as *mut u64,
            len,
        }
    }
    /// Number of words.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }
    /// `len() == 0`.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[inline(always)]
    #[track_caller]
    fn check(&self, i: usize) {
        if i >= self.len {
            crate::gpu::fail("exact-sum global word index out of range");
        }
    }
    /// `words[i] += v` (a relaxed GPU-scope atomic, `red.add.u64`), checked.
    #[inline(always)]
    #[track_caller]
    pub fn add(&self, i: usize, v: i64) {
        self.check(i);
        // SAFETY: `i < len` (checked); the constructor's contract.
        unsafe { crate::gpu::imp::atomic_add_u64(self.ptr.add(i), v as u64) }
    }
    /// Load `words[i]` now (relaxed, morally strong), checked.
    #[inline(always)]
    #[track_caller]
    pub fn get(&self, i: usize) -> i64 {
        self.check(i);
        // SAFETY: `i < len` (checked); the constructor's contract.
        unsafe { crate::gpu::imp::load_coherent(self.ptr.add(i) as *const i64) }
    }
    /// Store `words[i] = v` now (relaxed, morally strong), checked.
    #[inline(always)]
    #[track_caller]
    pub fn set(&self, i: usize, v: i64) {
        self.check(i);
        // SAFETY: `i < len` (checked); the constructor's contract.
        unsafe { crate::gpu::imp::store_coherent(self.ptr.add(i) as *mut i64, v) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::round::round;

    #[test]
    fn significand_rebuilds_the_value() {
        assert_eq!(significand(1.0), (1 << 52, -52));
        assert_eq!(significand(-1.5), (3 << 51, -52));
        assert_eq!(significand(5e-324), (1, -1074));
        assert_eq!(significand(f64::MIN_POSITIVE), (1 << 52, -1074));
        assert_eq!(significand(f64::MAX), ((1 << 53) - 1, 971));
        for v in [0.1, -3.75e300, 1.5e-300, 2.5e-310, 12345.678] {
            let (m, e) = significand(v);
            assert!(m < 1 << 53);
            assert_eq!(m as f64 * 2f64.powi(e), v.abs(), "{v}");
        }
    }

    #[test]
    fn normalize_step_keeps_the_value() {
        let f = Format::F32;
        let raw: std::vec::Vec<i64> = (0..f.slots())
            .map(|i| (i as i64 - 5) * 0x7fff_ffff_ffff)
            .collect();
        let mut n: std::vec::Vec<i64> = (0..f.slots())
            .map(|i| {
                normalize_step(
                    raw[i],
                    if i == 0 { 0 } else { raw[i - 1] >> 32 },
                    i,
                    f.words,
                )
            })
            .collect();
        n.truncate(f.words);
        let mut r = raw.clone();
        r.truncate(f.words);
        assert_eq!(round(&n, f), round(&r, f));
        assert!(n[..f.words - 1].iter().all(|x| x.abs() < 1 << 33));
    }
}
