//! The software conversions against the `half` crate, bit pattern by bit pattern.

use super::*;

fn same(a: f32, b: f32) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

#[test]
fn f16_widening_matches_half_on_all_65536_patterns() {
    for bits in 0..=u16::MAX {
        let want = half::f16::from_bits(bits).to_f32();
        assert!(same(f16_bits_to_f32_soft(bits), want), "{bits:#06x}");
        assert!(same(F16(bits).to_f32(), want), "{bits:#06x}");
    }
}

#[test]
fn bf16_widening_matches_half_on_all_65536_patterns() {
    for bits in 0..=u16::MAX {
        let want = half::bf16::from_bits(bits).to_f32();
        assert!(same(Bf16(bits).to_f32(), want), "{bits:#06x}");
    }
}

#[test]
fn narrowing_rounds_to_nearest_even_as_half_does() {
    // Every half, its neighbours' midpoints and points around them, plus a sweep of f32 bits.
    let mut xs = std::vec::Vec::new();
    for bits in 0..=u16::MAX {
        let x = half::f16::from_bits(bits).to_f32();
        let b = x.to_bits();
        xs.extend([
            x,
            f32::from_bits(b.wrapping_add(1)),
            f32::from_bits(b.wrapping_sub(1)),
        ]);
        xs.extend([
            f32::from_bits(b + 0x1000),
            f32::from_bits(b.wrapping_sub(0x1000)),
        ]);
        let y = half::bf16::from_bits(bits).to_f32().to_bits();
        xs.extend([f32::from_bits(y + 0x8000), f32::from_bits(y + 0x8001)]);
    }
    let mut s = 0x1234_5678u32;
    for _ in 0..1_000_000 {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        xs.push(f32::from_bits(s));
    }
    for x in xs {
        let h = half::f16::from_f32(x);
        assert!(
            same(F16::from_f32(x).to_f32(), h.to_f32()),
            "f16 {x:e} ({:#x})",
            x.to_bits()
        );
        let g = half::bf16::from_f32(x);
        assert!(
            same(Bf16::from_f32(x).to_f32(), g.to_f32()),
            "bf16 {x:e} ({:#x})",
            x.to_bits()
        );
    }
}

#[test]
fn arithmetic_rounds_back() {
    use crate::Element;
    let one = F16::ONE;
    let mut s = F16::ZERO;
    for _ in 0..3000 {
        s = s.plus(one);
    }
    assert_eq!(s.to_f32(), 2048.0, "an f16 sum of ones stops at 2048");
    assert_eq!(Bf16::from_f32(3.0).times(Bf16::from_f32(0.5)).to_f32(), 1.5);
    assert!(F16::from_f32(f32::NAN).maximum(one).is_nan());
    assert_eq!(F16::from_f32(f32::NAN).nan_maximum(one), one);
    assert_eq!(F16::MAX_IDENTITY.to_f32(), f32::NEG_INFINITY);
    assert_eq!(Bf16::MIN_IDENTITY.to_f32(), f32::INFINITY);
}
