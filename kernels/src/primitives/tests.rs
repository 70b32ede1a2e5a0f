//! The primitives on the emulator, with items that are not scalars.

use super::device::{item_pass, reduce};
use super::{block, Combine, Item, Words, DEFAULT_POLICY, MAX_WORDS};
use crate::emu::{launch, LaunchConfig};
use std::vec;
use std::vec::Vec;

/// `(min, max)` of `f32`s, as a pair (the tuple impl of [`Item`]).
struct MinMax;
impl Combine for MinMax {
    type Item = (f32, f32);
    fn identity() -> (f32, f32) {
        (f32::INFINITY, f32::NEG_INFINITY)
    }
    fn combine(a: (f32, f32), b: (f32, f32)) -> (f32, f32) {
        (a.0.min(b.0), a.1.max(b.1))
    }
}

/// A `(count, sum)` struct with its own [`Item`] impl: 4 words.
#[derive(Clone, Copy, Debug, PartialEq)]
struct CountSum {
    count: u64,
    sum: i64,
}
impl Item for CountSum {
    const WORDS: usize = 4;
    fn to_words(self) -> Words {
        (self.count, self.sum).to_words()
    }
    fn from_words(w: &Words) -> Self {
        let (count, sum) = <(u64, i64)>::from_words(w);
        CountSum { count, sum }
    }
}
struct CountSumOfOdd;
impl Combine for CountSumOfOdd {
    type Item = CountSum;
    fn identity() -> CountSum {
        CountSum { count: 0, sum: 0 }
    }
    fn combine(a: CountSum, b: CountSum) -> CountSum {
        CountSum {
            count: a.count + b.count,
            sum: a.sum.wrapping_add(b.sum),
        }
    }
}

/// Run `device::reduce::<C, BLOCK, 4>` over `input` on `grid` blocks through the item ABI.
fn run<T: crate::Element, C: Combine, const BLOCK: usize>(
    input: &[T],
    grid: usize,
    load: impl Fn(T) -> C::Item + Sync,
) -> C::Item {
    let words = <C::Item as Item>::WORDS;
    let partials = vec![0u32; grid * words];
    let mut counter = 0u32;
    let out = vec![0u32; words];
    let (i, p, c, o) = (
        input.as_ptr() as usize,
        partials.as_ptr() as usize,
        &mut counter as *mut u32 as usize,
        out.as_ptr() as usize,
    );
    let n = input.len();
    let cfg = LaunchConfig {
        grid_dim: grid,
        block_dim: BLOCK,
        shared_bytes: block::shared_words(BLOCK, words) * 4,
    };
    launch(cfg, &|| {
        // SAFETY: the vectors above outlive the launch and have the sizes the item ABI needs.
        unsafe {
            item_pass::<T, C::Item>(
                |input, ws, out| {
                    reduce::<C, BLOCK, 4>(n, |k| load(input.get(k)), C::identity(), ws, out)
                },
                i as *const T,
                n,
                p as *mut u32,
                c as *mut u32,
                o as *mut u32,
            )
        }
    })
    .unwrap();
    assert_eq!(counter, 0, "the last block resets the counter");
    let mut w = [0u32; MAX_WORDS];
    w[..words].copy_from_slice(&out);
    C::Item::from_words(&w)
}

fn data(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i as u64 * 2_654_435_761) % 10_007) as f32 - 5_000.5)
        .collect()
}

#[test]
fn min_max_pair_matches_the_cpu_on_odd_sizes_and_grids() {
    for n in [0usize, 1, 31, 33, 257, 1000, 4097, 20_011] {
        let x = data(n);
        let want = x
            .iter()
            .fold(MinMax::identity(), |a, &v| MinMax::combine(a, (v, v)));
        for grid in [1usize, 3, 7] {
            let got = run::<f32, MinMax, 64>(&x, grid, |v| (v, v));
            assert_eq!(got, want, "n = {n}, grid = {grid}");
            let got = run::<f32, MinMax, 256>(&x, grid, |v| (v, v));
            assert_eq!(got, want, "n = {n}, grid = {grid}, block 256");
        }
    }
}

#[test]
fn count_sum_struct_counts_the_odd_elements() {
    for n in [1usize, 63, 65, 5000, 33_333] {
        let x: Vec<i64> = (0..n as i64).map(|i| i * 7 - 1000).collect();
        let odd: Vec<i64> = x.iter().copied().filter(|v| v % 2 != 0).collect();
        let want = CountSum {
            count: odd.len() as u64,
            sum: odd.iter().sum(),
        };
        for grid in [1usize, 2, 5] {
            let got = run::<i64, CountSumOfOdd, 128>(&x, grid, |v| {
                let odd = v % 2 != 0;
                CountSum {
                    count: odd as u64,
                    sum: if odd { v } else { 0 },
                }
            });
            assert_eq!(got, want, "n = {n}, grid = {grid}");
        }
    }
}

#[test]
fn a_float_sum_is_the_same_bits_on_every_run() {
    struct Sum;
    impl Combine for Sum {
        type Item = f32;
        fn identity() -> f32 {
            0.0
        }
        fn combine(a: f32, b: f32) -> f32 {
            a + b
        }
    }
    let x = data(12_345);
    let first = run::<f32, Sum, 64>(&x, 5, |v| v * 1e-3);
    for _ in 0..3 {
        assert_eq!(
            run::<f32, Sum, 64>(&x, 5, |v| v * 1e-3).to_bits(),
            first.to_bits()
        );
    }
}

#[test]
fn a_launch_with_another_block_size_stops_with_an_error() {
    let x = data(100);
    let partials = [0u32; 2];
    let mut counter = 0u32;
    let out = [0u32; 2];
    let (i, p, c, o) = (
        x.as_ptr() as usize,
        partials.as_ptr() as usize,
        &mut counter as *mut u32 as usize,
        out.as_ptr() as usize,
    );
    let cfg = LaunchConfig {
        grid_dim: 1,
        block_dim: 32,
        shared_bytes: 64,
    };
    let r = launch(cfg, &|| {
        // SAFETY: as in `run`.
        unsafe {
            item_pass::<f32, (f32, f32)>(
                |input, ws, out| {
                    reduce::<MinMax, 64, 4>(
                        100,
                        |k| (input.get(k), input.get(k)),
                        MinMax::identity(),
                        ws,
                        out,
                    )
                },
                i as *const f32,
                100,
                p as *mut u32,
                c as *mut u32,
                o as *mut u32,
            )
        }
    });
    assert!(r.is_err(), "blockDim 32 for a BLOCK = 64 kernel");
}

#[test]
fn items_round_trip_through_words() {
    let v = ((1.5f32, -2i32), (u64::MAX - 3, -0.0f64));
    assert_eq!(<((f32, i32), (u64, f64))>::WORDS, 6);
    let back = <((f32, i32), (u64, f64))>::from_words(&v.to_words());
    assert_eq!(back.0, v.0);
    assert_eq!(back.1 .0, v.1 .0);
    assert_eq!(back.1 .1.to_bits(), v.1 .1.to_bits());
    assert_eq!(DEFAULT_POLICY.grid(0, 132), 1);
    assert_eq!(DEFAULT_POLICY.grid(1 << 30, 132), 132 * 4);
    assert_eq!(DEFAULT_POLICY.grid(1025, 132), 2);
}

#[test]
fn the_written_out_walk_visits_what_the_loop_visits_in_the_same_order() {
    use super::tiles::{for_each, for_each_unrolled, EvenShare};
    fn both<const BLOCK: usize, const UNROLL: usize>(count: usize, grid: usize) {
        for block in 0..grid {
            let share = EvenShare::new(count, BLOCK * UNROLL, grid, block);
            for tid in [0, 1, BLOCK / 2, BLOCK - 1] {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                let load = |i: usize| {
                    assert!(
                        share.start <= i && i < share.end,
                        "load({i}) out of the share"
                    );
                    i * 3
                };
                for_each::<usize, BLOCK, UNROLL>(share, tid, load, |i, x| a.push((i, x)));
                for_each_unrolled::<usize, BLOCK, UNROLL>(share, tid, load, |i, x| b.push((i, x)));
                assert_eq!(a, b, "count {count}, grid {grid}, block {block}, tid {tid}");
                assert!(a.windows(2).all(|w| w[0].0 < w[1].0), "increasing order");
            }
        }
    }
    for count in [0usize, 1, 31, 32, 255, 256, 257, 1000, 4099] {
        for grid in [1usize, 3, 7] {
            both::<32, 4>(count, grid);
            both::<32, 8>(count, grid);
            both::<64, 1>(count, grid);
            both::<32, 3>(count, grid);
        }
    }
}
