//! Element types and reduction operators.
//!
//! The multi-pass stages (1–7) are the seeds' *sum* for `f32` (blog) and `i32` (lesson). The final
//! stage is generic over an operator ([`Sum`], [`Min`], [`Max`]) and six element types.
//!
//! Semantics, identical on the GPU, in the emulator and in the host's CPU reference:
//! * integer sums **wrap** (two's complement, modulo 2^bits), exactly like CUDA's `+` on `int`;
//! * float sums are ordinary IEEE additions in the element type (order differs from a sequential
//!   loop, so results differ from it by rounding; NaN and ±inf propagate);
//! * float `min`/`max` follow IEEE `minNum`/`maxNum` (PTX `min.f32`/`max.f32`, Rust `f32::min`): a
//!   NaN is ignored unless every element is NaN, and then the result is NaN. That is why the
//!   identity of float `min`/`max` is NaN, not ±inf: `minNum(NaN, x) == x` for every `x`
//!   (including NaN), while a fold that starts from +inf turns an all-NaN input into +inf.

use crate::gpu;

mod sealed {
    /// Only the six types below implement [`super::Element`]: the kernels' memory accesses
    /// (16-byte vectors, 4- or 8-byte coherent loads and stores) are sound for exactly 4- and
    /// 8-byte integers and floats, so no other crate may add a type.
    pub trait Sealed {}
    impl Sealed for f32 {}
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
    const KIND: crate::table::ElemKind;
    /// Additive identity.
    const ZERO: Self;
    /// Identity of `max`: the smallest value for integers; NaN for floats (IEEE `maxNum` ignores
    /// a NaN operand, so NaN is its identity, and an all-NaN input reduces to NaN).
    const MAX_IDENTITY: Self;
    /// Identity of `min`: the largest value for integers; NaN for floats (see
    /// [`Element::MAX_IDENTITY`]).
    const MIN_IDENTITY: Self;
    /// Addition; wrapping for integers.
    fn plus(self, other: Self) -> Self;
    /// Smaller of two values (IEEE `minNum` for floats).
    fn minimum(self, other: Self) -> Self;
    /// Larger of two values (IEEE `maxNum` for floats).
    fn maximum(self, other: Self) -> Self;
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
        unsafe { crate::warp::shfl_down_sync(crate::warp::FULL_MASK, self, delta) }
    }
    /// Combine the elements packed in one 16-byte vector (4 × 32-bit or 2 × 64-bit).
    #[inline(always)]
    fn reduce_vec4<O: ReduceOp>(v: gpu::Vec4) -> Self {
        let w = v.0;
        if core::mem::size_of::<Self>() == 4 {
            let e = |i: usize| Self::from_bits64(w[i] as u64);
            O::combine(O::combine(e(0), e(1)), O::combine(e(2), e(3)))
        } else {
            let e = |i: usize| Self::from_bits64(w[i] as u64 | ((w[i + 1] as u64) << 32));
            O::combine(e(0), e(2))
        }
    }
}

macro_rules! int_element {
    ($($t:ident $bits:ident $kind:ident),*) => {$(
        impl Element for $t {
            const NAME: &'static str = stringify!($t);
            const KIND: crate::table::ElemKind = crate::table::ElemKind::$kind;
            const ZERO: Self = 0;
            const MAX_IDENTITY: Self = $t::MIN;
            const MIN_IDENTITY: Self = $t::MAX;
            #[inline(always)] fn plus(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline(always)] fn minimum(self, o: Self) -> Self { if o < self { o } else { self } }
            #[inline(always)] fn maximum(self, o: Self) -> Self { if o > self { o } else { self } }
            #[inline(always)] fn to_bits64(self) -> u64 { self as $bits as u64 }
            #[inline(always)] fn from_bits64(b: u64) -> Self { b as $bits as $t }
        }
    )*};
}
int_element!(i32 u32 I32, u32 u32 U32, i64 u64 I64, u64 u64 U64);

macro_rules! float_element {
    ($($t:ident $bits:ident $kind:ident),*) => {$(
        impl Element for $t {
            const NAME: &'static str = stringify!($t);
            const KIND: crate::table::ElemKind = crate::table::ElemKind::$kind;
            const ZERO: Self = 0.0;
            const MAX_IDENTITY: Self = $t::NAN;
            const MIN_IDENTITY: Self = $t::NAN;
            #[inline(always)] fn plus(self, o: Self) -> Self { self + o }
            #[inline(always)] fn minimum(self, o: Self) -> Self { self.min(o) }
            #[inline(always)] fn maximum(self, o: Self) -> Self { self.max(o) }
            #[inline(always)] fn to_bits64(self) -> u64 { self.to_bits() as u64 }
            #[inline(always)] fn from_bits64(b: u64) -> Self { $t::from_bits(b as $bits) }
        }
    )*};
}
float_element!(f32 u32 F32, f64 u64 F64);

/// An associative, commutative reduction operator with an identity.
pub trait ReduceOp: Copy + Send + Sync + 'static {
    /// Name used in kernel symbols (`reduce_s8_single_pass_sum_f32`).
    const NAME: &'static str;
    /// `combine(identity, x) == x` for every `x`.
    fn identity<T: Element>() -> T;
    /// The operator.
    fn combine<T: Element>(a: T, b: T) -> T;
}

/// `a + b` (wrapping for integers).
#[derive(Clone, Copy, Debug, Default)]
pub struct Sum;
/// `min(a, b)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Min;
/// `max(a, b)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Max;

impl ReduceOp for Sum {
    const NAME: &'static str = "sum";
    #[inline(always)]
    fn identity<T: Element>() -> T {
        T::ZERO
    }
    #[inline(always)]
    fn combine<T: Element>(a: T, b: T) -> T {
        a.plus(b)
    }
}
impl ReduceOp for Min {
    const NAME: &'static str = "min";
    #[inline(always)]
    fn identity<T: Element>() -> T {
        T::MIN_IDENTITY
    }
    #[inline(always)]
    fn combine<T: Element>(a: T, b: T) -> T {
        a.minimum(b)
    }
}
impl ReduceOp for Max {
    const NAME: &'static str = "max";
    #[inline(always)]
    fn identity<T: Element>() -> T {
        T::MAX_IDENTITY
    }
    #[inline(always)]
    fn combine<T: Element>(a: T, b: T) -> T {
        a.maximum(b)
    }
}
