//! Argmin/argmax on the emulator against a direct implementation of NumPy's rule.

use super::*;
use crate::emu::{launch, LaunchConfig};
use crate::primitives::device::ItemEntry;
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

/// NumPy's rule on keys (`f64` holds every `f16`/`bf16`/`f32`/`f64` exactly): NaN first
/// (`argmin`/`argmax`) or skipped (`nanargmin`/`nanargmax`; all NaN: `None`).
fn numpy_keys(k: &[f64], max: bool, skip_nan: bool) -> Option<usize> {
    if !skip_nan {
        if let Some(i) = k.iter().position(|v| v.is_nan()) {
            return Some(i);
        }
    }
    let mut best: Option<usize> = None;
    for (i, v) in k.iter().enumerate() {
        if v.is_nan() {
            continue;
        }
        if best.is_none_or(|b| (max && *v > k[b]) || (!max && *v < k[b])) {
            best = Some(i);
        }
    }
    best
}

fn run<T: Element, D: Direction>(x: &[T], grid: usize) -> ArgItem<T> {
    run_block::<T, D, 256>(x, grid)
}

fn run_block<T: Element, D: Direction, const BLOCK: usize>(x: &[T], grid: usize) -> ArgItem<T> {
    run_entry(entry::<T, D, BLOCK>, BLOCK, x, grid)
}

/// One emulated launch of `entry` (an item kernel of `ArgItem<T>`) with `block_dim` threads per
/// block.
fn run_entry<T: Element>(
    entry: ItemEntry<T>,
    block_dim: usize,
    x: &[T],
    grid: usize,
) -> ArgItem<T> {
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
    let cfg = LaunchConfig {
        grid_dim: grid,
        block_dim,
        shared_bytes: block::shared_words(block_dim, words) * 4,
    };
    launch(cfg, &|| {
        // SAFETY: the vectors outlive the launch and have the item ABI's sizes.
        unsafe {
            entry(
                i as *const T,
                x.len(),
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

/// Every direction over `x` (keys `k`) on several grids and two block sizes against
/// [`numpy_keys`]; the value's bits are the element's own.
fn check_keys<T: Element>(x: &[T], k: &[f64], what: &str) {
    fn one<T: Element, D: Direction>(x: &[T], k: &[f64], what: &str) {
        let want = numpy_keys(k, D::LARGEST, D::SKIP_NAN);
        // The default kernel, then each run-time candidate (`lean.rs`), on the same shapes.
        let kernels: [(&str, ItemEntry<T>, ItemEntry<T>); 4] = [
            ("default", entry::<T, D, 256>, entry::<T, D, 64>),
            ("unroll=8", entry_u8::<T, D, 256>, entry_u8::<T, D, 64>),
            ("lane=loop", entry_lean::<T, D, 256>, entry_lean::<T, D, 64>),
            (
                "unroll=8,lane=loop",
                entry_lean8::<T, D, 256>,
                entry_lean8::<T, D, 64>,
            ),
        ];
        for ((grid, block), (kernel, e256, e64)) in [(1usize, 256), (3, 64), (16, 64)]
            .into_iter()
            .flat_map(|s| kernels.map(|k| (s, k)))
        {
            let e = if block == 256 { e256 } else { e64 };
            let got = run_entry(e, block, x, grid);
            let what = &std::format!("{what} ({kernel})");
            {
                match want {
                    Some(i) => {
                        assert_eq!(
                            got.index,
                            i as u64,
                            "{} of {what}, grid {grid}, block {block}",
                            D::NAME
                        );
                        assert_eq!(
                            got.value.to_bits64(),
                            x[i].to_bits64(),
                            "{} of {what}",
                            D::NAME
                        );
                    }
                    // All NaN (nanarg*): the first NaN, or the identity for an empty input.
                    None => assert!(
                        got.index == NO_INDEX || k[got.index as usize].is_nan(),
                        "{} of {what}: {got:?}",
                        D::NAME
                    ),
                }
            }
        }
    }
    one::<T, ArgMin>(x, k, what);
    one::<T, ArgMax>(x, k, what);
    one::<T, NanArgMin>(x, k, what);
    one::<T, NanArgMax>(x, k, what);
}

/// The edges of the issue for one float type given as `from_f32`/`to_f64` conversions.
fn float_edges<T: Element>(from: impl Fn(f32) -> T, key: impl Fn(T) -> f64, tiny: f32, name: &str) {
    let case = |v: &[f32], what: &str| {
        let x: Vec<T> = v.iter().map(|&f| from(f)).collect();
        let k: Vec<f64> = x.iter().map(|&t| key(t)).collect();
        check_keys(&x, &k, &std::format!("{name} {what}"));
        // Shifted by one element: the 16-byte boundary moves.
        if x.len() > 1 {
            check_keys(&x[1..], &k[1..], &std::format!("{name} {what}, from 1"));
        }
    };
    let nan = f32::NAN;
    case(&[1.5], "one element");
    case(&[nan], "one NaN");
    case(&[nan, nan, nan], "all NaN");
    case(&[0.0, -0.0, 0.0, -0.0], "zeros of both signs");
    case(&[-0.0, 0.0, -0.0], "zeros, negative first");
    case(
        &[1.0, f32::INFINITY, -f32::INFINITY, 2.0, f32::INFINITY],
        "infinities",
    );
    case(&[tiny, -tiny, 0.0, 2.0 * tiny, -2.0 * tiny], "subnormals");
    for n in [9usize, 33, 1025, 4097] {
        let base: Vec<f32> = noise(n, 37).map(|v| v as f32 - 18.0).collect();
        case(&base, &std::format!("{n} with ties"));
        for at in [0, n / 2, n - 1] {
            let mut v = base.clone();
            v[at] = nan;
            if at + 3 < n {
                v[at + 3] = nan;
            }
            case(&v, &std::format!("{n}, NaN at {at}"));
        }
    }
}

#[test]
fn halves_f32_and_f64_follow_numpy_on_every_edge() {
    use crate::half::{Bf16, F16};
    float_edges(F16::from_f32, |h| h.to_f32() as f64, 6.0e-8, "f16");
    float_edges(Bf16::from_f32, |h| h.to_f32() as f64, 1.0e-39, "bf16");
    float_edges(|f| f, |f| f as f64, 1.0e-45, "f32");
    float_edges(|f| f as f64, |f| f, 1.0e-45, "f64");
}

#[test]
fn integers_follow_numpy_at_tile_edges() {
    for n in [1usize, 5, 1023, 1024, 1025, 4097] {
        let x: Vec<i32> = noise(n, 11).map(|v| v as i32 - 5).collect();
        let k: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        check_keys(&x, &k, "i32");
        let y: Vec<u64> = noise(n, 5).map(|v| v * (u64::MAX / 4)).collect();
        let k: Vec<f64> = y.iter().map(|&v| (v / (u64::MAX / 4)) as f64).collect();
        check_keys(&y, &k, "u64");
    }
}

#[test]
fn the_position_bound_is_conservative() {
    // A thread's vectors: at most n / (grid * block) + UNROLL; the bound allows up to 2^32 - 2.
    assert!(fits_positions(1 << 40, 528, 256));
    assert!(fits_positions(1 << 50, 1 << 20, 1024));
    assert!(!fits_positions(1 << 40, 1, 128));
    assert!(!fits_positions(usize::MAX, 1, 256));
}

#[test]
fn every_kernel_agrees_on_ramps_and_late_extremes() {
    // Rising: the best changes in every vector (the lean loop's lane lookup runs each time);
    // falling: never after the first; a wave with ties across vectors; many vectors per thread.
    let n = 20011;
    let rising: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let falling: Vec<f32> = rising.iter().rev().copied().collect();
    let wave: Vec<f32> = (0..n).map(|i| ((i * 7919) % 257) as f32).collect();
    for (x, what) in [(&rising, "rising"), (&falling, "falling"), (&wave, "wave")] {
        let k: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        check_keys(&x[..], &k, what);
        check_keys(&x[3..], &k[3..], what);
        let mut late = x.clone();
        late[n - 5] = f32::NAN;
        late[n - 2] = f32::NAN;
        let k: Vec<f64> = late.iter().map(|&v| v as f64).collect();
        check_keys(&late, &k, &std::format!("{what}, NaN late"));
        let d: Vec<f64> = x.iter().map(|&v| v as f64 * -0.5).collect();
        check_keys(&d[1..], &d[1..], &std::format!("{what}, f64"));
    }
}
