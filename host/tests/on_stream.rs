//! Every family's `enqueue_on` on the CPU emulator, which runs each launch at once (the stream
//! is not used): the blocking form's result, bit for bit, and the same typed errors before
//! anything runs. `tests/borrowed_gpu.rs` runs them on real streams and in a CUDA graph.

mod common;

use common::data;
use reduce_host::*;

fn emu() -> Backend {
    Backend::Emulator(Emulator::default())
}

const N: usize = 10_007;

#[test]
fn every_family_queued_on_a_stream_gives_the_blocking_result() {
    let b = emu();
    let null = std::ptr::null_mut();
    let x = b.upload(&data::<f32>(N + 1, 3)).unwrap();
    let y = b.upload(&data::<f32>(N, 4)).unwrap();
    let xi = b.upload(&data::<i32>(N, 5)).unwrap();
    let v = x.slice(1..).unwrap();
    let mut r = Reducer::new(&b);

    let arg = PreparedArg::<f32>::new(&b, Op::ArgMax, N).unwrap();
    let dot = PreparedTransform::<f32>::new(&b, Op::Dot, N).unwrap();
    let exact = PreparedExact::<f32>::new(&b, N, LaunchOverrides::default()).unwrap();
    let wide = PreparedWide::<i32>::new(&b, N, LaunchOverrides::default()).unwrap();
    let (rows, cols) = (36, 271);
    let m = x.slice(1..1 + rows * cols).unwrap();
    let axis = PreparedAxis::<f32>::matrix(
        &b,
        &AxisPolicy::default(),
        AxisKind::Rows,
        Op::Max,
        rows,
        cols,
    )
    .unwrap();
    let out = b.zeroed::<f32>(rows + 1).unwrap();
    // SAFETY: the emulator runs each launch before returning; every input and output outlives
    // it, and the axis output does not overlap its input.
    unsafe {
        arg.enqueue_on(&b, null, v).unwrap();
        dot.enqueue_on(&b, null, v, Some((&y).into())).unwrap();
        exact.enqueue_on(&b, null, v).unwrap();
        wide.enqueue_on(&b, null, (&xi).into()).unwrap();
        axis.enqueue_on(&b, null, m, None, out.slice(1..).unwrap())
            .unwrap();
    }
    assert_eq!(arg.read(&b).unwrap(), r.argmax(v).unwrap());
    assert_eq!(
        dot.read(&b).unwrap()[0].to_bits(),
        r.dot(v, &y).unwrap().to_bits()
    );
    assert_eq!(
        exact.read_result(&b).unwrap().to_bits(),
        r.sum_exact(v).unwrap().to_bits()
    );
    let want: i64 = data::<i32>(N, 5).iter().map(|&e| i64::from(e)).sum();
    assert_eq!(wide.read(&b).unwrap(), want);
    let got = b.download(&out, rows + 1).unwrap();
    let blocking = r.reduce_rows(Op::Max, m, rows, cols).unwrap();
    assert_eq!(got[0], 0.0, "the axis output starts at out[1]");
    assert_eq!(&got[1..], &b.download(&blocking, rows).unwrap()[..]);
}

#[test]
fn enqueue_on_refuses_bad_arguments_before_launching() {
    let b = emu();
    let other = emu();
    let null = std::ptr::null_mut();
    let x = b.upload(&data::<f32>(N, 6)).unwrap();
    let foreign = other.upload(&data::<f32>(N, 6)).unwrap();
    let arg = PreparedArg::<f32>::new(&b, Op::ArgMin, N).unwrap();
    let dot = PreparedTransform::<f32>::new(&b, Op::Dot, N).unwrap();
    let exact = PreparedExact::<f64>::new(&b, N, LaunchOverrides::default()).unwrap();
    let axis = PreparedAxis::<f32>::matrix(
        &b,
        &AxisPolicy::default(),
        AxisKind::Cols,
        Op::Sum,
        100,
        100,
    )
    .unwrap();
    let short = b.zeroed::<f32>(99).unwrap();
    let xd = b.upload(&data::<f64>(N - 1, 7)).unwrap();
    // SAFETY: every call below is refused before anything runs.
    unsafe {
        assert!(matches!(
            arg.enqueue_on(&b, null, x.slice(1..).unwrap()),
            Err(ReduceError::OutOfBounds { .. })
        ));
        assert!(matches!(
            arg.enqueue_on(&b, null, (&foreign).into()),
            Err(ReduceError::ForeignBuffer { .. })
        ));
        assert!(matches!(
            arg.enqueue_on(&other, null, (&x).into()),
            Err(ReduceError::ForeignBuffer { .. })
        ));
        assert!(matches!(
            dot.enqueue_on(&b, null, (&x).into(), None),
            Err(ReduceError::InvalidArgument(_))
        ));
        assert!(matches!(
            exact.enqueue_on(&b, null, (&xd).into()),
            Err(ReduceError::OutOfBounds { .. })
        ));
        assert!(matches!(
            axis.enqueue_on(&b, null, (&x).into(), None, (&short).into()),
            Err(ReduceError::OutOfBounds { arg: "out", .. })
        ));
        assert!(matches!(
            axis.enqueue_on(&b, null, (&x).into(), None, (&foreign).into()),
            Err(ReduceError::ForeignBuffer { .. })
        ));
    }
    assert!(b.download(&short, 99).unwrap().iter().all(|&v| v == 0.0));
}

#[test]
fn stage8_into_its_own_slot_on_a_stream() {
    let b = emu();
    let x = b.upload(&data::<f64>(N, 8)).unwrap();
    let p = Prepared::<f64>::for_stream_in(&b, Op::Sum, N - 3, plan::ResultIn::MappedHost).unwrap();
    let v = x.slice(3..).unwrap();
    // SAFETY: the emulator runs it before returning; `x` outlives it.
    unsafe { p.enqueue_on_slot(&b, std::ptr::null_mut(), v).unwrap() };
    let want = Reducer::new(&b).sum(v).unwrap();
    assert_eq!(p.read_result(&b).unwrap().to_bits(), want.to_bits());
    // SAFETY: refused before anything runs.
    let refused = unsafe { p.enqueue_on_slot(&b, std::ptr::null_mut(), (&x).into()) };
    assert!(matches!(refused, Err(ReduceError::OutOfBounds { .. })));
}
