//! The report's PNG plots (plotters, bitmap backend) and the font they are labelled with.
//!
//! Text needs a TrueType font. plotters' `ttf` feature would need fontconfig and freetype
//! development libraries at build time, so this crate uses its `ab_glyph` feature and loads a
//! font file at run time ([`register_system_font`]). Without a font, the plots are still drawn —
//! lines, bars, axes and grid, but no text ([`PlotStyle::text`] = false).

use crate::registry::implementation;
use crate::{fmt_n, impl_label, is_ceiling, Results, Row, Series, LADDER_N};
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::error::Error;
use std::path::Path;

pub use crate::fonts::{register_system_font, FONT_CANDIDATES};

/// A plotting error.
pub type PlotResult<T = ()> = Result<T, Box<dyn Error>>;

/// How to draw.
#[derive(Clone, Debug)]
pub struct PlotStyle {
    /// Draw text (titles, axis labels, legend names, values)? Needs a registered font.
    pub text: bool,
    /// Image size, pixels.
    pub size: (u32, u32),
    /// The bandwidth plot's peak line, GB/s.
    pub peak_gbs: f64,
    /// Its label.
    pub peak_label: String,
}

impl Default for PlotStyle {
    fn default() -> Self {
        PlotStyle {
            text: true,
            size: (1400, 850),
            peak_gbs: crate::H200_PEAK_GBS,
            peak_label: crate::H200_PEAK_LABEL.into(),
        }
    }
}

/// The colour of an implementation in every plot ([`crate::registry`]).
fn color(imp: &str) -> RGBColor {
    let (r, g, b) = implementation(imp).colour;
    RGBColor(r, g, b)
}

#[derive(Clone, Copy, PartialEq)]
enum Marker {
    Circle,
    Triangle,
    None,
}

fn marker(imp: &str) -> Marker {
    if is_ceiling(imp) {
        Marker::None
    } else if imp.starts_with("rust_s") {
        Marker::Circle
    } else {
        Marker::Triangle
    }
}

fn line_width(imp: &str) -> u32 {
    if implementation(imp).emphasised {
        3
    } else {
        2
    }
}

/// Short x-axis label for the bar chart.
fn short_label(imp: &str) -> String {
    implementation(imp).short_label
}

fn font(size: f64) -> TextStyle<'static> {
    ("sans-serif", size).into_font().color(&BLACK)
}

/// The legend, drawn in its own panel to the right of the chart so it never hides data.
fn draw_legend(
    area: &Area<'_>,
    entries: &[(String, RGBColor, Marker, bool)],
    style: &PlotStyle,
) -> PlotResult {
    let (top, step) = (70, 30);
    for (i, (label, c, m, dashed)) in entries.iter().enumerate() {
        let y = top + i as i32 * step;
        let stroke = c.stroke_width(3);
        if *dashed {
            area.draw(&PathElement::new(vec![(10, y), (22, y)], stroke))?;
            area.draw(&PathElement::new(vec![(30, y), (42, y)], stroke))?;
        } else {
            area.draw(&PathElement::new(vec![(10, y), (42, y)], stroke))?;
        }
        match m {
            Marker::Circle => area.draw(&Circle::new((26, y), 5, c.filled()))?,
            Marker::Triangle => area.draw(&TriangleMarker::new((26, y), 6, c.filled()))?,
            Marker::None => {}
        }
        if style.text {
            area.draw(&Text::new(
                label.clone(),
                (50, y),
                font(17.0).pos(Pos::new(HPos::Left, VPos::Center)),
            ))?;
        }
    }
    Ok(())
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

/// The whole image, the chart's part and the legend's part.
fn split_for_legend<'a>(
    path: &'a Path,
    style: &PlotStyle,
) -> PlotResult<(Area<'a>, Area<'a>, Area<'a>)> {
    let root = BitMapBackend::new(path, style.size).into_drawing_area();
    root.fill(&WHITE)?;
    let (chart, legend) = root.split_horizontally(style.size.0.saturating_sub(330));
    Ok((root, chart, legend))
}

fn exponent_range(series: &[Series]) -> (f64, f64) {
    let es: Vec<f64> = series
        .iter()
        .flat_map(|s| s.rows.iter().map(|r| (r.n as f64).log2()))
        .collect();
    let lo = es.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = es.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if lo.is_finite() {
        (lo.floor() - 0.5, hi.ceil() + 0.5)
    } else {
        (11.5, 30.5)
    }
}

fn exp_label(x: &f64) -> String {
    if (x - x.round()).abs() < 1e-6 {
        format!("2^{}", x.round() as i64)
    } else {
        String::new()
    }
}

fn axis_number(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.1}").trim_end_matches(".0").to_string()
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').to_string()
    }
}

fn draw_series_lines<DB: DrawingBackend, CT: CoordTranslate<From = (f64, f64)>>(
    chart: &mut ChartContext<'_, DB, CT>,
    s: &Series,
    y: impl Fn(&Row) -> Option<f64>,
) -> PlotResult
where
    DB::ErrorType: 'static,
{
    let c = color(&s.imp);
    let pts: Vec<(f64, f64)> = s
        .rows
        .iter()
        .filter_map(|r| y(r).map(|v| ((r.n as f64).log2(), v)))
        .collect();
    let stroke = c.stroke_width(line_width(&s.imp));
    if is_ceiling(&s.imp) {
        chart.draw_series(DashedLineSeries::new(pts.clone(), 10, 6, stroke))?;
    } else {
        chart.draw_series(LineSeries::new(pts.clone(), stroke))?;
    }
    match marker(&s.imp) {
        Marker::Circle => {
            chart.draw_series(pts.iter().map(|p| Circle::new(*p, 4, c.filled())))?;
        }
        Marker::Triangle => {
            chart.draw_series(pts.iter().map(|p| TriangleMarker::new(*p, 5, c.filled())))?;
        }
        Marker::None => {}
    }
    Ok(())
}

fn legend_entries(series: &[Series]) -> Vec<(String, RGBColor, Marker, bool)> {
    series
        .iter()
        .map(|s| {
            (
                s.label.clone(),
                color(&s.imp),
                marker(&s.imp),
                is_ceiling(&s.imp),
            )
        })
        .collect()
}

fn blank(path: &Path, style: &PlotStyle, why: &str) -> PlotResult {
    let root = BitMapBackend::new(path, style.size).into_drawing_area();
    root.fill(&WHITE)?;
    if style.text {
        root.draw(&Text::new(
            why.to_string(),
            (40, style.size.1 as i32 / 2),
            font(24.0),
        ))?;
    }
    root.present()?;
    Ok(())
}

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

/// The three plots' file names, as [`write_all`] writes them.
pub const PLOT_FILES: [&str; 3] = ["time_vs_n.png", "bandwidth_vs_n.png", "ladder_2e22.png"];

/// Write the three plots into `dir`; returns the names written.
pub fn write_all(r: &Results, dir: &Path, style: &PlotStyle) -> PlotResult<Vec<&'static str>> {
    time_vs_n(r, &dir.join(PLOT_FILES[0]), style)?;
    bandwidth_vs_n(r, &dir.join(PLOT_FILES[1]), style)?;
    ladder(r, &dir.join(PLOT_FILES[2]), style)?;
    Ok(PLOT_FILES.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results(lines: &str) -> Results {
        let mut r = Results::default();
        r.parse_str("sweep.jsonl", lines);
        r
    }

    const ROWS: &str = r#"{"impl":"rust_s1","n":1048576,"min_ms":0.05,"median_ms":0.06}
{"impl":"rust_s1","n":16777216,"min_ms":0.8,"median_ms":0.9}
{"impl":"rust_s8","n":1048576,"min_ms":0.006,"median_ms":0.007}
{"impl":"rust_s8","n":16777216,"min_ms":0.02,"median_ms":0.021}
{"impl":"memcpy_d2d","op":"copy","n":16777216,"min_ms":0.03,"median_ms":0.031,"bytes":134217728}
"#;

    #[test]
    fn ladder_uses_2e22_or_the_nearest_size() {
        assert_eq!(ladder_n(&Results::default()), None);
        // 2^20 and 2^24 are equally near 2^22: the smaller wins, deterministically.
        let r = results(ROWS);
        assert_eq!(ladder_n(&r), Some(1 << 20));
        let bars = ladder_bars(&r, 1 << 20);
        assert_eq!(
            bars.iter().map(|b| b.imp.as_str()).collect::<Vec<_>>(),
            ["rust_s1", "rust_s8"]
        );
        let mut r = results(ROWS);
        r.parse_str("cub.jsonl", r#"{"impl":"cub","n":4194304,"min_ms":0.01}"#);
        assert_eq!(ladder_n(&r), Some(1 << 22));
    }

    #[test]
    fn axis_labels() {
        assert_eq!(exp_label(&22.0), "2^22");
        assert_eq!(exp_label(&22.5), "");
        assert_eq!(axis_number(4800.0), "4800");
        assert_eq!(axis_number(10.0), "10");
        assert_eq!(axis_number(2.5), "2.5");
        assert_eq!(axis_number(0.05), "0.05");
        assert_eq!(
            exponent_range(&results(ROWS).f32_sum_series()),
            (19.5, 24.5)
        );
    }

    /// Without text nothing needs a font, so this runs anywhere (no font is registered here).
    #[test]
    fn plots_render_without_a_font() {
        let dir = std::env::temp_dir().join(format!("reduce-benches-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let style = PlotStyle {
            text: false,
            size: (640, 400),
            ..PlotStyle::default()
        };
        let written = write_all(&results(ROWS), &dir, &style).unwrap();
        for f in written {
            let bytes = std::fs::read(dir.join(f)).unwrap();
            assert_eq!(&bytes[1..4], b"PNG", "{f} is not a PNG");
            assert!(bytes.len() > 1000, "{f} is suspiciously small");
        }
        // An empty run still yields (blank) PNGs rather than an error.
        write_all(&Results::default(), &dir, &style).unwrap();
        std::fs::remove_dir_all(&dir).ok();
    }
}
