//! Stage 8 through `Reducer` (every op over a view and the whole-buffer methods, counts
//! and means), the wide sums, the half ops in `f32`, and `run_stage` for every stage.

use super::*;
use reduce_kernels::Element;
use std::cell::RefCell;

/// The error a fresh stage-8 plan of this request gives, if any (with its depth otherwise).
fn s8_plan<T: Scalar>(b: &Backend, op: Op, n: usize, o: LaunchOverrides) -> Result<usize> {
    plan(Stage::S8, T::TYPE, op, n, o, b.caps()).map(|p| p.depth)
}

/// `got` (a mean from a device sum in `T` divided by `len`) matches the reference: exact for
/// integers; for floats, `got · len` is within the sum's bound at `depth` (plus the division's
/// and this product's roundings).
pub fn mean_matches<T: Scalar>(got: f64, op: Op, data: &[T], depth: usize) -> Check {
    let sum_op = op.device_op();
    if !T::TYPE.is_float() {
        let want = reference_mean(data);
        return (Some(got) == want)
            .then_some(())
            .ok_or(format!("mean {got}, want {want:?}"));
    }
    let count = if sum_op == Op::NanSum {
        data.iter().filter(|x| !x.to_f64().is_nan()).count()
    } else {
        data.len()
    };
    if count == 0 {
        return got
            .is_nan()
            .then_some(())
            .ok_or(format!("nanmean of all-NaN: {got}, want NaN"));
    }
    let r = reference(sum_op, data).expect("a sum has a reference");
    let sum = T::from_f64(got * count as f64);
    (matches_reference(sum_op, sum, &r, depth + 4) || (got.is_nan() && r.sum_f64.is_nan()))
        .then_some(())
        .ok_or(format!(
            "{op}: {got} (sum {sum}), want {} / {count}",
            r.sum_f64
        ))
}

/// One request to the stage-8 family.
#[derive(Clone, Debug)]
pub struct S8Case {
    ty: ElemType,
    op: Op,
    whole: bool,
    data: Data,
    span: Span,
    o: LaunchOverrides,
}

fn s8_case(max: usize) -> BoxedStrategy<S8Case> {
    (
        elem_type(&TYPES),
        prop::sample::select(Op::REDUCE.to_vec()),
        any::<bool>(),
        data(max),
        span(),
        overrides(),
    )
        .prop_map(fields!(S8Case: ty, op, whole, data, span, o))
        .boxed()
}

/// Every op through `Reducer::reduce` of a view and the whole-buffer methods (`sum`, `min` …
/// `mean`, `nanmean`), `count`, `mean`, `nanmean` of views, on one reducer whose overrides
/// change from case to case.
pub fn stage8_ops(b: &Backend, cases: u32) -> Result<Ran, String> {
    let slot = RefCell::new(Some(Reducer::new(b)));
    run("stage8_ops", cases, s8_case(20_000), |c| {
        let mut slot = slot.borrow_mut();
        let r = slot.take().unwrap_or_else(|| Reducer::new(b));
        let mut kept = Kept(Some(r.with_overrides(c.o)), &mut slot);
        let r = kept.0.as_mut().expect("just set");
        with_elem_type!(c.ty, T => s8_check::<T>(b, r, &c))
    })
}

/// Puts the reducer back in its slot when the case ends (also when it panics).
struct Kept<'a, 'b>(Option<Reducer<'b>>, &'a mut Option<Reducer<'b>>);
impl Drop for Kept<'_, '_> {
    fn drop(&mut self) {
        *self.1 = self.0.take();
    }
}

fn s8_check<T: Scalar>(b: &Backend, r: &mut Reducer, c: &S8Case) -> Check {
    if ElemType::HALVES.contains(&T::TYPE) {
        // Halves combine in f32 (`T::Acc`): `wide_and_half_ops` checks them.
        return Ok(());
    }
    let values = pad(c.data.values::<T>(), c.span);
    let input = b.upload(&values).map_err(|e| e.to_string())?;
    let (offset, len, inside) = if c.whole {
        (0, values.len(), true)
    } else {
        c.span.request(c.data.len)
    };
    let slice = if inside {
        &values[offset..offset + len]
    } else {
        &[][..]
    };
    let op = c.op;
    let planned = s8_plan::<T>(b, op.device_op(), len, c.o);
    match op {
        Op::Mean | Op::NanMean => {
            let got = match (c.whole, op) {
                (true, Op::Mean) => r.mean(&input),
                (true, _) => r.nanmean(&input),
                (false, Op::Mean) => input
                    .slice(offset..offset.saturating_add(len))
                    .and_then(|view| r.mean(view)),
                (false, _) => input
                    .slice(offset..offset.saturating_add(len))
                    .and_then(|view| r.nanmean(view)),
            };
            if !inside {
                return expect_bounds(&got);
            }
            if len == 0 {
                return expect_err(&got, &ReduceError::EmptyInput { op });
            }
            match (got, planned) {
                (Ok(m), Ok(depth)) => mean_matches(m, op, slice, depth),
                (Err(e), Err(p)) if same_kind(&e, &p) => Ok(()),
                // An integer nanmean is the exact mean (no NaN): planned as the mean is.
                (got, planned) => Err(format!("{op}: got {got:?}, plan {planned:?}")),
            }
        }
        _ => {
            let got = if c.whole {
                whole::<T>(r, op, &input)
            } else {
                input
                    .slice(offset..offset.saturating_add(len))
                    .and_then(|view| r.reduce(op, view))
                    .map(|v| v.map(as_t::<T, _>))
            };
            if !inside {
                return expect_bounds(&got);
            }
            if op == Op::Count && !c.whole {
                count_check(r, &input, offset, len, slice, c.o, b)?;
            }
            if len == 0 && op.is_extreme() {
                return match got {
                    Ok(None) => Ok(()),
                    other => Err(format!("{op} of nothing: {other:?}, want Ok(None)")),
                };
            }
            match (got, planned) {
                (Ok(Some(v)), Ok(depth)) => {
                    let want = reference(op, slice).expect("not an extreme of nothing");
                    matches_reference(op, v, &want, depth)
                        .then_some(())
                        .ok_or(format!("{op}: got {v}, want {} ({want:?})", want.value))
                }
                (Err(e), Err(p)) if same_kind(&e, &p) => Ok(()),
                (got, planned) => Err(format!("{op}: got {got:?}, a fresh plan {planned:?}")),
            }
        }
    }
}

/// The buffer: `offset` elements before the values and `extra` after (copies of the first).
pub fn pad<T: Scalar>(values: Vec<T>, span: Span) -> Vec<T> {
    let fill = values.first().copied().unwrap_or_default();
    let mut v = vec![fill; span.offset];
    v.extend(values);
    v.extend(std::iter::repeat_n(fill, span.extra));
    v
}

/// A result of `T::Acc` or `T::Sum` as `T`, for the types where they are `T` (stage 8's
/// same-type kernels: every type here but the halves; `i32`/`u32` sums go through `reduce`).
fn as_t<T: Scalar, A: Scalar>(a: A) -> T {
    assert_eq!(A::TYPE, T::TYPE, "a same-type result");
    T::from_bits64(a.to_bits64())
}

/// The whole-buffer method of `op` (not a mean); the wrapping same-type sum for `i32`/`u32`
/// (their `sum` is the 64-bit one, checked by `wide_check`).
fn whole<T: Scalar>(r: &mut Reducer, op: Op, input: &Buffer<T>) -> Result<Option<T>> {
    let same_sum = !matches!(T::TYPE, ElemType::I32 | ElemType::U32);
    let got = match op {
        Op::Sum if same_sum => return r.sum(input).map(|v| Some(as_t(v))),
        Op::Min => r.min(input),
        Op::Max => r.max(input),
        Op::Prod => r.prod(input).map(Some),
        Op::NanMin => r.nanmin(input),
        Op::NanMax => r.nanmax(input),
        Op::NanSum => r.nansum(input).map(Some),
        _ => r.reduce(op, input),
    };
    got.map(|v| v.map(as_t))
}

/// `count` of a view: the exact count of non-NaN elements, or a typed error of the plan.
fn count_check<T: Scalar>(
    r: &mut Reducer,
    input: &Buffer<T>,
    offset: usize,
    len: usize,
    slice: &[T],
    o: LaunchOverrides,
    b: &Backend,
) -> Check {
    let want = slice.iter().filter(|x| !x.to_f64().is_nan()).count() as u64;
    match input
        .slice(offset..offset.saturating_add(len))
        .and_then(|view| r.count(view))
    {
        Ok(n) if n == want => Ok(()),
        Err(e) => match s8_plan::<T>(b, Op::Count, len.min(Reducer::COUNT_CHUNK), o) {
            Err(p) if same_kind(&e, &p) && T::TYPE.is_float() => Ok(()),
            p => Err(format!("count_range: {e}, a fresh plan {p:?}")),
        },
        Ok(n) => Err(format!("count_range: {n}, want {want}")),
    }
}

/// One request of a wide sum (`i32`, `u32`) or a half op (`f16`, `bf16`, in `f32`).
#[derive(Clone, Debug)]
pub struct WideCase {
    ty: ElemType,
    op: Op,
    data: Data,
    span: Span,
    o: LaunchOverrides,
}

/// `Reducer::sum` of a view (every type: the wide kernel for `i32`/`u32`, stage 8 for the
/// others) and `Reducer::reduce` of a view of halves with every op, against the references and the
/// errors of a fresh plan.
pub fn wide_and_half_ops(b: &Backend, cases: u32) -> Result<Ran, String> {
    let strategy = (
        elem_type(&TYPES),
        prop::sample::select(Op::REDUCE.to_vec()),
        data(20_000),
        span(),
        overrides(),
    )
        .prop_map(fields!(WideCase: ty, op, data, span, o));
    run("wide_and_half_ops", cases, strategy, |c| {
        let mut r = Reducer::new(b).with_overrides(c.o);
        match c.ty {
            ElemType::I32 => wide_check::<i32>(b, &mut r, &c),
            ElemType::U32 => wide_check::<u32>(b, &mut r, &c),
            ElemType::F16 => half_check::<F16>(b, &mut r, &c),
            ElemType::BF16 => half_check::<Bf16>(b, &mut r, &c),
            ElemType::F32 => wide_check::<f32>(b, &mut r, &c),
            ElemType::F64 => wide_check::<f64>(b, &mut r, &c),
            ElemType::I64 => wide_check::<i64>(b, &mut r, &c),
            ElemType::U64 => wide_check::<u64>(b, &mut r, &c),
        }
    })
}

fn wide_check<T: Scalar>(b: &Backend, r: &mut Reducer, c: &WideCase) -> Check {
    let values = pad(c.data.values::<T>(), c.span);
    let input = b.upload(&values).map_err(|e| e.to_string())?;
    let (offset, len, inside) = c.span.request(c.data.len);
    let got = input
        .slice(offset..offset.saturating_add(len))
        .and_then(|view| r.sum(view));
    if !inside {
        return expect_bounds(&got);
    }
    let slice = &values[offset..offset + len];
    let built = matches!(T::TYPE, ElemType::I32 | ElemType::U32);
    let fresh = if built {
        wide_depth::<T>(b, len, c.o)
    } else {
        s8_plan::<T>(b, Op::Sum, len, c.o)
    };
    match (got, fresh) {
        (Ok(v), Ok(depth)) if built => {
            let want: i128 = slice.iter().filter_map(|x| x.to_i128()).sum();
            (v.to_i128() == Some(want))
                .then_some(())
                .ok_or(format!("wide sum {v}, want {want} (depth {depth})"))
        }
        (Ok(v), Ok(depth)) => {
            let want = reference(Op::Sum, slice).expect("a sum");
            let v = T::from_bits64(v.to_bits64()); // `T::Sum` is `T` here
            matches_reference(Op::Sum, v, &want, depth)
                .then_some(())
                .ok_or(format!("sum_wide {v}, want {}", want.value))
        }
        (Err(e), Err(p)) if same_kind(&e, &p) => Ok(()),
        (got, fresh) => Err(format!("sum_wide: {got:?}, a fresh plan {fresh:?}")),
    }
}

fn half_check<H: HalfFloat>(b: &Backend, r: &mut Reducer, c: &WideCase) -> Check {
    let values = pad(c.data.values::<H>(), c.span);
    let input = b.upload(&values).map_err(|e| e.to_string())?;
    let (offset, len, inside) = c.span.request(c.data.len);
    let op = c.op;
    let got = if op.is_mean() {
        // A mean is refused before the range is looked at.
        r.reduce(op, &input)
    } else {
        input
            .slice(offset..offset.saturating_add(len))
            .and_then(|view| r.reduce(op, view))
    };
    if op.is_mean() {
        return expect_err(&got, &ReduceError::InvalidArgument(String::new()));
    }
    if !inside {
        return expect_bounds(&got);
    }
    if len == 0 && op.is_extreme() {
        return match got {
            Ok(None) => Ok(()),
            other => Err(format!("{op} of no halves: {other:?}")),
        };
    }
    let slice = &values[offset..offset + len];
    match (got, PreparedWide::<H>::for_op(b, len, op, c.o)) {
        (Ok(Some(v)), Ok(p)) => {
            let want = reference_half(op, slice).expect("not an extreme of nothing");
            matches_half_reference(op, v, &want, p.depth())
                .then_some(())
                .ok_or(format!("{op} of halves: {v}, want {}", want.value))
        }
        (Err(e), Err(p)) if same_kind(&e, &p) => Ok(()),
        (got, fresh) => Err(format!(
            "{op} of halves: {got:?}, a fresh plan {:?}",
            fresh.map(|p| p.depth())
        )),
    }
}

/// One `run_stage` request.
#[derive(Clone, Debug)]
pub struct StageCase {
    stage: usize,
    ty: ElemType,
    op: Op,
    data: Data,
    n_past: bool,
    o: LaunchOverrides,
}

/// `run_stage` for every stage, type and op, with overrides (the multi-pass stages take blocks
/// of their own), and an `n` past the buffer now and then.
pub fn every_stage(b: &Backend, cases: u32) -> Result<Ran, String> {
    let block = prop_oneof![
        6 => Just(None),
        2 => prop::sample::select(vec![32usize, 64, 128, 256, 512, 1024]).prop_map(Some),
        1 => prop::sample::select(vec![0usize, 48, 2048]).prop_map(Some),
    ];
    let grid = prop_oneof![6 => Just(None), 1 => (0usize..9).prop_map(Some)];
    // Mostly what stages 1–7 are built for (f32 and i32 sums), sometimes anything.
    let ty = prop_oneof![3 => elem_type(&[ElemType::F32, ElemType::I32]), 1 => elem_type(&TYPES)];
    let op = prop_oneof![3 => Just(Op::Sum), 1 => prop::sample::select(Op::REDUCE.to_vec())];
    let strategy = (
        1usize..=8,
        ty,
        op,
        data(10_000),
        prop_oneof![8 => Just(false), 1 => Just(true)],
        block,
        grid,
    )
        .prop_map(|(stage, ty, op, data, n_past, block, grid)| StageCase {
            stage,
            ty,
            op,
            data,
            n_past,
            o: LaunchOverrides { block, grid },
        });
    run_typed!("every_stage", cases, strategy, stage_check(b))
}

fn stage_check<T: Scalar>(b: &Backend, c: &StageCase) -> Check {
    let stage = Stage::from_number(c.stage).map_err(|e| e.to_string())?;
    let values: Vec<T> = c.data.values();
    let input = b.upload(&values).map_err(|e| e.to_string())?;
    let n = values.len() + usize::from(c.n_past);
    let got = run_stage(b, stage, c.op, &input, n, c.o);
    if c.op.is_mean() {
        return expect_err(&got, &ReduceError::InvalidArgument(String::new()));
    }
    if c.n_past {
        return expect_bounds(&got);
    }
    if n == 0 && c.op.is_extreme() {
        return expect_err(&got, &ReduceError::EmptyInput { op: c.op });
    }
    match (got, plan(stage, T::TYPE, c.op, n, c.o, b.caps())) {
        (Ok(v), Ok(p)) => {
            let want = reference(c.op, &values).expect("not an extreme of nothing");
            matches_reference(c.op, v, &want, p.depth)
                .then_some(())
                .ok_or(format!("{stage} {}: {v}, want {}", c.op, want.value))
        }
        (Err(e), Err(p)) if same_kind(&e, &p) => Ok(()),
        (got, p) => Err(format!(
            "{stage}: {got:?}, a fresh plan {:?}",
            p.map(|p| p.depth)
        )),
    }
}

/// The depth of the wide sum of `len` elements of `T` (`i32` or `u32`).
fn wide_depth<T: Scalar>(b: &Backend, len: usize, o: LaunchOverrides) -> Result<usize> {
    match T::TYPE {
        ElemType::I32 => PreparedWide::<i32>::new(b, len, o).map(|p| p.depth()),
        _ => PreparedWide::<u32>::new(b, len, o).map(|p| p.depth()),
    }
}
