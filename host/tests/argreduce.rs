//! Argmin/argmax on the CPU emulator: the same checks the GPU suite runs (`arg_checks`).

mod arg_checks;
mod common;

use reduce_host::argreduce::reference_arg;
use reduce_host::*;

fn emu() -> Backend {
    Backend::open(BackendChoice::Emu).unwrap()
}

#[test]
fn every_type_and_op_at_edge_sizes_and_offsets() {
    let mut sizes = common::edge_sizes(256);
    sizes.retain(|&n| n <= 5000);
    sizes.push(70_001);
    arg_checks::every_type(&emu(), &sizes).unwrap();
}

#[test]
fn nan_inf_signed_zero_and_subnormals_follow_numpy() {
    let b = emu();
    for n in [1, 2, 5, 33, 4099] {
        arg_checks::floats(&b, n).unwrap();
    }
}

#[test]
fn integer_min_and_max_take_the_first_occurrence() {
    let b = emu();
    for n in [2, 7, 1025] {
        arg_checks::integers(&b, n).unwrap();
    }
}

#[test]
fn every_launch_shape_matches_the_reference() {
    arg_checks::every_policy(&emu(), 40_001).unwrap();
}

#[test]
fn an_empty_input_is_a_typed_error() {
    arg_checks::empty_is_an_error(&emu()).unwrap();
}

#[test]
fn results_are_the_same_on_every_run_and_for_a_buffer_of_another_backend_an_error() {
    let b = emu();
    let d = arg_checks::tied::<f32>(100_003, 3);
    let input = b.upload(&d).unwrap();
    let p = PreparedArg::<f32>::new(&b, Op::ArgMax, d.len()).unwrap();
    let first = p.run(&b, &input, 0).unwrap();
    for _ in 0..3 {
        assert_eq!(p.run(&b, &input, 0).unwrap(), first);
    }
    let other = emu();
    let foreign = other.upload(&d).unwrap();
    assert!(matches!(
        Reducer::new(&b).argmax(&foreign),
        Err(ReduceError::ForeignBuffer { .. })
    ));
    assert!(matches!(
        p.enqueue(&b, &input, 1),
        Err(ReduceError::OutOfBounds { .. })
    ));
}

#[test]
fn every_policy_gives_the_same_answer_and_a_bad_one_is_a_typed_error() {
    let b = emu();
    let mut d = arg_checks::tied::<f32>(300_001, 8);
    d[299_000] = f32::NAN;
    let input = b.upload(&d).unwrap();
    for op in Op::ARG {
        let want = reference_arg(op, &d).unwrap();
        for text in [
            "",
            "block=512",
            "bps=1",
            "block=512,bps=8",
            "bps=32",
            "unroll=8",
            "lane=loop",
            "block=512,unroll=8,lane=loop",
        ] {
            let policy = ArgPolicy::parse(text).unwrap();
            let p = PreparedArg::<f32>::with_policy(&b, op, d.len(), policy).unwrap();
            let got = p.run(&b, &input, 0).unwrap();
            assert_eq!(got.0, want.0, "{op} with `{text}`");
            assert_eq!(got.1.to_bits(), want.1.to_bits(), "{op} with `{text}`");
        }
    }
    for bad in [
        "block=128",
        "bps=0",
        "bps=33",
        "unroll=6",
        "lane=sideways",
        "block",
    ] {
        assert!(
            matches!(ArgPolicy::parse(bad), Err(ReduceError::Policy { .. })),
            "`{bad}`"
        );
    }
    // The two-kernel (PDL) combine was deleted: `combine` is no key of the policy any more.
    for gone in ["combine=pdl", "combine=ticket", "unroll=8,combine=pdl"] {
        match ArgPolicy::parse(gone) {
            Err(ReduceError::Policy { key, why }) => {
                assert_eq!(key, "combine", "`{gone}`");
                assert!(why.contains("not a key"), "`{gone}`: {why}");
            }
            other => panic!("`{gone}`: {other:?}"),
        }
    }
    for text in [
        "block=512,bps=2",
        "block=256,bps=4,unroll=8",
        "block=256,bps=6,lane=loop",
        "block=512,bps=2,unroll=8,lane=loop",
    ] {
        assert_eq!(ArgPolicy::parse(text).unwrap().text(), text);
    }
    assert_eq!(
        ArgPolicy::parse("unroll=4,lane=reload").unwrap(),
        ArgPolicy::default()
    );
    // The candidates are built for f32 and f64 only: another type is a typed error, no launch.
    for text in ["unroll=8", "lane=loop"] {
        let policy = ArgPolicy::parse(text).unwrap();
        assert!(matches!(
            PreparedArg::<i32>::with_policy(&b, Op::ArgMax, 100, policy),
            Err(ReduceError::Policy { .. })
        ));
    }
}

#[test]
fn nanarg_skips_nan_and_all_nan_is_a_typed_error() {
    let b = emu();
    let d = [f32::NAN, 3.0, f32::NAN, -1.0, 3.0, -1.0];
    let input = b.upload(&d).unwrap();
    let mut r = Reducer::new(&b);
    assert_eq!(
        input
            .slice(..6)
            .and_then(|view| r.arg(Op::NanArgMax, view))
            .unwrap(),
        (1, 3.0)
    );
    assert_eq!(
        input
            .slice(..6)
            .and_then(|view| r.arg(Op::NanArgMin, view))
            .unwrap(),
        (3, -1.0)
    );
    assert_eq!(
        input
            .slice(1..1 + 5)
            .and_then(|view| r.arg(Op::ArgMin, view))
            .unwrap()
            .0,
        1
    );
    let nans = b.upload(&[F16::from_f32(f32::NAN); 40]).unwrap();
    assert!(matches!(
        nans.slice(..40).and_then(|view| r.arg(Op::NanArgMin, view)),
        Err(ReduceError::AllNanArg { op: "nanargmin" })
    ));
}

/// The measured defaults (`ArgPolicy::tuned`, two H200 runs) per type and size, and that
/// `PreparedArg::new` launches them.
#[test]
fn tuned_defaults_follow_the_measurements() {
    use reduce_host::ElemType;
    let t = |ty, n: usize| ArgPolicy::tuned(ty, n).text();
    assert_eq!(t(ElemType::F32, 1 << 12), "block=256,bps=4");
    assert_eq!(t(ElemType::F32, 1 << 16), "block=256,bps=4");
    assert_eq!(t(ElemType::F32, (1 << 16) + 1), "block=256,bps=4,unroll=8");
    assert_eq!(t(ElemType::F32, 1 << 20), "block=256,bps=4,unroll=8");
    assert_eq!(t(ElemType::F32, (1 << 23) - 1), "block=256,bps=4,unroll=8");
    for n in [1 << 23, 1 << 26, 1 << 30] {
        assert_eq!(t(ElemType::F32, n), "block=512,bps=2,unroll=8,lane=loop");
        assert_eq!(t(ElemType::F64, n), "block=256,bps=4,lane=loop");
    }
    for n in [1, 1 << 12, 1 << 20, (1 << 23) - 1] {
        assert_eq!(t(ElemType::F64, n), "block=256,bps=4,unroll=8");
    }
    for ty in [ElemType::F16, ElemType::BF16, ElemType::I32, ElemType::U64] {
        for n in [1 << 12, 1 << 20, 1 << 26] {
            assert_eq!(ArgPolicy::tuned(ty, n), ArgPolicy::default(), "{ty}");
        }
    }
    // `PreparedArg::new` launches the tuned shape.
    let b = emu();
    for n in [1usize << 12, 1 << 20, 1 << 23] {
        let p = PreparedArg::<f32>::new(&b, Op::ArgMax, n).unwrap();
        assert_eq!(p.policy(), ArgPolicy::tuned(ElemType::F32, n));
        let p = PreparedArg::<f64>::new(&b, Op::ArgMin, n).unwrap();
        assert_eq!(p.policy(), ArgPolicy::tuned(ElemType::F64, n));
    }
}
