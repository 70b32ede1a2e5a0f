//! This crate's kernels, compiled for the host, run on the CPU emulator through the host
//! library's generic launch API (`CustomReduction`), checked against a plain fold.

use custom_op::{MinMaxAbs, BLOCK};
use reduce_host::{Backend, BackendChoice, CustomKernel, CustomReduction, ReduceError};

fn emu() -> Backend {
    Backend::open(BackendChoice::Emu).unwrap()
}

/// The kernels as the emulator loads them (the PTX text is only read on a GPU).
fn minmaxabs() -> CustomKernel<'static, f32> {
    CustomKernel {
        symbol: "custom_minmaxabs_f32",
        ptx: "",
        emulated: Some(custom_op::custom_minmaxabs_f32),
        block: BLOCK,
    }
}

fn data(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i as u64 * 2_654_435_761 % 100_003) as f32 - 50_001.5) * 0.37)
        .collect()
}

#[test]
fn min_max_and_max_abs_match_a_fold_at_awkward_sizes() {
    let b = emu();
    // SAFETY: `custom_minmaxabs_f32` is an item kernel for f32 → MinMaxAbs with BLOCK threads.
    let op = unsafe { CustomReduction::<f32, MinMaxAbs>::load(&b, minmaxabs()) }.unwrap();
    for n in [1usize, 2, 31, 255, 257, 1000, 65_537, 300_001] {
        let x = data(n);
        let want = MinMaxAbs {
            min: x.iter().copied().fold(f32::INFINITY, f32::min),
            max: x.iter().copied().fold(f32::NEG_INFINITY, f32::max),
            max_abs: x.iter().map(|v| v.abs()).fold(0.0, f32::max),
        };
        let got = op.reduce(&b.upload(&x).unwrap()).unwrap();
        assert_eq!(got, want, "n = {n}");
    }
    // Nothing: the identity.
    let got = op.reduce(&b.upload::<f32>(&[]).unwrap()).unwrap();
    assert_eq!(got.max_abs, 0.0);
    assert_eq!(got.min, f32::INFINITY);
}

#[test]
fn max_abs_f64_and_offsets() {
    let b = emu();
    let k = CustomKernel {
        symbol: "custom_maxabs_f64",
        ptx: "",
        emulated: Some(custom_op::custom_maxabs_f64),
        block: BLOCK,
    };
    // SAFETY: `custom_maxabs_f64` is an item kernel for f64 → f64 with BLOCK threads.
    let op = unsafe { CustomReduction::<f64, f64>::load(&b, k) }.unwrap();
    let x: Vec<f64> = (0..10_007)
        .map(|i| (i as f64 * 0.731).sin() * 1e300)
        .collect();
    let input = b.upload(&x).unwrap();
    let p = op.prepare(5000).unwrap();
    p.enqueue(&input, 3).unwrap();
    let want = x[3..5003].iter().map(|v| v.abs()).fold(0.0, f64::max);
    assert_eq!(p.read().unwrap(), want);
    // A view (as borrowed device memory would be) takes the same path.
    p.enqueue_view(input.slice(3..5003).unwrap()).unwrap();
    assert_eq!(p.read().unwrap(), want);
    assert_eq!(op.reduce(input.slice(3..5003).unwrap()).unwrap(), want);
    // SAFETY: the emulator runs it before returning; `input` outlives it.
    unsafe { p.enqueue_on(std::ptr::null_mut(), input.slice(3..5003).unwrap()) }.unwrap();
    assert_eq!(p.read().unwrap(), want);
    // Checked like every launch: a range past the end, a buffer of another backend.
    assert!(matches!(
        p.enqueue(&input, 5008),
        Err(ReduceError::OutOfBounds { .. })
    ));
    let other = emu();
    assert!(matches!(
        op.reduce(&other.upload(&x).unwrap()),
        Err(ReduceError::ForeignBuffer { .. })
    ));
}

#[test]
fn a_block_size_the_primitives_cannot_run_is_a_typed_error() {
    let b = emu();
    for block in [0, 48, 2048] {
        let k = CustomKernel {
            block,
            ..minmaxabs()
        };
        // SAFETY: as above; the block size is what is being checked (before any launch).
        let r = unsafe { CustomReduction::<f32, MinMaxAbs>::load(&b, k) };
        assert!(
            matches!(r, Err(ReduceError::InvalidArgument(_))),
            "block {block}"
        );
    }
    // A PTX-only kernel cannot run on the emulator.
    let k = CustomKernel {
        emulated: None,
        ..minmaxabs()
    };
    // SAFETY: as above.
    let r = unsafe { CustomReduction::<f32, MinMaxAbs>::load(&b, k) };
    assert!(matches!(r, Err(ReduceError::InvalidArgument(_))));
    // A block size the kernel was not built for: the kernel stops, reported as an error.
    let k = CustomKernel {
        block: 128,
        ..minmaxabs()
    };
    // SAFETY: as above (the primitives check blockDim.x on entry).
    let op = unsafe { CustomReduction::<f32, MinMaxAbs>::load(&b, k) }.unwrap();
    assert!(matches!(
        op.reduce(&b.upload(&data(1000)).unwrap()),
        Err(ReduceError::Emulator { .. })
    ));
}
