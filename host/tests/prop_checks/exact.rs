//! The exact sums through `Reducer`: `sum_exact` of buffers and views, `mean_exact`.

use super::reduce::pad;
use super::*;

#[derive(Clone, Debug)]
pub struct ExactCase {
    double: bool,
    whole: bool,
    data: Data,
    span: Span,
    o: LaunchOverrides,
}

/// `sum_exact`, `sum_exact_range`, `mean_exact` on `f32` and `f64` with overrides: the
/// correctly rounded sum's bits (sign of zero, inf and NaN rules included), or the typed error a
/// fresh plan gives.
pub fn exact_sums(b: &Backend, cases: u32) -> Result<Ran, String> {
    // Lengths up to just past 4,096 (the emulated exact kernels are slow).
    // Grids past stage 8's 4,096 blocks are valid here (up to 2^24): one just past the exact
    // kernels' limit instead, which costs the emulator nothing.
    let o = overrides().prop_map(|o| LaunchOverrides {
        grid: o.grid.map(|g| if g > 64 { (1 << 24) + 1 } else { g }),
        ..o
    });
    let strategy = (any::<bool>(), any::<bool>(), data(4_100), span(), o)
        .prop_map(fields!(ExactCase: double, whole, data, span, o));
    run_float!("exact_sums", cases, strategy, exact_check(b))
}

fn exact_check<T: ExactFloat>(b: &Backend, c: &ExactCase) -> Check {
    let mut r = Reducer::new(b).with_overrides(c.o);
    let values = pad(c.data.values::<T>(), c.span);
    let input = b.upload(&values).map_err(|e| e.to_string())?;
    let (offset, len, inside) = c.span.request(c.data.len);
    let got = if c.whole {
        r.sum_exact(&input)
    } else {
        input
            .slice(offset..offset.saturating_add(len))
            .and_then(|view| r.sum_exact(view))
    };
    let (offset, len) = if c.whole {
        (0, values.len())
    } else {
        (offset, len)
    };
    if !inside && !c.whole {
        return expect_bounds(&got);
    }
    let slice = &values[offset..offset + len];
    let want = exact_sum(slice);
    match (got, PreparedExact::<T>::new(b, len, c.o)) {
        (Ok(v), Ok(_)) if v.to_bits64() == want.to_bits64() || same(v, want) => {}
        (Err(e), Err(p)) if same_kind(&e, &p) => return Ok(()),
        (got, p) => {
            return Err(format!(
                "exact sum: {got:?}, want {want} (fresh plan: {:?})",
                p.err()
            ))
        }
    }
    if c.whole {
        let got = r.mean_exact(&input);
        if values.is_empty() {
            return expect_err(&got, &ReduceError::EmptyInput { op: Op::Mean });
        }
        let m = want.to_f64() / values.len() as f64;
        return match got {
            Ok(v) if v.to_bits() == m.to_bits() || (v.is_nan() && m.is_nan()) => Ok(()),
            other => Err(format!("mean_exact {other:?}, want {m}")),
        };
    }
    Ok(())
}
