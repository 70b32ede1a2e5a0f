//! `reduce twins`: each Rust kernel against its CUDA C twin (PTX built by nvcc), same launches.

use crate::args::{Data, Format};
use crate::data::make_data;
use crate::output::{banner, text_table, verdict, Column};
use reduce_host::measure::{self, Timing, TimingSpec};
use reduce_host::measure::{Record, TwinRecord};
use reduce_host::reference::Expected;
use reduce_host::{
    with_elem_type, Backend, ElemType, Gpu, LaunchOverrides, Op, Prepared, ReduceError, Scalar,
    Stage,
};
use std::path::Path;

const COLUMNS: [Column; 7] = [
    Column::left("N", 5),
    Column::left("ty", 3),
    Column::left("kernel", 40),
    Column::right("Rust ms", 11),
    Column::right("CUDA C ms", 11),
    Column::right("Rust/C", 8),
    Column::left("ok", 5),
];

/// Warm-ups before each of the interleaved timing rounds.
const WARMUP: usize = 2;
/// Rounds of Rust and CUDA C timings, interleaved so clocks and temperature affect both alike.
const ROUNDS: usize = 5;

pub fn run(
    ptx: &Path,
    exps: &[u32],
    types: &[ElemType],
    runs: usize,
    format: Format,
) -> Result<bool, ReduceError> {
    let rust = Backend::Gpu(Gpu::open()?);
    let twin = Backend::Gpu(Gpu::open_with_ptx_file(ptx)?);
    let mut ok = true;
    let mut rows = Vec::new();
    for &e in exps {
        for &ty in types {
            ok &=
                with_elem_type!(ty, T => compare::<T>(&rust, &twin, 1usize << e, runs, &mut rows)?);
        }
    }
    match format {
        Format::Text => {
            banner(&rust, "Rust kernels vs CUDA C twins (same launches)");
            let lines: Vec<Vec<String>> = rows.iter().map(text_row).collect();
            println!("{}", text_table(&COLUMNS, &lines));
        }
        _ => {
            for r in rows {
                println!("{}", Record::from(r).to_json_line());
            }
        }
    }
    Ok(ok)
}

fn text_row(r: &TwinRecord) -> Vec<String> {
    let (rust, cuda) = (
        r.rust_median_ms.unwrap_or(f64::NAN),
        r.cuda_median_ms.unwrap_or(f64::NAN),
    );
    vec![
        format!("2^{}", r.n.trailing_zeros()),
        r.ty.to_string(),
        r.kernel.clone(),
        format!("{rust:.5}"),
        format!("{cuda:.5}"),
        format!("{:.3}x", rust / cuda),
        verdict(r.correct == Some(true)).into(),
    ]
}

fn compare<T: Scalar>(
    rust: &Backend,
    twin: &Backend,
    n: usize,
    runs: usize,
    rows: &mut Vec<TwinRecord>,
) -> Result<bool, ReduceError> {
    let data = make_data::<T>(n, Data::Random, 3)?;
    let expected = Expected::of(Op::Sum, &data);
    let mut ok = true;
    let inputs = (rust.upload(&data)?, twin.upload(&data)?);
    let spec = TimingSpec::kernels(WARMUP, runs.div_ceil(ROUNDS));
    for stage in Stage::ALL {
        if !stage.types().contains(&T::TYPE) {
            continue;
        }
        let plan = reduce_host::plan(
            stage,
            T::TYPE,
            Op::Sum,
            n,
            LaunchOverrides::default(),
            rust.caps(),
        )?;
        if !twin.has_kernel(plan.kernel) {
            continue;
        }
        let pr = Prepared::<T>::new(rust, plan.clone())?;
        let pt = Prepared::<T>::new(twin, plan.clone())?;
        let (vr, vt) = (pr.run(rust, &inputs.0, 0)?, pt.run(twin, &inputs.1, 0)?);
        let good = expected.matches(vr, &plan) && expected.matches(vt, &plan);
        ok &= good;
        let (mut tr, mut tt) = (Timing::default(), Timing::default());
        for _ in 0..ROUNDS {
            tr.runs_ms
                .extend(measure::time_prepared(rust, &pr, &inputs.0, &spec)?.runs_ms);
            tt.runs_ms
                .extend(measure::time_prepared(twin, &pt, &inputs.1, &spec)?.runs_ms);
        }
        rows.push(TwinRecord {
            n: n as u64,
            ty: T::TYPE,
            kernel: plan.kernel.to_string(),
            rust_median_ms: Some(tr.median()),
            cuda_median_ms: Some(tt.median()),
            rust_min_ms: Some(tr.min()),
            cuda_min_ms: Some(tt.min()),
            correct: Some(good),
        });
    }
    Ok(ok)
}
