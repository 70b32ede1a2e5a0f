//! A user's operator (`CustomReduction`): `(min, max, max |x|)` of `f32` with IEEE
//! `minNum`/`maxNum` (NaN ignored), prepared for one length and run over ranges of buffers.

use super::reduce::pad;
use super::*;

/// The item: `((min, max), max |x|)`.
pub type MinMaxAbs = ((f32, f32), f32);

#[derive(Clone, Debug)]
pub struct CustomCase {
    data: Data,
    span: Span,
    planned_delta: i8,
}

/// The CPU fold of the operator.
pub fn fold(s: &[f32]) -> MinMaxAbs {
    (
        (
            s.iter().copied().fold(f32::INFINITY, f32::min),
            s.iter().copied().fold(f32::NEG_INFINITY, f32::max),
        ),
        s.iter().map(|v| v.abs()).fold(0.0, f32::max),
    )
}

fn same_item(a: MinMaxAbs, b: MinMaxAbs) -> bool {
    let eq = |x: f32, y: f32| x == y || (x.is_nan() && y.is_nan());
    eq(a.0 .0, b.0 .0) && eq(a.0 .1, b.0 .1) && eq(a.1, b.1)
}

/// `op` prepared for a length (sometimes longer than the range run, which reads past it: a
/// typed error) and run at offsets, against [`fold`].
pub fn custom_op(
    b: &Backend,
    op: &CustomReduction<f32, MinMaxAbs>,
    cases: u32,
) -> Result<Ran, String> {
    let strategy = (
        data(20_000),
        span(),
        prop_oneof![6 => Just(0i8), 1 => -3i8..=3],
    )
        .prop_map(fields!(CustomCase: data, span, planned_delta));
    run("custom_op", cases, strategy, |c| {
        let values = pad(c.data.values::<f32>(), c.span);
        let input = b.upload(&values).map_err(|e| e.to_string())?;
        let (offset, len, _) = c.span.request(c.data.len);
        let planned = (len as isize + c.planned_delta as isize).max(0) as usize;
        let p = op.prepare(planned).map_err(|e| e.to_string())?;
        let got = p.enqueue(&input, offset).and_then(|()| p.read());
        // The prepared length is what a run reads.
        let fits = offset
            .checked_add(planned)
            .is_some_and(|end| end <= values.len());
        if !fits {
            return expect_bounds(&got);
        }
        let want = fold(&values[offset..offset + planned]);
        match got {
            Ok(v) if same_item(v, want) => Ok(()),
            other => Err(format!("{other:?}, want {want:?}")),
        }
    })
}
