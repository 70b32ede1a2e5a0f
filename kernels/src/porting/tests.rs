//! The `cuda_std`-style names on the emulator: the same values as the old names, the masks the
//! emulator accepts and the ones it refuses with a message.

use crate::emu::{launch, EmuError, LaunchConfig};
use crate::{gpu, shared, thread, warp};
use std::sync::Mutex;
use std::vec::Vec;
use std::{format, vec};

fn cfg(grid_dim: usize, block_dim: usize, shared_bytes: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim,
        block_dim,
        shared_bytes,
    }
}

#[test]
fn thread_names_give_the_launch_shape_and_the_1d_index() {
    let seen = Mutex::new(Vec::new());
    launch(cfg(3, 96, 0), &|| {
        let row = (
            thread::thread_idx_x(),
            thread::block_idx_x(),
            thread::block_dim_x(),
            thread::grid_dim_x(),
            thread::index_1d(),
            warp::lane_id(),
        );
        // The names of `gpu` are the same functions.
        assert_eq!(
            (row.0, row.1, row.2, row.3),
            (
                gpu::thread_idx(),
                gpu::block_idx(),
                gpu::block_dim(),
                gpu::grid_dim()
            )
        );
        seen.lock().unwrap().push(row);
    })
    .unwrap();
    let mut seen = seen.into_inner().unwrap();
    seen.sort_by_key(|r| r.4);
    assert_eq!(seen.len(), 3 * 96);
    for (i, &(t, b, bd, gd, idx, lane)) in seen.iter().enumerate() {
        assert_eq!((bd, gd), (96, 3));
        assert_eq!(idx as usize, i);
        assert_eq!((b * 96 + t) as usize, i);
        assert_eq!(lane, t % 32);
    }
}

#[test]
fn shfl_down_sync_moves_64_bit_values_and_clamps_at_lane_31() {
    let seen = Mutex::new(vec![(0u64, 0.0f64); 64]);
    launch(cfg(1, 64, 0), &|| {
        let t = thread::thread_idx_x();
        let big = (t as u64) << 40 | t as u64;
        // SAFETY: every lane of both whole warps calls both shuffles with the full mask.
        let (a, b) = unsafe {
            (
                warp::shfl_down_sync(warp::FULL_MASK, big, 5),
                warp::shfl_down_sync(warp::FULL_MASK, t as f64 + 0.5, 5),
            )
        };
        seen.lock().unwrap()[t as usize] = (a, b);
    })
    .unwrap();
    for (t, &(a, b)) in seen.into_inner().unwrap().iter().enumerate() {
        let src = if t % 32 + 5 < 32 { t + 5 } else { t } as u64;
        assert_eq!(a, src << 40 | src, "thread {t}");
        assert_eq!(b, src as f64 + 0.5, "thread {t}");
    }
}

#[test]
fn sync_warp_with_the_full_mask_runs_in_a_partial_last_warp() {
    // 48 threads: the second warp has 16 lanes; the full mask names lanes it does not have,
    // which CUDA allows (they have exited) and so does the emulator.
    let sdata = Mutex::new(vec![0u32; 48]);
    launch(cfg(1, 48, 48 * 4), &|| {
        let t = thread::thread_idx_x();
        // SAFETY: the launch reserves 48 u32 of shared memory.
        let s = unsafe { gpu::Shared::<u32>::dynamic(48) };
        s.set(t, t);
        // SAFETY: the full mask holds every lane; all lanes of both warps call it.
        unsafe { warp::sync_warp(warp::FULL_MASK) };
        let partner = (t / 32) * 32 + (t % 32 + 1) % if t < 32 { 32 } else { 16 };
        sdata.lock().unwrap()[t as usize] = s.get(partner);
    })
    .unwrap();
    let got = sdata.into_inner().unwrap();
    assert_eq!(got[0], 1);
    assert_eq!(got[31], 0);
    assert_eq!(got[47], 32);
}

#[test]
fn masks_the_emulator_cannot_run_are_reported_not_guessed() {
    let half = launch(cfg(1, 32, 0), &|| {
        // SAFETY: the emulator refuses this mask before anything happens.
        let _ = unsafe { warp::shfl_down_sync(0x0000_ffff, 1u32, 1) };
    });
    let msg = format!("{:?}", half.unwrap_err());
    assert!(
        msg.contains("leaves out the calling lane") || msg.contains("whole warps"),
        "{msg}"
    );
    let partial = launch(cfg(1, 32, 0), &|| {
        if thread::thread_idx_x() < 16 {
            // SAFETY: as above.
            unsafe { warp::sync_warp(0x0000_ffff) };
        }
    });
    match partial {
        Err(EmuError::Panic { message, .. }) => {
            assert!(message.contains("whole warps"), "{message}")
        }
        other => panic!("expected a panic naming the mask, got {other:?}"),
    }
}

#[test]
fn dynamic_shared_mem_is_one_aligned_buffer_per_block() {
    let bases = Mutex::new(Vec::new());
    launch(cfg(2, 64, 256), &|| {
        let p = shared::dynamic_shared_mem::<f64>();
        assert!((p as usize).is_multiple_of(16));
        bases
            .lock()
            .unwrap()
            .push((thread::block_idx_x(), p as usize));
    })
    .unwrap();
    let bases = bases.into_inner().unwrap();
    for b in 0..2 {
        let mut of_block = bases.iter().filter(|(blk, _)| *blk == b).map(|(_, p)| *p);
        let first = of_block.next().unwrap();
        assert!(of_block.all(|p| p == first), "one base per block");
    }
}
