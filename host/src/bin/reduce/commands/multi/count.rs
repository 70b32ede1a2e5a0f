//! `reduce multi --op count` and `--op nanmean`: the ops whose result is not a value of the
//! element type (a `u64` count, an `f64` mean), checked against the host and the same bits in
//! every run.

use super::report::Found;
use super::{Format, MultiArgs};
use crate::data::make_data;
use reduce_host::{
    matches_reference, reference, Collective, MultiReducer, Op, ReduceError, Scalar,
};
use std::time::Instant;

/// Run it; `Ok(true)` when every check passed.
pub fn run<T: Scalar, C: Collective>(
    mut m: MultiReducer<C>,
    a: &MultiArgs,
) -> Result<bool, ReduceError> {
    let n = super::default_n(&m, a);
    let data = make_data::<T>(n, a.data, a.seed)?;
    let shards = m.scatter(&data)?;
    let want = data.iter().filter(|x| !x.to_f64().is_nan()).count() as u64;
    let (mut bits, mut wall) = (Vec::new(), Vec::new());
    for i in 0..a.warmup + a.runs {
        let t = Instant::now();
        let v = if a.op == Op::Count {
            m.count(&shards)?.value.unwrap_or_default()
        } else {
            m.nanmean(&shards)?.to_bits()
        };
        if i >= a.warmup {
            wall.push(t.elapsed().as_secs_f64() * 1e3);
            bits.push(v);
        }
    }
    let last = *bits.last().expect("at least one run");
    let (ok, shown) = if a.op == Op::Count {
        (last == want, last.to_string())
    } else {
        let g = f64::from_bits(last);
        let ok = if T::TYPE.is_float() {
            // The nansum's bound (one more rounding each for the division and the product).
            let r = reference(Op::NanSum, &data).ok_or(ReduceError::EmptyInput { op: a.op })?;
            let depth = m.reduce(Op::NanSum, &shards)?.depth + 2;
            want == 0 && g.is_nan()
                || matches_reference(Op::NanSum, T::from_f64(g * want as f64), &r, depth)
        } else {
            Some(g) == reduce_host::reference::reference_mean(&data)
        };
        (ok, g.to_string())
    };
    bits.sort();
    bits.dedup();
    wall.sort_by(f64::total_cmp);
    let med = wall[wall.len() / 2];
    let found = Found {
        n,
        shown: &shown,
        ok,
        distinct: bits.len(),
        wall_ms_median: med,
    };
    if a.format != Format::Text {
        println!("{}", found.record::<T, C>(&m, a, serde_json::json!({})));
    } else {
        found.print_line::<T, C>(&m, a);
        println!(
            "same bits in all {} runs: {}; median {med:.4} ms",
            a.runs,
            if bits.len() == 1 { "yes" } else { "NO" }
        );
    }
    Ok(ok && bits.len() == 1)
}
