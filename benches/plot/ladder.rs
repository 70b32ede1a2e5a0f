//! The ladder bar chart: every stage's and baseline's time at the seed's N.

use super::{axis_number, blank, color, font, short_label, PlotResult, PlotStyle};
use crate::{fmt_n, impl_label, Results, Row, LADDER_N};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// The N of the ladder chart: [`LADDER_N`] if any f32-sum row has it, else the measured N
/// nearest to it (on a log scale). `None` without rows.
pub fn ladder_n(r: &Results) -> Option<u64> {
    let ns: Vec<u64> = r
        .f32_sum_series()
        .iter()
        .flat_map(|s| s.rows.iter().map(|r| r.n))
        .collect();
    if ns.contains(&LADDER_N) {
        return Some(LADDER_N);
    }
    let target = (LADDER_N as f64).log2();
    ns.into_iter().min_by(|a, b| {
        let da = ((*a as f64).log2() - target).abs();
        let db = ((*b as f64).log2() - target).abs();
        da.total_cmp(&db).then(a.cmp(b))
    })
}

/// The bars of the ladder chart: every implementation measured at `n`, in ladder order.
pub fn ladder_bars(r: &Results, n: u64) -> Vec<Row> {
    r.f32_sum_series()
        .iter()
        .filter_map(|s| s.at(n).cloned())
        .collect()
}

/// Bar chart: every stage's and baseline's time at the seed's N (2^22, or the nearest measured).
pub fn ladder(r: &Results, path: &Path, style: &PlotStyle) -> PlotResult {
    let Some(n) = ladder_n(r) else {
        return blank(path, style, "no f32-sum rows in this run");
    };
    let bars = ladder_bars(r, n);
    let k = bars.len() as i32;
    let top = bars.iter().map(|b| b.min_ms * 1e3).fold(0.0, f64::max) * 1.25;
    let root = BitMapBackend::new(path, style.size).into_drawing_area();
    root.fill(&WHITE)?;
    let mut b = ChartBuilder::on(&root);
    b.margin(20);
    if style.text {
        let note = if n == LADDER_N {
            String::new()
        } else {
            format!(" (no run at {}: nearest measured N)", fmt_n(LADDER_N))
        };
        b.caption(
            format!(
                "f32 sum at N = {} ({n} elements){note}: time per reduction, fastest run",
                fmt_n(n)
            ),
            font(26.0),
        )
        .x_label_area_size(50)
        .y_label_area_size(80);
    }
    // An i32 range is inclusive of its end: 0..k-1 gives k segments (one bar each).
    let mut chart = b.build_cartesian_2d((0..(k - 1).max(1)).into_segmented(), 0.0..top)?;
    let names: Vec<String> = bars.iter().map(|b| short_label(&b.imp)).collect();
    let x_fmt = |v: &SegmentValue<i32>| match v {
        SegmentValue::CenterOf(i) => names.get(*i as usize).cloned().unwrap_or_default(),
        _ => String::new(),
    };
    let mut mesh = chart.configure_mesh();
    mesh.disable_x_mesh();
    if style.text {
        mesh.x_labels(bars.len())
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&|v| axis_number(*v))
            .y_desc("time, µs")
            .label_style(font(17.0))
            .axis_desc_style(font(19.0));
    }
    mesh.light_line_style(RGBColor(235, 235, 235)).draw()?;
    for (i, bar) in bars.iter().enumerate() {
        let i = i as i32;
        let v = bar.min_ms * 1e3;
        let c = color(&bar.imp);
        let mut rect = Rectangle::new(
            [
                (SegmentValue::Exact(i), 0.0),
                (SegmentValue::Exact(i + 1), v),
            ],
            c.filled(),
        );
        rect.set_margin(0, 0, 10, 10);
        chart.draw_series(std::iter::once(rect))?;
        if style.text {
            // Two short lines above the bar (time, then bandwidth) so neighbours never overlap.
            let gb = bar
                .gbps()
                .map(|g| format!("{g:.0} GB/s"))
                .unwrap_or_default();
            let at = Pos::new(HPos::Center, VPos::Bottom);
            let label = EmptyElement::at((SegmentValue::CenterOf(i), v))
                + Text::new(
                    format!("{} µs", axis_number(v)),
                    (0, -20),
                    font(15.0).pos(at),
                )
                + Text::new(gb, (0, -3), font(13.0).color(&RGBColor(90, 90, 90)).pos(at));
            chart.draw_series(std::iter::once(label))?;
        }
    }
    if style.text {
        let legend: Vec<String> = bars
            .iter()
            .map(|b| format!("{} = {}", short_label(&b.imp), impl_label(&b.imp)))
            .filter(|s| !s.starts_with("stage"))
            .collect();
        let grey = font(15.0).color(&RGBColor(80, 80, 80));
        root.draw(&Text::new(
            "stages 1–7: kernels only; CUB, PyTorch, CuPy: kernel + result copy; stage 8: kernel + result in host RAM; \
             GB/s = 4·N bytes / time (D2D copy: read + write bytes)",
            (110, 62),
            grey.clone(),
        ))?;
        if !legend.is_empty() {
            root.draw(&Text::new(legend.join("   ·   "), (110, 84), grey))?;
        }
    }
    root.present()?;
    Ok(())
}
