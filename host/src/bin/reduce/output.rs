//! How the commands print: the emulation banner, and the one table renderer for text (a
//! markdown-style table drawn by [`comfy_table`]) and CSV.
//!
//! `comfy-table` because it is small, widely used, and draws the markdown preset the tables have
//! always had (`| a | b |` over `|---|---|`) with per-column minimum widths and alignment, without
//! pulling in a terminal library (its `tty` feature is off).

use comfy_table::{presets::ASCII_MARKDOWN, Cell, CellAlignment, ColumnConstraint, Table, Width};
use reduce_host::Backend;

/// The banner over every text table: the device, or a warning that times are emulated.
pub fn banner(backend: &Backend, what: &str) {
    let c = backend.caps();
    if backend.is_emulator() {
        println!("*** CPU EMULATION: no GPU was found (or --backend emu). Results are checked for real; times are");
        println!("*** the emulator's wall clock, thousands of times slower than a GPU, not GPU timings. ***");
    } else {
        println!(
            "{what} on {} (sm_{}{}, {} SMs)",
            c.name, c.compute_capability.0, c.compute_capability.1, c.sm_count
        );
    }
}

/// One column of a text table: its header, its minimum content width, its alignment.
#[derive(Clone, Copy)]
pub struct Column {
    pub header: &'static str,
    pub width: usize,
    pub right: bool,
}

impl Column {
    /// Left-aligned.
    pub const fn left(header: &'static str, width: usize) -> Self {
        Column {
            header,
            width,
            right: false,
        }
    }
    /// Right-aligned (numbers).
    pub const fn right(header: &'static str, width: usize) -> Self {
        Column {
            header,
            width,
            right: true,
        }
    }
}

/// A markdown-style text table of `rows` under `columns`.
pub fn text_table(columns: &[Column], rows: &[Vec<String>]) -> String {
    let align = |c: &Column| {
        if c.right {
            CellAlignment::Right
        } else {
            CellAlignment::Left
        }
    };
    let mut t = Table::new();
    t.load_preset(ASCII_MARKDOWN);
    t.set_header(
        columns
            .iter()
            .map(|c| Cell::new(c.header).set_alignment(align(c))),
    );
    for row in rows {
        t.add_row(
            row.iter()
                .zip(columns)
                .map(|(v, c)| Cell::new(v).set_alignment(align(c))),
        );
    }
    for (i, c) in columns.iter().enumerate() {
        if let Some(col) = t.column_mut(i) {
            // The constraint counts the padding (one space each side).
            let w = u16::try_from(c.width + 2).unwrap_or(u16::MAX);
            col.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(w)));
        }
    }
    t.to_string()
}

/// Comma-separated values: a header line, then one line per row (values as given, unquoted).
pub fn csv(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = header.join(",");
    for row in rows {
        out.push('\n');
        out.push_str(&row.join(","));
    }
    out
}

/// `ok` or `WRONG`.
pub fn verdict(correct: bool) -> &'static str {
    if correct {
        "ok"
    } else {
        "WRONG"
    }
}
