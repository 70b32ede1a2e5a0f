//! `report RESULTS_DIR [OUT_DIR]` — one benchmark run's JSON lines → `results.md` and PNG plots.
//!
//! Reads `sweep.jsonl`, `cub.jsonl`, `python.jsonl` and `twins.jsonl` from RESULTS_DIR (any that
//! exist) and writes `results.md`, `time_vs_n.png`, `bandwidth_vs_n.png` and `ladder_2e22.png`
//! into OUT_DIR (default: RESULTS_DIR). See `benches/lib.rs` for the formats.
//!
//! `report RUN_DIR --readme OUT.md` instead reads a whole `benches/gpu.sh` run (each suite's
//! records under `RUN_DIR/SUITE/`, `RUN_DIR/environment.txt`) and writes the README's performance
//! tables, one per family (`reduce_benches::readme`).

use reduce_benches::plot::{self, PlotStyle};
use reduce_benches::{markdown, readme, Results, H200_PEAK_GBS, H200_PEAK_LABEL, INPUT_FILES};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: report RESULTS_DIR [OUT_DIR] [--peak-gbs GBPS] [--peak-label TEXT]
       report RUN_DIR --readme OUT.md

Reads sweep.jsonl (reduce sweep), cub.jsonl (cub_bench), python.jsonl (baselines.py) and
twins.jsonl (reduce twins --format json) from RESULTS_DIR, any that exist, and writes results.md,
time_vs_n.png, bandwidth_vs_n.png and ladder_2e22.png into OUT_DIR (default RESULTS_DIR).
--peak-gbs / --peak-label set the bandwidth plot's peak line (default 4800, \"H200 peak (datasheet)\").
REDUCE_REPORT_FONT=/path/to/font.ttf picks the font for the plots' text.

--readme: RUN_DIR is one benches/gpu.sh run (stage8/, axis/, toolbox/, exact/, host/, multi/ and
environment.txt); writes the README's performance tables, one per family, to OUT.md.";

struct Args {
    input: PathBuf,
    output: PathBuf,
    peak_gbs: f64,
    peak_label: String,
    readme: Option<PathBuf>,
}

fn parse_args(mut it: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut positional = Vec::new();
    let mut peak_gbs = H200_PEAK_GBS;
    let mut peak_label = H200_PEAK_LABEL.to_string();
    let mut readme = None;
    while let Some(a) = it.next() {
        match a.as_str() {
            "-h" | "--help" => return Err(String::new()),
            "--peak-gbs" => {
                let v = it.next().ok_or("--peak-gbs needs a value")?;
                peak_gbs = v
                    .parse::<f64>()
                    .ok()
                    .filter(|g| g.is_finite() && *g > 0.0)
                    .ok_or(format!("--peak-gbs {v}: not a positive number"))?;
            }
            "--peak-label" => peak_label = it.next().ok_or("--peak-label needs a value")?,
            "--readme" => readme = Some(PathBuf::from(it.next().ok_or("--readme needs a file")?)),
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            _ => positional.push(PathBuf::from(a)),
        }
    }
    let mut positional = positional.into_iter();
    let input = positional.next().ok_or("missing RESULTS_DIR")?;
    let output = positional.next().unwrap_or_else(|| input.clone());
    if let Some(extra) = positional.next() {
        return Err(format!("unexpected argument {}", extra.display()));
    }
    if readme.is_some() && output != input {
        return Err("--readme takes RUN_DIR only".into());
    }
    Ok(Args {
        input,
        output,
        peak_gbs,
        peak_label,
        readme,
    })
}

/// `--readme`: the README's tables of the run in `dir`, written to `out`.
fn write_readme(dir: &std::path::Path, out: &std::path::Path) -> ExitCode {
    let run = match readme::Run::load(dir) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("report: cannot read {}: {e}", dir.display());
            return ExitCode::from(2);
        }
    };
    let md = readme::tables(&run);
    if let Err(e) = std::fs::write(out, &md) {
        eprintln!("report: cannot write {}: {e}", out.display());
        return ExitCode::from(2);
    }
    let found = readme::FAMILIES
        .iter()
        .filter(|f| (f.table)(&run).is_some())
        .count();
    println!(
        "report: wrote {} ({found} of {} families; {})",
        out.display(),
        readme::FAMILIES.len(),
        run.stamp()
    );
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) if e.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("report: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if let Some(out) = &args.readme {
        return write_readme(&args.input, out);
    }
    let results = match Results::load_dir(&args.input) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("report: cannot read {}: {e}", args.input.display());
            return ExitCode::from(2);
        }
    };
    if results.files.is_empty() {
        eprintln!(
            "report: warning: none of {} in {}; writing an empty report",
            INPUT_FILES.join(", "),
            args.input.display()
        );
    }
    if let Err(e) = std::fs::create_dir_all(&args.output) {
        eprintln!("report: cannot create {}: {e}", args.output.display());
        return ExitCode::from(2);
    }

    let text = match plot::register_system_font() {
        Ok(_) => true,
        Err(why) => {
            eprintln!("report: {why}: drawing the plots without any text (no titles, labels or legend names)");
            false
        }
    };
    let style = PlotStyle {
        text,
        peak_gbs: args.peak_gbs,
        peak_label: args.peak_label,
        ..PlotStyle::default()
    };
    let mut failed = false;
    let plots = match plot::write_all(&results, &args.output, &style) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("report: drawing the plots failed: {e}");
            failed = true;
            Vec::new()
        }
    };
    let md_path = args.output.join("results.md");
    if let Err(e) = std::fs::write(&md_path, markdown(&results, &plots)) {
        eprintln!("report: cannot write {}: {e}", md_path.display());
        return ExitCode::from(2);
    }
    let read: Vec<String> = results
        .files
        .iter()
        .map(|(f, n)| format!("{f} ({n} lines)"))
        .collect();
    println!(
        "report: read {} -> {} timing rows, {} twin rows, {} error notes",
        if read.is_empty() {
            "nothing".to_string()
        } else {
            read.join(", ")
        },
        results.rows.len(),
        results.twins.len(),
        results.notes.len()
    );
    println!("report: wrote {}", md_path.display());
    for p in &plots {
        println!("report: wrote {}", args.output.join(p).display());
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Result<Args, String> {
        parse_args(a.iter().map(|s| s.to_string()))
    }

    #[test]
    fn arguments() {
        let a = args(&["res"]).unwrap();
        assert_eq!(
            (a.input.to_str(), a.output.to_str()),
            (Some("res"), Some("res"))
        );
        assert_eq!(a.peak_gbs, H200_PEAK_GBS);
        let a = args(&["res", "out", "--peak-gbs", "3350", "--peak-label", "H100"]).unwrap();
        assert_eq!(a.output.to_str(), Some("out"));
        assert_eq!((a.peak_gbs, a.peak_label.as_str()), (3350.0, "H100"));
        assert!(args(&[]).is_err());
        assert!(args(&["a", "b", "c"]).is_err());
        assert!(args(&["a", "--peak-gbs", "-1"]).is_err());
        assert!(args(&["a", "--frobnicate"]).is_err());
        assert_eq!(args(&["--help"]).err().as_deref(), Some(""));
        let a = args(&["run", "--readme", "t.md"]).unwrap();
        assert_eq!(a.readme.as_deref().and_then(|p| p.to_str()), Some("t.md"));
        assert!(args(&["run", "out", "--readme", "t.md"]).is_err());
        assert!(args(&["run", "--readme"]).is_err());
    }
}
