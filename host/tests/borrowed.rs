//! Views and the caller's-stream path on the CPU emulator: what can be checked without a GPU
//! (`tests/borrowed_gpu.rs` has the real borrowed memory, streams and graphs).

mod common;

use common::data;
use reduce_host::*;

fn emu() -> Backend {
    Backend::Emulator(Emulator::default())
}

#[test]
fn a_buffer_view_is_not_borrowed_and_knows_its_owner() {
    let b = emu();
    let x = b.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    let v = x.slice(1..).unwrap();
    assert!(!v.is_borrowed());
    assert_eq!(v.owner(), b.id());
    assert!(v.buffer().is_some());
    assert_eq!((v.offset(), v.len()), (1, 2));
}

#[test]
fn the_emulator_refuses_raw_device_memory() {
    let b = emu();
    // SAFETY: refused before the address is used.
    let r = unsafe { b.borrow_raw::<f32>(0x1000, 4) };
    assert!(matches!(
        r,
        Err(ReduceError::BadPointer {
            problem: PointerProblem::Emulator,
            ..
        })
    ));
}

#[test]
fn axis_reductions_take_sub_views() {
    let b = emu();
    let mut r = Reducer::new(&b);
    let d = data::<f32>(3 + 4 * 5, 3);
    let x = b.upload(&d).unwrap();
    let whole = b.upload(&d[3..]).unwrap();
    // A misaligned start may load (so add) in another order than an aligned copy: close, and
    // bit-identical run to run.
    let close = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .all(|(a, b)| (a - b).abs() <= 1e-5 * b.abs().max(1.0))
    };
    let f64s = |v: Vec<f32>| v.into_iter().map(f64::from).collect::<Vec<_>>();
    let got = r.reduce_rows(Op::Sum, x.slice(3..).unwrap(), 4, 5).unwrap();
    let again = r.reduce_rows(Op::Sum, x.slice(3..).unwrap(), 4, 5).unwrap();
    let want = r.reduce_rows(Op::Sum, &whole, 4, 5).unwrap();
    let (got, again) = (b.download(&got, 4).unwrap(), b.download(&again, 4).unwrap());
    assert_eq!(got, again);
    assert!(close(&f64s(got), &f64s(b.download(&want, 4).unwrap())));
    let got = r
        .mean_axis(AxisKind::Cols, x.slice(3..).unwrap(), 4, 5)
        .unwrap();
    assert!(close(
        &got,
        &r.mean_axis(AxisKind::Cols, &whole, 4, 5).unwrap()
    ));
    let i = b.upload(&[9i64, 1, 2, 3, 4]).unwrap();
    let m = r
        .mean_axis(AxisKind::Rows, i.slice(1..).unwrap(), 2, 2)
        .unwrap();
    assert_eq!(m, vec![1.5, 3.5]);
}

#[test]
fn enqueue_on_writes_into_the_callers_slot() {
    let b = emu();
    let n = 10_007;
    let d = data::<f32>(n + 1, 5);
    let x = b.upload(&d).unwrap();
    let out = b.zeroed::<f32>(3).unwrap();
    let mut r = Reducer::new(&b);
    for (k, op) in [Op::Sum, Op::Min, Op::Max].into_iter().enumerate() {
        let p = Prepared::<f32>::for_stream(&b, op, n).unwrap();
        // SAFETY: the emulator runs it at once; `x` and `out` outlive it and do not overlap.
        unsafe {
            p.enqueue_on(
                &b,
                std::ptr::null_mut(),
                x.slice(1..).unwrap(),
                out.slice(k..k + 1).unwrap(),
            )
            .unwrap()
        };
    }
    let got = b.download(&out, 3).unwrap();
    let v = x.slice(1..).unwrap();
    let want = [
        r.sum(v).unwrap(),
        r.min(v).unwrap().unwrap(),
        r.max(v).unwrap().unwrap(),
    ];
    assert_eq!(got, want);
}

#[test]
fn enqueue_on_refuses_bad_arguments_before_launching() {
    let b = emu();
    let other = emu();
    let x = b.upload(&vec![1.0f32; 100]).unwrap();
    let out = b.zeroed::<f32>(1).unwrap();
    let foreign = other.zeroed::<f32>(1).unwrap();
    let p = Prepared::<f32>::for_stream(&b, Op::Sum, 100).unwrap();
    let null = std::ptr::null_mut();
    // SAFETY: every call below is refused before anything runs.
    unsafe {
        assert!(matches!(
            p.enqueue_on(&b, null, (&x).into(), out.slice(0..0).unwrap()),
            Err(ReduceError::OutOfBounds { .. })
        ));
        assert!(matches!(
            p.enqueue_on(&b, null, x.slice(1..).unwrap(), (&out).into()),
            Err(ReduceError::OutOfBounds { .. })
        ));
        assert!(matches!(
            p.enqueue_on(&b, null, (&x).into(), (&foreign).into()),
            Err(ReduceError::ForeignBuffer { .. })
        ));
        assert!(matches!(
            p.enqueue_on(&other, null, (&x).into(), (&out).into()),
            Err(ReduceError::ForeignBuffer { .. })
        ));
        let s3 = plan(
            Stage::S3,
            ElemType::F32,
            Op::Sum,
            100,
            LaunchOverrides::default(),
            b.caps(),
        )
        .unwrap();
        let p3 = Prepared::<f32>::new(&b, s3).unwrap();
        assert!(matches!(
            p3.enqueue_on(&b, null, (&x).into(), (&out).into()),
            Err(ReduceError::InvalidArgument(_))
        ));
    }
    assert_eq!(b.download(&out, 1).unwrap(), vec![0.0]);
}

#[test]
fn prepared_views_match_the_buffer_forms() {
    let b = emu();
    let d = data::<f64>(5000, 8);
    let x = b.upload(&d).unwrap();
    let p = Prepared::<f64>::for_stream(&b, Op::Sum, 4990).unwrap();
    let a = p.run(&b, &x, 7).unwrap();
    let v = p.run_view(&b, x.slice(7..4997).unwrap()).unwrap();
    assert_eq!(a.to_bits(), v.to_bits());
    assert!(matches!(
        p.run_view(&b, x.slice(7..).unwrap()),
        Err(ReduceError::OutOfBounds { arg: "input", .. })
    ));
}
