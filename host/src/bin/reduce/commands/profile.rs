//! `reduce profile`: the blog's per-stage profile (allocation, host→device, kernel, device→host).

use crate::args::{Common, Format};
use crate::data::{default_n, make_data, stages_of};
use crate::output::{banner, csv, text_table, verdict, Column};
use reduce_host::measure::{self, ProfileRow};
use reduce_host::{with_elem_type, Backend, LaunchOverrides, ReduceError, Scalar};

const COLUMNS: [Column; 7] = [
    Column::left("#", 2),
    Column::left("stage", 40),
    Column::right("alloc ms", 12),
    Column::right("H->D ms", 12),
    Column::right("kernel ms", 12),
    Column::right("D->H ms", 12),
    Column::left("ok", 2),
];

const CSV_HEADER: [&str; 7] = [
    "stage",
    "title",
    "alloc_ms",
    "h2d_ms",
    "kernel_ms",
    "d2h_ms",
    "correct",
];

pub fn run(backend: &Backend, common: &Common) -> Result<bool, ReduceError> {
    with_elem_type!(common.ty, T => profile::<T>(backend, common))
}

fn profile<T: Scalar>(backend: &Backend, c: &Common) -> Result<bool, ReduceError> {
    let n = default_n(backend, c.n);
    let stages = stages_of(&c.stages)?;
    let data = make_data::<T>(n, c.data, c.seed);
    let overrides = LaunchOverrides {
        block: c.block,
        grid: c.grid,
    };
    let rows = measure::profile(backend, &stages, &data, overrides)?;
    let times =
        |r: &ProfileRow| [r.alloc_ms, r.h2d_ms, r.kernel_ms, r.d2h_ms].map(|ms| format!("{ms:.6}"));
    match c.format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&rows).unwrap_or_default()
        ),
        Format::Csv => {
            let lines: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    let mut line = vec![r.stage.to_string(), r.title.clone()];
                    line.extend(times(r));
                    line.push(r.correct.to_string());
                    line
                })
                .collect();
            println!("{}", csv(&CSV_HEADER, &lines));
        }
        Format::Text => {
            banner(backend, "Per-stage profile");
            println!(
                "N = {n} {} ({:?} data); allocation, H2D and D2H by host clock around \
                 synchronous calls, kernel by CUDA events",
                T::TYPE,
                c.data
            );
            let lines: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    let mut line = vec![r.stage.to_string(), r.title.clone()];
                    line.extend(times(r));
                    line.push(verdict(r.correct).into());
                    line
                })
                .collect();
            println!("{}", text_table(&COLUMNS, &lines));
        }
    }
    Ok(rows.iter().all(|r| r.correct))
}
