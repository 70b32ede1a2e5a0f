//! The line charts of the f32-sum series against N: one [`LineChart`] drawn by [`line_chart`]
//! for time (log-log) and for bandwidth (with the device's peak).

use super::{
    axis_number, blank, draw_legend, draw_series_lines, exp_label, exponent_range, font,
    legend_entries, split_for_legend, Marker, PlotResult, PlotStyle,
};
use crate::{Results, Row, Series};
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// What distinguishes one line chart of the f32-sum series against N from another.
struct LineChart<'a> {
    caption: &'a str,
    y_desc: &'a str,
    /// The y value of a row (`None`: no point).
    y: fn(&Row) -> Option<f64>,
    /// A horizontal reference line: its value and label.
    reference: Option<(f64, &'a str)>,
}

/// The red of the reference line.
const REFERENCE: RGBColor = RGBColor(200, 0, 0);

/// Draw `chart` for `series` (log x: N = 2^x) with the y axis `y_range`, the legend to the right.
fn line_chart<Y>(
    path: &Path,
    style: &PlotStyle,
    series: &[Series],
    chart: &LineChart<'_>,
    y_range: Y,
) -> PlotResult
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let (x0, x1) = exponent_range(series);
    let (root, area, legend) = split_for_legend(path, style)?;
    let mut b = ChartBuilder::on(&area);
    b.margin(20);
    if style.text {
        b.caption(chart.caption, font(28.0))
            .x_label_area_size(50)
            .y_label_area_size(80);
    }
    let mut c = b.build_cartesian_2d(x0..x1, y_range)?;
    let mut mesh = c.configure_mesh();
    let labels = (x1 - x0).round() as usize + 1;
    if style.text {
        mesh.x_labels(labels)
            .x_label_formatter(&exp_label)
            .y_label_formatter(&|v| axis_number(*v))
            .x_desc("N (elements, log scale)")
            .y_desc(chart.y_desc)
            .label_style(font(17.0))
            .axis_desc_style(font(19.0));
    }
    mesh.light_line_style(RGBColor(235, 235, 235)).draw()?;
    if let Some((value, label)) = chart.reference {
        c.draw_series(DashedLineSeries::new(
            vec![(x0, value), (x1, value)],
            14,
            8,
            REFERENCE.stroke_width(2),
        ))?;
        if style.text {
            c.draw_series(std::iter::once(Text::new(
                format!("{label} = {value:.0} GB/s"),
                (x0 + 0.2, value),
                font(18.0)
                    .color(&REFERENCE)
                    .pos(Pos::new(HPos::Left, VPos::Bottom)),
            )))?;
        }
    }
    for s in series {
        draw_series_lines(&mut c, s, chart.y)?;
    }
    let mut entries = legend_entries(series);
    if let Some((_, label)) = chart.reference {
        entries.push((label.to_string(), REFERENCE, Marker::None, true));
    }
    draw_legend(&legend, &entries, style)?;
    root.present()?;
    Ok(())
}

/// Time (fastest run, µs) vs N, log-log, one line per implementation.
pub fn time_vs_n(r: &Results, path: &Path, style: &PlotStyle) -> PlotResult {
    let series = r.f32_sum_series();
    if series.is_empty() {
        return blank(path, style, "no f32-sum rows in this run");
    }
    let ys: Vec<f64> = series
        .iter()
        .flat_map(|s| s.rows.iter().map(|r| r.min_ms * 1e3))
        .collect();
    let y0 = ys.iter().copied().fold(f64::INFINITY, f64::min) / 1.6;
    let y1 = ys.iter().copied().fold(0.0, f64::max) * 1.6;
    let chart = LineChart {
        caption: "f32 sum: time vs N (fastest of the timed runs)",
        y_desc: "time, µs (log scale)",
        y: |r| Some(r.min_ms * 1e3),
        reference: None,
    };
    line_chart(
        path,
        style,
        &series,
        &chart,
        LogCoord::from((y0..y1).log_scale()),
    )
}

/// Effective bandwidth (GB/s) vs N, log x, with the device's peak as a horizontal line.
pub fn bandwidth_vs_n(r: &Results, path: &Path, style: &PlotStyle) -> PlotResult {
    let series = r.f32_sum_series();
    if series.is_empty() {
        return blank(path, style, "no f32-sum rows in this run");
    }
    let top = series
        .iter()
        .flat_map(|s| s.rows.iter().filter_map(Row::gbps))
        .fold(style.peak_gbs, f64::max)
        * 1.12;
    let chart = LineChart {
        caption: "f32 sum: effective bandwidth vs N (4·N bytes / fastest run)",
        y_desc: "GB/s",
        y: Row::gbps,
        reference: Some((style.peak_gbs, &style.peak_label)),
    };
    line_chart(path, style, &series, &chart, RangedCoordf64::from(0.0..top))
}
