//! Argmin/argmax on the emulator against a direct implementation of NumPy's rule.

use super::*;
use crate::emu::{launch, LaunchConfig};
use crate::primitives::{block, MAX_WORDS};
use std::vec;
use std::vec::Vec;

/// NumPy's rule, written out: the first NaN if any, else the first extreme value.
#[allow(clippy::eq_op)]
fn numpy<T: Element + PartialOrd>(x: &[T], max: bool) -> (usize, T) {
    if let Some(i) = x.iter().position(|v| v != v) {
        return (i, x[i]);
    }
    let mut best = 0;
    for (i, v) in x.iter().enumerate() {
        if (max && *v > x[best]) || (!max && *v < x[best]) {
            best = i;
        }
    }
    (best, x[best])
}

fn run<T: Element, D: Direction>(x: &[T], grid: usize) -> ArgItem<T> {
    let words = ArgItem::<T>::WORDS;
    let partials = vec![0u32; grid * words];
    let mut counter = 0u32;
    let out = vec![0u32; words];
    let (i, p, c, o) = (
        x.as_ptr() as usize,
        partials.as_ptr() as usize,
        &mut counter as *mut u32 as usize,
        out.as_ptr() as usize,
    );
    let n = x.len();
    let cfg = LaunchConfig {
        grid_dim: grid,
        block_dim: 256,
        shared_bytes: block::shared_words(256, words) * 4,
    };
    launch(cfg, &|| {
        // SAFETY: the vectors outlive the launch and have the item ABI's sizes.
        unsafe {
            entry::<T, D, 256>(
                i as *const T,
                n,
                p as *mut u32,
                c as *mut u32,
                o as *mut u32,
            )
        }
    })
    .unwrap();
    let mut w = [0u32; MAX_WORDS];
    w[..words].copy_from_slice(&out);
    ArgItem::from_words(&w)
}

fn check<T: Element + PartialOrd>(x: &[T], what: &str) {
    for grid in [1usize, 3] {
        let (a, b) = (run::<T, ArgMax>(x, grid), run::<T, ArgMin>(x, grid));
        let (want_a, want_b) = (numpy(x, true), numpy(x, false));
        assert_eq!(a.index as usize, want_a.0, "argmax of {what}, grid {grid}");
        assert_eq!(b.index as usize, want_b.0, "argmin of {what}, grid {grid}");
        assert_eq!(a.value.to_bits64(), want_a.1.to_bits64(), "{what}");
        assert_eq!(b.value.to_bits64(), want_b.1.to_bits64(), "{what}");
    }
}

fn noise(n: usize, m: u64) -> impl Iterator<Item = u64> {
    (0..n as u64).map(move |i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 17) % m)
}

#[test]
fn ties_take_the_first_occurrence_at_every_offset() {
    // Few distinct values: the extreme occurs many times; sub-slices move the 16-byte boundary.
    let x: Vec<f32> = noise(5003, 50).map(|v| v as f32 - 20.0).collect();
    for start in 0..4 {
        check(&x[start..], "f32 with ties");
        check(&x[start..start + 37], "a short f32 slice");
    }
    let y: Vec<i64> = noise(3001, 9).map(|v| v as i64 - 4).collect();
    check(&y[1..], "i64 with ties");
    let z: Vec<u32> = noise(999, 7).map(|v| v as u32).collect();
    check(&z, "u32 with ties");
    check(&[i32::MIN, i32::MAX, i32::MIN, i32::MAX], "i32 extremes");
    check(&[u64::MAX, 0, u64::MAX, 0], "u64 extremes");
}

#[test]
fn a_nan_wins_both_ways_and_the_first_nan_is_reported() {
    let mut x: Vec<f64> = noise(2000, 1000).map(|v| v as f64).collect();
    x[1500] = f64::NAN;
    x[1700] = -f64::NAN;
    check(&x, "f64 with NaNs");
    let mut y: Vec<f32> = vec![0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, 1e-45, -1e-45];
    check(&y, "f32 specials");
    y.push(f32::NAN);
    y.push(f32::NAN);
    let r = run::<f32, ArgMax>(&y, 2);
    assert_eq!(r.index, 6);
    assert!(r.value.is_nan());
    let r = run::<f32, ArgMin>(&y, 2);
    assert_eq!(r.index, 6);
    // -0.0 and 0.0 tie: the first.
    assert_eq!(
        run::<f32, ArgMax>(&[-0.0, 0.0], 1).value.to_bits(),
        (-0.0f32).to_bits()
    );
}

#[test]
fn an_empty_input_is_the_identity() {
    assert_eq!(run::<u32, ArgMax>(&[], 1).index, NO_INDEX);
}
