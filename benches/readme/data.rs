//! The families beyond one GPU's plain sums: exact sums, data in host memory, several GPUs.

use super::{
    best_by_n, count, is, min_us, num, size, text, thousands, us, Family, Rec, Run, Table,
};
use std::collections::{BTreeMap, BTreeSet};

/// The correctly rounded sums against stage 8 and CUB's `gpu_to_gpu` sum (`exact` suite).
pub const EXACT: Family = Family {
    title: "Exact sums",
    files: &["exact/exact.jsonl"],
    table: exact,
};

fn exact(run: &Run) -> Option<Table> {
    let recs = run.records("exact/exact.jsonl");
    let ours = |ty: &'static str, key: &'static str| {
        best_by_n(
            recs,
            move |r| {
                is(r, "kind", "exact", "") && is(r, "data", "uniform", "") && is(r, "type", ty, "")
            },
            move |r| num(r, key),
        )
    };
    let mut ns = BTreeSet::new();
    let mut rows = Vec::new();
    for ty in ["f32", "f64"] {
        let exact = ours(ty, "exact_min_us");
        if exact.is_empty() {
            continue;
        }
        ns.extend(exact.keys());
        let cub = best_by_n(
            recs,
            |r| {
                is(r, "impl", "cub_gpu_to_gpu", "")
                    && is(r, "mode", "time", "")
                    && is(r, "type", ty, "")
            },
            min_us,
        );
        rows.push((format!("exact (ours), `{ty}`"), exact));
        rows.push((format!("stage 8, `{ty}`"), ours(ty, "s8_min_us")));
        rows.push((format!("CUB `gpu_to_gpu`, `{ty}`"), cub));
    }
    if rows.is_empty() {
        return None;
    }
    let header = std::iter::once(String::new())
        .chain(ns.iter().map(|&n| size(n)))
        .collect();
    let rows = rows
        .into_iter()
        .map(|(label, by_n)| {
            std::iter::once(label)
                .chain(ns.iter().map(|n| us(by_n.get(n).copied())))
                .collect()
        })
        .collect();
    Some(Table::of_run(
        "uniform data, gated protocol, min µs",
        header,
        rows,
    ))
}

/// Sums of data in host memory, pageable and pinned, against torch (`host` suite).
pub const HOST: Family = Family {
    title: "From host memory",
    files: &["host/host.jsonl"],
    table: host,
};

fn host(run: &Run) -> Option<Table> {
    let recs = run.records("host/host.jsonl");
    let link = recs
        .iter()
        .filter(|r| is(r, "kind", "link", ""))
        .filter_map(|r| num(r, "gbps"))
        .fold(None, |a: Option<f64>, g| Some(a.map_or(g, |a| a.max(g))));
    let of = |imp: &'static str| {
        best_by_n(
            recs,
            move |r| is(r, "kind", "host", "") && host_impl(r) == imp,
            min_us,
        )
    };
    let (pageable, pinned) = (of("ours_pageable"), of("ours_pinned"));
    if pageable.is_empty() && pinned.is_empty() {
        return None;
    }
    let (torch_pageable, torch_pinned) = (of("torch_pageable"), of("torch_pinned"));
    let ns: BTreeSet<u64> = pageable.keys().chain(pinned.keys()).copied().collect();
    let ours = |by_n: &BTreeMap<u64, f64>, n: u64| match (by_n.get(&n), link) {
        (Some(&t), Some(link)) => {
            format!(
                "{} µs, {:.0}%",
                thousands(t),
                100.0 * (n * 4) as f64 / (t * 1e3) / link
            )
        }
        (Some(&t), None) => format!("{} µs", thousands(t)),
        (None, _) => "–".into(),
    };
    let theirs = |by_n: &BTreeMap<u64, f64>, n: u64| {
        by_n.get(&n)
            .map_or_else(|| "–".into(), |&t| format!("{} µs", thousands(t)))
    };
    let rows = ns
        .iter()
        .map(|&n| {
            vec![
                size(n),
                ours(&pageable, n),
                ours(&pinned, n),
                theirs(&torch_pageable, n),
                theirs(&torch_pinned, n),
            ]
        })
        .collect();
    let share = link.map_or_else(String::new, |g| {
        format!(", share of the link ({g:.1} GB/s)")
    });
    Some(Table {
        caption: format!("`f32` sum until the result is on the host, min{share}"),
        device: None,
        header: [
            "N",
            "ours pageable",
            "ours pinned",
            "torch pageable",
            "torch pinned",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// A host record's implementation: its `impl` (the baselines), else `ours_INPUT`.
fn host_impl(r: &Rec) -> String {
    text(r, "impl").map_or_else(
        || format!("ours_{}", text(r, "input").unwrap_or("?")),
        String::from,
    )
}

/// One sum across the GPUs of a host against torch.distributed (`multi` suite, two GPUs).
pub const MULTI: Family = Family {
    title: "Across GPUs",
    files: &["multi/multi.jsonl"],
    table: multi,
};

fn multi(run: &Run) -> Option<Table> {
    let recs = run.records("multi/multi.jsonl");
    let plain_sum = |r: &&Rec| is(r, "op", "sum", "sum") && is(r, "type", "f32", "f32");
    let ours = recs
        .iter()
        .filter(|r| is(r, "kind", "multi", "") && count(r, "ranks").unwrap_or(0) >= 2)
        .filter(plain_sum)
        .max_by_key(|r| count(r, "n").unwrap_or(0))?;
    let (n, ranks) = (count(ours, "n")?, count(ours, "ranks")?);
    let at_n = |kind: &str| {
        // The last, as the suite's own table takes it.
        recs.iter()
            .rev()
            .filter(|r| is(r, "kind", kind, "") && count(r, "n") == Some(n))
            .find(plain_sum)
    };
    let one = at_n("single").and_then(|r| num(r, "gb_per_s"));
    let mut rows = Vec::new();
    let mut row = |label: String, gpus: u64, ms: Option<f64>, gbps: Option<f64>| {
        rows.push(vec![
            label,
            gpus.to_string(),
            ms.map_or_else(|| "–".into(), |m| format!("{m:.3}")),
            gbps.map_or_else(|| "–".into(), thousands),
            match (gbps, one) {
                (Some(g), Some(o)) => format!("{:.2}", g / o),
                _ => "–".into(),
            },
        ])
    };
    row(
        format!("ours, {ranks} GPUs (NCCL all-gather + rank-order combine)"),
        ranks,
        num(ours, "wall_ms_median"),
        num(ours, "gb_per_s"),
    );
    if let Some(t) = at_n("torch_distributed") {
        let world = count(t, "world").unwrap_or(ranks);
        let label = format!("torch, {world} GPUs (`x.sum()` + `all_reduce`)");
        row(label, world, num(t, "median_ms"), num(t, "gb_per_s"));
    }
    if let Some(s) = at_n("single") {
        row(
            "ours, 1 GPU".into(),
            1,
            num(s, "wall_ms_median"),
            num(s, "gb_per_s"),
        );
    }
    if let Some(t) = at_n("torch_single") {
        row(
            "torch, 1 GPU (`x.sum().item()`)".into(),
            1,
            num(t, "median_ms"),
            num(t, "gb_per_s"),
        );
    }
    let device = recs
        .iter()
        .filter(|r| is(r, "kind", "multi_setup", ""))
        .find_map(|r| {
            r.get("devices")?
                .as_array()?
                .first()?
                .as_str()
                .map(String::from)
        })
        .or_else(|| run.device.clone())
        .map(|d| format!("{ranks} × {d}"));
    Some(Table {
        caption: format!(
            "{} `f32` in all, host clock until the value is on the host, median",
            size(n)
        ),
        device,
        header: ["implementation", "GPUs", "ms", "GB/s", "× one GPU"]
            .map(String::from)
            .to_vec(),
        rows,
    })
}
