//! # Half-precision inputs: `f16` and `bf16` storage, widened exactly
//!
//! Machine-learning data is often stored in 2-byte floats: IEEE binary16 ([`F16`]: 5 exponent
//! bits, 10 mantissa bits) and bfloat16 ([`Bf16`]: `f32`'s 8 exponent bits, 7 mantissa bits).
//! Reducing them *in* half precision is hopeless (an `f16` sum stops growing at 2048 once it adds
//! ones), so the kernels **load halves and accumulate wide**: a 16-byte vector load brings 8
//! halves, each is widened to `f32`/`f64` **exactly** (every half is an `f32`), and the transform
//! family ([`crate::transform`]) accumulates in `f64`; stage 8's half kernels
//! ([`crate::stages::s8_shuffle_vectorized::reduce_wide`], `Element::Wide = f32`) run every
//! stage-8 operator combined in `f32`, as PyTorch does.
//!
//! **Why faster.** Half the bytes of `f32` for the same element count: a memory-bound reduction
//! of `n` halves moves `2n` bytes, so at the same bandwidth it finishes in about half the time of
//! `n` `f32`s. **What it costs.** One conversion per element: for `bf16` a 16-bit shift (its bits
//! are the top half of an `f32`), for `f16` one `cvt.f32.f16` instruction on the GPU (a few
//! integer operations in the bit-exact software conversion the CPU emulator uses, tested
//! against the `half` crate on all 65536 bit patterns).
//!
//! Both types are `#[repr(transparent)]` over `u16`, so a `&[F16]` is the same bytes as a
//! `&[half::f16]` on the host. Their [`crate::Element`] arithmetic (used by no kernel: every
//! kernel widens first) rounds each `f32` result back to the nearest even half.

use core::fmt;

/// An IEEE binary16 value, stored as its bits.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct F16(pub u16);

/// A bfloat16 value (the top 16 bits of an `f32`), stored as its bits.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bf16(pub u16);

/// Round `m` right by `shift ≥ 1` bits to the nearest integer, ties to even.
#[inline(always)]
const fn round_shift(m: u32, shift: u32) -> u32 {
    let q = m >> shift;
    let rem = m & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    if rem > half || (rem == half && q & 1 == 1) {
        q + 1
    } else {
        q
    }
}

/// The `f32` with the value of the binary16 `bits`, exactly, in software (NaN stays NaN, made
/// quiet, payload kept).
#[inline(always)]
pub const fn f16_bits_to_f32_soft(bits: u16) -> f32 {
    let sign = ((bits as u32) & 0x8000) << 16;
    let exp = ((bits >> 10) & 0x1f) as u32;
    let man = (bits & 0x3ff) as u32;
    if exp == 0x1f {
        let quiet = if man != 0 { 0x40_0000 } else { 0 };
        f32::from_bits(sign | 0x7f80_0000 | quiet | (man << 13))
    } else if exp == 0 {
        // Zero or subnormal: man · 2⁻²⁴, exact in `f32`.
        let v = man as f32 * (1.0 / 16_777_216.0);
        f32::from_bits(v.to_bits() | sign)
    } else {
        f32::from_bits(sign | ((exp + 112) << 23) | (man << 13))
    }
}

/// The `f32` with the value of the binary16 `bits`: `cvt.f32.f16` on the GPU, the software
/// conversion elsewhere (the same value for every pattern; NaNs may differ in payload).
#[inline(always)]
pub fn f16_bits_to_f32(bits: u16) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let out: f32;
        // SAFETY: a register-to-register conversion; it reads and writes no memory.
        unsafe {
            core::arch::asm!(
                "cvt.f32.f16 {o}, {i};",
                o = out(reg32) out,
                i = in(reg16) bits,
                options(pure, nomem, nostack)
            )
        };
        out
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        f16_bits_to_f32_soft(bits)
    }
}

/// The binary16 nearest to `x` (ties to even; ±inf past the largest half, NaN stays NaN).
#[inline(always)]
pub const fn f32_to_f16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        let nan = if man != 0 {
            0x200 | (man >> 13) as u16
        } else {
            0
        };
        return sign | 0x7c00 | nan;
    }
    let e = exp - 112; // the binary16 biased exponent
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign; // below half the smallest subnormal
        }
        // Subnormal result: the 24-bit significand in units of 2⁻²⁴ (a carry into 0x400 is the
        // smallest normal, which the bit layout gets right).
        return sign | round_shift(man | 0x80_0000, (14 - e) as u32) as u16;
    }
    // A carry out of the mantissa bumps the exponent (to inf past the largest), as it should.
    sign | (((e as u32) << 10) + round_shift(man, 13)) as u16
}

/// The `f32` with the value of the bfloat16 `bits` (exact: they are its top 16 bits).
#[inline(always)]
pub const fn bf16_bits_to_f32(bits: u16) -> f32 {
    f32::from_bits((bits as u32) << 16)
}

/// The bfloat16 nearest to `x` (ties to even; NaN stays NaN, made quiet).
#[inline(always)]
pub const fn f32_to_bf16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    if x.is_nan() {
        return ((b >> 16) | 0x40) as u16;
    }
    ((b + 0x7fff + ((b >> 16) & 1)) >> 16) as u16
}

impl F16 {
    /// Its exact value as `f32`.
    #[inline(always)]
    pub fn to_f32(self) -> f32 {
        f16_bits_to_f32(self.0)
    }
    /// The half nearest to `x`.
    #[inline(always)]
    pub const fn from_f32(x: f32) -> Self {
        F16(f32_to_f16_bits(x))
    }
}

impl Bf16 {
    /// Its exact value as `f32`.
    #[inline(always)]
    pub const fn to_f32(self) -> f32 {
        bf16_bits_to_f32(self.0)
    }
    /// The bfloat16 nearest to `x`.
    #[inline(always)]
    pub const fn from_f32(x: f32) -> Self {
        Bf16(f32_to_bf16_bits(x))
    }
}

macro_rules! half_traits {
    ($($t:ident),*) => {$(
        impl PartialOrd for $t {
            fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
                self.to_f32().partial_cmp(&other.to_f32())
            }
        }
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.to_f32(), f)
            }
        }
        #[cfg(not(target_arch = "nvptx64"))]
        // SAFETY: a `u16` newtype: plain bits, no pointers, every pattern valid.
        unsafe impl cust_core::DeviceCopy for $t {}
    )*};
}
half_traits!(F16, Bf16);

#[cfg(test)]
mod tests;
