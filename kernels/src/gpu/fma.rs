//! Fused multiply-add: `a · b + c` rounded once (CUDA C `fmaf(a, b, c)` / `__fmaf_rn`).
//!
//! Rust never contracts `a * b + c` into one instruction (the result would depend on the
//! optimizer), so `m2 += e * e` is an `FMUL` and an `FADD` in SASS. Where a kernel wants the fused
//! form — one instruction instead of two, and one rounding instead of two — it says so with
//! [`fma_f32`]. Both targets compute the same correctly rounded value: `fma.rn.f32` on the GPU,
//! `f32::mul_add` (IEEE 754 `fusedMultiplyAdd`) in the emulator.

/// `a · b + c` with a single rounding to nearest even (`fma.rn.f32`).
#[inline(always)]
pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
    imp::fma_f32(a, b, c)
}

#[cfg(target_arch = "nvptx64")]
mod imp {
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
    pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }
}

#[cfg(test)]
mod tests {
    use super::fma_f32;

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
}
