//! The families timed on one GPU's memory: stage 8 against CUB, along an axis, transform-reduce,
//! argmax and stage 8's other operators.

use super::{best_by_n, count, is, min_us, num, size, slash, text, us, Family, Rec, Run, Table};
use std::collections::BTreeSet;

/// Stage 8's `f32` sum against CUB's faster form, gated (`stage8` suite).
pub const STAGE8: Family = Family {
    title: "Stage 8 against CUB",
    files: &["stage8/sweep.jsonl", "stage8/cub.jsonl"],
    table: stage8,
};

fn stage8(run: &Run) -> Option<Table> {
    let gated = |r: &Rec| is(r, "protocol", "gated", "plain") && is(r, "op", "sum", "sum");
    let s8 = best_by_n(
        run.records("stage8/sweep.jsonl"),
        |r| gated(r) && is(r, "impl", "rust_s8", "") && is(r, "type", "f32", "f32"),
        min_us,
    );
    if s8.is_empty() {
        return None;
    }
    let cub = best_by_n(
        run.records("stage8/cub.jsonl"),
        |r| gated(r) && matches!(text(r, "impl"), Some("cub" | "cub_mapped")),
        min_us,
    );
    let mut header = vec!["N".to_string()];
    let mut rows = vec![
        vec!["stage 8, µs".to_string()],
        vec!["CUB, µs".to_string()],
        vec!["CUB / stage 8".to_string()],
    ];
    for (&n, &t) in &s8 {
        let c = cub.get(&n).copied();
        header.push(size(n));
        rows[0].push(us2(t));
        rows[1].push(c.map_or_else(|| "–".into(), us2));
        rows[2].push(c.map_or_else(|| "–".into(), |c| format!("{:.2}×", c / t)));
    }
    Some(Table::of_run(
        "`f32` sum, gated protocol (GPU time only), result in host memory for both (CUB: \
         the faster of copied and mapped), min µs",
        header,
        rows,
    ))
}

/// µs with two decimals below 100, else one.
fn us2(t: f64) -> String {
    if t < 100.0 {
        format!("{t:.2}")
    } else {
        format!("{t:.1}")
    }
}

/// Sums along rows and columns against torch and CUB segmented, % of the roof (`axis` suite).
pub const AXIS: Family = Family {
    title: "Along an axis",
    files: &["axis/axis.jsonl"],
    table: axis,
};

fn axis(run: &Run) -> Option<Table> {
    let recs = run.records("axis/axis.jsonl");
    // (axis, rows, cols, segments); segments are told apart by their count only (CUB's record
    // of them has its own rows and cols).
    let key = |r: &Rec| {
        let axis = text(r, "axis").unwrap_or("?").to_string();
        let segments = count(r, "segments").unwrap_or(0);
        if axis == "segments" {
            return (axis, 0, 0, segments);
        }
        (
            axis,
            count(r, "rows").unwrap_or(0),
            count(r, "cols").unwrap_or(0),
            segments,
        )
    };
    let find = |k: &(String, u64, u64, u64), imp: &str, op: &str| {
        recs.iter().find(|r| {
            key(r) == *k
                && is(r, "impl", imp, "ours")
                && is(r, "op", op, "")
                && is(r, "type", "f32", "")
        })
    };
    let ours: Vec<&Rec> = recs
        .iter()
        .filter(|r| {
            is(r, "impl", "ours", "ours") && is(r, "op", "sum", "") && is(r, "type", "f32", "")
        })
        .collect();
    if ours.is_empty() {
        return None;
    }
    // Our time with its share of the roof: bytes read + written over the read-only kernel's
    // bandwidth on the same shape.
    let with_roof = |o: &Rec| {
        let k = key(o);
        let roof = find(&k, "read_roof", "read")
            .or_else(|| find(&("rows".into(), k.1, k.2, k.3), "read_roof", "read"));
        let written = match k.0.as_str() {
            "rows" => k.1,
            "cols" => k.2,
            _ => k.3,
        } as f64
            * 4.0;
        let t = min_us(o);
        let pct = match (roof, num(o, "bytes"), t) {
            (Some(roof), Some(bytes), Some(t)) => {
                let roof_gbps = num(roof, "bytes")? / min_us(roof)?;
                Some(format!(
                    " ({:.0}%)",
                    100.0 * (bytes + written) / t / roof_gbps
                ))
            }
            _ => None,
        };
        Some(format!("{}{}", us(t), pct.unwrap_or_default()))
    };
    let time = |k: &(String, u64, u64, u64), imp: &str| us(find(k, imp, "sum").and_then(min_us));
    let mut shapes: Vec<(u64, u64, u64)> = Vec::new();
    for o in &ours {
        let (_, r, c, s) = key(o);
        if !shapes.contains(&(r, c, s)) {
            shapes.push((r, c, s));
        }
    }
    let mut rows = Vec::new();
    for (r, c, s) in shapes {
        let by = |axis: &str| (axis.to_string(), r, c, s);
        let row_cell = |axis: &str| {
            let k = by(axis);
            find(&k, "ours", "sum").map(|o| {
                slash(&[
                    with_roof(o).unwrap_or_else(|| "–".into()),
                    time(&k, "torch"),
                    time(&k, "cub_segmented"),
                ])
            })
        };
        let label = if s > 0 {
            format!("{s} segments")
        } else {
            format!("{} × {}", size(r), size(c))
        };
        let rows_cell = row_cell("rows")
            .or_else(|| row_cell("segments"))
            .unwrap_or_else(|| "–".into());
        let k = by("cols");
        let cols_cell = find(&k, "ours", "sum")
            .map(|o| {
                slash(&[
                    with_roof(o).unwrap_or_else(|| "–".into()),
                    time(&k, "torch"),
                ])
            })
            .unwrap_or_else(|| "–".into());
        rows.push(vec![label, rows_cell, cols_cell]);
    }
    Some(Table {
        caption: "`f32` sum, min µs, ours with its % of the read + write roof".into(),
        device: None,
        header: vec![
            "shape".into(),
            "rows (segments): ours / torch / CUB segmented".into(),
            "cols: ours / torch".into(),
        ],
        rows,
    })
}

/// A table of the run's device with `caption`: rows of `label` and `(N → cells joined by " / ")`,
/// one column per N, under a header of `first` and the sizes; `None` without rows.
fn grid(
    caption: &str,
    ns: &BTreeSet<u64>,
    first: &str,
    rows: Vec<(String, Vec<std::collections::BTreeMap<u64, f64>>)>,
) -> Option<Table> {
    if rows.is_empty() {
        return None;
    }
    let header = std::iter::once(first.to_string())
        .chain(ns.iter().map(|&n| size(n)))
        .collect();
    let rows = rows
        .into_iter()
        .map(|(label, series)| {
            let cells = ns.iter().map(|n| {
                let all: Vec<Option<f64>> = series.iter().map(|s| s.get(n).copied()).collect();
                if all.iter().all(Option::is_none) {
                    "–".to_string()
                } else {
                    slash(&all.into_iter().map(us).collect::<Vec<_>>())
                }
            });
            std::iter::once(label).chain(cells).collect()
        })
        .collect();
    Some(Table::of_run(caption, header, rows))
}

/// Norms, dot products and moments against torch (`toolbox` suite, transform part).
pub const TRANSFORM: Family = Family {
    title: "Norms, dot products, variance",
    files: &["toolbox/transform.jsonl"],
    table: transform,
};

/// The rows of the transform table: (op, type).
const TRANSFORM_ROWS: [(&str, &str); 5] = [
    ("norm2", "f32"),
    ("dot", "f32"),
    ("var", "f32"),
    ("var", "f16"),
    ("nanmean", "f16"),
];

fn transform(run: &Run) -> Option<Table> {
    let recs = run.records("toolbox/transform.jsonl");
    let of = |imp: &'static str, op: &'static str, ty: &'static str| {
        best_by_n(
            recs,
            move |r| is(r, "impl", imp, "") && is(r, "op", op, "") && is(r, "type", ty, ""),
            min_us,
        )
    };
    let mut ns = BTreeSet::new();
    let mut rows = Vec::new();
    for (op, ty) in TRANSFORM_ROWS {
        let ours = of("ours", op, ty);
        if ours.is_empty() {
            continue;
        }
        ns.extend(ours.keys());
        rows.push((format!("`{op}`, `{ty}`"), vec![ours, of("torch", op, ty)]));
    }
    grid("min µs, ours / torch (its fastest call)", &ns, "op", rows)
}

/// Argmax against CUB and torch (`toolbox` suite, arg part).
pub const ARG: Family = Family {
    title: "Argmax",
    files: &["toolbox/arg.jsonl"],
    table: arg,
};

fn arg(run: &Run) -> Option<Table> {
    let recs = run.records("toolbox/arg.jsonl");
    let of = |imp: &'static str, ty: &'static str| {
        best_by_n(
            recs,
            move |r| is(r, "impl", imp, "") && is(r, "type", ty, "f32"),
            min_us,
        )
    };
    let mut ns = BTreeSet::new();
    let mut rows = Vec::new();
    for ty in ["f32", "f16", "bf16", "f64"] {
        let ours = of("rust_argmax", ty);
        if ours.is_empty() {
            continue;
        }
        ns.extend(ours.keys());
        rows.push((
            format!("`{ty}`"),
            vec![ours, of("cub_argmax", ty), of("torch_argmax", ty)],
        ));
    }
    grid(
        "min µs, ours / CUB / torch, result copied to the host included",
        &ns,
        "type",
        rows,
    )
}

/// Stage 8's other operators, and the halves' sums, against torch (`toolbox` suite, ops part).
pub const OPS: Family = Family {
    title: "Other operators and types",
    files: &["toolbox/toolbox-ops.jsonl"],
    table: ops,
};

/// (label, our (impl, op, type), torch's case).
const OPS_ROWS: [(&str, (&str, &str, &str), &str); 8] = [
    ("`f32` sum", ("rust_s8_kernel", "sum", "f32"), "sum_f32"),
    ("`f32` prod", ("rust_s8_kernel", "prod", "f32"), "prod_f32"),
    ("`f32` max", ("rust_s8_kernel", "max", "f32"), "max_f32_nan"),
    (
        "`f32` nanmax",
        ("rust_s8_kernel", "nanmax", "f32"),
        "nanmax_f32",
    ),
    (
        "`f32` nansum",
        ("rust_s8_kernel", "nansum", "f32"),
        "nansum_f32",
    ),
    (
        "`i32` sum into `i64`",
        ("rust_s8_wide_kernel", "sum", "i32"),
        "sum_i32_i64",
    ),
    ("`f16` sum", ("ours", "total", "f16"), "sum_f16"),
    ("`bf16` sum", ("ours", "total", "bf16"), "sum_bf16"),
];

fn ops(run: &Run) -> Option<Table> {
    let recs = run.records("toolbox/toolbox-ops.jsonl");
    let mut ns = BTreeSet::new();
    let mut rows = Vec::new();
    for (label, (imp, op, ty), case) in OPS_ROWS {
        let ours = best_by_n(
            recs,
            |r| is(r, "impl", imp, "") && is(r, "op", op, "sum") && is(r, "type", ty, "f32"),
            min_us,
        );
        if ours.is_empty() {
            continue;
        }
        ns.extend(ours.keys());
        let torch = best_by_n(
            recs,
            |r| is(r, "impl", "torch", "") && is(r, "case", case, ""),
            min_us,
        );
        rows.push((label.to_string(), vec![ours, torch]));
    }
    grid(
        "min µs, ours / torch; ours = stage 8, kernel only, result in device memory \
         (halves: the transform kernel `total`, `f64` accumulator)",
        &ns,
        "op",
        rows,
    )
}
