//! Bugs found by using the library as a new user would, each pinned by a test that failed before
//! the fix, and the ownership checks that keep a buffer with its backend. CPU emulator only (the
//! GPU suite repeats the cross-backend checks on the device).

mod common;

use common::*;
use reduce_host::reference::reference_mean;
use reduce_host::*;

fn emu() -> Backend {
    Backend::Emulator(Emulator::default())
}

#[test]
fn all_nan_min_and_max_are_nan_on_every_path() {
    let b = emu();
    let mut r = Reducer::new(&b);
    for n in [1, 2, 5, 33, 4100, 40_000] {
        let d32 = vec![f32::NAN; n];
        let d64 = vec![f64::NAN; n];
        let (i32b, i64b) = (b.upload(&d32).unwrap(), b.upload(&d64).unwrap());
        assert!(r.min(&i32b).unwrap().unwrap().is_nan(), "f32 min n={n}");
        assert!(r.max(&i32b).unwrap().unwrap().is_nan(), "f32 max n={n}");
        assert!(r.min(&i64b).unwrap().unwrap().is_nan(), "f64 min n={n}");
        assert!(r.max(&i64b).unwrap().unwrap().is_nan(), "f64 max n={n}");
        // Several blocks, each all NaN: the last block's combine must keep NaN too.
        let grid = LaunchOverrides {
            block: Some(256),
            grid: Some(3),
        };
        let mut r3 = Reducer::new(&b).with_overrides(grid);
        assert!(r3.max(&i32b).unwrap().unwrap().is_nan(), "3 blocks n={n}");
    }
    // One number among NaNs wins for nanmin/nanmax, wherever it is; min/max propagate the NaN.
    let mut d = vec![f32::NAN; 5000];
    d[4321] = -2.5;
    let buf = b.upload(&d).unwrap();
    assert_eq!(r.nanmin(&buf).unwrap(), Some(-2.5));
    assert_eq!(r.nanmax(&buf).unwrap(), Some(-2.5));
    assert!(r.min(&buf).unwrap().unwrap().is_nan());
    assert!(r.max(&buf).unwrap().unwrap().is_nan());
}

#[test]
fn the_reference_is_independent_of_the_kernels_fold() {
    // The CPU oracle: NaN rules, and exact integer sums, without the kernels' identities.
    let nan = reference(Op::Min, &[f32::NAN, f32::NAN]).unwrap();
    assert!(nan.value.is_nan());
    assert_eq!(
        reference(Op::NanMax, &[f64::NAN, 1.0, f64::NAN])
            .unwrap()
            .value,
        1.0
    );
    assert!(reference(Op::Max, &[f64::NAN, 1.0, f64::NAN])
        .unwrap()
        .value
        .is_nan());
    assert_eq!(
        reference(Op::NanMin, &[f32::INFINITY, f32::NAN])
            .unwrap()
            .value,
        f32::INFINITY
    );
    assert!(reference::<f32>(Op::Min, &[]).is_none());
    let big = [i64::MAX, i64::MAX];
    let r = reference(Op::Sum, &big).unwrap();
    assert_eq!(r.value, -2, "the wrapped sum, like the device's");
    assert_eq!(r.sum_exact, 2 * i64::MAX as i128);
    assert_eq!(reference_mean(&big), Some(9.223372036854776e18));
    assert_eq!(reference(Op::Max, &[3u32, 9, 1]).unwrap().value, 9);
    assert_eq!(reference(Op::Min, &[3i32, -9, 1]).unwrap().value, -9);
}

#[test]
fn integer_means_do_not_overflow() {
    let b = emu();
    let mut r = Reducer::new(&b);
    // Narrow range (here none): the exact sum is recovered from the device's wrapped sum.
    let big = b.upload(&[i64::MAX, i64::MAX]).unwrap();
    assert_eq!(r.mean(&big).unwrap(), 9.223372036854776e18, "NumPy's value");
    let umax = b.upload(&[u64::MAX; 3]).unwrap();
    assert_eq!(r.mean(&umax).unwrap(), u64::MAX as f64);
    // Range too wide to recover the sum from the wrapped one: the host path.
    let wide: Vec<i32> = (0..3001)
        .map(|i| if i % 3 == 0 { i32::MAX } else { i32::MIN + i })
        .collect();
    let buf = b.upload(&wide).unwrap();
    assert_eq!(Some(r.mean(&buf).unwrap()), reference_mean(&wide));
    let mixed = b.upload(&[i32::MIN, i32::MIN, i32::MAX]).unwrap();
    assert_eq!(
        r.mean(&mixed).unwrap(),
        (i32::MIN as f64 * 2.0 + i32::MAX as f64) / 3.0
    );
    // Against the reference on ordinary data, every integer type.
    let d = data::<u32>(70_001, 5);
    let buf = b.upload(&d).unwrap();
    assert_eq!(Some(r.mean(&buf).unwrap()), reference_mean(&d));
    let d = data::<i64>(1000, 6);
    let buf = b.upload(&d).unwrap();
    assert_eq!(Some(r.mean(&buf).unwrap()), reference_mean(&d));
}

#[test]
fn a_mean_is_never_returned_as_a_sum() {
    let b = emu();
    let input = b.upload(&[2.0f32, 4.0, 6.0]).unwrap();
    let mut r = Reducer::new(&b);
    assert!(matches!(
        input.slice(..3).and_then(|view| r.reduce(Op::Mean, view)),
        Err(ReduceError::InvalidArgument(m)) if m.contains("Reducer::mean")
    ));
    assert!(matches!(
        run_stage(
            &b,
            Stage::S8,
            Op::Mean,
            &input,
            3,
            LaunchOverrides::default()
        ),
        Err(ReduceError::InvalidArgument(_))
    ));
    assert_eq!(r.mean(&input).unwrap(), 4.0);
}

#[test]
fn empty_buffers_are_empty() {
    let b = emu();
    let mut r = Reducer::new(&b);
    let z = b.zeroed::<f32>(0).unwrap();
    assert_eq!(z.len(), 0);
    let sevens = b.filled(0, 7i32).unwrap();
    assert_eq!(sevens.len(), 0);
    assert_eq!(r.sum(&sevens).unwrap(), 0, "the sum of zero copies of 7");
    assert_eq!(r.max(&sevens).unwrap(), None);
    assert_eq!(b.filled(3, 7u32).unwrap().len(), 3);
    assert_eq!(
        b.download(&b.filled(3, 7u32).unwrap(), 3).unwrap(),
        [7, 7, 7]
    );
    assert_eq!(b.download(&b.zeroed::<i64>(2).unwrap(), 2).unwrap(), [0, 0]);
}

#[test]
fn absurd_lengths_are_too_large_not_a_panic() {
    let b = emu();
    for len in [usize::MAX, usize::MAX / 4, 1 << 40] {
        assert!(
            matches!(b.zeroed::<f64>(len), Err(ReduceError::TooLarge { .. })),
            "zeroed({len})"
        );
        assert!(
            matches!(b.filled(len, 1.0f32), Err(ReduceError::TooLarge { .. })),
            "filled({len})"
        );
    }
}

#[test]
fn a_buffer_of_another_backend_is_a_typed_error() {
    let (a, other) = (emu(), emu());
    assert_ne!(a.id(), other.id());
    let d = data::<f32>(1000, 1);
    let foreign = other.upload(&d).unwrap();
    let mut r = Reducer::new(&a);
    for e in [
        r.sum(&foreign).unwrap_err(),
        r.max(&foreign).unwrap_err(),
        r.mean(&foreign).unwrap_err(),
        a.download(&foreign, 10).unwrap_err(),
        run_stage(
            &a,
            Stage::S3,
            Op::Sum,
            &foreign,
            1000,
            LaunchOverrides::default(),
        )
        .unwrap_err(),
    ] {
        assert!(matches!(e, ReduceError::ForeignBuffer { .. }), "{e}");
        assert!(e.to_string().contains("another backend"), "{e}");
    }
    let mut w = other.zeroed::<f32>(4).unwrap();
    assert!(matches!(
        a.write(&mut w, &[1.0]),
        Err(ReduceError::ForeignBuffer { .. })
    ));
    // A prepared plan is tied to its backend too.
    let p = plan(
        Stage::S8,
        ElemType::F32,
        Op::Sum,
        1000,
        LaunchOverrides::default(),
        a.caps(),
    )
    .unwrap();
    let prepared = Prepared::<f32>::new(&a, p).unwrap();
    let mine = a.upload(&d).unwrap();
    assert!(matches!(
        prepared.run(&other, &foreign, 0),
        Err(ReduceError::ForeignBuffer { .. })
    ));
    assert!(matches!(
        prepared.run(&a, &foreign, 0),
        Err(ReduceError::ForeignBuffer { .. })
    ));
    assert!(prepared.run(&a, &mine, 0).is_ok());
}

#[test]
fn a_hand_edited_plan_is_rejected() {
    let b = emu();
    let good = plan(
        Stage::S8,
        ElemType::F32,
        Op::Sum,
        5000,
        LaunchOverrides::default(),
        b.caps(),
    )
    .unwrap();
    let mut wrong_kernel = good.clone();
    wrong_kernel.kernel = Stage::S3.kernel(ElemType::F32, Op::Sum, good.passes[0].block);
    let mut wrong_block = good.clone();
    wrong_block.passes[0].block = 1024;
    let mut wrong_shared = good.clone();
    wrong_shared.passes[0].shared_bytes = 4;
    let mut no_passes = good.clone();
    no_passes.passes.clear();
    for p in [wrong_kernel, wrong_block, wrong_shared, no_passes] {
        assert!(
            matches!(
                Prepared::<f32>::new(&b, p.clone()),
                Err(ReduceError::InvalidArgument(_))
            ),
            "{p:?}"
        );
    }
    assert!(Prepared::<f32>::new(&b, good).is_ok());
}

#[test]
fn buffer_addresses_are_bounded() {
    let b = emu();
    let buf = b.zeroed::<u32>(8).unwrap();
    assert!(buf.try_addr(8).is_ok(), "one past the end is an address");
    assert_eq!(buf.try_addr(8).unwrap() - buf.try_addr(0).unwrap(), 32);
    assert!(matches!(
        buf.try_addr(9),
        Err(ReduceError::OutOfBounds { .. })
    ));
    assert!(buf.try_addr(usize::MAX).is_err());
}

#[test]
fn checked_kernel_accessors_reject_out_of_bounds_indices() {
    use reduce_kernels::emu::{launch, EmuError, LaunchConfig};
    use reduce_kernels::gpu::{Coherent, Global, GlobalMut, Shared};
    let mut data = [1.0f32; 8];
    let p = data.as_mut_ptr() as usize;
    let cfg = LaunchConfig {
        grid_dim: 1,
        block_dim: 1,
        shared_bytes: 16,
    };
    let expect = |r: Result<(), EmuError>, want: &str| match r {
        Err(EmuError::Panic { message, .. }) if message.contains(want) => {}
        other => panic!("expected a panic with `{want}`, got {other:?}"),
    };
    // Every view below: `data` holds 8 aligned f32 and outlives each launch, which is its only
    // user; the shared view is the 4 f32 the launch reserves.
    expect(
        launch(cfg, &|| {
            // SAFETY: see above: in bounds of `data` (or the reservation); the index is checked.
            let _ = unsafe { Global::from_raw(p as *const f32, 8) }.get(8);
        }),
        "global read out of bounds: index 8, length 8",
    );
    expect(
        launch(cfg, &|| {
            // SAFETY: see above: in bounds of `data` (or the reservation); the index is checked.
            let _ = unsafe { Global::from_raw(p as *const f32, 8) }.get_vec4(0, 2);
        }),
        "16-byte global read out of bounds",
    );
    expect(
        launch(cfg, &|| {
            // SAFETY: see above: in bounds of `data` (or the reservation); the index is checked.
            unsafe { GlobalMut::from_raw(p as *mut f32, 8) }.set(9, 0.0);
        }),
        "global write out of bounds: index 9, length 8",
    );
    expect(
        launch(cfg, &|| {
            // SAFETY: see above: in bounds of `data` (or the reservation); the index is checked.
            let _ = unsafe { Coherent::from_raw(p as *mut f32, 2) }.get(2);
        }),
        "coherent read out of bounds: index 2, length 2",
    );
    expect(
        launch(cfg, &|| {
            // SAFETY: see above: in bounds of `data` (or the reservation); the index is checked.
            unsafe { Shared::<f32>::dynamic(4) }.set(4, 0.0);
        }),
        "shared write out of bounds: index 4, length 4",
    );
    // In bounds, all of them work.
    launch(cfg, &|| {
        // SAFETY: see above: in bounds of `data` (or the reservation); the index is checked.
        let g = unsafe { Global::from_raw(p as *const f32, 8) };
        assert_eq!(g.get(7), 1.0);
        assert_eq!(g.get_vec4(0, 1).0[3], 1.0f32.to_bits());
        // SAFETY: see above: in bounds of `data` (or the reservation); the index is checked.
        unsafe { Coherent::from_raw(p as *mut f32, 2) }.set(1, 5.0);
    })
    .unwrap();
    assert_eq!(data[1], 5.0);
}
