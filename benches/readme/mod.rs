//! The README's performance section: one table per family, read from one `benches/gpu.sh` run.
//!
//! [`Run::load`] reads a run's folder (each suite's JSON lines under `SUITE/`, the machine and the
//! date from `environment.txt`); [`tables`] writes the Markdown: one table per family of
//! [`FAMILIES`], each headed with the device and the run's date, or one line saying that the run
//! has no records for it. The families' tables are in [`compute`] (what runs on one GPU's
//! memory) and [`data`] (exact sums, host data, several GPUs).

pub mod compute;
pub mod data;
#[cfg(test)]
mod tests;

use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// One JSON object of a results file.
pub type Rec = Map<String, Value>;

/// The files [`Run::load`] reads, relative to the run's folder.
pub const FILES: [&str; 9] = [
    "stage8/sweep.jsonl",
    "stage8/cub.jsonl",
    "axis/axis.jsonl",
    "toolbox/transform.jsonl",
    "toolbox/arg.jsonl",
    "toolbox/toolbox-ops.jsonl",
    "exact/exact.jsonl",
    "host/host.jsonl",
    "multi/multi.jsonl",
];

/// One run: its records per file, the device and the date.
#[derive(Clone, Debug, Default)]
pub struct Run {
    /// The date the run started (`YYYY-MM-DD`), from `environment.txt`.
    pub date: Option<String>,
    /// The GPU's name: `environment.txt`'s device info, else the first record that names one.
    pub device: Option<String>,
    files: BTreeMap<String, Vec<Rec>>,
}

impl Run {
    /// A run from `environment.txt`'s text and `(file, content)` pairs (files as in [`FILES`]).
    /// Lines that are not JSON objects are skipped.
    pub fn parse<'a>(
        environment: &str,
        files: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Run {
        let mut run = Run::default();
        for line in environment.lines() {
            let line = line.trim();
            if let Some(d) = line.strip_prefix("date:") {
                run.date
                    .get_or_insert_with(|| d.trim().chars().take(10).collect());
            } else if let Some(name) = line.strip_prefix("\"name\":") {
                let name = name.trim().trim_end_matches(',').trim_matches('"');
                run.device.get_or_insert_with(|| name.to_string());
            }
        }
        for (name, content) in files {
            let recs: Vec<Rec> = content.lines().filter_map(object).collect();
            if run.device.is_none() {
                run.device = recs
                    .iter()
                    .find_map(|r| text(r, "device"))
                    .map(str::to_string);
            }
            run.files.entry(name.to_string()).or_default().extend(recs);
        }
        run
    }

    /// Read `dir/environment.txt` (if there) and every file of [`FILES`] that exists under `dir`.
    pub fn load(dir: &Path) -> std::io::Result<Run> {
        std::fs::read_dir(dir)?;
        let env = std::fs::read(dir.join("environment.txt")).unwrap_or_default();
        let mut contents = Vec::new();
        for name in FILES {
            let path = dir.join(name);
            if path.is_file() {
                contents.push((
                    name,
                    String::from_utf8_lossy(&std::fs::read(&path)?).into_owned(),
                ));
            }
        }
        Ok(Run::parse(
            &String::from_utf8_lossy(&env),
            contents.iter().map(|(n, c)| (*n, c.as_str())),
        ))
    }

    /// The records of `file` (empty when the run has none).
    pub fn records(&self, file: &str) -> &[Rec] {
        self.files.get(file).map_or(&[], Vec::as_slice)
    }

    /// `device, date` for a table's heading.
    pub fn stamp(&self) -> String {
        format!(
            "{}, {}",
            self.device.as_deref().unwrap_or("unknown device"),
            self.date.as_deref().unwrap_or("undated")
        )
    }
}

/// A family's table: the words after its title, the column names, the rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// What is measured and how (after the title, before the device and date).
    pub caption: String,
    /// The device, when not the run's (several GPUs).
    pub device: Option<String>,
    /// Column names.
    pub header: Vec<String>,
    /// Cells, one `Vec` per row.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// A table of the run's device: `caption`, then `header` and `rows`.
    pub fn of_run(caption: impl Into<String>, header: Vec<String>, rows: Vec<Vec<String>>) -> Self {
        Table {
            caption: caption.into(),
            device: None,
            header,
            rows,
        }
    }
}

/// A family of the README: its title, the files it reads and how it makes its table (`None`:
/// the run has no records for it).
pub struct Family {
    /// The bold title (`Stage 8 against CUB`).
    pub title: &'static str,
    /// The files it reads, relative to the run's folder.
    pub files: &'static [&'static str],
    /// The table, or `None`.
    pub table: fn(&Run) -> Option<Table>,
}

/// Every family, in the README's order.
pub const FAMILIES: [Family; 8] = [
    compute::STAGE8,
    compute::AXIS,
    compute::TRANSFORM,
    compute::ARG,
    compute::OPS,
    data::EXACT,
    data::HOST,
    data::MULTI,
];

/// The README's performance tables for `run` (Markdown).
pub fn tables(run: &Run) -> String {
    let mut md = format!(
        "<!-- generated by `report RUN --readme`: {} -->\n\n",
        run.stamp()
    );
    for f in &FAMILIES {
        let files: Vec<String> = f.files.iter().map(|p| format!("`{p}`")).collect();
        match (f.table)(run) {
            Some(t) => {
                let stamp = match &t.device {
                    Some(d) => format!("{d}, {}", run.date.as_deref().unwrap_or("undated")),
                    None => run.stamp(),
                };
                md += &format!(
                    "**{}**, {}; {stamp} ({}):\n\n",
                    f.title,
                    t.caption,
                    files.join(", ")
                );
                md += &render(&t.header, &t.rows);
            }
            None => {
                md += &format!(
                    "*{}: no records in this run ({}).*\n",
                    f.title,
                    files.join(", ")
                )
            }
        }
        md.push('\n');
    }
    md
}

/// A line's JSON object. Python's `json.dumps` writes a NaN or infinite number as a bare `NaN` /
/// `Infinity`, which JSON does not have: such a value reads as `null`.
fn object(line: &str) -> Option<Rec> {
    let parse = |l: &str| match serde_json::from_str(l) {
        Ok(Value::Object(o)) => Some(o),
        _ => None,
    };
    let line = line.trim();
    if !line.starts_with('{') {
        return None;
    }
    parse(line).or_else(|| {
        let mut l = line.to_string();
        for bare in ["-Infinity", "Infinity", "NaN"] {
            l = l
                .replace(&format!(": {bare}"), ": null")
                .replace(&format!(":{bare}"), ":null");
        }
        parse(&l)
    })
}

/// A Markdown table.
pub fn render(header: &[String], rows: &[Vec<String>]) -> String {
    let line = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
    let mut md = line(header);
    md += &format!("|{}\n", "---|".repeat(header.len()));
    for r in rows {
        md += &line(r);
    }
    md
}

// ---- reading records ----------------------------------------------------------------------------

/// `r[k]` as text.
pub fn text<'a>(r: &'a Rec, k: &str) -> Option<&'a str> {
    r.get(k).and_then(Value::as_str)
}

/// `r[k]` as a finite number.
pub fn num(r: &Rec, k: &str) -> Option<f64> {
    r.get(k).and_then(Value::as_f64).filter(|x| x.is_finite())
}

/// `r[k]` as a count (`4096` or `4096.0`).
pub fn count(r: &Rec, k: &str) -> Option<u64> {
    num(r, k)
        .filter(|x| *x >= 0.0 && x.fract() == 0.0)
        .map(|x| x as u64)
}

/// Does `r[k]` read `v`? A missing key reads `default`.
pub fn is(r: &Rec, k: &str, v: &str, default: &str) -> bool {
    text(r, k).unwrap_or(default) == v
}

/// The fastest run, µs: `min_us`, else `min_ms` × 1000.
pub fn min_us(r: &Rec) -> Option<f64> {
    num(r, "min_us")
        .or_else(|| num(r, "min_ms").map(|ms| ms * 1e3))
        .filter(|t| *t > 0.0)
}

/// Per N, the fastest `time` of the records `keep` accepts.
pub fn best_by_n(
    recs: &[Rec],
    keep: impl Fn(&Rec) -> bool,
    time: impl Fn(&Rec) -> Option<f64>,
) -> BTreeMap<u64, f64> {
    let mut by_n = BTreeMap::new();
    for r in recs.iter().filter(|r| keep(r)) {
        if let (Some(n), Some(t)) = (count(r, "n"), time(r)) {
            let e = by_n.entry(n).or_insert(t);
            *e = f64::min(*e, t);
        }
    }
    by_n
}

// ---- formatting ---------------------------------------------------------------------------------

/// `2^k` for powers of two from 4096 on, else the number.
pub fn size(n: u64) -> String {
    if n >= 4096 && n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

/// µs with one decimal (`–` when absent).
pub fn us(t: Option<f64>) -> String {
    t.map_or_else(|| "–".into(), |t| format!("{t:.1}"))
}

/// A whole number with thousands separators (`35,000`).
pub fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if x < 0.0 && digits != "0" {
        out.insert(0, '-');
    }
    out
}

/// Cells joined by ` / `.
pub fn slash(cells: &[String]) -> String {
    cells.join(" / ")
}
