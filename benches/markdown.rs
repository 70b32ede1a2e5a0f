//! `results.md`: the markdown tables.

use crate::registry::{impl_label, is_ceiling};
use crate::results::{Results, Row, GATED, INPUT_FILES, PLAIN};
use crate::select::{best_cub, Series};
use std::fmt::Write as _;

/// `2^k` for powers of two, else the number.
pub fn fmt_n(n: u64) -> String {
    if n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

fn us(ms: f64) -> String {
    let u = ms * 1e3;
    if u < 100.0 {
        format!("{u:.2}")
    } else if u < 10_000.0 {
        format!("{u:.1}")
    } else {
        format!("{u:.0}")
    }
}

fn opt_gbps(g: Option<f64>) -> String {
    g.map(|g| format!("{g:.0}")).unwrap_or_else(|| "–".into())
}

fn ratio(r: f64) -> String {
    format!("{r:.2}×")
}

/// The stage-8-vs-CUB table, with a read-only-kernel column when `read` is given.
fn versus_cub(md: &mut String, s8: &Series, cub: &Series, read: Option<&Series>) {
    // The rows of `cub` keep their own `imp` (`cub` or `cub_mapped`): the "CUB form" column.
    let (rh, rs) = if read.is_some() {
        (" read-only kernel min µs |", "---:|")
    } else {
        ("", "")
    };
    let _ = writeln!(
        md,
        "| N | stage 8 min µs | stage 8 median µs | CUB min µs | CUB median µs | CUB form | \
         speedup (min) | speedup (median) | stage 8 GB/s | CUB GB/s |{rh}"
    );
    let _ = writeln!(md, "|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|{rs}");
    for a in &s8.rows {
        let Some(b) = cub.at(a.n) else { continue };
        let rc = match read {
            Some(s) => format!(
                " {} |",
                s.at(a.n)
                    .map(|x| us(x.min_ms))
                    .unwrap_or_else(|| "–".into())
            ),
            None => String::new(),
        };
        let form = if b.imp == "cub_mapped" {
            "mapped"
        } else {
            "copy"
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {form} | {} | {} | {} | {} |{rc}",
            fmt_n(a.n),
            us(a.min_ms),
            us(a.median_ms),
            us(b.min_ms),
            us(b.median_ms),
            ratio(b.min_ms / a.min_ms),
            ratio(b.median_ms / a.median_ms),
            opt_gbps(a.gbps()),
            opt_gbps(b.gbps()),
        );
    }
    let _ = writeln!(md);
}

/// `results.md`: the f32-sum table of every implementation with bandwidth and the ratio to CUB, a
/// stage-8-vs-CUB summary, stage 8's other ops/types, the twins, and notes. `plots` lists the
/// PNG files written next to it (linked at the end).
pub fn markdown(r: &Results, plots: &[&str]) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Reduction benchmark results\n");
    if r.files.is_empty() {
        let _ = writeln!(
            md,
            "No input files found (looked for {}).\n",
            INPUT_FILES.join(", ")
        );
    } else {
        let files: Vec<String> = r
            .files
            .iter()
            .map(|(f, n)| format!("`{f}` ({n} lines)"))
            .collect();
        let _ = writeln!(md, "Read {}.\n", files.join(", "));
    }
    let _ = writeln!(
        md,
        "Times are GPU time between two CUDA events per run, in µs: the fastest (**min**) and the \
         **median** run. **GB/s** = bytes / min time, with bytes = 4·N (every f32 read once); the \
         ceilings use the bytes they report (the D2D copy counts read + write). **vs CUB** = CUB's \
         min time (its faster form, see below) / this row's min time at the same N (> 1: faster \
         than CUB). The stages 1–7 rows \
         time the kernels only; CUB, PyTorch and CuPy also copy the 4-byte result to pinned host \
         memory inside the window, and stage 8's last block stores it straight into mapped pinned \
         host memory (so its window ends when the result is in host RAM, as for the others). Unless \
         a section says *gated*, runs are queued the plain way (`start` event, work, `stop` event \
         on an idle stream), so the window also holds the host's launch latency.\n"
    );
    if let Some(e) = r.empty_launch_copy() {
        let _ = writeln!(
            md,
            "Fixed cost of an empty kernel launch + 4-byte result copy: {} µs (min), {} µs \
             (median).\n",
            us(e.min_ms),
            us(e.median_ms)
        );
    }

    let series = r.f32_sum_series();
    let best = best_cub(&series);
    let cub = best.as_ref();
    let s8 = series.iter().find(|s| s.imp == "rust_s8");

    if let (Some(s8), Some(cub)) = (s8, cub) {
        let _ = writeln!(md, "## f32 sum: stage 8 vs CUB\n");
        let _ = writeln!(
            md,
            "**CUB** is the faster, per N, of CUB + a 4-byte copy into pinned memory (`copy`) and CUB \
             writing its result straight into mapped pinned memory (`mapped`, as stage 8 does).\n"
        );
        versus_cub(&mut md, s8, cub, None);
    }

    let gated = r.f32_sum_series_of(GATED);
    let g_best = best_cub(&gated);
    let g_s8 = gated.iter().find(|s| s.imp == "rust_s8");
    if let (Some(s8), Some(cub)) = (g_s8, g_best.as_ref()) {
        let _ = writeln!(
            md,
            "## f32 sum: stage 8 vs CUB, GPU time only (gated protocol)\n"
        );
        let _ = writeln!(
            md,
            "The same measurement, but every timed run is queued behind a one-thread gate kernel \
             that holds the stream until the host has queued the whole run (`start` event, the \
             work, `stop` event) — NVIDIA nvbench's \"blocking kernel\". The window then holds \
             GPU time only, without the host's launch latency. Same data, same runs, same result \
             copy as above.\n"
        );
        let fixed: Vec<String> = [
            ("empty_kernel", "an empty kernel"),
            ("empty_launch_copy", "an empty kernel + 4-byte copy"),
        ]
        .iter()
        .filter_map(|(imp, what)| {
            r.fixed_cost(imp, GATED)
                .map(|e| format!("{what} {} µs", us(e.min_ms)))
        })
        .collect();
        if !fixed.is_empty() {
            let _ = writeln!(
                md,
                "Fixed costs in this protocol (min): {}.\n",
                fixed.join(", ")
            );
        }
        let read = gated.iter().find(|s| s.imp == "read_kernel");
        versus_cub(&mut md, s8, cub, read);
    }

    if !series.is_empty() {
        let _ = writeln!(md, "## f32 sum: every implementation\n");
        let _ = writeln!(
            md,
            "| N | implementation | timed | min µs | median µs | GB/s | vs CUB |"
        );
        let _ = writeln!(md, "|---:|---|---|---:|---:|---:|---:|");
        let mut ns: Vec<u64> = series
            .iter()
            .flat_map(|s| s.rows.iter().map(|r| r.n))
            .collect();
        ns.sort_unstable();
        ns.dedup();
        for n in ns {
            let cub_min = cub.and_then(|c| c.at(n)).map(|c| c.min_ms);
            for s in &series {
                let Some(row) = s.at(n) else { continue };
                let wrong = if row.correct == Some(false) {
                    " **(WRONG RESULT)**"
                } else {
                    ""
                };
                let vs = match cub_min {
                    Some(c) if !is_ceiling(&row.imp) => ratio(c / row.min_ms),
                    _ => "–".into(),
                };
                let _ = writeln!(
                    md,
                    "| {} | {}{} | {} | {} | {} | {} | {} |",
                    fmt_n(n),
                    s.label,
                    wrong,
                    row.timed(),
                    us(row.min_ms),
                    us(row.median_ms),
                    opt_gbps(row.gbps()),
                    vs
                );
            }
        }
        let _ = writeln!(md);
    }

    let others: Vec<Row> = r
        .best_rows()
        .into_iter()
        .filter(|x| x.n > 0 && !x.is_f32_sum_series() && x.protocol == PLAIN)
        .collect();
    if !others.is_empty() {
        let _ = writeln!(md, "## Other ops and types\n");
        let _ = writeln!(
            md,
            "GB/s here counts size_of(type) · N bytes.\n\n\
             | implementation | op | type | N | min µs | median µs | GB/s |"
        );
        let _ = writeln!(md, "|---|---|---|---:|---:|---:|---:|");
        for x in &others {
            let wrong = if x.correct == Some(false) {
                " **(WRONG RESULT)**"
            } else {
                ""
            };
            let _ = writeln!(
                md,
                "| {}{} | {} | {} | {} | {} | {} | {} |",
                impl_label(&x.imp),
                wrong,
                x.op,
                x.ty,
                fmt_n(x.n),
                us(x.min_ms),
                us(x.median_ms),
                opt_gbps(x.gbps())
            );
        }
        let _ = writeln!(md);
    }

    let twins = r.best_twins();
    if !twins.is_empty() {
        let _ = writeln!(md, "## Rust kernels vs their CUDA C twins\n");
        let _ = writeln!(
            md,
            "Same PTX entry names, launches and inputs; only the compiler differs. **Rust / C** = \
             Rust median / CUDA C median (< 1: the Rust kernel is faster).\n"
        );
        let _ = writeln!(
            md,
            "| N | type | kernel | Rust median µs | CUDA C median µs | Rust / C | Rust min µs | \
             CUDA C min µs | ok |"
        );
        let _ = writeln!(md, "|---:|---|---|---:|---:|---:|---:|---:|---|");
        for t in &twins {
            let _ = writeln!(
                md,
                "| {} | {} | `{}` | {} | {} | {:.3} | {} | {} | {} |",
                fmt_n(t.n),
                t.ty,
                t.kernel,
                us(t.rust_median_ms),
                us(t.cuda_median_ms),
                t.rust_median_ms / t.cuda_median_ms,
                t.rust_min_ms.map(us).unwrap_or_else(|| "–".into()),
                t.cuda_min_ms.map(us).unwrap_or_else(|| "–".into()),
                match t.correct {
                    Some(true) => "ok",
                    Some(false) => "**WRONG**",
                    None => "?",
                }
            );
        }
        let _ = writeln!(md);
    }

    let wrong: Vec<&Row> = r.rows.iter().filter(|x| x.correct == Some(false)).collect();
    if !r.notes.is_empty() || !r.ignored.is_empty() || !wrong.is_empty() {
        let _ = writeln!(md, "## Notes\n");
        for x in wrong {
            let _ = writeln!(
                md,
                "* `{}`: {} {} at N = {} did not match the reference.",
                x.source,
                impl_label(&x.imp),
                x.op,
                fmt_n(x.n)
            );
        }
        for n in &r.notes {
            let size =
                n.n.map(|n| format!(" at N = {}", fmt_n(n)))
                    .unwrap_or_default();
            let who = n
                .imp
                .as_deref()
                .map(impl_label)
                .unwrap_or_else(|| "?".into());
            let _ = writeln!(
                md,
                "* `{}`: {who}{size}: {}",
                n.source,
                n.error.replace('|', "\\|").replace('\n', " ")
            );
        }
        for (f, k) in &r.ignored {
            let _ = writeln!(
                md,
                "* `{f}`: {k} line(s) were not timing rows and were ignored."
            );
        }
        let _ = writeln!(md);
    }

    if !plots.is_empty() {
        let _ = writeln!(md, "## Plots\n");
        for p in plots {
            let _ = writeln!(md, "![{p}]({p})\n");
        }
    }
    md
}
