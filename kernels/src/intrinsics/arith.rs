//! Arithmetic the compiler must not rewrite: a fused multiply-add it would not form, and a
//! division it must not move.
//!
//! [`fma_f32`]: `a · b + c` rounded once (CUDA C `fmaf(a, b, c)` / `__fmaf_rn`).
//!
//! Rust never contracts `a * b + c` into one instruction (the result would depend on the
//! optimizer), so `m2 += e * e` is an `FMUL` and an `FADD` in SASS. Where a kernel wants the fused
//! form — one instruction instead of two, and one rounding instead of two — it says so with
//! [`fma_f32`]. Both targets compute the same correctly rounded value: `fma.rn.f32` on the GPU,
//! `f32::mul_add` (IEEE 754 `fusedMultiplyAdd`) in the emulator.
//!
//! [`div_f64`] is the other way round: an ordinary correctly rounded division (`div.rn.f64`, the
//! same bits as `a / b`) that the compiler may **not** move. LLVM treats `a / b` as free of side
//! effects and hoists it out of a branch into a select, so `if equal { 0.5 } else { a / b }` ran
//! the whole double-precision division sequence (`MUFU.RCP64H`, eight dependent `DFMA`/`DMUL`, a
//! slow-path test) on every Chan merge of the moments kernels' warp and block trees, where the
//! counts are almost always equal (round 18, `benches/results/h200-2026-12-03-div/`: calls 2
//! and 3).

/// `a · b + c` with a single rounding to nearest even (`fma.rn.f32`).
#[inline(always)]
pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
    imp::fma_f32(a, b, c)
}

/// `a / b` rounded to nearest even (`div.rn.f64`), kept where it is written: inside a branch, it
/// runs only when the branch is taken (see the module docs).
#[inline(always)]
pub fn div_f64(a: f64, b: f64) -> f64 {
    imp::div_f64(a, b)
}

#[cfg(target_arch = "nvptx64")]
mod imp {
    #[inline(always)]
    pub fn div_f64(a: f64, b: f64) -> f64 {
        let d: f64;
        // SAFETY: one arithmetic instruction on registers; no memory, no preconditions. Not
        // `pure`: an `asm!` with (nominal) side effects is never speculated into a select.
        unsafe {
            core::arch::asm!(
                "div.rn.f64 {d}, {a}, {b};",
                d = out(reg64) d,
                a = in(reg64) a,
                b = in(reg64) b,
                options(nostack),
            )
        };
        d
    }

    #[inline(always)]
    pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
        let d: f32;
        // SAFETY: one arithmetic instruction on registers; no memory, no preconditions.
        unsafe {
            core::arch::asm!(
                "fma.rn.f32 {d}, {a}, {b}, {c};",
                d = out(reg32) d,
                a = in(reg32) a,
                b = in(reg32) b,
                c = in(reg32) c,
            )
        };
        d
    }
}

#[cfg(not(target_arch = "nvptx64"))]
mod imp {
    pub fn div_f64(a: f64, b: f64) -> f64 {
        a / b
    }

    pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }
}

#[cfg(test)]
mod tests {
    use super::{div_f64, fma_f32};

    #[test]
    fn rounds_once() {
        // (1 + 2^-23)² = 1 + 2^-22 + 2^-46: two roundings lose the 2^-46, one keeps it.
        let a = 1.0 + f32::EPSILON;
        let c = -(1.0 + 2.0 * f32::EPSILON);
        assert_eq!(fma_f32(a, a, c), 2f32.powi(-46));
        assert_eq!(a * a + c, 0.0);
        assert_eq!(fma_f32(2.0, 3.0, 1.0), 7.0);
        assert!(fma_f32(f32::NAN, 1.0, 0.0).is_nan());
    }

    /// The same correctly rounded quotient as `/`, subnormals, infinities and NaN included (the
    /// emulator's side; the GPU's `div.rn.f64` is IEEE's division too).
    #[test]
    fn divides_like_slash() {
        for (a, b) in [
            (1.0, 3.0),
            (2.0, 672.0),
            (-5e-324, 2.0),
            (1.0, 0.0),
            (0.0, 0.0),
            (f64::MAX, 0.5),
        ] {
            let (got, want) = (div_f64(a, b), a / b);
            assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()));
        }
    }
}
