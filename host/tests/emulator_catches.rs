//! Proof that the emulator catches real kernel bugs — the seeds' racy last warp, a missing
//! barrier, too little shared memory, reads past `n` — and that bad launch shapes are typed
//! errors. These run in CI, which has no GPU.

mod common;

use common::*;
use reduce_host::*;
use reduce_kernels::emu::{EmuError, RaceKind};

fn emu() -> Backend {
    Backend::Emulator(Emulator::default())
}

fn launch_broken(kernel: &str, n: usize) -> Result<(), ReduceError> {
    let b = emu();
    let input = b.upload(&data::<f32>(n, 4)).unwrap();
    let out = b.zeroed::<f32>(1).unwrap();
    // SAFETY: live f32 buffers of `b`: `n` inputs and one partial for one block of 256 threads
    // with 256 floats of shared memory (the multi-pass ABI); the emulator runs synchronously.
    unsafe {
        b.launch::<f32>(&Launch {
            kernel,
            grid: 1,
            block: 256,
            shared_bytes: 256 * 4,
            args: KernelArgs::MultiPass {
                input: input.addr(0),
                n,
                partials: out.addr(0),
            },
        })
    }
}

#[test]
fn emulator_catches_the_seeds_racy_last_warp() {
    // The seeds' volatile warp-synchronous code: a race on Volta and later. The detector reports
    // it on every run, whatever the schedule.
    for _ in 0..3 {
        match launch_broken("reduce_broken_racy_last_warp_f32", 512) {
            Err(ReduceError::Emulator {
                source: EmuError::SharedRace { block: 0, .. },
                ..
            }) => {}
            other => panic!("expected a shared-memory race, got {other:?}"),
        }
    }
    // The same stage with __syncwarp() is clean.
    launch_ok("reduce_s5_unroll_last_warp_f32");
}

fn launch_ok(kernel: &str) {
    let b = emu();
    let input = b.upload(&data::<f32>(512, 4)).unwrap();
    let out = b.zeroed::<f32>(1).unwrap();
    // SAFETY: as in `launch_broken`, with 512 inputs.
    unsafe {
        b.launch::<f32>(&Launch {
            kernel,
            grid: 1,
            block: 256,
            shared_bytes: 256 * 4,
            args: KernelArgs::MultiPass {
                input: input.addr(0),
                n: 512,
                partials: out.addr(0),
            },
        })
    }
    .unwrap();
}

#[test]
fn emulator_catches_a_missing_barrier() {
    match launch_broken("reduce_broken_missing_barrier_f32", 256) {
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
    launch_ok("reduce_s3_sequential_f32");
}

#[test]
fn emulator_reports_too_little_shared_memory() {
    let b = emu();
    let input = b.upload(&data::<f32>(256, 4)).unwrap();
    let out = b.zeroed::<f32>(1).unwrap();
    // SAFETY: live buffers of `b` for one block; the shared memory is too small on purpose, which
    // the emulator checks (this is the emulator's own test of that check, not a GPU launch).
    let r = unsafe {
        b.launch::<f32>(&Launch {
            kernel: "reduce_s3_sequential_f32",
            grid: 1,
            block: 256,
            shared_bytes: 128 * 4, // half of what the stage needs
            args: KernelArgs::MultiPass {
                input: input.addr(0),
                n: 256,
                partials: out.addr(0),
            },
        })
    };
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
    let b = emu();
    let input = b.upload(&data::<f32>(100, 4)).unwrap();
    let out = b.zeroed::<f32>(1).unwrap();
    // SAFETY: 100 inputs (n = 100) and one partial for one block: the kernel's guards keep every
    // read below 100 (the checked accessors would report any other read).
    let r = unsafe {
        b.launch::<f32>(&Launch {
            kernel: "reduce_s3_sequential_f32",
            grid: 1,
            block: 256,
            shared_bytes: 256 * 4,
            args: KernelArgs::MultiPass {
                input: input.addr(0),
                n: 100,
                partials: out.addr(0),
            },
        })
    };
    assert!(r.is_ok(), "{r:?}");
}

#[test]
fn bad_launch_shapes_are_errors() {
    let b = emu();
    let input = b.upload(&data::<f32>(10, 4)).unwrap();
    let l = |grid, block| Launch {
        kernel: "reduce_s3_sequential_f32",
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
