//! What every `reduce multi` reduction of one op reports first, whatever its result type: the
//! common keys of its JSON record and its first text line.

use super::MultiArgs;
use reduce_host::{Collective, MultiReducer, Scalar};

/// One reduction's outcome over all its runs, as both outputs show it.
pub struct Found<'a> {
    /// Elements in all.
    pub n: usize,
    /// The result as printed.
    pub shown: &'a str,
    /// Did it pass its check?
    pub ok: bool,
    /// Distinct result bits over the runs (1: the same in every run).
    pub distinct: usize,
    /// The median wall time of a run, ms.
    pub wall_ms_median: f64,
}

impl Found<'_> {
    /// The JSON record (`"kind": "multi"`): the keys every op's has, then those of `extra` (an
    /// object).
    pub fn record<T: Scalar, C: Collective>(
        &self,
        m: &MultiReducer<C>,
        a: &MultiArgs,
        extra: serde_json::Value,
    ) -> serde_json::Value {
        let mut record = serde_json::json!({
            "kind": "multi", "collective": m.collective().name(), "ranks": m.ranks(),
            "n": self.n, "type": T::TYPE, "op": a.op, "value": self.shown, "ok": self.ok,
            "runs": a.runs, "distinct_bits": self.distinct, "wall_ms_median": self.wall_ms_median,
        });
        if let (Some(map), serde_json::Value::Object(more)) = (record.as_object_mut(), extra) {
            map.extend(more);
        }
        record
    }

    /// The first text line: `sum of 65536 f32 over 2 ranks = 65536   ok`.
    pub fn print_line<T: Scalar, C: Collective>(&self, m: &MultiReducer<C>, a: &MultiArgs) {
        println!(
            "{} of {} {} over {} ranks = {}   {}",
            a.op,
            self.n,
            T::TYPE,
            m.ranks(),
            self.shown,
            if self.ok { "ok" } else { "WRONG" }
        );
    }
}
