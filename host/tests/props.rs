//! The property tests of every public entry point (`prop_checks`) on the CPU emulator, with case
//! counts small enough for CI; `tests/gpu.rs` runs the same properties with more cases on a GPU.
//! Each test prints one line: the property and how many cases it ran.

mod prop_checks;

use prop_checks::custom::MinMaxAbs;
use reduce_host::*;
use reduce_kernels::gpu::{Global, GlobalMut};
use reduce_kernels::primitives::device::{self, item_pass, Workspace};
use reduce_kernels::primitives::{Combine, DEFAULT_POLICY};

fn emu() -> Backend {
    Backend::open(BackendChoice::Emu).unwrap()
}

/// Run `property` on the emulator with its cases ([`prop_checks::emulator_cases`]) and report
/// the count.
fn check(name: &str, property: impl FnOnce(&Backend, u32) -> Result<prop_checks::Ran, String>) {
    let cases = prop_checks::emulator_cases(name);
    let ran = property(&emu(), cases).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("property {name}: {ran} on the emulator");
}

#[test]
fn stage8_ops() {
    check("stage8_ops", prop_checks::reduce::stage8_ops);
}

#[test]
fn wide_and_half_ops() {
    check("wide_and_half_ops", prop_checks::reduce::wide_and_half_ops);
}

#[test]
fn every_stage() {
    check("every_stage", prop_checks::reduce::every_stage);
}

#[test]
fn reducer_settings() {
    check("reducer_settings", prop_checks::settings::reducer_settings);
}

#[test]
fn stream_settings() {
    check("stream_settings", prop_checks::settings::stream_settings);
}

#[test]
fn transform_ops() {
    check("transform_ops", prop_checks::toolbox::transform_ops);
}

#[test]
fn arg_ops() {
    check("arg_ops", prop_checks::toolbox::arg_ops);
}

#[test]
fn exact_sums() {
    check("exact_sums", prop_checks::exact::exact_sums);
}

#[test]
fn matrix_ops() {
    check("matrix_ops", prop_checks::axis::matrix_ops);
}

#[test]
fn segment_ops() {
    check("segment_ops", prop_checks::axis::segment_ops);
}

#[test]
fn host_stream() {
    check("host_stream", prop_checks::stream::host_stream);
}

#[test]
fn axis_policies() {
    check("axis_policies", prop_checks::policy::axis_policies);
}

#[test]
fn arg_policies() {
    check("arg_policies", prop_checks::policy::arg_policies);
}

#[test]
fn exact_policies() {
    check("exact_policies", prop_checks::policy::exact_policies);
}

#[test]
fn multi_ranks() {
    for ranks in [1, 3] {
        let mut m = MultiReducer::emulated(ranks).unwrap();
        let ran =
            prop_checks::stream::multi_ranks(&mut m, prop_checks::emulator_cases("multi_ranks"))
                .unwrap_or_else(|e| panic!("{e}"));
        eprintln!("property multi_ranks ({ranks} ranks): {ran} on the emulator");
    }
}

/// `(min, max, max |x|)` of `f32`s with NaN ignored: the operator of `prop_checks::custom`,
/// written here as a user would (the GPU suite loads the same operator from
/// `examples/custom-op`'s PTX).
struct MinMaxAbsOp;

impl Combine for MinMaxAbsOp {
    type Item = MinMaxAbs;
    fn identity() -> MinMaxAbs {
        ((f32::INFINITY, f32::NEG_INFINITY), 0.0)
    }
    fn combine(a: MinMaxAbs, b: MinMaxAbs) -> MinMaxAbs {
        ((a.0 .0.min(b.0 .0), a.0 .1.max(b.0 .1)), a.1.max(b.1))
    }
}

fn minmaxabs_body(input: Global<f32>, ws: Workspace, out: GlobalMut<u32>) {
    device::reduce::<MinMaxAbsOp, { DEFAULT_POLICY.block }, { DEFAULT_POLICY.unroll }>(
        input.len(),
        |i| {
            let x = input.get(i);
            ((x, x), x.abs())
        },
        MinMaxAbsOp::identity(),
        ws,
        out,
    )
}

/// # Safety
/// `item_pass`'s contract with `I = MinMaxAbs`.
unsafe fn minmaxabs(
    input: *const f32,
    n: usize,
    partials: *mut u32,
    counter: *mut u32,
    out: *mut u32,
) {
    // SAFETY: this function's contract.
    unsafe { item_pass::<f32, MinMaxAbs>(minmaxabs_body, input, n, partials, counter, out) }
}

#[test]
fn custom_op() {
    let b = emu();
    let kernel = CustomKernel {
        symbol: "minmaxabs",
        ptx: "",
        emulated: Some(minmaxabs),
        block: DEFAULT_POLICY.block,
    };
    // SAFETY: `minmaxabs` is an item kernel for f32 → `((f32, f32), f32)` (three words, the
    // tuple's layout) with `DEFAULT_POLICY.block` threads.
    let op = unsafe { CustomReduction::<f32, MinMaxAbs>::load(&b, kernel) }.unwrap();
    let ran = prop_checks::custom::custom_op(&b, &op, prop_checks::emulator_cases("custom_op"))
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!("property custom_op: {ran} on the emulator");
}

/// The reported case: a setting given after first use. 4,099 `f32` summed, then a block of 100
/// threads (not built): the error a fresh reducer gives, not the old plan's result.
#[test]
fn an_override_after_first_use_applies() {
    let b = emu();
    let input = b.upload(&vec![3.0f32; 4099]).unwrap();
    let r = Reducer::new(&b);
    let mut r = r;
    assert_eq!(r.sum(&input).unwrap(), 12297.0);
    let mut r = r.with_overrides(LaunchOverrides {
        block: Some(100),
        ..LaunchOverrides::default()
    });
    assert!(matches!(
        r.sum(&input),
        Err(ReduceError::InvalidBlockSize { .. })
    ));
    let mut r = r.with_overrides(LaunchOverrides {
        grid: Some(3),
        ..LaunchOverrides::default()
    });
    assert_eq!(r.sum(&input).unwrap(), 12297.0);
    assert_eq!(
        r.prepared::<f32>(Op::Sum, 4099).unwrap().plan.passes[0].grid,
        3
    );
}

/// The reported case: host offsets past the data for `mean_segments` (a panic for integers, a
/// wrong mean for floats) are a typed error naming them.
#[test]
fn host_offsets_past_the_data_are_a_typed_error() {
    let b = emu();
    let mut r = Reducer::new(&b);
    let segments = Segments::from_offsets(&b, &[0, 50, 100], 100).unwrap();
    let ints = b.upload(&vec![1i32; 100]).unwrap();
    let floats = b.upload(&vec![1.0f32; 100]).unwrap();
    let bad = (&[0u64, 50][..], &[1u64, 1000][..]);
    for e in [
        r.mean_segments(&ints, &segments, bad.0, bad.1).unwrap_err(),
        r.mean_segments(&floats, &segments, bad.0, bad.1)
            .unwrap_err(),
    ] {
        assert!(
            matches!(e, ReduceError::OutOfBounds { arg: "end", .. }),
            "{e}"
        );
    }
    let (begin, end) = segments.offsets();
    assert_eq!(
        r.mean_segments(&floats, &segments, begin, end).unwrap(),
        vec![1.0, 1.0]
    );
    assert!(matches!(
        Segments::from_offsets(&b, &[0, 50, 1000], 100),
        Err(ReduceError::OutOfBounds { arg: "offsets", .. })
    ));
    assert!(matches!(
        Segments::from_offsets(&b, &[0, 60, 50], 100),
        Err(ReduceError::OutOfBounds { arg: "offsets", .. })
    ));
}
