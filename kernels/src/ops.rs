//! Reduction operators: [`ReduceOp`] and the eight operators of stage 8 ([`Sum`], [`Min`],
//! [`Max`], [`Prod`], [`NanMin`], [`NanMax`], [`NanSum`], [`Count`]). Their semantics for each
//! element type are in [`crate::element`]'s docs.

use crate::element::Element;
pub use crate::element::ReduceOp;

/// Declares the operators: for each its type (with its doc), name, identity, combine and, where
/// an input element counts as something else, its lift.
macro_rules! reduce_ops {
    ($($(#[$doc:meta])* $ty:ident, $name:literal, $identity:ident, |$a:ident, $b:ident| $combine:expr
       $(, lift |$x:ident| $lift:expr)?;)+) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $ty;
        impl ReduceOp for $ty {
            const NAME: &'static str = $name;
            #[inline(always)]
            fn identity<T: Element>() -> T {
                T::$identity
            }
            #[inline(always)]
            fn combine<T: Element>($a: T, $b: T) -> T {
                $combine
            }
            $(
                #[inline(always)]
                fn lift<T: Element>($x: T) -> T {
                    $lift
                }
            )?
        }
    )+};
}

reduce_ops! {
    /// `a + b` (wrapping for integers).
    Sum, "sum", ZERO, |a, b| a.plus(b);
    /// `min(a, b)`.
    Min, "min", MIN_IDENTITY, |a, b| a.minimum(b);
    /// `max(a, b)`.
    Max, "max", MAX_IDENTITY, |a, b| a.maximum(b);
    /// `a * b` (wrapping for integers).
    Prod, "prod", ONE, |a, b| a.times(b);
    /// `min(a, b)` ignoring NaN (IEEE `minNum`).
    NanMin, "nanmin", NAN_MIN_IDENTITY, |a, b| a.nan_minimum(b);
    /// `max(a, b)` ignoring NaN (IEEE `maxNum`).
    NanMax, "nanmax", NAN_MAX_IDENTITY, |a, b| a.nan_maximum(b);
    /// The sum of the elements with every NaN element read as 0.
    NanSum, "nansum", ZERO, |a, b| a.plus(b), lift |x| if x.is_nan() { T::ZERO } else { x };
    /// How many elements are not NaN (a sum of ones, so exact while the count fits the type's
    /// integers: 2^24 for `f32`).
    Count, "count", ZERO, |a, b| a.plus(b), lift |x| if x.is_nan() { T::ZERO } else { T::ONE };
}
