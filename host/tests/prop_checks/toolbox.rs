//! The transform-reduces (`sumsq`, `l1`, `norm2`, `dot`, `moments`, `var`, `std`, `total`,
//! `count`, `nanmean`, `mean` of halves) and the arg-reductions.

use super::reduce::pad;
use super::*;
use reduce_host::transform::reference::reference_transform;

/// The transform entry points of `Reducer`.
const TRANSFORM_CALLS: [&str; 11] = [
    "sumsq", "l1", "norm2", "dot", "moments", "var", "std", "total", "count", "nanmean", "mean",
];

#[derive(Clone, Debug)]
pub struct TransformCase {
    call: &'static str,
    ty: ElemType,
    data: Data,
    span: Span,
    b_span: Span,
    b_len_delta: i8,
    ddof: u64,
}

/// Every transform entry point on every type (halves included; integers are typed errors
/// where the kernels are not built for them), over ranges and whole buffers, against the
/// reference's bound for the plan's depth.
pub fn transform_ops(b: &Backend, cases: u32) -> Result<Ran, String> {
    let strategy = (
        prop::sample::select(TRANSFORM_CALLS.to_vec()),
        elem_type(&TYPES),
        data(20_000),
        span(),
        span(),
        prop_oneof![6 => Just(0i8), 1 => -2i8..=2],
        0u64..3,
    )
        .prop_map(fields!(TransformCase: call, ty, data, span, b_span, b_len_delta, ddof));
    run_typed!("transform_ops", cases, strategy, transform_check(b))
}

fn transform_check<T: Scalar>(b: &Backend, c: &TransformCase) -> Check {
    let mut r = Reducer::new(b);
    let values = pad(c.data.values::<T>(), c.span);
    let input = b.upload(&values).map_err(|e| e.to_string())?;
    let (offset, len, inside) = c.span.request(c.data.len);
    let kind = match c.call {
        "sumsq" | "norm2" => Op::SumSq,
        "l1" => Op::L1,
        "dot" => Op::Dot,
        "total" => Op::Total,
        "count" | "nanmean" => Op::NanTotal,
        _ => Op::Moments,
    };
    let planned = plan_transform_on(b, kind, T::TYPE, len, LaunchOverrides::default());
    let slice = || &values[offset..offset + len];
    let accepts = |words: [f64; 3], second: Option<&[T]>| -> Check {
        let p = planned
            .as_ref()
            .map_err(|e| format!("no plan ({e}) but a result"))?;
        let want = reference_transform(kind, slice(), second).ok_or("no reference")?;
        want.accepts(words, p)
            .then_some(())
            .ok_or(format!("{}: {words:?}, want {want:?}", c.call))
    };
    // Errors other than the range's: the plan's, or the documented ones.
    let check = |got: Result<[f64; 3]>, second: Option<&[T]>| -> Check {
        match (got, &planned) {
            (Ok(w), _) => accepts(w, second),
            (Err(e), Err(p)) if same_kind(&e, p) => Ok(()),
            (Err(e), _) => Err(format!("{}: {e}, but a fresh plan is {planned:?}", c.call)),
        }
    };
    match c.call {
        "sumsq" | "l1" | "total" | "norm2" => {
            let got = match c.call {
                "sumsq" => input
                    .slice(offset..offset.saturating_add(len))
                    .and_then(|view| r.sumsq(view)),
                "l1" => input
                    .slice(offset..offset.saturating_add(len))
                    .and_then(|view| r.l1(view)),
                "total" => input
                    .slice(offset..offset.saturating_add(len))
                    .and_then(|view| total_of(b, view)),
                _ => input
                    .slice(offset..offset.saturating_add(len))
                    .and_then(|view| r.norm2(view))
                    .map(|v| v * v),
            };
            if !inside {
                return expect_bounds(&got);
            }
            if c.call == "norm2" {
                // √ then squared again: one rounding each, relative.
                if let (Ok(v), Ok(_)) = (&got, &planned) {
                    let want = input
                        .slice(offset..offset.saturating_add(len))
                        .and_then(|view| r.sumsq(view))
                        .map_err(|e| e.to_string())?;
                    let close = (v - want).abs() <= 4.0 * f64::EPSILON * want.abs();
                    return (close || (v.is_nan() && want.is_nan()) || v == &want)
                        .then_some(())
                        .ok_or(format!("norm2² {v}, sumsq {want}"));
                }
            }
            check(got.map(|v| [v, 0.0, 0.0]), None)
        }
        "dot" => {
            let b_len = (c.data.len as isize + c.b_len_delta as isize).max(0) as usize;
            let other = pad(c.data.values_seeded::<T>(b_len, 7), c.b_span);
            let second = b.upload(&other).map_err(|e| e.to_string())?;
            if c.span.past == 0 && c.b_span.past == 0 && c.span.offset == 0 && c.span.extra == 0 {
                // Whole buffers: equal lengths or LengthMismatch.
                let got = r.dot(&input, &second);
                if input.len() != second.len() {
                    return expect_err(&got, &ReduceError::LengthMismatch { a: 0, b: 0 });
                }
                return check(got.map(|v| [v, 0.0, 0.0]), Some(&other));
            }
            let b_off = c.b_span.offset;
            let got = input
                .slice(offset..offset.saturating_add(len))
                .and_then(|a| Ok((a, second.slice(b_off..b_off.saturating_add(len))?)))
                .and_then(|(a, bv)| r.dot(a, bv));
            if !inside || b_off + len > second.len() {
                return expect_bounds(&got);
            }
            check(got.map(|v| [v, 0.0, 0.0]), Some(&other[b_off..b_off + len]))
        }
        "moments" => {
            let got = input
                .slice(offset..offset.saturating_add(len))
                .and_then(|view| r.moments(view));
            if !inside {
                return expect_bounds(&got);
            }
            if len == 0 {
                return expect_err(&got, &ReduceError::EmptyInput { op: Op::Mean });
            }
            if slice().iter().any(|x| !x.to_f64().is_finite()) {
                // A NaN or infinite element: the count exact, the mean and M2 not finite.
                return match got {
                    Ok(m) if m.count == len as u64 && !(m.mean.is_finite() && m.m2.is_finite()) => {
                        Ok(())
                    }
                    other => Err(format!("moments of non-finite data: {other:?}")),
                };
            }
            check(got.map(|m| [m.count as f64, m.mean, m.m2]), None)
        }
        "var" | "std" => {
            let n = values.len() as u64;
            let got = if c.call == "var" {
                r.var(&input, c.ddof)
            } else {
                r.std(&input, c.ddof).map(|s| s * s)
            };
            if n <= c.ddof {
                return expect_err(&got, &ReduceError::TooFewElements { n, ddof: c.ddof });
            }
            // The variance is the moments' M2 / (n − ddof); the moments meet their bound.
            let moments = r.moments(&input);
            let planned = plan_transform_on(b, kind, T::TYPE, values.len(), Default::default());
            match (got, moments, planned) {
                (Ok(v), Ok(m), Ok(p)) => {
                    let want = reference_transform(kind, &values, None).ok_or("no reference")?;
                    let finite = values.iter().all(|x| x.to_f64().is_finite());
                    if finite && !want.accepts([m.count as f64, m.mean, m.m2], &p) {
                        return Err(format!("moments {m:?}, want {want:?}"));
                    }
                    let var = m.var(c.ddof).map_err(|e| e.to_string())?;
                    let close = (v - var).abs() <= 4.0 * f64::EPSILON * var.abs();
                    (close || v == var || (v.is_nan() && var.is_nan()))
                        .then_some(())
                        .ok_or(format!("{}: {v}, from the moments {var}", c.call))
                }
                (Err(e), _, Err(p)) if same_kind(&e, &p) => Ok(()),
                (got, _, p) => Err(format!("{}: {got:?}, plan {:?}", c.call, p.map(|_| ()))),
            }
        }
        _ => half_transform::<T>(&mut r, c, &input, (offset, len, inside), &values, b),
    }
}

/// `count`, `nanmean`, `mean` of halves (halves only: other types are not
/// `HalfFloat` and have their own count and means).
fn half_transform<T: Scalar>(
    r: &mut Reducer,
    c: &TransformCase,
    input: &Buffer<T>,
    (offset, len, inside): (usize, usize, bool),
    values: &[T],
    b: &Backend,
) -> Check {
    macro_rules! halves {
        ($H:ty) => {{
            // `T` is `$H` in this arm: the downcast finds it.
            let input: &Buffer<$H> = (input as &dyn std::any::Any)
                .downcast_ref()
                .ok_or("a half buffer")?;
            let n = values.len();
            match c.call {
                "count" => {
                    let got = input
                        .slice(offset..offset.saturating_add(len))
                        .and_then(|view| r.count(view));
                    if !inside {
                        return expect_bounds(&got);
                    }
                    let kept = values[offset..offset + len]
                        .iter()
                        .filter(|x| !x.to_f64().is_nan())
                        .count();
                    match got {
                        Ok(k) if k == kept as u64 => Ok(()),
                        other => Err(format!("count_half {other:?}, want {kept}")),
                    }
                }
                "nanmean" => {
                    let got = r.nanmean(input);
                    if n == 0 {
                        return expect_err(&got, &ReduceError::EmptyInput { op: Op::NanMean });
                    }
                    let kept: Vec<f64> = values
                        .iter()
                        .map(|x| x.to_f64())
                        .filter(|x| !x.is_nan())
                        .collect();
                    let depth = plan_transform_on(b, Op::NanTotal, T::TYPE, n, Default::default())
                        .map_err(|e| e.to_string())?
                        .depth;
                    let want = kept.iter().sum::<f64>() / kept.len() as f64;
                    let abs: f64 = kept.iter().map(|x| x.abs()).sum();
                    let bound = (depth as f64 + 4.0) * f64::EPSILON * abs / kept.len() as f64;
                    match got {
                        Ok(m) if kept.is_empty() && m.is_nan() => Ok(()),
                        Ok(m) if (m - want).abs() <= bound || m == want => Ok(()),
                        Ok(m) if m.is_nan() && want.is_nan() => Ok(()),
                        other => Err(format!("nanmean_half {other:?}, want {want}")),
                    }
                }
                _ => {
                    let got = r.mean(input);
                    if n == 0 {
                        return expect_err(&got, &ReduceError::EmptyInput { op: Op::Mean });
                    }
                    let m = r.moments(input).map_err(|e| e.to_string())?;
                    match got {
                        Ok(v)
                            if v.to_bits() == m.mean.to_bits()
                                || (v.is_nan() && m.mean.is_nan()) =>
                        {
                            Ok(())
                        }
                        other => Err(format!("mean_half {other:?}, moments' mean {}", m.mean)),
                    }
                }
            }
        }};
    }
    match T::TYPE {
        ElemType::F16 => halves!(F16),
        ElemType::BF16 => halves!(Bf16),
        _ => Ok(()),
    }
}

impl Data {
    /// Other values of `len` elements (the second input of a dot product).
    pub fn values_seeded<T: Scalar>(&self, len: usize, salt: u64) -> Vec<T> {
        Data {
            len,
            seed: self.seed ^ salt,
            ..self.clone()
        }
        .values()
    }
}

#[derive(Clone, Debug)]
pub struct ArgCase {
    op: Op,
    ty: ElemType,
    whole: bool,
    data: Data,
    span: Span,
}

/// argmin/argmax/nanargmin/nanargmax over ranges and whole buffers of every type: NumPy's
/// index and value, or the typed errors of nothing and of all-NaN.
pub fn arg_ops(b: &Backend, cases: u32) -> Result<Ran, String> {
    let strategy = (
        prop::sample::select(Op::ARG.to_vec()),
        elem_type(&TYPES),
        any::<bool>(),
        data(20_000),
        span(),
    )
        .prop_map(fields!(ArgCase: op, ty, whole, data, span));
    run_typed!("arg_ops", cases, strategy, arg_check(b))
}

fn arg_check<T: Scalar>(b: &Backend, c: &ArgCase) -> Check {
    let mut r = Reducer::new(b);
    let values = pad(c.data.values::<T>(), c.span);
    let input = b.upload(&values).map_err(|e| e.to_string())?;
    let whole = c.whole && matches!(c.op, Op::ArgMax | Op::ArgMin);
    let (offset, len, inside) = if whole {
        (0, values.len(), true)
    } else {
        c.span.request(c.data.len)
    };
    let got = match (c.whole, c.op) {
        (true, Op::ArgMax) => r.argmax(&input),
        (true, Op::ArgMin) => r.argmin(&input),
        _ => input
            .slice(offset..offset.saturating_add(len))
            .and_then(|view| r.arg(c.op, view)),
    };
    if !inside {
        return expect_bounds(&got);
    }
    let slice = &values[offset..offset + len];
    if len == 0 {
        return expect_err(&got, &ReduceError::EmptyArgInput { op: "" });
    }
    match (got, reference_arg(c.op, slice)) {
        (Ok((i, v)), Some((j, w))) if i == j && (v.to_bits64() == w.to_bits64() || same(v, w)) => {
            Ok(())
        }
        (Err(ReduceError::AllNanArg { .. }), None) => typed_ok(),
        (got, want) => Err(format!("{:?}: {got:?}, want {want:?}", c.op)),
    }
}

/// Σx in `f64` over `x`: one launch of [`Op::Total`], its result in device memory (as
/// the `Reducer` transform methods read theirs).
fn total_of<T: Scalar>(b: &Backend, x: View<'_, T>) -> reduce_host::Result<f64> {
    PreparedTransform::<T>::with_result_in(
        b,
        Op::Total,
        x.len(),
        LaunchOverrides::default(),
        reduce_host::plan::ResultIn::DeviceMemory,
    )?
    .run_views(b, x, None)
    .map(|w| w[0])
}
