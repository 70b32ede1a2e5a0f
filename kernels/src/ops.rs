//! Reduction operators: [`ReduceOp`] and the eight operators of stage 8 ([`Sum`], [`Min`],
//! [`Max`], [`Prod`], [`NanMin`], [`NanMax`], [`NanSum`], [`Count`]). Their semantics for each
//! element type are in [`crate::element`]'s docs.

use crate::element::Element;

/// An associative, commutative reduction operator with an identity.
pub trait ReduceOp: Copy + Send + Sync + 'static {
    /// Name used in kernel symbols (`reduce_s8_single_pass_sum_f32`).
    const NAME: &'static str;
    /// `combine(identity, x) == x` for every `x`.
    fn identity<T: Element>() -> T;
    /// The operator.
    fn combine<T: Element>(a: T, b: T) -> T;
    /// What an input element counts as, applied once to each element as it is loaded (never to
    /// partial results): the element itself, except for [`NanSum`] (NaN → 0) and [`Count`]
    /// (NaN → 0, anything else → 1).
    #[inline(always)]
    fn lift<T: Element>(x: T) -> T {
        x
    }
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
/// `a * b` (wrapping for integers).
#[derive(Clone, Copy, Debug, Default)]
pub struct Prod;
/// `min(a, b)` ignoring NaN (IEEE `minNum`).
#[derive(Clone, Copy, Debug, Default)]
pub struct NanMin;
/// `max(a, b)` ignoring NaN (IEEE `maxNum`).
#[derive(Clone, Copy, Debug, Default)]
pub struct NanMax;
/// The sum of the elements with every NaN element read as 0.
#[derive(Clone, Copy, Debug, Default)]
pub struct NanSum;
/// How many elements are not NaN (a sum of ones, so exact while the count fits the type's
/// integers: 2^24 for `f32`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Count;

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
impl ReduceOp for Prod {
    const NAME: &'static str = "prod";
    #[inline(always)]
    fn identity<T: Element>() -> T {
        T::ONE
    }
    #[inline(always)]
    fn combine<T: Element>(a: T, b: T) -> T {
        a.times(b)
    }
}
impl ReduceOp for NanMin {
    const NAME: &'static str = "nanmin";
    #[inline(always)]
    fn identity<T: Element>() -> T {
        T::NAN_MIN_IDENTITY
    }
    #[inline(always)]
    fn combine<T: Element>(a: T, b: T) -> T {
        a.nan_minimum(b)
    }
}
impl ReduceOp for NanMax {
    const NAME: &'static str = "nanmax";
    #[inline(always)]
    fn identity<T: Element>() -> T {
        T::NAN_MAX_IDENTITY
    }
    #[inline(always)]
    fn combine<T: Element>(a: T, b: T) -> T {
        a.nan_maximum(b)
    }
}
impl ReduceOp for NanSum {
    const NAME: &'static str = "nansum";
    #[inline(always)]
    fn identity<T: Element>() -> T {
        T::ZERO
    }
    #[inline(always)]
    fn combine<T: Element>(a: T, b: T) -> T {
        a.plus(b)
    }
    #[inline(always)]
    fn lift<T: Element>(x: T) -> T {
        if x.is_nan() {
            T::ZERO
        } else {
            x
        }
    }
}
impl ReduceOp for Count {
    const NAME: &'static str = "count";
    #[inline(always)]
    fn identity<T: Element>() -> T {
        T::ZERO
    }
    #[inline(always)]
    fn combine<T: Element>(a: T, b: T) -> T {
        a.plus(b)
    }
    #[inline(always)]
    fn lift<T: Element>(x: T) -> T {
        if x.is_nan() {
            T::ZERO
        } else {
            T::ONE
        }
    }
}
