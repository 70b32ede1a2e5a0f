//! The report's PNG plots (plotters, bitmap backend) and the font they are labelled with.
//!
//! Text needs a TrueType font. plotters' `ttf` feature would need fontconfig and freetype
//! development libraries at build time, so this crate uses its `ab_glyph` feature and loads a
//! font file at run time ([`register_system_font`]). Without a font, the plots are still drawn —
//! lines, bars, axes and grid, but no text ([`PlotStyle::text`] = false).

use crate::registry::implementation;
use crate::{is_ceiling, Results, Row, Series};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::error::Error;
use std::path::Path;

pub use crate::fonts::{register_system_font, FONT_CANDIDATES};
pub use ladder::{ladder, ladder_bars, ladder_n};
pub use lines::{bandwidth_vs_n, time_vs_n};

mod ladder;
mod lines;

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
