//! Element types and operators, and the CPU reference every result is checked against.

use reduce_kernels::table::{ElemKind, OpKind};
use reduce_kernels::Element;
use std::fmt;

/// The element types the library reduces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElemType {
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `i32`
    I32,
    /// `u32`
    U32,
    /// `i64`
    I64,
    /// `u64`
    U64,
}

impl ElemType {
    /// All six.
    pub const ALL: [ElemType; 6] = [
        Self::F32,
        Self::F64,
        Self::I32,
        Self::U32,
        Self::I64,
        Self::U64,
    ];
    /// Symbol suffix and display name (`f32` …).
    pub fn name(self) -> &'static str {
        match self {
            Self::F32 => "f32",
            Self::F64 => "f64",
            Self::I32 => "i32",
            Self::U32 => "u32",
            Self::I64 => "i64",
            Self::U64 => "u64",
        }
    }
    /// Size in bytes.
    pub fn size(self) -> usize {
        match self {
            Self::F32 | Self::I32 | Self::U32 => 4,
            _ => 8,
        }
    }
    /// Is it `f32` or `f64`?
    pub fn is_float(self) -> bool {
        matches!(self, Self::F32 | Self::F64)
    }
    /// The kernel table's name for it.
    pub fn kind(self) -> ElemKind {
        match self {
            Self::F32 => ElemKind::F32,
            Self::F64 => ElemKind::F64,
            Self::I32 => ElemKind::I32,
            Self::U32 => ElemKind::U32,
            Self::I64 => ElemKind::I64,
            Self::U64 => ElemKind::U64,
        }
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for ElemType {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| {
                format!("unknown element type `{s}` (expected one of f32, f64, i32, u32, i64, u64)")
            })
    }
}

/// Reduction operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Sum (wrapping for integers).
    Sum,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
    /// Arithmetic mean, as `f64` (the device computes the sum).
    Mean,
}

impl Op {
    /// All four.
    pub const ALL: [Op; 4] = [Op::Sum, Op::Min, Op::Max, Op::Mean];
    /// Name (`sum` …).
    pub fn name(self) -> &'static str {
        match self {
            Op::Sum => "sum",
            Op::Min => "min",
            Op::Max => "max",
            Op::Mean => "mean",
        }
    }
    /// The operator the device runs (`mean` runs `sum`).
    pub fn device_op(self) -> Op {
        if self == Op::Mean {
            Op::Sum
        } else {
            self
        }
    }
    /// The kernel table's name for the operator the device runs.
    pub fn kind(self) -> OpKind {
        match self {
            Op::Sum | Op::Mean => OpKind::Sum,
            Op::Min => OpKind::Min,
            Op::Max => OpKind::Max,
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
            .ok_or_else(|| format!("unknown operator `{s}` (expected sum, min, max or mean)"))
    }
}

/// A Rust type the library reduces: a kernel [`Element`] the driver can copy.
pub trait Scalar: Element + cust::memory::DeviceCopy + Default + PartialOrd + fmt::Display {
    /// Its [`ElemType`].
    const TYPE: ElemType;
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
    ($($t:ident $e:ident),*) => {$(
        impl Scalar for $t {
            const TYPE: ElemType = ElemType::$e;
            fn to_f64(self) -> f64 { self as f64 }
            fn from_f64(v: f64) -> Self { v as $t }
            fn to_i128(self) -> Option<i128> { Some(self as i128) }
            fn wrap_i128(v: i128) -> Self { v as $t }
        }
    )*};
}
int_scalar!(i32 I32, u32 U32, i64 I64, u64 U64);

macro_rules! float_scalar {
    ($($t:ident $e:ident),*) => {$(
        impl Scalar for $t {
            const TYPE: ElemType = ElemType::$e;
            fn to_f64(self) -> f64 { self as f64 }
            fn from_f64(v: f64) -> Self { v as $t }
            fn to_i128(self) -> Option<i128> { None }
            fn wrap_i128(v: i128) -> Self { v as $t }
        }
    )*};
}
float_scalar!(f32 F32, f64 F64);

/// The exact answer, computed on the CPU, that a device result is checked against.
///
/// It is written independently of the kernels' fold: it uses none of the kernels' operators or
/// identities (an oracle that starts from the same identity as the kernel cannot catch a wrong
/// identity), only Rust's integer arithmetic in `i128`, `f64` and explicit NaN rules.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reference<T> {
    /// The value in the element type: exact for integers (wrapping sum, min, max) and for float
    /// min/max; for float sums, the `f64` sum rounded to `T`.
    pub value: T,
    /// For float sums: the sum computed in `f64`.
    pub sum_f64: f64,
    /// For float sums: `Σ|x|` in `f64`, which scales the error bound.
    pub sum_abs: f64,
    /// For integers: the exact (not wrapped) sum. 0 for floats.
    pub sum_exact: i128,
}

/// CPU reference for `op` over `data` (`Mean` gives the reference of the sum; see
/// [`reference_mean`] for the mean itself). `None` for min/max of nothing.
pub fn reference<T: Scalar>(op: Op, data: &[T]) -> Option<Reference<T>> {
    let is_float = T::TYPE.is_float();
    let (sum_f64, sum_abs) = if is_float {
        (
            neumaier_sum(data.iter().map(|x| x.to_f64())),
            data.iter().map(|x| x.to_f64().abs()).sum(),
        )
    } else {
        (0.0, 0.0)
    };
    // Exact: |x| < 2^64 and a slice holds fewer than 2^61 elements, so the sum fits in i128.
    let sum_exact: i128 = data.iter().filter_map(|x| x.to_i128()).sum();
    let value = match op {
        Op::Sum | Op::Mean if is_float => T::from_f64(sum_f64),
        Op::Sum | Op::Mean => T::wrap_i128(sum_exact),
        Op::Min | Op::Max => extreme(op == Op::Max, data)?,
    };
    Some(Reference {
        value,
        sum_f64,
        sum_abs,
        sum_exact,
    })
}

/// The smallest (or largest) element under IEEE `minNum`/`maxNum`: NaNs are skipped, and only an
/// input of nothing but NaNs gives NaN. `None` for an empty input.
fn extreme<T: Scalar>(largest: bool, data: &[T]) -> Option<T> {
    let mut best: Option<T> = None;
    for &x in data {
        if x.to_f64().is_nan() {
            continue;
        }
        best = Some(match best {
            Some(b) if (largest && b >= x) || (!largest && b <= x) => b,
            _ => x,
        });
    }
    // Not empty and no number in it: every element is NaN.
    best.or_else(|| data.first().copied())
}

/// The mean of `data` as NumPy's `np.mean` computes it, to `f64` rounding: the exact sum (integers
/// in `i128`, floats compensated in `f64`) divided by the length. `None` for an empty input.
pub fn reference_mean<T: Scalar>(data: &[T]) -> Option<f64> {
    let r = reference(Op::Sum, data)?;
    if data.is_empty() {
        return None;
    }
    let sum = if T::TYPE.is_float() {
        r.sum_f64
    } else {
        r.sum_exact as f64
    };
    Some(sum / data.len() as f64)
}

/// Compensated (Neumaier) summation: the sum of `f64` values with an error of about one rounding,
/// independent of the length, so the reference for `f64` data is not itself the least accurate
/// party in the comparison.
pub fn neumaier_sum(values: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut c) = (0.0f64, 0.0f64);
    for x in values {
        let t = sum + x;
        if sum.abs() >= x.abs() {
            c += (sum - t) + x;
        } else {
            c += (x - t) + sum;
        }
        sum = t;
    }
    sum + c
}

/// Does `got` match `reference` for `op`?
///
/// Integers and min/max must match exactly. A float sum computed in any order by additions in
/// precision `u` (2^-24 for f32, 2^-53 for f64) where no element passes through more than `depth`
/// additions is within `depth · u · Σ|x|` of the exact sum (Higham, *Accuracy and Stability of
/// Numerical Algorithms*, §4.2); the check allows that plus one rounding of the result. `depth` comes
/// from the launch plan ([`crate::plan()`]).
pub fn matches_reference<T: Scalar>(op: Op, got: T, r: &Reference<T>, depth: usize) -> bool {
    if op.device_op() != Op::Sum || !T::TYPE.is_float() {
        return got == r.value || (got.to_f64().is_nan() && r.value.to_f64().is_nan());
    }
    let u = if T::TYPE == ElemType::F32 {
        f32::EPSILON as f64 / 2.0
    } else {
        f64::EPSILON / 2.0
    };
    let bound = depth as f64 * u * r.sum_abs + 2.0 * u * r.sum_f64.abs();
    let g = got.to_f64();
    if g.is_nan() || r.sum_f64.is_nan() {
        return g.is_nan() && r.sum_f64.is_nan();
    }
    (g - r.sum_f64).abs() <= bound
}

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
        }
    };
}
