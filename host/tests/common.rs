//! Shared by the emulator and GPU test suites: the edge sizes and the checks, so both backends
//! are held to exactly the same standard.
#![allow(dead_code)]

use reduce_host::reference::{reference_mean, reference_nanmean, XorShift64};
use reduce_host::*;

/// `#[test] fn NAME() { BODY; }` for each `NAME => BODY`: a test a case, so that each runs (and
/// fails) on its own. Where a suite declares `#[macro_use] mod common;`.
#[allow(unused_macros)]
macro_rules! test_each {
    ($($name:ident => $body:expr),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                $body;
            }
        )*
    };
}

/// A stage-8 result (`T::Acc`) as `T`, for the six types where they are the same type.
pub fn as_t<T: Scalar, A: Scalar>(a: A) -> T {
    assert_eq!(
        A::TYPE,
        T::TYPE,
        "T::Acc is T for every type but the halves"
    );
    T::from_bits64(a.to_bits64())
}

/// Sizes around every boundary the kernels have: empty, one, a warp, a block, two blocks'
/// worth (first add during load), powers of two ± 1.
pub fn edge_sizes(block: usize) -> Vec<usize> {
    let mut v = vec![
        0,
        1,
        2,
        3,
        4,
        5,
        31,
        32,
        33,
        block - 1,
        block,
        block + 1,
        2 * block - 1,
        2 * block,
        2 * block + 1,
    ];
    for k in [10, 12, 16] {
        v.extend([(1 << k) - 1, 1 << k, (1 << k) + 1]);
    }
    v.sort();
    v.dedup();
    v
}

/// Panic with how many checks failed and each failure, one a line, unless none did.
pub fn assert_no_failures(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `Ok` when no check failed, else an error of every failure, one a line.
pub fn all_passed<E: From<String>>(failures: &[String]) -> Result<(), E> {
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n").into())
    }
}

/// Deterministic pseudo-random data of any type (no zeros: they hide unwritten results).
pub fn data<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    XorShift64::new(seed)
        .take(n)
        .map(|x| {
            let v = (x >> 11) % 2000;
            match T::TYPE {
                ElemType::F32 | ElemType::F64 => T::from_f64(v as f64 / 997.0 + 0.25),
                ElemType::I32 | ElemType::I64 => T::from_f64(v as f64 - 1000.0),
                _ => T::from_f64(v as f64 + 1.0),
            }
        })
        .collect()
}

/// Run `stage` with `op` on `data` and check the result against the CPU reference.
pub fn check<T: Scalar>(
    b: &Backend,
    stage: Stage,
    op: Op,
    data: &[T],
    o: LaunchOverrides,
) -> Result<(), String> {
    let input = b.upload(data).map_err(|e| e.to_string())?;
    let p = plan(stage, T::TYPE, op, data.len(), o, b.caps()).map_err(|e| e.to_string())?;
    let depth = p.depth;
    let got = Prepared::<T>::new(b, p)
        .and_then(|p| p.run(b, &input, 0))
        .map_err(|e| e.to_string())?;
    match reference(op, data) {
        Some(r) if matches_reference(op, got, &r, depth) => Ok(()),
        Some(r) => Err(format!(
            "{stage} {op} {} n={} {o:?}: got {got}, want {} (f64 sum {})",
            T::TYPE,
            data.len(),
            r.value,
            r.sum_f64
        )),
        None => Ok(()), // min/max of nothing: checked through Reducer
    }
}

/// Stage 8 through the public `Reducer` on `data[offset..]` (a misaligned start when `offset`
/// is not a multiple of 16 bytes).
pub fn check_reducer<T: Scalar>(
    b: &Backend,
    op: Op,
    data: &[T],
    offset: usize,
    o: LaunchOverrides,
) -> Result<(), String> {
    let input = b.upload(data).map_err(|e| e.to_string())?;
    let mut r = Reducer::new(b).with_overrides(o);
    let len = data.len() - offset;
    let slice = &data[offset..];
    if op == Op::Mean || op == Op::NanMean {
        return check_mean(&mut r, op, &input, slice, offset, o);
    }
    let got = input
        .slice(offset..offset.saturating_add(len))
        .and_then(|view| r.reduce(op, view))
        .map_err(|e| e.to_string())?
        .map(as_t::<T, _>);
    // The reference of the sum; min, max and mean of nothing are `None`.
    let want = if len == 0 && op.is_extreme() {
        None
    } else {
        reference(op.device_op(), slice)
    };
    match (got, want) {
        (None, None) => Ok(()),
        (Some(_), None) if !op.is_extreme() => Ok(()),
        (Some(g), Some(w)) => {
            let depth = plan(Stage::S8, T::TYPE, op, len, o, b.caps())
                .map_err(|e| e.to_string())?
                .depth;
            if matches_reference(op, g, &w, depth) {
                Ok(())
            } else {
                Err(format!(
                    "s8 {op} {} n={len} offset={offset} {o:?}: got {g}, want {} ({})",
                    T::TYPE,
                    w.value,
                    w.sum_f64
                ))
            }
        }
        (g, w) => Err(format!(
            "s8 {op} {} n={len}: got {g:?}, want {:?}",
            T::TYPE,
            w.map(|w| w.value)
        )),
    }
}

/// `op` ([`Op::Mean`] or [`Op::NanMean`]) of a view, against [`reference_mean`] or
/// [`reference_nanmean`]: exact for integers; for floats within the (nan)sum's error bound
/// divided by the count.
fn check_mean<T: Scalar>(
    r: &mut Reducer,
    op: Op,
    input: &Buffer<T>,
    slice: &[T],
    offset: usize,
    o: LaunchOverrides,
) -> Result<(), String> {
    let nan = op == Op::NanMean;
    let len = slice.len();
    let view = input.slice(offset..offset.saturating_add(len));
    let got = view.and_then(|v| if nan { r.nanmean(v) } else { r.mean(v) });
    let want = if nan {
        reference_nanmean(slice)
    } else {
        reference_mean(slice)
    };
    let Some(want) = want else {
        return match got {
            // Empty: a mean's error may name any op; a nanmean's must name the nanmean.
            Err(ReduceError::EmptyInput { op: got_op }) if !nan || got_op == Op::NanMean => Ok(()),
            other => Err(format!("{op:?} of nothing: got {other:?}")),
        };
    };
    let got = got.map_err(|e| e.to_string())?;
    let ok = if T::TYPE.is_float() {
        let sum_op = if nan { Op::NanSum } else { Op::Sum };
        let sum = reference(sum_op, slice).expect("non-empty");
        let count = if nan {
            slice.iter().filter(|x| !x.to_f64().is_nan()).count() as f64
        } else {
            len as f64
        };
        let depth = plan(Stage::S8, T::TYPE, sum_op, len, o, r.backend().caps())
            .map_err(|e| e.to_string())?
            .depth;
        let u = if T::TYPE == ElemType::F32 {
            2f64.powi(-24)
        } else {
            2f64.powi(-53)
        };
        let bound = (depth as f64 * u * sum.sum_abs + 2.0 * u * sum.sum_f64.abs()) / count;
        (nan && want.is_nan() && got.is_nan())
            || (got - want).abs() <= bound + f64::EPSILON * want.abs()
    } else {
        got == want
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "s8 {op:?} {} n={len} offset={offset}: got {got}, want {want}",
            T::TYPE
        ))
    }
}

/// The IEEE edge cases of an exact sum, as `f64` (the tests round each to `f32` too): signed
/// zeros, cancellation, overflow, infinities, NaN, subnormals and a half-ulp tail; `zeros`,
/// `maxes` and `subnormals` are the lengths of the runs of -0.0, `f64::MAX` and 2^-1074.
pub fn exact_edge_inputs(zeros: usize, maxes: usize, subnormals: usize) -> Vec<Vec<f64>> {
    vec![
        vec![],
        vec![-0.0; zeros],
        vec![0.0, -0.0],
        vec![1e300, 1.0, -1e300],
        vec![f64::MAX, f64::MAX, -f64::MAX],
        vec![f64::MAX; maxes],
        vec![f64::INFINITY, 1.0],
        vec![f64::NEG_INFINITY, 5.0, f64::INFINITY],
        vec![f64::NAN; 3],
        vec![f64::from_bits(1); subnormals],
        vec![1.0, 2f64.powi(-53)],
    ]
}
