//! Proof that the emulator catches real kernel bugs — the seeds' racy last warp, a missing
//! barrier, too little shared memory, reads past `n` — and that bad launch shapes are typed
//! errors. These run in CI, which has no GPU.

mod common;

use common::*;
use reduce_host::*;
use reduce_kernels::emu::{EmuError, RaceKind};
use reduce_kernels::table::{ElemType, Family, KernelId, Op};

fn emu() -> Backend {
    Backend::Emulator(Emulator::default())
}

/// The `f32` sum of `family` (a run-time block size: 256 names every block).
fn f32_sum(family: Family) -> KernelId {
    KernelId {
        family,
        ty: ElemType::F32,
        op: Op::Sum,
        block: 256,
    }
}

/// Launch `kernel` as one block of 256 threads with `shared_bytes` of shared memory on `n`
/// inputs (the multi-pass ABI, one partial out).
fn launch_one_block(kernel: KernelId, n: usize, shared_bytes: usize) -> Result<(), ReduceError> {
    let b = emu();
    let input = b.upload(&data::<f32>(n, 4)).unwrap();
    let out = b.zeroed::<f32>(1).unwrap();
    // SAFETY: live f32 buffers of `b`: `n` inputs and one partial for one block of 256 threads.
    // The emulator runs synchronously and checks every shared and global access, so a shared
    // memory too small for the stage (tested on purpose) or a read past `n` is a typed error.
    unsafe {
        b.launch::<f32>(&Launch {
            kernel,
            grid: 1,
            block: 256,
            shared_bytes,
            args: KernelArgs::MultiPass {
                input: input.addr(0),
                n,
                partials: out.addr(0),
            },
        })
    }
}

/// [`launch_one_block`] with the 256 floats of shared memory the stage needs.
fn launch_broken(kernel: KernelId, n: usize) -> Result<(), ReduceError> {
    launch_one_block(kernel, n, 256 * 4)
}

#[test]
fn emulator_catches_the_seeds_racy_last_warp() {
    // The seeds' volatile warp-synchronous code: a race on Volta and later. The detector reports
    // it on every run, whatever the schedule.
    for _ in 0..3 {
        match launch_broken(f32_sum(Family::BrokenRacyLastWarp), 512) {
            Err(ReduceError::Emulator {
                source: EmuError::SharedRace { block: 0, .. },
                ..
            }) => {}
            other => panic!("expected a shared-memory race, got {other:?}"),
        }
    }
    // The same stage with __syncwarp() is clean.
    launch_ok(f32_sum(Family::S5));
}

/// A clean launch of `kernel` on 512 inputs.
fn launch_ok(kernel: KernelId) {
    launch_broken(kernel, 512).unwrap();
}

#[test]
fn emulator_catches_a_missing_barrier() {
    match launch_broken(f32_sum(Family::BrokenMissingBarrier), 256) {
        Err(ReduceError::Emulator {
            source: EmuError::SharedRace { kind, .. },
            ..
        }) => {
            assert!(matches!(
                kind,
                RaceKind::ReadAfterWrite | RaceKind::WriteAfterRead
            ));
        }
        other => panic!("expected a shared-memory race, got {other:?}"),
    }
    launch_ok(f32_sum(Family::S3));
}

#[test]
fn emulator_reports_too_little_shared_memory() {
    // Half of what the stage needs: the emulator's own test of its shared-memory check.
    let r = launch_one_block(f32_sum(Family::S3), 256, 128 * 4);
    match r {
        Err(ReduceError::Emulator {
            source: EmuError::SharedOutOfBounds { reserved: 512, .. },
            ..
        }) => {}
        other => panic!("expected an out-of-bounds shared access, got {other:?}"),
    }
}

#[test]
fn emulator_launch_of_a_short_input_reads_only_n() {
    // The kernel's guards keep every read below 100 (the checked accessors would report any
    // other read).
    let r = launch_broken(f32_sum(Family::S3), 100);
    assert!(r.is_ok(), "{r:?}");
}

#[test]
fn bad_launch_shapes_are_errors() {
    let b = emu();
    let input = b.upload(&data::<f32>(10, 4)).unwrap();
    let l = |grid, block| Launch {
        kernel: f32_sum(Family::S3),
        grid,
        block,
        shared_bytes: 4 * block,
        args: KernelArgs::MultiPass {
            input: input.addr(0),
            n: 10,
            partials: input.addr(0),
        },
    };
    for (g, bl) in [(0, 32), (1, 0), (1, 2048)] {
        // SAFETY: every one of these shapes is rejected before any thread runs.
        match unsafe { b.launch::<f32>(&l(g, bl)) } {
            Err(ReduceError::Emulator {
                source: EmuError::InvalidLaunch(_),
                ..
            }) => {}
            other => panic!("grid {g} block {bl}: expected InvalidLaunch, got {other:?}"),
        }
    }
}

#[test]
fn a_launch_off_its_kernels_row_is_a_typed_error() {
    let b = emu();
    let input = b.upload(&data::<f32>(256, 4)).unwrap();
    let l = |kernel, block: usize| Launch {
        kernel,
        grid: 1,
        block,
        shared_bytes: 4 * block,
        args: KernelArgs::MultiPass {
            input: input.addr(0),
            n: 256,
            partials: input.addr(0),
        },
    };
    let s6 = f32_sum(Family::S6);
    // SAFETY: each of these launches is rejected before any thread runs.
    let another_block = unsafe { b.launch::<f32>(&l(s6, 128)) };
    assert!(
        matches!(another_block, Err(ReduceError::MissingKernel { .. })),
        "a const family's kernel with another block: {another_block:?}"
    );
    let s8 = KernelId {
        family: Family::S8,
        block: 512,
        ..s6
    };
    // SAFETY: as above.
    let another_abi = unsafe { b.launch::<f32>(&l(s8, 512)) };
    assert!(
        matches!(another_abi, Err(ReduceError::InvalidArgument(_))),
        "stage 8 with multi-pass arguments: {another_abi:?}"
    );
    // SAFETY: as above.
    let another_type = unsafe { b.launch::<f64>(&l(s6, 256)) };
    assert!(
        matches!(another_type, Err(ReduceError::InvalidArgument(_))),
        "an f32 kernel on f64 buffers: {another_type:?}"
    );
}
