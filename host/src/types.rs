//! Element types and operators, and the CPU reference every result is checked against.

pub use reduce_kernels::table::ElemType;
use reduce_kernels::table::OpKind;
pub use reduce_kernels::Element;
use std::fmt;

/// Reduction operators. `docs/semantics.md`, "The operators of `Reducer`", has the
/// table of what each does on floats and integers, beside NumPy, PyTorch and CUB.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Sum (wrapping for integers).
    Sum,
    /// Minimum; for floats, NaN if any element is NaN (NumPy's `min`, PyTorch's `amin`).
    Min,
    /// Maximum; for floats, NaN if any element is NaN (NumPy's `max`, PyTorch's `amax`).
    Max,
    /// Arithmetic mean, as `f64` (the device computes the sum).
    Mean,
    /// Product (wrapping for integers).
    Prod,
    /// Minimum ignoring NaN (NumPy's `nanmin`): NaN only if every element is NaN.
    NanMin,
    /// Maximum ignoring NaN (NumPy's `nanmax`).
    NanMax,
    /// Sum with every NaN element read as 0 (NumPy's `nansum`).
    NanSum,
    /// Mean of the elements that are not NaN, as `f64` (NumPy's `nanmean`; NaN if there are
    /// none). The device computes [`Op::NanSum`] and [`Op::Count`].
    NanMean,
    /// How many elements are not NaN, as a value of the element type (a device sum of ones:
    /// exact while the count fits the type's integers, 2^24 for `f32`, and checked against the
    /// float-sum bound beyond). [`crate::Reducer::nanmean`] counts exactly, in chunks.
    Count,
}

impl Op {
    /// All of them.
    pub const ALL: [Op; 10] = [
        Op::Sum,
        Op::Min,
        Op::Max,
        Op::Mean,
        Op::Prod,
        Op::NanMin,
        Op::NanMax,
        Op::NanSum,
        Op::NanMean,
        Op::Count,
    ];
    /// Name (`sum` …).
    pub fn name(self) -> &'static str {
        match self {
            Op::Sum => "sum",
            Op::Min => "min",
            Op::Max => "max",
            Op::Mean => "mean",
            Op::Prod => "prod",
            Op::NanMin => "nanmin",
            Op::NanMax => "nanmax",
            Op::NanSum => "nansum",
            Op::NanMean => "nanmean",
            Op::Count => "count",
        }
    }
    /// The operator the device runs (`mean` runs `sum`, `nanmean` runs `nansum` and `count`).
    pub fn device_op(self) -> Op {
        match self {
            Op::Mean => Op::Sum,
            Op::NanMean => Op::NanSum,
            _ => self,
        }
    }
    /// Is it a mean (an `f64`, not a value of the element type)?
    pub fn is_mean(self) -> bool {
        matches!(self, Op::Mean | Op::NanMean)
    }
    /// Is it a minimum or a maximum (undefined on an empty input)?
    pub fn is_extreme(self) -> bool {
        matches!(self, Op::Min | Op::Max | Op::NanMin | Op::NanMax)
    }
    /// The operator that combines partial results of this one (the streamed chunks' partials):
    /// partial sums of `nansum` and partial counts are added, not lifted again.
    pub fn combine_op(self) -> Op {
        match self.device_op() {
            Op::NanSum | Op::Count => Op::Sum,
            op => op,
        }
    }
    /// The kernel table's name for the operator the device runs.
    pub fn kind(self) -> OpKind {
        match self {
            Op::Sum | Op::Mean => OpKind::Sum,
            Op::Min => OpKind::Min,
            Op::Max => OpKind::Max,
            Op::Prod => OpKind::Prod,
            Op::NanMin => OpKind::NanMin,
            Op::NanMax => OpKind::NanMax,
            Op::NanSum | Op::NanMean => OpKind::NanSum,
            Op::Count => OpKind::Count,
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Op {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|o| o.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown operator `{s}` (expected sum, min, max, mean, prod, nanmin, nanmax, \
                 nansum, nanmean or count)"
                )
            })
    }
}

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
        impl Scalar for reduce_kernels::half::$t {
            type Acc = f32;
            type Sum = f32;
            fn to_f64(self) -> f64 { self.to_f32() as f64 }
            fn from_f64(v: f64) -> Self { Self(crate::halves::round::$from_f64(v)) }
            fn to_i128(self) -> Option<i128> { None }
            fn wrap_i128(v: i128) -> Self { Self(crate::halves::round::$from_i128(v)) }
        }
    )*};
}
half_scalar!(
    F16 f64_to_f16_bits i128_to_f16_bits,
    Bf16 f64_to_bf16_bits i128_to_bf16_bits
);

pub use crate::reference::{matches_reference, reference, Reference};

/// Run `$body` with the type alias `$T` bound to the Rust type of an [`ElemType`] value: the one
/// place where a run-time element type becomes a compile-time one.
///
/// ```
/// use reduce_host::{with_elem_type, ElemType};
/// let size = with_elem_type!(ElemType::F64, T => std::mem::size_of::<T>());
/// assert_eq!(size, 8);
/// ```
#[macro_export]
macro_rules! with_elem_type {
    ($ty:expr, $T:ident => $body:expr) => {
        match $ty {
            $crate::ElemType::F32 => {
                type $T = f32;
                $body
            }
            $crate::ElemType::F64 => {
                type $T = f64;
                $body
            }
            $crate::ElemType::I32 => {
                type $T = i32;
                $body
            }
            $crate::ElemType::U32 => {
                type $T = u32;
                $body
            }
            $crate::ElemType::I64 => {
                type $T = i64;
                $body
            }
            $crate::ElemType::U64 => {
                type $T = u64;
                $body
            }
            $crate::ElemType::F16 => {
                type $T = $crate::F16;
                $body
            }
            $crate::ElemType::BF16 => {
                type $T = $crate::Bf16;
                $body
            }
        }
    };
}
