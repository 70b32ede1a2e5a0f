//! Element types and reduction operators.
//!
//! The multi-pass stages (1–7) are the seeds' *sum* for `f32` (blog) and `i32` (lesson). The final
//! stage is generic over an operator ([`Sum`], [`Min`], [`Max`], [`Prod`], the NaN-ignoring
//! [`NanMin`], [`NanMax`], [`NanSum`], and [`Count`]) and six element types.
//!
//! Semantics, identical on the GPU, in the emulator and in the host's CPU reference (they follow
//! NumPy and PyTorch; `docs/semantics.md` has the table):
//! * integer sums and products **wrap** (two's complement, modulo 2^bits), exactly like CUDA's
//!   `+` and `*` on `int`;
//! * float sums and products are ordinary IEEE operations in the element type (order differs from
//!   a sequential loop, so results differ from it by rounding; NaN and ±inf propagate);
//! * float `min`/`max` **propagate NaN**, as `np.min` and `torch.amin` do: one NaN anywhere makes
//!   the result NaN. The combine is `if a or b is NaN { NaN } else { minNum(a, b) }` — a `setp.nan`
//!   and a `selp` beside the `min.f32`, so it costs nothing in a memory-bound kernel, and it is
//!   deterministic (the result is the canonical NaN, whichever NaN came first). Its identity is
//!   +inf for `min` (−inf for `max`): `min(+inf, x) == x` for every `x`, NaN included;
//! * [`NanMin`]/[`NanMax`] (`np.nanmin`/`np.nanmax`) ignore NaN: IEEE `minNum`/`maxNum` (PTX
//!   `min.f32`, Rust `f32::min`), whose identity is NaN (`minNum(NaN, x) == x`), so only an input
//!   of nothing but NaN gives NaN;
//! * [`NanSum`] (`np.nansum`) adds the elements with every NaN *element* read as 0 (a NaN made by
//!   the sum itself, `inf + -inf`, stays NaN); [`Count`] counts the elements that are not NaN
//!   (pandas' `count`), the denominator of `nanmean`. Both apply [`ReduceOp::lift`] to each
//!   element as it is loaded, then add.
//!
//! For integers the NaN variants are the plain operators (no integer is NaN).
//!
//! [`Sum`]: crate::Sum
//! [`Min`]: crate::Min
//! [`Max`]: crate::Max
//! [`Prod`]: crate::Prod
//! [`NanMin`]: crate::NanMin
//! [`NanMax`]: crate::NanMax
//! [`NanSum`]: crate::NanSum
//! [`Count`]: crate::Count

use crate::intrinsics::{imp, Vec4, FULL_MASK};

mod sealed {
    /// Only the six types below implement [`super::Element`]: the kernels' memory accesses
    /// (16-byte vectors, 4- or 8-byte coherent loads and stores) are sound for exactly 4- and
    /// 8-byte integers and floats, so no other crate may add a type.
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for crate::half::F16 {}
    impl Sealed for crate::half::Bf16 {}
    impl Sealed for f64 {}
    impl Sealed for i32 {}
    impl Sealed for u32 {}
    impl Sealed for i64 {}
    impl Sealed for u64 {}
}

/// A type the kernels can reduce: `f32`, `f64`, `i32`, `u32`, `i64`, `u64` (sealed: the kernels'
/// memory accesses rely on these sizes).
pub trait Element:
    sealed::Sealed + Copy + Send + Sync + PartialEq + core::fmt::Debug + 'static
{
    /// Name used in kernel symbols (`reduce_…_f32`).
    const NAME: &'static str;
    /// Its row entry in the kernel table ([`crate::table`]).
    const TYPE: crate::vocabulary::ElemType;
    /// Additive identity.
    const ZERO: Self;
    /// Multiplicative identity.
    const ONE: Self;
    /// Identity of `max`: the smallest value for integers; −inf for floats (the NaN-propagating
    /// `max` turns any NaN operand into NaN, so only −inf leaves every value as it is).
    const MAX_IDENTITY: Self;
    /// Identity of `min`: the largest value for integers; +inf for floats.
    const MIN_IDENTITY: Self;
    /// Identity of `nanmax` / `nanmin`: the smallest / largest value for integers; NaN for floats
    /// (IEEE `maxNum` ignores a NaN operand, so NaN is its identity, and an all-NaN input reduces
    /// to NaN).
    const NAN_MAX_IDENTITY: Self;
    /// Identity of `nanmin` (see [`Element::NAN_MAX_IDENTITY`]).
    const NAN_MIN_IDENTITY: Self;
    /// Addition; wrapping for integers.
    fn plus(self, other: Self) -> Self;
    /// Multiplication; wrapping for integers.
    fn times(self, other: Self) -> Self;
    /// Is it NaN? (`false` for integers.)
    fn is_nan(self) -> bool;
    /// Smaller of two values; NaN if either is NaN (NumPy's `minimum`).
    fn minimum(self, other: Self) -> Self;
    /// Larger of two values; NaN if either is NaN (NumPy's `maximum`).
    fn maximum(self, other: Self) -> Self;
    /// Smaller of two values, ignoring a NaN (IEEE `minNum`, NumPy's `fmin`).
    fn nan_minimum(self, other: Self) -> Self;
    /// Larger of two values, ignoring a NaN (IEEE `maxNum`, NumPy's `fmax`).
    fn nan_maximum(self, other: Self) -> Self;
    /// What a wide sum of this type accumulates in and returns: `i64` / `u64` for `i32` / `u32`
    /// (NumPy's and PyTorch's promotion of integer sums), `f32` for `f16` / `bf16` (every stage-8
    /// op on halves combines in `f32`), the type itself otherwise.
    type Wide: Element;
    /// `self` as [`Element::Wide`] (sign- or zero-extended).
    fn widen(self) -> Self::Wide;
    /// The raw bits, zero-extended to 64.
    fn to_bits64(self) -> u64;
    /// Inverse of [`Element::to_bits64`].
    fn from_bits64(bits: u64) -> Self;
    /// `__shfl_down_sync(0xffffffff, self, delta)`: the value held by lane `lane + delta` of this
    /// warp (this lane's own value when `lane + delta` ≥ 32). 64-bit types take two shuffles.
    #[inline(always)]
    fn shfl_down(self, delta: u32) -> Self {
        // SAFETY: the full mask holds the calling lane, and every lane passes the same mask;
        // that all 32 lanes call it is a correctness rule, as for `gpu::shfl_down_u32`.
        by_words(self, |w| unsafe { imp::shfl_down_u32(FULL_MASK, w, delta) })
    }
    /// Combine the elements packed in one 16-byte vector (4 × 32-bit or 2 × 64-bit), each
    /// [lifted](ReduceOp::lift) first.
    #[inline(always)]
    fn reduce_vec4<O: ReduceOp>(v: Vec4) -> Self {
        let w = v.0;
        if core::mem::size_of::<Self>() == 4 {
            let e = |i: usize| O::lift(Self::from_bits64(w[i] as u64));
            O::combine(O::combine(e(0), e(1)), O::combine(e(2), e(3)))
        } else {
            let e = |i: usize| O::lift(Self::from_bits64(w[i] as u64 | ((w[i + 1] as u64) << 32)));
            O::combine(e(0), e(2))
        }
    }
    /// [`Element::reduce_vec4`] in [`Element::Wide`].
    #[inline(always)]
    fn reduce_vec4_wide<O: ReduceOp>(v: Vec4) -> Self::Wide {
        reduce_vec4_wide::<Self, O>(v)
    }
}

/// Combine the elements packed in one 16-byte vector as [`Element::Wide`] values, each widened
/// and [lifted](ReduceOp::lift) first.
#[inline(always)]
fn reduce_vec4_wide<T: Element, O: ReduceOp>(v: Vec4) -> T::Wide {
    let w = v.0;
    if core::mem::size_of::<T>() == 4 {
        let e = |i: usize| O::lift(T::from_bits64(w[i] as u64).widen());
        O::combine(O::combine(e(0), e(1)), O::combine(e(2), e(3)))
    } else {
        let e = |i: usize| O::lift(T::from_bits64(w[i] as u64 | ((w[i + 1] as u64) << 32)).widen());
        O::combine(e(0), e(2))
    }
}

macro_rules! int_element {
    ($($t:ident $bits:ident $kind:ident $wide:ident),*) => {$(
        impl Element for $t {
            type Wide = $wide;
            #[inline(always)] fn widen(self) -> $wide { self as $wide }
            const NAME: &'static str = stringify!($t);
            const TYPE: crate::vocabulary::ElemType = crate::vocabulary::ElemType::$kind;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const MAX_IDENTITY: Self = $t::MIN;
            const MIN_IDENTITY: Self = $t::MAX;
            const NAN_MAX_IDENTITY: Self = $t::MIN;
            const NAN_MIN_IDENTITY: Self = $t::MAX;
            #[inline(always)] fn plus(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline(always)] fn times(self, o: Self) -> Self { self.wrapping_mul(o) }
            #[inline(always)] fn is_nan(self) -> bool { false }
            #[inline(always)] fn minimum(self, o: Self) -> Self { if o < self { o } else { self } }
            #[inline(always)] fn maximum(self, o: Self) -> Self { if o > self { o } else { self } }
            #[inline(always)] fn nan_minimum(self, o: Self) -> Self { self.minimum(o) }
            #[inline(always)] fn nan_maximum(self, o: Self) -> Self { self.maximum(o) }
            #[inline(always)] fn to_bits64(self) -> u64 { self as $bits as u64 }
            #[inline(always)] fn from_bits64(b: u64) -> Self { b as $bits as $t }
        }
    )*};
}
int_element!(i32 u32 I32 i64, u32 u32 U32 u64, i64 u64 I64 i64, u64 u64 U64 u64);

macro_rules! float_element {
    ($($t:ident $bits:ident $kind:ident),*) => {$(
        impl Element for $t {
            type Wide = $t;
            #[inline(always)] fn widen(self) -> $t { self }
            const NAME: &'static str = stringify!($t);
            const TYPE: crate::vocabulary::ElemType = crate::vocabulary::ElemType::$kind;
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const MAX_IDENTITY: Self = $t::NEG_INFINITY;
            const MIN_IDENTITY: Self = $t::INFINITY;
            const NAN_MAX_IDENTITY: Self = $t::NAN;
            const NAN_MIN_IDENTITY: Self = $t::NAN;
            #[inline(always)] fn plus(self, o: Self) -> Self { self + o }
            #[inline(always)] fn times(self, o: Self) -> Self { self * o }
            #[inline(always)] fn is_nan(self) -> bool { $t::is_nan(self) }
            // `a != a || b != b` is one unordered compare (`setp.nan`); then a select.
            #[inline(always)] fn minimum(self, o: Self) -> Self {
                if $t::is_nan(self) || $t::is_nan(o) { $t::NAN } else { self.min(o) }
            }
            #[inline(always)] fn maximum(self, o: Self) -> Self {
                if $t::is_nan(self) || $t::is_nan(o) { $t::NAN } else { self.max(o) }
            }
            #[inline(always)] fn nan_minimum(self, o: Self) -> Self { self.min(o) }
            #[inline(always)] fn nan_maximum(self, o: Self) -> Self { self.max(o) }
            #[inline(always)] fn to_bits64(self) -> u64 { self.to_bits() as u64 }
            #[inline(always)] fn from_bits64(b: u64) -> Self { $t::from_bits(b as $bits) }
        }
    )*};
}
float_element!(f32 u32 F32, f64 u64 F64);

/// `f16` and `bf16` ([`crate::half`]): arithmetic in `f32`, rounded back to the nearest even half
/// (the `f32` sum or product of two halves is exact or correctly rounded first — `f32` carries
/// more than twice their bits — so the result is the correctly rounded half). No kernel reduces
/// in half precision: the transform family widens each half and accumulates in `f64`; stage 8's
/// half kernels ([`crate::stages::s8_shuffle_vectorized::reduce_wide`], `Wide = f32`) widen each
/// half exactly and combine in `f32` (min/max exactly: the result is one of the inputs).
macro_rules! half_element {
    ($($t:ident $kind:ident $name:literal $one:literal $inf:literal $nan:literal),*) => {$(
        impl Element for crate::half::$t {
            type Wide = f32;
            /// Exact: every half is an `f32` (`cvt.f32.f16`, or a 16-bit shift for `bf16`).
            #[inline(always)] fn widen(self) -> f32 { self.to_f32() }
            const NAME: &'static str = $name;
            const TYPE: crate::vocabulary::ElemType = crate::vocabulary::ElemType::$kind;
            const ZERO: Self = Self(0);
            const ONE: Self = Self($one);
            const MAX_IDENTITY: Self = Self($inf | 0x8000);
            const MIN_IDENTITY: Self = Self($inf);
            const NAN_MAX_IDENTITY: Self = Self($nan);
            const NAN_MIN_IDENTITY: Self = Self($nan);
            #[inline(always)] fn plus(self, o: Self) -> Self { Self::from_f32(self.to_f32() + o.to_f32()) }
            #[inline(always)] fn times(self, o: Self) -> Self { Self::from_f32(self.to_f32() * o.to_f32()) }
            #[inline(always)] fn is_nan(self) -> bool { self.to_f32().is_nan() }
            #[inline(always)] fn minimum(self, o: Self) -> Self {
                if self.is_nan() || o.is_nan() { Self($nan) } else if o.to_f32() < self.to_f32() { o } else { self }
            }
            #[inline(always)] fn maximum(self, o: Self) -> Self {
                if self.is_nan() || o.is_nan() { Self($nan) } else if o.to_f32() > self.to_f32() { o } else { self }
            }
            #[inline(always)] fn nan_minimum(self, o: Self) -> Self {
                if self.is_nan() || o.to_f32() < self.to_f32() { o } else { self }
            }
            #[inline(always)] fn nan_maximum(self, o: Self) -> Self {
                if self.is_nan() || o.to_f32() > self.to_f32() { o } else { self }
            }
            #[inline(always)] fn to_bits64(self) -> u64 { self.0 as u64 }
            #[inline(always)] fn from_bits64(b: u64) -> Self { Self(b as u16) }
            /// One 32-bit shuffle (the default would shuffle an empty upper word too).
            #[inline(always)]
            fn shfl_down(self, delta: u32) -> Self {
                // SAFETY: as the default's: the full mask holds the calling lane and every lane
                // passes the same mask; that all 32 lanes call it is a correctness rule.
                let v = unsafe { imp::shfl_down_u32(FULL_MASK, self.0 as u32, delta) };
                Self(v as u16)
            }
            /// Eight halves per 16-byte vector.
            #[inline(always)]
            fn reduce_vec4<O: ReduceOp>(v: Vec4) -> Self {
                let w = v.0;
                let e = |i: usize| O::lift(Self((w[i / 2] >> (16 * (i % 2))) as u16));
                let q = |i: usize| O::combine(O::combine(e(i), e(i + 1)), O::combine(e(i + 2), e(i + 3)));
                O::combine(q(0), q(4))
            }
            /// Eight halves per 16-byte vector, each widened exactly to `f32` and lifted, then
            /// combined in `f32` (stage 8's half kernels, [`crate::stages::s8_shuffle_vectorized::reduce_wide`]).
            #[inline(always)]
            fn reduce_vec4_wide<O: ReduceOp>(v: Vec4) -> f32 {
                let w = v.0;
                let e = |i: usize| O::lift(Self((w[i / 2] >> (16 * (i % 2))) as u16).widen());
                let q = |i: usize| O::combine(O::combine(e(i), e(i + 1)), O::combine(e(i + 2), e(i + 3)));
                O::combine(q(0), q(4))
            }
        }
    )*};
}
half_element!(F16 F16 "f16" 0x3c00 0x7c00 0x7e00, Bf16 BF16 "bf16" 0x3f80 0x7f80 0x7fc0);

/// An associative, commutative reduction operator with an identity.
pub trait ReduceOp: Copy + Send + Sync + 'static {
    /// Name used in kernel symbols (`reduce_s8_single_pass_sum_f32`).
    const NAME: &'static str;
    /// `combine(identity, x) == x` for every `x`.
    fn identity<T: Element>() -> T;
    /// The operator.
    fn combine<T: Element>(a: T, b: T) -> T;
    /// What an input element counts as, applied once to each element as it is loaded (never to
    /// partial results): the element itself, except for [`crate::NanSum`] (NaN → 0) and
    /// [`crate::Count`] (NaN → 0, anything else → 1).
    #[inline(always)]
    fn lift<T: Element>(x: T) -> T {
        x
    }
}

/// `value` through a 32-bit register exchange `f`: once for types of up to 4 bytes, once per
/// 32-bit half (low first) for 8-byte ones.
#[inline(always)]
pub(crate) fn by_words<T: Element>(value: T, f: impl Fn(u32) -> u32) -> T {
    let bits = value.to_bits64();
    if core::mem::size_of::<T>() <= 4 {
        T::from_bits64(f(bits as u32) as u64)
    } else {
        let lo = f(bits as u32) as u64;
        let hi = f((bits >> 32) as u32) as u64;
        T::from_bits64(lo | (hi << 32))
    }
}

impl<T: Element> crate::intrinsics::sealed::Sealed for T {}

/// Every element moves through the coherent loads and stores of [`crate::intrinsics`] by its
/// bits.
impl<T: Element> crate::intrinsics::Word for T {
    #[inline(always)]
    fn to_word(self) -> u64 {
        self.to_bits64()
    }
    #[inline(always)]
    fn from_word(bits: u64) -> Self {
        Self::from_bits64(bits)
    }
}
