//! The order argmin/argmax compare in: NaN first (or last, for the `nan*` forms), then the value
//! in the element type's own order (`-0.0 == 0.0`; halves as the `f32` they widen to), then the
//! index (the first occurrence wins).

use super::Direction;
use crate::vocabulary::ElemType;
use crate::Element;

/// `v` is a NaN (never, for integers: the test folds away). On the bits: one `and` and one
/// compare, the same for every float width.
#[inline(always)]
pub(super) fn is_nan<T: Element>(v: T) -> bool {
    let b = v.to_bits64();
    match T::TYPE {
        ElemType::F32 => (b as u32 & 0x7fff_ffff) > 0x7f80_0000,
        ElemType::F64 => (b & 0x7fff_ffff_ffff_ffff) > 0x7ff0_0000_0000_0000,
        ElemType::F16 => (b as u16 & 0x7fff) > 0x7c00,
        ElemType::BF16 => (b as u16 & 0x7fff) > 0x7f80,
        _ => false,
    }
}

/// `a == b` in `T`'s own order (`-0.0 == 0.0`; false for a NaN; halves compared as `f32`).
#[inline(always)]
pub(super) fn same<T: Element>(a: T, b: T) -> bool {
    let (x, y) = (a.to_bits64(), b.to_bits64());
    match T::TYPE {
        ElemType::F32 => f32::from_bits(x as u32) == f32::from_bits(y as u32),
        ElemType::F64 => f64::from_bits(x) == f64::from_bits(y),
        ElemType::F16 => {
            crate::half::f16_bits_to_f32(x as u16) == crate::half::f16_bits_to_f32(y as u16)
        }
        ElemType::BF16 => {
            crate::half::bf16_bits_to_f32(x as u16) == crate::half::bf16_bits_to_f32(y as u16)
        }
        _ => x == y,
    }
}

/// `a > b` (argmax) or `a < b` (argmin) in `T`'s own order: one `setp` on the bits as `T` (the
/// casts are free); false if either is a NaN, and `-0.0` and `0.0` are equal.
#[inline(always)]
pub(super) fn better<T: Element, D: Direction>(a: T, b: T) -> bool {
    let (x, y) = (a.to_bits64(), b.to_bits64());
    macro_rules! cmp {
        ($t:ty, $conv:expr) => {{
            let (a, b): ($t, $t) = ($conv(x), $conv(y));
            if D::LARGEST {
                a > b
            } else {
                a < b
            }
        }};
    }
    match T::TYPE {
        ElemType::F32 => cmp!(f32, |v: u64| f32::from_bits(v as u32)),
        ElemType::F64 => cmp!(f64, f64::from_bits),
        ElemType::I32 => cmp!(i32, |v: u64| v as u32 as i32),
        ElemType::U32 => cmp!(u32, |v: u64| v as u32),
        ElemType::I64 => cmp!(i64, |v: u64| v as i64),
        ElemType::U64 => cmp!(u64, |v: u64| v),
        ElemType::F16 => cmp!(f32, |v: u64| crate::half::f16_bits_to_f32(v as u16)),
        ElemType::BF16 => cmp!(f32, |v: u64| crate::half::bf16_bits_to_f32(v as u16)),
    }
}

/// `b`, a later element than `a`, replaces it: it is strictly better (the first occurrence
/// keeps ties), or — NaN being the most extreme value for `argmin`/`argmax` and the least for
/// `nanargmin`/`nanargmax` — it is a NaN and `a` is not (a number and `a` is a NaN).
#[inline(always)]
pub(super) fn later_wins<T: Element, D: Direction>(a: T, b: T) -> bool {
    let (an, bn) = (is_nan(a), is_nan(b));
    if D::SKIP_NAN {
        (an && !bn) || better::<T, D>(b, a)
    } else {
        (bn && !an) || better::<T, D>(b, a)
    }
}

/// The worst value in direction `D` (the identity's value): nothing is worse, and the identity's
/// index ([`NO_INDEX`]) loses every tie. (A quiet NaN for the NaN-skipping floats.)
#[inline(always)]
pub(super) fn worst<T: Element, D: Direction>() -> T {
    if D::SKIP_NAN {
        let nan: Option<u64> = match T::TYPE {
            ElemType::F32 => Some(0x7fc0_0000),
            ElemType::F64 => Some(0x7ff8_0000_0000_0000),
            ElemType::F16 => Some(0x7e00),
            ElemType::BF16 => Some(0x7fc0),
            _ => None,
        };
        if let Some(bits) = nan {
            return T::from_bits64(bits);
        }
    }
    let bits: u64 = match (T::TYPE, D::LARGEST) {
        (ElemType::F32, true) => f32::NEG_INFINITY.to_bits() as u64,
        (ElemType::F32, false) => f32::INFINITY.to_bits() as u64,
        (ElemType::F64, true) => f64::NEG_INFINITY.to_bits(),
        (ElemType::F64, false) => f64::INFINITY.to_bits(),
        (ElemType::I32, true) => i32::MIN as u32 as u64,
        (ElemType::I32, false) => i32::MAX as u64,
        (ElemType::I64, true) => i64::MIN as u64,
        (ElemType::I64, false) => i64::MAX as u64,
        (ElemType::U32, true) | (ElemType::U64, true) => 0,
        (ElemType::U32, false) => u32::MAX as u64,
        (ElemType::U64, false) => u64::MAX,
        (ElemType::F16, true) => 0xfc00,
        (ElemType::F16, false) => 0x7c00,
        (ElemType::BF16, true) => 0xff80,
        (ElemType::BF16, false) => 0x7f80,
    };
    T::from_bits64(bits)
}
