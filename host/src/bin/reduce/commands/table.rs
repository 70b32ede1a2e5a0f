//! `reduce table`: the blog's benchmark table, every stage's result and kernel time.

use super::torch;
use crate::args::{Common, Format};
use crate::data::{default_n, make_data, stages_of};
use crate::output::{banner, csv, text_table, verdict, Column};
use reduce_host::measure::{self, TableRow, TimingSpec};
use reduce_host::{with_elem_type, Backend, ElemType, ReduceError, Scalar};

const COLUMNS: [Column; 9] = [
    Column::left("#", 2),
    Column::left("stage", 40),
    Column::left("seed step", 22),
    Column::right("result", 16),
    Column::right("avg ms", 10),
    Column::right("min ms", 10),
    Column::right("vs first", 8),
    Column::right("vs PyTorch", 10),
    Column::left("ok", 2),
];

pub fn run(
    backend: &Backend,
    common: &Common,
    warmup: Option<usize>,
    runs: Option<usize>,
    no_torch: bool,
) -> Result<bool, ReduceError> {
    let emulated = backend.is_emulator();
    let warmup = warmup.unwrap_or(if emulated { 1 } else { 10 });
    let runs = runs.unwrap_or(if emulated { 5 } else { 50 });
    let spec = TimingSpec::kernels(warmup, runs);
    with_elem_type!(common.ty, T => table::<T>(backend, common, &spec, no_torch))
}

fn table<T: Scalar>(
    backend: &Backend,
    c: &Common,
    spec: &TimingSpec,
    no_torch: bool,
) -> Result<bool, ReduceError> {
    let n = default_n(backend, c.n);
    let stages = stages_of(&c.stages)?;
    if let Some(s) = stages.iter().find(|s| !s.types().contains(&T::TYPE)) {
        if ElemType::HALVES.contains(&T::TYPE) {
            return Err(ReduceError::HalfNeedsTransform {
                stage: *s,
                ty: T::TYPE,
            });
        }
        return Err(ReduceError::UnsupportedType {
            stage: *s,
            ty: T::TYPE,
        });
    }
    let data = make_data::<T>(n, c.data, c.seed)?;
    let overrides = c.overrides();
    let rows = measure::table(backend, &stages, &data, overrides, spec)?;
    let torch = if no_torch {
        Err("skipped (--no-torch)".to_string())
    } else if backend.is_emulator() {
        Err("no GPU".to_string())
    } else {
        torch::mean_ms(n, T::TYPE, c.data, spec.warmup, spec.runs)
    };
    match c.format {
        Format::Json => {
            let v = serde_json::json!({
                "device": backend.caps(), "emulated": backend.is_emulator(), "n": n,
                "type": T::TYPE, "warmup": spec.warmup, "runs": spec.runs, "rows": rows,
                "torch_mean_ms": torch.as_ref().ok(), "torch_note": torch.as_ref().err(),
            });
            println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        }
        Format::Csv => println!("{}", csv(&CSV_HEADER, &csv_rows(&rows))),
        Format::Text => {
            banner(backend, "Reduction ladder");
            println!(
                "N = {n} {} ({:?} data), {} warm-up + {} timed runs per stage, kernel time by {}",
                T::TYPE,
                c.data,
                spec.warmup,
                spec.runs,
                if backend.is_emulator() {
                    "wall clock"
                } else {
                    "CUDA events"
                }
            );
            println!("{}", text_table(&COLUMNS, &text_rows(&rows, &torch)));
            if let Err(why) = &torch {
                println!("PyTorch column: n/a ({why})");
            }
        }
    }
    Ok(rows.iter().all(|r| r.correct))
}

/// The header of the rows `csv_rows` writes, column for column.
const CSV_HEADER: [&str; 12] = [
    "stage",
    "title",
    "seed",
    "kernel",
    "block",
    "grid",
    "passes",
    "result",
    "correct",
    "mean_ms",
    "min_ms",
    "median_ms",
];

/// One CSV row per stage, in the order of `CSV_HEADER`.
fn csv_rows(rows: &[TableRow]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|r| {
            vec![
                r.stage.to_string(),
                r.title.clone(),
                r.seed.clone(),
                r.kernel.clone(),
                r.block.to_string(),
                r.grid.to_string(),
                r.passes.to_string(),
                r.result.clone(),
                r.correct.to_string(),
                format!("{:.6}", r.timing.mean()),
                format!("{:.6}", r.timing.min()),
                format!("{:.6}", r.timing.median()),
            ]
        })
        .collect()
}

fn text_rows(rows: &[TableRow], torch: &Result<f64, String>) -> Vec<Vec<String>> {
    let base = rows.first().map(|r| r.timing.mean()).unwrap_or(f64::NAN);
    let mut out: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let vs_torch = match torch {
                Ok(t) => format!("{:.2}x", t / r.timing.mean()),
                Err(_) => "n/a".into(),
            };
            vec![
                r.stage.to_string(),
                r.title.clone(),
                r.seed.clone(),
                r.result.clone(),
                format!("{:.5}", r.timing.mean()),
                format!("{:.5}", r.timing.min()),
                format!("{:.2}x", base / r.timing.mean()),
                vs_torch,
                verdict(r.correct).into(),
            ]
        })
        .collect();
    if let Ok(t) = torch {
        out.push(vec![
            "-".into(),
            "PyTorch sum()".into(),
            "baseline".into(),
            String::new(),
            format!("{t:.5}"),
            String::new(),
            format!("{:.2}x", base / t),
            "1.00x".into(),
            String::new(),
        ]);
    }
    out
}
