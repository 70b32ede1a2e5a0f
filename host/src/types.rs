//! Element types and operators, and the CPU reference every result is checked against.

pub use reduce_kernels::half::{Bf16, F16};
pub use reduce_kernels::table::{ElemType, UnknownElemType};
pub use reduce_kernels::table::{Op, UnknownOp};
pub use reduce_kernels::Element;
use std::fmt;

/// `f16` / `bf16` rounding from `f64` and `i128` (each halves type's `from_f64`).
pub(crate) mod round;

/// A Rust type the library reduces: a kernel [`Element`] the driver can copy.
///
/// Two associated types say what [`crate::Reducer`] returns for it:
///
/// | `T`                  | `Acc` (`min`, `max`, `prod`, nan-ops, `reduce`) | `Sum` (`sum`) |
/// |----------------------|-------------------------------------------------|---------------|
/// | `f32`, `f64`         | `T`                                             | `T`           |
/// | `i64`, `u64`         | `T` (wrapping)                                  | `T` (wrapping) |
/// | `i32`, `u32`         | `T` (wrapping)                                  | `i64`, `u64` (a 64-bit accumulator, as NumPy's and PyTorch's `sum`) |
/// | [`crate::F16`], [`crate::Bf16`] | `f32` (every half widened exactly, combined in `f32`) | `f32` |
///
/// The wrapping 32-bit sum stays available as `reduce(Op::Sum, x)`.
pub trait Scalar: Element + cust::memory::DeviceCopy + Default + PartialOrd + fmt::Display {
    /// What stage 8's operators combine in and return: `f32` for the halves, `T` otherwise.
    type Acc: Scalar;
    /// What [`crate::Reducer::sum`] returns: `i64` / `u64` for `i32` / `u32`, `f32` for the
    /// halves, `T` otherwise (the kernels' `Element::Wide`).
    type Sum: Scalar;
    /// As `f64` (for means, tolerances and reports).
    fn to_f64(self) -> f64;
    /// From `f64` (truncating for integers); used by input generators.
    fn from_f64(v: f64) -> Self;
    /// The exact value as `i128`, for integers (every 64-bit integer fits); `None` for floats.
    fn to_i128(self) -> Option<i128>;
    /// `v` modulo 2^bits, as this type (two's complement); for floats, `v` rounded.
    fn wrap_i128(v: i128) -> Self;
}

macro_rules! int_scalar {
    ($($t:ident $sum:ident),*) => {$(
        impl Scalar for $t {
            type Acc = $t;
            type Sum = $sum;
            fn to_f64(self) -> f64 { self as f64 }
            fn from_f64(v: f64) -> Self { v as $t }
            fn to_i128(self) -> Option<i128> { Some(self as i128) }
            fn wrap_i128(v: i128) -> Self { v as $t }
        }
    )*};
}
int_scalar!(i32 i64, u32 u64, i64 i64, u64 u64);

macro_rules! float_scalar {
    ($($t:ident),*) => {$(
        impl Scalar for $t {
            type Acc = $t;
            type Sum = $t;
            fn to_f64(self) -> f64 { self as f64 }
            fn from_f64(v: f64) -> Self { v as $t }
            fn to_i128(self) -> Option<i128> { None }
            fn wrap_i128(v: i128) -> Self { v as $t }
        }
    )*};
}
float_scalar!(f32, f64);

// Rounded once, to nearest (not through `f32`: two roundings can miss the nearest half).
macro_rules! half_scalar {
    ($($t:ident $from_f64:ident $from_i128:ident),*) => {$(
        impl Scalar for $t {
            type Acc = f32;
            type Sum = f32;
            fn to_f64(self) -> f64 { self.to_f32() as f64 }
            fn from_f64(v: f64) -> Self { Self(round::$from_f64(v)) }
            fn to_i128(self) -> Option<i128> { None }
            fn wrap_i128(v: i128) -> Self { Self(round::$from_i128(v)) }
        }
    )*};
}
half_scalar!(
    F16 f64_to_f16_bits i128_to_f16_bits,
    Bf16 f64_to_bf16_bits i128_to_bf16_bits
);

/// Run `$body` with the type alias `$T` bound to the Rust type of an [`ElemType`] value: the one
/// place where a run-time element type becomes a compile-time one.
///
/// ```
/// use reduce_host::{with_elem_type, ElemType};
/// let size = with_elem_type!(ElemType::F64, T => std::mem::size_of::<T>());
/// assert_eq!(size, 8);
/// ```
#[macro_export]
#[rustfmt::skip] // one line per type
macro_rules! with_elem_type {
    ($ty:expr, $T:ident => $body:expr) => {
        match $ty {
            $crate::ElemType::F32  => { type $T = f32; $body }
            $crate::ElemType::F64  => { type $T = f64; $body }
            $crate::ElemType::I32  => { type $T = i32; $body }
            $crate::ElemType::U32  => { type $T = u32; $body }
            $crate::ElemType::I64  => { type $T = i64; $body }
            $crate::ElemType::U64  => { type $T = u64; $body }
            $crate::ElemType::F16  => { type $T = $crate::F16; $body }
            $crate::ElemType::BF16 => { type $T = $crate::Bf16; $body }
        }
    };
}

/// One rung of the ladder (see `kernels/src/stages/`): its table — title, seed step, types,
/// ops, block sizes, kernel — is in `stage.rs`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Stage {
    /// Interleaved addressing, divergent branch (K1 / REDUCE-0).
    S1,
    /// Interleaved addressing, strided index (REDUCE-1).
    S2,
    /// Sequential addressing (K2 / REDUCE-2).
    S3,
    /// First add during load (K3 / REDUCE-3).
    S4,
    /// Unrolled last warp (K4 / REDUCE-4).
    S5,
    /// Complete unroll, compile-time block size (REDUCE-5).
    S6,
    /// Grid-stride loop (K5 / REDUCE-6).
    S7,
    /// Shuffles, 16-byte loads, single pass (beyond the seeds).
    S8,
}
