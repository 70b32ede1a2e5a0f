//! Argmin/argmax checks shared by the emulator suite (`tests/argreduce.rs`) and the GPU suite
//! (`tests/gpu.rs`): every type × op × awkward size × misaligned offset against
//! [`reference_arg`] (NumPy's rule written out), NaN/inf/-0.0/subnormal inputs, integer extremes,
//! and the typed error for an empty input.
#![allow(dead_code)]

use reduce_host::argreduce::reference_arg;
use reduce_host::reference::XorShift64;
use reduce_host::*;

/// Few distinct values (many ties), deterministic.
pub fn tied<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    XorShift64::new(seed)
        .take(n)
        .map(|x| {
            let v = ((x >> 11) % 13) as f64;
            match T::TYPE {
                ElemType::U32 | ElemType::U64 => T::from_f64(v),
                _ => T::from_f64(v - 6.0),
            }
        })
        .collect()
}

fn check_one<T: Scalar>(
    b: &Backend,
    input: &Buffer<T>,
    data: &[T],
    offset: usize,
    len: usize,
) -> Result<(), String> {
    let mut r = Reducer::new(b);
    for op in Op::ARG {
        let got = input
            .slice(offset..offset.saturating_add(len))
            .and_then(|view| r.arg(op, view));
        let Some(want) = reference_arg(op, &data[offset..offset + len]) else {
            // Only an all-NaN input skipping NaN has no answer: the typed error.
            match got {
                Err(ReduceError::AllNanArg { op: name }) if name == op.name() => continue,
                other => return Err(format!("{op} of all NaN ({}): {other:?}", T::TYPE)),
            }
        };
        let got = got.map_err(|e| format!("{op} {} n={len} offset={offset}: {e}", T::TYPE))?;
        if got.0 != want.0 || got.1.to_bits64() != want.1.to_bits64() {
            return Err(format!(
                "{op} of {len} {} at offset {offset}: got {got:?}, want {want:?}",
                T::TYPE
            ));
        }
    }
    Ok(())
}

/// Every op at `sizes` (and offsets 0, 1, 3 into a longer buffer), for `T`.
pub fn sizes_and_offsets<T: Scalar>(b: &Backend, sizes: &[usize]) -> Result<(), String> {
    for &n in sizes.iter().filter(|&&n| n > 0) {
        let data = tied::<T>(n + 3, n as u64);
        let input = b.upload(&data).map_err(|e| e.to_string())?;
        for offset in [0, 1, 3] {
            check_one(b, &input, &data, offset, n)?;
        }
    }
    Ok(())
}

/// Every element type.
pub fn every_type(b: &Backend, sizes: &[usize]) -> Result<(), String> {
    sizes_and_offsets::<f32>(b, sizes)?;
    sizes_and_offsets::<f64>(b, sizes)?;
    sizes_and_offsets::<i32>(b, sizes)?;
    sizes_and_offsets::<u32>(b, sizes)?;
    sizes_and_offsets::<i64>(b, sizes)?;
    sizes_and_offsets::<u64>(b, sizes)?;
    sizes_and_offsets::<F16>(b, sizes)?;
    sizes_and_offsets::<Bf16>(b, sizes)
}

fn float_specials<T: Scalar>(b: &Backend, n: usize) -> Result<(), String> {
    let base = tied::<T>(n, 5);
    let at = |i: usize| i.min(n - 1);
    let cases: Vec<(&str, Vec<(usize, f64)>)> = vec![
        ("one NaN", vec![(at(n / 2), f64::NAN)]),
        (
            "two NaNs, first wins",
            vec![(at(n - 1), f64::NAN), (at(n / 3), -f64::NAN)],
        ),
        (
            "+inf and -inf",
            vec![(at(7), f64::INFINITY), (at(n / 2), f64::NEG_INFINITY)],
        ),
        (
            "NaN before inf",
            vec![
                (at(n.saturating_sub(2)), f64::INFINITY),
                (at(n / 4), f64::NAN),
            ],
        ),
        ("-0.0 then 0.0 as extremes", vec![]),
        (
            "subnormals",
            vec![(at(3), subnormal::<T>()), (at(n / 2), -subnormal::<T>())],
        ),
        ("NaN last", vec![(n - 1, f64::NAN)]),
        ("NaN first", vec![(0, f64::NAN)]),
    ];
    for (what, edits) in cases {
        let mut d = base.clone();
        if what.starts_with("-0.0") {
            // All ≥ 0 except zeros: the max is elsewhere, the min is the first zero (either sign).
            for v in d.iter_mut() {
                *v = T::from_f64(v.to_f64().abs() + 1.0);
            }
            d[at(n / 3)] = T::from_f64(-0.0);
            d[at(n / 2)] = T::from_f64(0.0);
        }
        for (i, v) in edits {
            d[i] = T::from_f64(v);
        }
        let input = b.upload(&d).map_err(|e| e.to_string())?;
        check_one(b, &input, &d, 0, n).map_err(|e| format!("{what}: {e}"))?;
    }
    // All NaN: index 0 both ways.
    let d = vec![T::from_f64(f64::NAN); n];
    let input = b.upload(&d).map_err(|e| e.to_string())?;
    check_one(b, &input, &d, 0, n).map_err(|e| format!("all NaN: {e}"))
}

/// A subnormal of `T` (exact in it): the smallest positive one.
fn subnormal<T: Scalar>() -> f64 {
    match T::TYPE {
        ElemType::F16 => 2f64.powi(-24),
        ElemType::BF16 => 2f64.powi(-133),
        ElemType::F32 => 2f64.powi(-149),
        _ => 2f64.powi(-1074),
    }
}

/// NaN (first, middle, last, all), ±inf, -0.0 and subnormals, for every float type (f16 and
/// bf16 too), at `n` elements.
pub fn floats(b: &Backend, n: usize) -> Result<(), String> {
    float_specials::<f32>(b, n)?;
    float_specials::<f64>(b, n)?;
    float_specials::<F16>(b, n)?;
    float_specials::<Bf16>(b, n)
}

fn int_extremes<T: Scalar>(b: &Backend, n: usize, min: T, max: T) -> Result<(), String> {
    let mut d = tied::<T>(n, 9);
    d[n / 2] = max;
    d[n - 1] = max;
    d[n / 3] = min;
    d[1.min(n - 1)] = min;
    let input = b.upload(&d).map_err(|e| e.to_string())?;
    check_one(b, &input, &d, 0, n)
}

/// MIN and MAX of every integer type, each twice (the first occurrence wins).
pub fn integers(b: &Backend, n: usize) -> Result<(), String> {
    int_extremes::<i32>(b, n, i32::MIN, i32::MAX)?;
    int_extremes::<u32>(b, n, u32::MIN, u32::MAX)?;
    int_extremes::<i64>(b, n, i64::MIN, i64::MAX)?;
    int_extremes::<u64>(b, n, u64::MIN, u64::MAX)
}

/// An empty input (or range) is the typed error, not a launch.
pub fn empty_is_an_error(b: &Backend) -> Result<(), String> {
    let input = b.upload::<f32>(&[1.0, 2.0]).map_err(|e| e.to_string())?;
    let mut r = Reducer::new(b);
    for op in Op::ARG {
        match input.slice(1..1).and_then(|view| r.arg(op, view)) {
            Err(ReduceError::EmptyArgInput { op: name }) if name == op.name() => {}
            other => return Err(format!("{op} of nothing: {other:?}")),
        }
    }
    let empty = b.upload::<u64>(&[]).map_err(|e| e.to_string())?;
    match r.argmax(&empty) {
        Err(ReduceError::EmptyArgInput { .. }) => {}
        other => return Err(format!("argmax of an empty buffer: {other:?}")),
    }
    match input
        .slice(1..1 + 2)
        .and_then(|view| r.arg(Op::ArgMin, view))
    {
        Err(ReduceError::OutOfBounds { arg: "range", .. }) => Ok(()),
        other => Err(format!("a range past the end: {other:?}")),
    }
}

/// The default launch shapes, and for `f32`/`f64` the candidate kernels (`unroll=8`,
/// `lane=loop`) under both block sizes.
fn policy_texts<T: Scalar>() -> Vec<&'static str> {
    let mut texts = vec![
        "",
        "block=512",
        "bps=1",
        "block=256,bps=8",
        "block=512,bps=32",
    ];
    if matches!(T::TYPE, ElemType::F32 | ElemType::F64) {
        texts.extend([
            "unroll=8",
            "lane=loop",
            "unroll=8,lane=loop",
            "block=512,bps=2,unroll=8",
            "block=512,bps=1,unroll=8,lane=loop",
            "bps=6,lane=loop",
        ]);
    }
    texts
}

fn policies_for<T: Scalar>(b: &Backend, n: usize) -> Result<(), String> {
    let mut d = tied::<T>(n, 21);
    if T::default().to_i128().is_none() && n > 2 {
        d[n / 2] = T::from_f64(f64::NAN);
    }
    let input = b.upload(&d).map_err(|e| e.to_string())?;
    for op in Op::ARG {
        let want = reference_arg(op, &d).expect("not all NaN");
        for text in policy_texts::<T>() {
            let policy = ArgPolicy::parse(text).map_err(|e| e.to_string())?;
            let got = PreparedArg::<T>::with_policy(b, op, n, policy)
                .and_then(|p| p.run(b, &input, 0))
                .map_err(|e| format!("{op} {} n={n} `{text}`: {e}", T::TYPE))?;
            if got.0 != want.0 || got.1.to_bits64() != want.1.to_bits64() {
                return Err(format!(
                    "{op} of {n} {} with `{text}`: got {got:?}, want {want:?}",
                    T::TYPE
                ));
            }
        }
    }
    Ok(())
}

/// Every op under several launch shapes (`ArgPolicy`: both built block sizes, 1 to 32 blocks per
/// SM) gives the reference's answer: f32 and bf16 with a NaN in the middle, and i64.
pub fn every_policy(b: &Backend, n: usize) -> Result<(), String> {
    policies_for::<f32>(b, n)?;
    policies_for::<f64>(b, n)?;
    policies_for::<Bf16>(b, n)?;
    policies_for::<i64>(b, n)
}
