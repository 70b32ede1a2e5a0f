//! Font discovery, in one place: the report's plots, criterion's plots (the benchmark binary)
//! and xtask all need a TrueType font file, and plotters (built with `ab_glyph`, not `ttf`, so
//! no fontconfig/freetype at build time) needs it registered at run time.
//!
//! [`find_font`] finds one ([`FONT_CANDIDATES`], then any font under [`FONT_DIRS`]);
//! [`register_system_font`] finds and registers it.

use plotters::style::FontStyle;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Where [`register_system_font`] looks, in order (after `$REDUCE_REPORT_FONT`).
pub const FONT_CANDIDATES: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
    "/usr/share/fonts/noto/NotoSans-Regular.ttf",
    "/usr/share/fonts/google-noto/NotoSans-Regular.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
    "/usr/share/fonts/gnu-free/FreeSans.ttf",
    "/usr/share/fonts/truetype/ubuntu/Ubuntu-R.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "/Library/Fonts/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// Directories searched for any `*.ttf` / `*.otf` when no candidate exists.
pub const FONT_DIRS: &[&str] = &["/usr/share/fonts", "/usr/local/share/fonts"];

fn find_any_font(dir: &Path, depth: usize) -> Option<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    // Prefer a regular sans face in this directory, then any font, then subdirectories.
    let is_font = |p: &PathBuf| {
        p.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("ttf") || e.eq_ignore_ascii_case("otf"))
    };
    let name = |p: &PathBuf| {
        p.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string()
    };
    let sans = |p: &&PathBuf| {
        let n = name(p);
        n.contains("Sans")
            && !["Bold", "Italic", "Oblique", "Mono", "Light", "Condensed"]
                .iter()
                .any(|w| n.contains(w))
    };
    let fonts: Vec<&PathBuf> = entries.iter().filter(|p| is_font(p)).collect();
    if let Some(p) = fonts.iter().copied().find(sans).or(fonts.first().copied()) {
        return Some(p.clone());
    }
    if depth == 0 {
        return None;
    }
    entries
        .iter()
        .filter(|p| p.is_dir())
        .find_map(|d| find_any_font(d, depth - 1))
}

/// Every font path worth trying, in order: `$REDUCE_REPORT_FONT` alone if it is set, else
/// [`FONT_CANDIDATES`] followed by the first font found under each of [`FONT_DIRS`].
pub fn font_candidates() -> Vec<PathBuf> {
    match std::env::var_os("REDUCE_REPORT_FONT") {
        Some(p) => vec![PathBuf::from(p)],
        None => FONT_CANDIDATES
            .iter()
            .map(PathBuf::from)
            .chain(
                FONT_DIRS
                    .iter()
                    .filter_map(|d| find_any_font(Path::new(d), 4)),
            )
            .collect(),
    }
}

/// The first readable font file of [`font_candidates`] (not checked to be a usable font; for
/// that, [`register_system_font`]).
pub fn find_font() -> Option<PathBuf> {
    font_candidates().into_iter().find(|p| p.is_file())
}

/// Load a TrueType/OpenType font and register it with plotters as `sans-serif`, `serif` and
/// `monospace` (the families plotters and criterion ask for). Looks at `$REDUCE_REPORT_FONT`
/// (only there, if set), then [`FONT_CANDIDATES`], then any font under `/usr/share/fonts`.
/// Registers once per process; later calls return the first result.
pub fn register_system_font() -> Result<PathBuf, String> {
    static ONCE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    ONCE.get_or_init(|| {
        let candidates = font_candidates();
        let mut tried = Vec::new();
        for path in candidates {
            let Ok(bytes) = std::fs::read(&path) else {
                tried.push(path.display().to_string());
                continue;
            };
            // plotters keeps a `&'static [u8]`: the font lives as long as the process (once).
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            let ok = ["sans-serif", "serif", "monospace"].iter().all(|family| {
                plotters::style::register_font(family, FontStyle::Normal, bytes).is_ok()
            });
            if ok {
                return Ok(path);
            }
            tried.push(format!("{} (not a usable font)", path.display()));
        }
        Err(format!(
            "no TrueType font found (tried {}; set REDUCE_REPORT_FONT=/path/to/font.ttf)",
            if tried.len() > 4 {
                format!("{}, … {} paths", tried[..3].join(", "), tried.len())
            } else {
                tried.join(", ")
            }
        ))
    })
    .clone()
}
