//! The warp trees and the element block fold on the emulator: which lanes end with which totals,
//! and in which order they were combined.

use super::{block, warp};
use crate::emu::{launch, LaunchConfig};
use crate::gpu::Shared;
use crate::ops::{Max, Sum};
use crate::thread;
use std::sync::Mutex;
use std::vec;
use std::vec::Vec;

/// Run `f(thread)` on one block of `block_dim` threads with `shared_bytes` of shared memory and
/// return each thread's result.
fn per_thread<T: Copy + Default + Send>(
    block_dim: usize,
    shared_bytes: usize,
    f: impl Fn(u32) -> T + Sync,
) -> Vec<T> {
    let seen = Mutex::new(vec![T::default(); block_dim]);
    let cfg = LaunchConfig {
        grid_dim: 1,
        block_dim,
        shared_bytes,
    };
    launch(cfg, &|| {
        let t = thread::thread_idx_x();
        let v = f(t);
        seen.lock().unwrap()[t as usize] = v;
    })
    .unwrap();
    seen.into_inner().unwrap()
}

/// A combine that is not commutative: `a·1000003 + b` records the order of its operands.
fn ordered(a: u64, b: u64) -> u64 {
    a.wrapping_mul(1_000_003).wrapping_add(b)
}

#[test]
fn tree_combines_lane_l_with_lane_l_plus_offset_down_to_lane_0() {
    let got = per_thread(32, 0, |t| {
        warp::tree(t as u64 + 1, 16, |v, o| {
            ordered(v, crate::Element::shfl_down(v, o))
        })
    });
    // The same tree on the host: lane `l` takes lane `l + o`'s value (its own past lane 31).
    let mut lanes: Vec<u64> = (1..=32).collect();
    let mut o = 16;
    while o > 0 {
        lanes = (0..32)
            .map(|l| ordered(lanes[l], lanes[if l + o < 32 { l + o } else { l }]))
            .collect();
        o /= 2;
    }
    assert_eq!(got[0], lanes[0]);
    let by_ref = per_thread(32, 0, |t| {
        let mut v = t as u64 + 1;
        warp::tree_mut(&mut v, 16, |v, o| {
            *v = ordered(*v, crate::Element::shfl_down(*v, o))
        });
        v
    });
    assert_eq!(by_ref[0], lanes[0]);
}

#[test]
fn reduce_group_gives_lane_0_of_each_group_its_groups_total() {
    for g in [1usize, 2, 4, 8, 16, 32] {
        let got = per_thread(64, 0, |t| warp::reduce_group::<u32, Sum>(t + 1, g));
        for first in (0..64).step_by(g) {
            let want: u32 = (first as u32 + 1..=(first + g) as u32).sum();
            assert_eq!(got[first], want, "g {g}, group at {first}");
        }
    }
}

#[test]
fn reduce_strided_gives_lane_c_the_total_of_lanes_c_plus_multiples_of_w() {
    for w in [1usize, 2, 4, 8, 16, 32] {
        let got = per_thread(32, 0, |t| {
            warp::reduce_strided::<u64, Sum>(t as u64 * 7 + 1, w)
        });
        for (c, &lane) in got.iter().enumerate().take(w.min(16)) {
            let want: u64 = (c..32).step_by(w).map(|l| l as u64 * 7 + 1).sum();
            assert_eq!(lane, want, "w {w}, lane {c}");
        }
        if w == 32 {
            // Past 16 there is nothing to fold: every lane keeps its own value.
            assert_eq!(got[5], 36);
        }
    }
}

#[test]
fn reduce_op_and_block_reduce_op_give_lane_and_thread_0_the_total() {
    let got = per_thread(64, 0, |t| {
        warp::reduce_op::<i64, Max>(((t as i64) * 37) % 61 - 30)
    });
    let want = |r: core::ops::Range<i64>| r.map(|t| (t * 37) % 61 - 30).max().unwrap();
    assert_eq!((got[0], got[32]), (want(0..32), want(32..64)));
    let got = per_thread(256, 8 * 8, |t| {
        // SAFETY: the launch reserves 8 elements of 8 bytes.
        let smem = unsafe { Shared::<f64>::dynamic(8) };
        block::reduce_op::<f64, Sum, 256>(t as f64 * 0.5, smem)
    });
    assert_eq!(got[0], (0..256).map(|t| t as f64 * 0.5).sum::<f64>());
}
