//! The emulator's own tests: barriers, shuffles, votes, the race and bounds detectors, atomics.

use super::*;
use crate::gpu::{self, Counter, Shared};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;
use std::vec;

fn cfg(grid_dim: usize, block_dim: usize, shared_bytes: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim,
        block_dim,
        shared_bytes,
    }
}

#[test]
fn shuffle_down_reads_the_lane_delta_places_up_and_clamps() {
    let seen = Mutex::new(vec![0u32; 64]);
    launch(cfg(1, 64, 0), &|| {
        let t = gpu::thread_idx();
        let v = gpu::shfl_down_u32(t * 10, 3);
        seen.lock().unwrap()[t as usize] = v;
    })
    .unwrap();
    let seen = seen.into_inner().unwrap();
    for t in 0..64u32 {
        let lane = t % 32;
        let want = if lane + 3 < 32 { (t + 3) * 10 } else { t * 10 };
        assert_eq!(seen[t as usize], want, "thread {t}");
    }
}

#[test]
fn shuffle_by_index_reads_the_named_lane_of_its_own_warp() {
    let seen = Mutex::new(vec![0u32; 64]);
    launch(cfg(1, 64, 0), &|| {
        let t = gpu::thread_idx();
        // Lane l reads lane (7 l + 3) mod 32 (and 35 reads lane 3: the source is taken mod 32).
        let v = gpu::shfl_idx_u32(
            t * 10,
            (7 * (t % 32) + 3) % 32 + if t == 5 { 32 } else { 0 },
        );
        seen.lock().unwrap()[t as usize] = v;
    })
    .unwrap();
    let seen = seen.into_inner().unwrap();
    for t in 0..64u32 {
        let src = (t / 32) * 32 + (7 * (t % 32) + 3) % 32;
        assert_eq!(seen[t as usize], src * 10, "thread {t}");
    }
}

#[test]
fn ballot_has_one_bit_per_lane_that_voted_true() {
    let seen = Mutex::new(vec![0u32; 64]);
    launch(cfg(1, 64, 0), &|| {
        let t = gpu::thread_idx();
        // Warp 0: lanes divisible by 3; warp 1: lane 31 only.
        let vote = if t < 32 { t.is_multiple_of(3) } else { t == 63 };
        seen.lock().unwrap()[t as usize] = gpu::ballot(vote);
    })
    .unwrap();
    let want0 = (0..32).filter(|l| l % 3 == 0).fold(0u32, |m, l| m | 1 << l);
    let seen = seen.into_inner().unwrap();
    assert!(seen[..32].iter().all(|&b| b == want0), "{:x?}", &seen[..32]);
    assert!(
        seen[32..].iter().all(|&b| b == 1 << 31),
        "{:x?}",
        &seen[32..]
    );
}

#[test]
fn shuffling_from_a_lane_a_partial_warp_lacks_is_reported() {
    // 40 threads: warp 1 has lanes 0..8; reading its lane 20 is undefined on the GPU.
    let r = launch(cfg(1, 40, 0), &|| {
        let _ = gpu::shfl_idx_u32(1, 20);
    });
    assert!(
        matches!(&r, Err(EmuError::Panic { message, .. }) if message.contains("does not have")),
        "{r:?}"
    );
}

#[test]
fn sync_threads_or_is_true_everywhere_when_any_thread_votes() {
    let votes = AtomicU32::new(0);
    launch(cfg(3, 96, 0), &|| {
        let first = gpu::sync_threads_or(gpu::thread_idx() == 70 && gpu::block_idx() == 1);
        let second = gpu::sync_threads_or(false);
        if first && !second {
            votes.fetch_add(1, Ordering::Relaxed);
        } else if !first && gpu::block_idx() == 1 {
            panic!("block 1 must see the vote");
        }
    })
    .unwrap();
    assert_eq!(
        votes.into_inner(),
        96,
        "exactly block 1's threads see a true vote"
    );
}

#[test]
fn a_barrier_some_threads_skip_is_reported() {
    let r = launch(cfg(1, 64, 0), &|| {
        if gpu::thread_idx() == 0 {
            return; // exits before the barrier the others wait at
        }
        gpu::sync_threads();
    });
    assert_eq!(
        r,
        Err(EmuError::BarrierDivergence {
            block: 0,
            waiting: 63,
            exited: 1
        })
    );
}

#[test]
fn a_warp_barrier_half_a_warp_reaches_is_a_deadlock() {
    let r = launch(cfg(1, 32, 0), &|| {
        if gpu::thread_idx() < 16 {
            gpu::sync_warp();
        }
    });
    assert!(
        matches!(r, Err(EmuError::Deadlock { block: 0, .. })),
        "{r:?}"
    );
}

#[test]
fn reading_shared_memory_nobody_wrote_is_reported() {
    let r = launch(cfg(1, 32, 32 * 4), &|| {
        // SAFETY: the launch reserves 32 f32.
        let s = unsafe { Shared::<f32>::dynamic(32) };
        let _ = s.get(gpu::thread_idx());
    });
    assert!(
        matches!(r, Err(EmuError::UninitializedSharedRead { block: 0, .. })),
        "{r:?}"
    );
}

#[test]
fn reads_by_several_warps_then_a_barrier_then_a_write_are_ordered() {
    // Threads of two warps read word 0; after a block barrier thread 31 overwrites it: no race
    // (the barrier orders every read before the write). Without the barrier it is one.
    for barrier in [true, false] {
        let r = launch(cfg(1, 64, 8), &|| {
            // SAFETY: the launch reserves 2 u32.
            let s = unsafe { Shared::<u32>::dynamic(2) };
            let t = gpu::thread_idx();
            if t == 0 {
                s.set(0, 1);
            }
            gpu::sync_threads();
            if t == 31 || t == 32 {
                let _ = s.get(0);
            }
            if barrier {
                gpu::sync_threads();
            }
            if t == 31 {
                s.set(0, 2);
            }
        });
        assert_eq!(r.is_ok(), barrier, "barrier={barrier}: {r:?}");
    }
}

#[test]
fn an_unordered_write_and_read_race_whatever_the_schedule() {
    // Thread 1 writes what thread 0 reads, with no barrier. Thread 0 runs first in the
    // emulator's schedule (it reads before the write: write-after-read), and a barrier-free
    // read after a write by the other thread would be read-after-write; both are races.
    for reader_first in [true, false] {
        let r = launch(cfg(1, 2, 8), &|| {
            // SAFETY: the launch reserves 2 u32.
            let s = unsafe { Shared::<u32>::dynamic(2) };
            let t = gpu::thread_idx();
            s.set(t, t); // each thread's own word: fine
            gpu::sync_threads();
            let (reader, writer) = if reader_first { (0, 1) } else { (1, 0) };
            if t == writer {
                s.set(0, 7);
            }
            if t == reader {
                let _ = s.get(0);
            }
        });
        assert!(
            matches!(r, Err(EmuError::SharedRace { .. })),
            "reader_first={reader_first}: {r:?}"
        );
    }
    // The same with a barrier between the write and the read is clean.
    launch(cfg(1, 2, 8), &|| {
        // SAFETY: the launch reserves 2 u32.
        let s = unsafe { Shared::<u32>::dynamic(2) };
        if gpu::thread_idx() == 1 {
            s.set(0, 7);
        }
        gpu::sync_threads();
        if gpu::thread_idx() == 0 {
            assert_eq!(s.get(0), 7);
        }
    })
    .unwrap();
}

#[test]
fn shared_memory_past_the_reservation_is_reported() {
    let r = launch(cfg(1, 32, 16), &|| {
        // A view claiming 32 elements where the launch reserved 4: the emulator checks the
        // reservation itself (an emulator test of that check).
        // SAFETY: not met on purpose; the emulator checks every access against the launch.
        let s = unsafe { Shared::<u32>::dynamic(32) };
        s.set(gpu::thread_idx(), 1);
    });
    assert!(
        matches!(r, Err(EmuError::SharedOutOfBounds { reserved: 16, .. })),
        "{r:?}"
    );
}

#[test]
fn atomics_count_across_concurrent_blocks() {
    let mut counter = 0u32;
    let addr = &mut counter as *mut u32 as usize; // device memory is an address
    launch(cfg(200, 32, 0), &|| {
        if gpu::thread_idx() == 0 {
            // SAFETY: `counter` outlives the launch and is only used atomically meanwhile.
            unsafe { Counter::from_raw(addr as *mut u32) }.take_ticket();
        }
    })
    .unwrap();
    assert_eq!(counter, 200);
}

#[test]
fn launch_shapes_are_validated() {
    for (g, b, s) in [
        (0, 32, 0),
        (1, 0, 0),
        (1, 1025, 0),
        (1, 32, MAX_SHARED_BYTES + 1),
    ] {
        assert!(matches!(
            launch(cfg(g, b, s), &|| {}),
            Err(EmuError::InvalidLaunch(_))
        ));
    }
}
