//! Floating-point `min`/`max` in one instruction, scalar `f32` and packed halves (`f16x2`,
//! `bf16x2`: two 16-bit values in a `u32`, the low half first).
//!
//! | CUDA C | here | PTX (sm_80+) |
//! |---|---|---|
//! | `fmaxf(a, b)` / `fminf(a, b)` | [`max_f32::<false>`](max_f32) / [`min_f32::<false>`](min_f32) | `max.f32` / `min.f32` |
//! | `__fmaxf_nan`-like (NaN propagates) | [`max_f32::<true>`](max_f32) / [`min_f32::<true>`](min_f32) | `max.NaN.f32` / `min.NaN.f32` |
//! | `__hmax2(a, b)` / `__hmax2_nan(a, b)` | [`max_f16x2`] / [`min_f16x2`] | `max{.NaN}.f16x2` / `min{.NaN}.f16x2` |
//! | `__hmax2` on `__nv_bfloat162` | [`max_bf16x2`] / [`min_bf16x2`] | `max{.NaN}.bf16x2` / `min{.NaN}.bf16x2` |
//!
//! `NAN = true` is the `.NaN` form: a NaN operand gives the canonical NaN. `NAN = false`: a NaN
//! loses to a number (two NaNs give the canonical NaN). Otherwise the result is one of the
//! operands, bit for bit — which is what lets the argmin/argmax kernels fold a 16-byte vector with
//! three of these and then look the winner up by value ([`crate::argreduce`]). Of `-0.0` and
//! `+0.0`, `max` gives `+0.0` and `min` gives `-0.0`. No `.ftz`: subnormals are kept.
//!
//! On the host the emulator computes the same results in Rust (the halves widened exactly). The
//! portable PTX targets sm_70 (every GPU from Volta on), where `.NaN` and the packed halves do
//! not exist: there the `.NaN` form is `max.f32`/`min.f32` plus a NaN test, and the halves are
//! compared widened to `f32` (the emulator's rules). A build for sm_80 or later
//! (`-Ctarget-cpu=sm_80`, `sm_90`) uses the single instructions; the shipped SASS for sm_80 and
//! later is assembled from such builds (`TARGETS` in `xtask/src/ptx.rs`), since `ptxas` cannot
//! turn the widened compares back into `max.bf16x2` (they made the half-precision argmin/argmax
//! up to 2× slower on an H100).

/// The larger of `a` and `b` (see the module docs for NaN and zeros).
#[inline(always)]
pub fn max_f32<const NAN: bool>(a: f32, b: f32) -> f32 {
    imp::f32_op::<true, NAN>(a, b)
}
/// The smaller of `a` and `b` (see the module docs for NaN and zeros).
#[inline(always)]
pub fn min_f32<const NAN: bool>(a: f32, b: f32) -> f32 {
    imp::f32_op::<false, NAN>(a, b)
}
/// Lane-wise [`max_f32`] of two pairs of `f16` (low half, high half).
#[inline(always)]
pub fn max_f16x2<const NAN: bool>(a: u32, b: u32) -> u32 {
    imp::x2_op::<true, NAN, false>(a, b)
}
/// Lane-wise [`min_f32`] of two pairs of `f16`.
#[inline(always)]
pub fn min_f16x2<const NAN: bool>(a: u32, b: u32) -> u32 {
    imp::x2_op::<false, NAN, false>(a, b)
}
/// Lane-wise [`max_f32`] of two pairs of `bf16`.
#[inline(always)]
pub fn max_bf16x2<const NAN: bool>(a: u32, b: u32) -> u32 {
    imp::x2_op::<true, NAN, true>(a, b)
}
/// Lane-wise [`min_f32`] of two pairs of `bf16`.
#[inline(always)]
pub fn min_bf16x2<const NAN: bool>(a: u32, b: u32) -> u32 {
    imp::x2_op::<false, NAN, true>(a, b)
}

/// sm_80 and later: each operation is one instruction (`.NaN` and the packed halves are sm_80).
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
mod imp {
    macro_rules! op {
        ($a:expr, $b:expr, $($ins:literal),+) => {{
            let d: u32;
            // SAFETY: one arithmetic instruction on registers; no memory, no preconditions.
            unsafe { core::arch::asm!($($ins),+, d = out(reg32) d, a = in(reg32) $a, b = in(reg32) $b) }
            d
        }};
    }

    #[inline(always)]
    pub fn f32_op<const MAX: bool, const NAN: bool>(a: f32, b: f32) -> f32 {
        let (a, b) = (a.to_bits(), b.to_bits());
        f32::from_bits(match (MAX, NAN) {
            (true, true) => op!(a, b, "max.NaN.f32 {d}, {a}, {b};"),
            (true, false) => op!(a, b, "max.f32 {d}, {a}, {b};"),
            (false, true) => op!(a, b, "min.NaN.f32 {d}, {a}, {b};"),
            (false, false) => op!(a, b, "min.f32 {d}, {a}, {b};"),
        })
    }

    #[inline(always)]
    pub fn x2_op<const MAX: bool, const NAN: bool, const BF16: bool>(a: u32, b: u32) -> u32 {
        match (MAX, NAN, BF16) {
            (true, true, false) => op!(a, b, "max.NaN.f16x2 {d}, {a}, {b};"),
            (true, false, false) => op!(a, b, "max.f16x2 {d}, {a}, {b};"),
            (false, true, false) => op!(a, b, "min.NaN.f16x2 {d}, {a}, {b};"),
            (false, false, false) => op!(a, b, "min.f16x2 {d}, {a}, {b};"),
            (true, true, true) => op!(a, b, "max.NaN.bf16x2 {d}, {a}, {b};"),
            (true, false, true) => op!(a, b, "max.bf16x2 {d}, {a}, {b};"),
            (false, true, true) => op!(a, b, "min.NaN.bf16x2 {d}, {a}, {b};"),
            (false, false, true) => op!(a, b, "min.bf16x2 {d}, {a}, {b};"),
        }
    }
}

/// The portable PTX (sm_70, what the library ships): `max.f32`/`min.f32` exist on every target;
/// the `.NaN` form is that instruction plus a NaN test, and the packed halves are compared
/// widened to `f32` ([`portable`]).
#[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_80")))]
mod imp {
    pub use super::portable::x2_op;

    #[inline(always)]
    pub fn f32_op<const MAX: bool, const NAN: bool>(a: f32, b: f32) -> f32 {
        let d: u32;
        let (x, y) = (a.to_bits(), b.to_bits());
        // SAFETY: one arithmetic instruction on registers; no memory, no preconditions.
        unsafe {
            if MAX {
                core::arch::asm!("max.f32 {d}, {a}, {b};", d = out(reg32) d, a = in(reg32) x, b = in(reg32) y)
            } else {
                core::arch::asm!("min.f32 {d}, {a}, {b};", d = out(reg32) d, a = in(reg32) x, b = in(reg32) y)
            }
        }
        if NAN && (a.is_nan() || b.is_nan()) {
            f32::from_bits(super::portable::NAN_F32)
        } else {
            f32::from_bits(d)
        }
    }
}

/// The emulator: the same rules in Rust.
#[cfg(not(target_arch = "nvptx64"))]
mod imp {
    pub use super::portable::{f32_op, x2_op};
}

/// The rules in plain Rust, on values widened exactly to `f32`: the emulator's implementation,
/// and the packed halves' on GPUs before sm_80.
#[cfg(any(not(target_arch = "nvptx64"), not(target_feature = "sm_80")))]
mod portable {
    use crate::half::{bf16_bits_to_f32, f16_bits_to_f32};

    /// The canonical NaN's bits: `f32`, and the 16-bit one of `f16x2`/`bf16x2`.
    pub(super) const NAN_F32: u32 = 0x7fff_ffff;
    pub(super) const NAN_16: u32 = 0x7fff;

    /// The PTX rule on two values widened to `f32` (`x`, `y`), returning `a`'s or `b`'s bits, or
    /// `nan` (the canonical NaN's bits).
    #[inline(always)]
    fn pick<const MAX: bool, const NAN: bool>(x: f32, y: f32, a: u32, b: u32, nan: u32) -> u32 {
        match (x.is_nan(), y.is_nan()) {
            (true, true) => nan,
            (true, false) if NAN => nan,
            (true, false) => b,
            (false, true) if NAN => nan,
            (false, true) => a,
            _ if x == y => {
                // Equal values: only ±0 can differ in bits; max takes +0.0, min -0.0.
                if x.is_sign_negative() == MAX {
                    b
                } else {
                    a
                }
            }
            _ if (x > y) == MAX => a,
            _ => b,
        }
    }

    #[cfg(not(target_arch = "nvptx64"))]
    pub fn f32_op<const MAX: bool, const NAN: bool>(a: f32, b: f32) -> f32 {
        f32::from_bits(pick::<MAX, NAN>(a, b, a.to_bits(), b.to_bits(), NAN_F32))
    }

    #[inline(always)]
    pub fn x2_op<const MAX: bool, const NAN: bool, const BF16: bool>(a: u32, b: u32) -> u32 {
        let widen = |h: u32| {
            if BF16 {
                bf16_bits_to_f32(h as u16)
            } else {
                f16_bits_to_f32(h as u16)
            }
        };
        let half = |s: u32| {
            let (ha, hb) = ((a >> s) & 0xffff, (b >> s) & 0xffff);
            pick::<MAX, NAN>(widen(ha), widen(hb), ha, hb, NAN_16)
        };
        half(0) | half(16) << 16
    }
}

#[cfg(test)]
mod tests {
    use super::portable::NAN_16;
    use super::*;

    #[test]
    fn nan_zeros_and_order() {
        let nan = f32::NAN;
        assert!(max_f32::<true>(1.0, nan).is_nan());
        assert!(min_f32::<true>(nan, 1.0).is_nan());
        assert_eq!(max_f32::<false>(nan, 1.0), 1.0);
        assert_eq!(min_f32::<false>(1.0, nan), 1.0);
        assert!(max_f32::<false>(nan, nan).is_nan());
        assert_eq!(max_f32::<true>(-0.0, 0.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(min_f32::<true>(0.0, -0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(max_f32::<true>(-3.0, 2.0), 2.0);
        assert_eq!(min_f32::<false>(-3.0, 2.0), -3.0);
        // bf16 pairs: (1.0, NaN) vs (2.0, -1.0); f16 pairs: (1.0, -2.0) vs (0.5, -inf).
        let (one, two, m1, bnan) = (0x3f80u32, 0x4000u32, 0xbf80u32, 0x7fc0u32);
        let (a, b) = (one | bnan << 16, two | m1 << 16);
        assert_eq!(max_bf16x2::<true>(a, b), two | NAN_16 << 16);
        assert_eq!(max_bf16x2::<false>(a, b), two | m1 << 16);
        assert_eq!(min_bf16x2::<false>(a, b), one | m1 << 16);
        let (h1, hm2, hhalf, hninf) = (0x3c00u32, 0xc000u32, 0x3800u32, 0xfc00u32);
        let (a, b) = (h1 | hm2 << 16, hhalf | hninf << 16);
        assert_eq!(max_f16x2::<true>(a, b), h1 | hm2 << 16);
        assert_eq!(min_f16x2::<true>(a, b), hhalf | hninf << 16);
    }
}
