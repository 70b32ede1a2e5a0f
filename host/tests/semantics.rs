//! The NumPy/PyTorch semantics on the CPU emulator: NaN-propagating min/max, the NaN-ignoring
//! `nanmin`/`nanmax`/`nansum`/`nanmean`, `count`, and products (wrapping for integers, within the
//! rounding bound for floats), each against the CPU reference and against explicit values, on
//! every path that computes them (stage 8 with one and many blocks, the axis kernels, streaming).

mod common;
mod host_stream;
mod semantics_checks;

use common::*;
use reduce_host::*;
use semantics_checks::*;

fn emu() -> Backend {
    Backend::Emulator(Emulator::default())
}

/// The default launch, and forced multi-block grids of each block size.
fn shapes() -> Vec<LaunchOverrides> {
    let mut v = vec![LaunchOverrides::default()];
    for (block, grid) in [(256, 3), (512, 2), (1024, 7)] {
        v.push(LaunchOverrides {
            block: Some(block),
            grid: Some(grid),
        });
    }
    v
}

fn nan_cases<T: Scalar>() -> Vec<String> {
    nan_positions::<T>(&emu(), &[1, 5, 33, 4099, 40_001], 4099)
}

#[test]
fn nan_first_middle_last_all_match_the_reference_f32() {
    let f = nan_cases::<f32>();
    assert!(f.is_empty(), "{} failures:\n{}", f.len(), f.join("\n"));
}

#[test]
fn nan_first_middle_last_all_match_the_reference_f64() {
    let f = nan_cases::<f64>();
    assert!(f.is_empty(), "{} failures:\n{}", f.len(), f.join("\n"));
}

/// The rules themselves, spelled out (so a reference that drifted with the kernels would fail).
#[test]
fn numpy_values_for_nan_inf_and_signed_zero() {
    let b = emu();
    for o in shapes() {
        let mut r = Reducer::new(&b).with_overrides(o);
        for n in [3, 5000] {
            let mut d = vec![2.0f32; n];
            d[n / 2] = f32::NAN;
            d[n - 1] = -7.0;
            d[0] = 9.0;
            let buf = b.upload(&d).unwrap();
            assert!(r.min(&buf).unwrap().unwrap().is_nan(), "min {o:?} n={n}");
            assert!(r.max(&buf).unwrap().unwrap().is_nan(), "max {o:?} n={n}");
            assert_eq!(r.nanmin(&buf).unwrap(), Some(-7.0));
            assert_eq!(r.nanmax(&buf).unwrap(), Some(9.0));
            let rest = 2.0 * (n as f32 - 3.0);
            assert_eq!(r.nansum(&buf).unwrap(), 9.0 - 7.0 + rest);
            assert_eq!(
                buf.slice(..n).and_then(|view| r.count(view)).unwrap(),
                n as u64 - 1
            );
            let mean = (9.0 - 7.0 + rest as f64) / (n as f64 - 1.0);
            assert!((r.nanmean(&buf).unwrap() - mean).abs() < 1e-6 * mean.abs().max(1.0));
            assert!(r.sum(&buf).unwrap().is_nan());
        }
        // All NaN: min/max and nanmin/nanmax NaN, nansum 0, count 0, nanmean NaN (NumPy).
        let all = b.upload(&vec![f64::NAN; 1031]).unwrap();
        assert!(r.nanmin(&all).unwrap().unwrap().is_nan());
        assert!(r.nanmax(&all).unwrap().unwrap().is_nan());
        assert!(r.max(&all).unwrap().unwrap().is_nan());
        assert_eq!(r.nansum(&all).unwrap(), 0.0);
        assert_eq!(all.slice(..1031).and_then(|view| r.count(view)).unwrap(), 0);
        assert!(r.nanmean(&all).unwrap().is_nan());
        // inf - inf made by the sum stays NaN in nansum; ±inf are numbers for min/max.
        let inf = b
            .upload(&[f32::INFINITY, f32::NAN, f32::NEG_INFINITY, 1.0])
            .unwrap();
        assert!(r.nansum(&inf).unwrap().is_nan());
        assert_eq!(r.nanmin(&inf).unwrap(), Some(f32::NEG_INFINITY));
        assert_eq!(r.nanmax(&inf).unwrap(), Some(f32::INFINITY));
        let infs = b.upload(&[f32::INFINITY, 3.0, f32::INFINITY]).unwrap();
        assert_eq!(r.min(&infs).unwrap(), Some(3.0));
        assert_eq!(
            r.min(&b.upload(&[f32::INFINITY; 2]).unwrap()).unwrap(),
            Some(f32::INFINITY),
            "+inf, the identity of min, is also a value"
        );
        // -0.0 and +0.0 compare equal: either is a right min.
        let zeros = b.upload(&[0.0f32, -0.0, 0.0]).unwrap();
        assert_eq!(r.min(&zeros).unwrap(), Some(0.0));
        // Subnormals are numbers, not flushed to zero.
        let tiny = f32::from_bits(1);
        let sub = b.upload(&[1.0f32, tiny, 2.0 * tiny]).unwrap();
        assert_eq!(r.min(&sub).unwrap(), Some(tiny));
    }
}

#[test]
fn integers_have_no_nan_the_nan_ops_are_the_plain_ones() {
    let b = emu();
    let mut r = Reducer::new(&b);
    let d = [i32::MAX, 5, i32::MIN, -3];
    let buf = b.upload(&d).unwrap();
    assert_eq!(r.nanmin(&buf).unwrap(), Some(i32::MIN));
    assert_eq!(r.nanmax(&buf).unwrap(), Some(i32::MAX));
    assert_eq!(
        Some(r.nansum(&buf).unwrap()),
        r.reduce(Op::Sum, &buf).unwrap()
    );
    assert_eq!(buf.slice(..4).and_then(|view| r.count(view)).unwrap(), 4);
    assert_eq!(r.nanmean(&buf).unwrap(), r.mean(&buf).unwrap());
    let c = buf
        .slice(..4)
        .and_then(|view| r.reduce(Op::Count, view))
        .unwrap();
    assert_eq!(c, Some(4));
}

#[test]
fn integer_products_wrap_like_the_reference() {
    let b = emu();
    let mut r = Reducer::new(&b);
    assert_eq!(r.prod(&b.upload(&[i32::MAX, 2]).unwrap()).unwrap(), -2);
    assert_eq!(
        r.prod(&b.upload(&[u32::MAX, u32::MAX]).unwrap()).unwrap(),
        1
    );
    assert_eq!(
        r.prod(&b.upload(&[i64::MIN, -1]).unwrap()).unwrap(),
        i64::MIN
    );
    assert_eq!(
        r.prod(&b.upload(&[3u64; 50]).unwrap()).unwrap(),
        3u64.wrapping_pow(50)
    );
    assert_eq!(r.prod(&b.upload::<i32>(&[]).unwrap()).unwrap(), 1, "empty");
    for o in shapes() {
        for n in [1, 31, 4097, 20_011] {
            let d = data::<i64>(n, 7);
            check_reducer::<i64>(&b, Op::Prod, &d, 0, o).unwrap();
            check_reducer::<u32>(&b, Op::Prod, &data(n + 1, 3), 1, o).unwrap();
        }
    }
}

#[test]
fn float_products_are_within_the_rounding_bound() {
    let b = emu();
    for o in shapes() {
        products(&b, &[1, 2, 33, 1023, 4100, 30_001], o).unwrap();
    }
    // The bound is tight enough to reject a wrong answer.
    let d = near_one::<f32>(4096, 9);
    let want = reference(Op::Prod, &d).unwrap();
    assert!(matches_reference(Op::Prod, want.value, &want, 1));
    assert!(!matches_reference(Op::Prod, want.value * 1.001, &want, 1));
    assert!(!matches_reference(Op::Prod, f32::NAN, &want, 1));
}

#[test]
fn float_product_special_values() {
    let b = emu();
    let mut r = Reducer::new(&b);
    let p = |r: &mut Reducer, d: &[f32]| r.prod(&b.upload(d).unwrap()).unwrap();
    assert_eq!(p(&mut r, &[2.0, -3.0, 0.5]), -3.0);
    assert!(p(&mut r, &[2.0, f32::NAN, 0.5]).is_nan());
    assert!(p(&mut r, &[0.0, f32::INFINITY]).is_nan());
    assert_eq!(p(&mut r, &[-2.0, f32::INFINITY]), f32::NEG_INFINITY);
    assert_eq!(p(&mut r, &[5.0, 0.0, -1.0]), 0.0);
    assert_eq!(p(&mut r, &[]), 1.0);
    // f32::MAX · 2 overflows whatever the order: the reference knows the product is order-
    // independent inf only when no sub-product can underflow, and says so.
    let big = reference(Op::Prod, &[f32::MAX, 2.0, 4.0]).unwrap();
    assert!(big.order_dependent);
    let specials = [f32::INFINITY, -1.0, 3.0];
    let want = reference(Op::Prod, &specials).unwrap();
    assert!(!want.order_dependent);
    assert_eq!(want.value, f32::NEG_INFINITY);
    for n in [4, 5000] {
        let mut d = near_one::<f32>(n, 3);
        d[n / 3] = 0.0;
        check_reducer::<f32>(&b, Op::Prod, &d, 0, LaunchOverrides::default()).unwrap();
        d[n / 2] = f32::INFINITY;
        check_reducer::<f32>(&b, Op::Prod, &d, 0, LaunchOverrides::default()).unwrap();
        assert!(p(&mut r, &d).is_nan());
    }
}

#[test]
fn the_axis_kernels_propagate_nan_in_min_and_max() {
    let b = emu();
    let mut r = Reducer::new(&b);
    let (rows, cols) = (5, 70);
    let mut d = data::<f32>(rows * cols, 4);
    d[cols + 3] = f32::NAN; // row 1, column 3
    let input = b.upload(&d).unwrap();
    for op in [Op::Min, Op::Max] {
        let out = r.reduce_rows(op, &input, rows, cols).unwrap();
        let got = b.download(&out, rows).unwrap();
        for (i, g) in got.iter().enumerate() {
            let want = reference(op, &d[i * cols..(i + 1) * cols]).unwrap().value;
            assert!(
                g.is_nan() == (i == 1) && (g.is_nan() || *g == want),
                "{op} row {i}"
            );
        }
        let out = r.reduce_cols(op, &input, rows, cols).unwrap();
        let got = b.download(&out, cols).unwrap();
        for (j, g) in got.iter().enumerate() {
            assert_eq!(g.is_nan(), j == 3, "{op} column {j}");
        }
    }
    // Ops the axis kernels do not build are a typed error, not a wrong answer.
    assert!(matches!(
        r.reduce_rows(Op::NanSum, &input, rows, cols),
        Err(ReduceError::InvalidArgument(_))
    ));
}

#[test]
fn streaming_combines_nansum_and_count_partials_by_adding() {
    let b = emu();
    let mut h = HostReducer::new(&b)
        .with_policy(host_stream::small_chunks(1024))
        .unwrap();
    let mut d = data::<f32>(10_000, 11);
    for i in (0..d.len()).step_by(97) {
        d[i] = f32::NAN;
    }
    let nansum = h.reduce_host(Op::NanSum, &d[..]).unwrap().unwrap();
    let want = reference(Op::NanSum, &d).unwrap();
    let depth = h
        .policy()
        .error_depth(d.len(), ElemType::F32, Op::NanSum, b.caps())
        .unwrap();
    assert!(matches_reference(Op::NanSum, nansum, &want, depth));
    let count = h.reduce_host(Op::Count, &d[..]).unwrap().unwrap();
    assert_eq!(count as usize, d.iter().filter(|x| !x.is_nan()).count());
    assert!(h.reduce_host(Op::Max, &d[..]).unwrap().unwrap().is_nan());
    assert_eq!(h.reduce_host(Op::Prod, &[] as &[f32]).unwrap(), Some(1.0));
    assert_eq!(h.reduce_host(Op::NanMin, &[] as &[f32]).unwrap(), None);
}

#[test]
fn ops_parse_by_their_numpy_names() {
    for op in Op::all() {
        assert_eq!(op.name().parse::<Op>().unwrap(), op);
    }
    let e = "avg".parse::<Op>().unwrap_err().to_string();
    assert!(e.contains("nanmean") && e.contains("nanargmax"), "{e}");
    assert_eq!(Op::NanMean.device_op(), Op::NanSum);
    assert_eq!(Op::Count.combine_op(), Op::Sum);
    assert!(Stage::S8.ops().contains(&Op::NanMean));
    assert!(!Stage::S3.ops().contains(&Op::Prod));
}

#[test]
fn i32_and_u32_sums_with_a_64_bit_accumulator() {
    let b = emu();
    for o in shapes() {
        wide_sums(&b, &[0, 1, 5, 33, 4099, 30_001], o).unwrap();
    }
    let mut r = Reducer::new(&b);
    // The same-type sum wraps (CUB); the wide one does not (NumPy, PyTorch).
    let big = b.upload(&[i32::MAX; 1000]).unwrap();
    assert_eq!(
        r.reduce(Op::Sum, &big).unwrap(),
        Some(i32::MAX.wrapping_mul(1000))
    );
    assert_eq!(r.sum(&big).unwrap(), 1000 * i32::MAX as i64);
    // Other types: the plain sum, already 64-bit or float.
    let f = b.upload(&[1.5f32, 2.0]).unwrap();
    assert_eq!(r.sum(&f).unwrap(), 3.5);
    assert!(matches!(
        PreparedWide::<i64>::new(&b, 10, LaunchOverrides::default()),
        Err(ReduceError::InvalidArgument(_))
    ));
    let other = emu();
    let foreign = other.upload(&[1i32]).unwrap();
    assert!(matches!(
        r.sum(&foreign),
        Err(ReduceError::ForeignBuffer { .. })
    ));
}

#[test]
fn an_op_of_another_family_is_a_typed_error_naming_the_family() {
    let b = emu();
    let x = b.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    let mut r = Reducer::new(&b);
    let wrong = |e: ReduceError, op: Op, family: &str| match e {
        ReduceError::WrongOp {
            op: got, expected, ..
        } => {
            assert_eq!(got, op);
            let m = e.to_string();
            assert!(m.contains(op.name()) && m.contains(family), "{m}");
            assert!(!expected.contains(&op));
        }
        e => panic!("{op}: expected WrongOp, got {e}"),
    };
    for op in Op::ARG.into_iter().chain(Op::TRANSFORM) {
        wrong(r.reduce(op, &x).unwrap_err(), op, "nanmean");
        wrong(
            r.reduce_rows(op, &x, 1, 3).err().unwrap(),
            op,
            "sum, min, max",
        );
    }
    for op in Op::REDUCE.into_iter().chain(Op::TRANSFORM) {
        wrong(r.arg(op, &x).unwrap_err(), op, "nanargmax");
        let p = reduce_host::PreparedArg::<f32>::new(&b, op, 3);
        wrong(p.err().unwrap(), op, "nanargmax");
    }
    for op in Op::REDUCE.into_iter().chain(Op::ARG) {
        let p = reduce_host::PreparedTransform::<f32>::new(&b, op, 3);
        wrong(p.err().unwrap(), op, "nantotal");
    }
}

/// Every element type, empty input or not: an arg or transform op given where a reduce op is
/// expected is `WrongOp`, checked where the call enters — before the halves' path, the empty-input
/// shortcut or the host-streaming path could answer otherwise.
fn wrong_op_everywhere<T: Scalar>(b: &Backend) {
    let data: Vec<T> = (0..5).map(|i| T::from_f64(i as f64)).collect();
    let x = b.upload(&data).unwrap();
    let empty = b.upload::<T>(&[]).unwrap();
    let mut r = Reducer::new(b);
    let mut h = HostReducer::new(b);
    let is_wrong = |e: Option<ReduceError>, op: Op, call: &str| match e {
        Some(ReduceError::WrongOp { op: got, .. }) => assert_eq!(got, op),
        e => panic!("{call}({op}) on {}: expected WrongOp, got {e:?}", T::TYPE),
    };
    for op in Op::ARG.into_iter().chain(Op::TRANSFORM) {
        is_wrong(r.reduce(op, &x).err(), op, "Reducer::reduce");
        is_wrong(r.reduce(op, &empty).err(), op, "Reducer::reduce (empty)");
        is_wrong(h.reduce_host(op, &data[..]).err(), op, "reduce_host");
        is_wrong(
            h.reduce_host(op, &data[..0]).err(),
            op,
            "reduce_host (empty)",
        );
    }
}

/// The wide plans (`i32`/`u32` sums, every `f16`/`bf16` op) refuse arg and transform ops as
/// `WrongOp` too.
fn wide_wrong_op<T: Scalar>(b: &Backend)
where
    Wide<T>: Scalar,
{
    for op in Op::ARG.into_iter().chain(Op::TRANSFORM) {
        match PreparedWide::<T>::for_op(b, 5, op, LaunchOverrides::default()) {
            Err(ReduceError::WrongOp { op: got, .. }) => assert_eq!(got, op),
            Err(e) => panic!("PreparedWide::<{}>::for_op({op}): {e}", T::TYPE),
            Ok(_) => panic!("PreparedWide::<{}>::for_op({op}) was accepted", T::TYPE),
        }
    }
}

#[test]
fn a_wrong_op_is_wrong_op_on_every_type_and_entry_point() {
    let b = emu();
    wrong_op_everywhere::<f32>(&b);
    wrong_op_everywhere::<f64>(&b);
    wrong_op_everywhere::<i32>(&b);
    wrong_op_everywhere::<u32>(&b);
    wrong_op_everywhere::<i64>(&b);
    wrong_op_everywhere::<u64>(&b);
    wrong_op_everywhere::<F16>(&b);
    wrong_op_everywhere::<Bf16>(&b);
    wide_wrong_op::<i32>(&b);
    wide_wrong_op::<u32>(&b);
    wide_wrong_op::<F16>(&b);
    wide_wrong_op::<Bf16>(&b);
}

#[test]
fn segments_of_another_backend_are_foreign_for_every_type() {
    let (b, other) = (emu(), emu());
    let mut r = Reducer::new(&b);
    let foreign = Segments::new(&other, &[0, 2], &[2, 4], 4).unwrap();
    let (begin, end) = ([0u64, 2], [2u64, 4]);
    let check = |e: Option<ReduceError>, ty: &str| {
        assert!(
            matches!(e, Some(ReduceError::ForeignBuffer { .. })),
            "mean_segments on {ty}: {e:?}"
        )
    };
    let xi = b.upload(&[1i32, 2, 3, 4]).unwrap();
    check(r.mean_segments(&xi, &foreign, &begin, &end).err(), "i32");
    let xu = b.upload(&[1u32, 2, 3, 4]).unwrap();
    check(r.mean_segments(&xu, &foreign, &begin, &end).err(), "u32");
    let xf = b.upload(&[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    check(r.mean_segments(&xf, &foreign, &begin, &end).err(), "f32");
    let own = Segments::new(&b, &begin, &end, 4).unwrap();
    assert_eq!(
        r.mean_segments(&xi, &own, &begin, &end).unwrap(),
        [1.5, 3.5]
    );
}
