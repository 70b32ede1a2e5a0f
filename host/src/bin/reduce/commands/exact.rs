//! `reduce exact`: the correctly rounded sum (`Reducer::sum_exact`) on one input — checked
//! against the host's exact reference, compared with stage 8's plain sum (value, ulps, time) and,
//! with `--repro`, run for every grid × block size × input split (the reproducibility matrix).
//! `--format json` prints one record per line for `benches/gpu.sh exact`. Each `--policy`
//! (repeatable) is one more launch configuration, checked and timed on the same buffer (record
//! kind `exact_policy`): the sweep that picks the policy's defaults.

use crate::args::{count, Format};
use reduce_host::exact::{
    exact_sum_parallel, generate, repro_grids, repro_matrix, ulps, ExactData, ExactFloat,
    ExactPolicy, PreparedExact,
};
use reduce_host::measure::{time_prepared, time_queued, Protocol, Timing, TimingSpec};
use reduce_host::{Backend, ElemType, LaunchOverrides, Op, ReduceError, Reducer};
use std::io::Write;

#[derive(clap::Args, Clone)]
pub struct ExactArgs {
    /// Elements.
    #[arg(long, default_value_t = 1 << 20)]
    pub n: usize,
    /// Element type (f32 or f64).
    #[arg(long = "type", default_value = "f32")]
    pub ty: ElemType,
    /// Input family: uniform, cancellation, binades, subnormals, ties, overflow.
    #[arg(long, default_value = "uniform")]
    pub data: ExactData,
    /// Seed of the input.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Force the block size (256 or 512).
    #[arg(long)]
    pub block: Option<usize>,
    /// Force the grid size.
    #[arg(long)]
    pub grid: Option<usize>,
    /// Warm-up runs before timing.
    #[arg(long, default_value_t = 10, value_parser = count(0))]
    pub warmup: usize,
    /// Timed runs (0: check only).
    #[arg(long, default_value_t = 50, value_parser = count(0))]
    pub runs: usize,
    /// Also run the reproducibility matrix (general and fast path × grids 1, 7, 132, default,
    /// max × every block size × input offsets 0–3).
    #[arg(long)]
    pub repro: bool,
    /// Skip the host's exact reference (for timing-only runs).
    #[arg(long)]
    pub no_reference: bool,
    /// Write the input as raw little-endian values to this file (for other implementations).
    #[arg(long)]
    pub save_input: Option<std::path::PathBuf>,
    /// Also check and time the sum under this policy (`key=value,…`; keys block, blocks_per_sm,
    /// min_tiles, fast_f32, fast_f64); repeatable.
    #[arg(long)]
    pub policy: Vec<String>,
    /// Output format (text or json).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

impl ExactArgs {
    /// The forced block and grid (`--block`, `--grid`), for every plan of the command.
    fn overrides(&self) -> LaunchOverrides {
        LaunchOverrides {
            block: self.block,
            grid: self.grid,
        }
    }
}

pub fn run(backend: &Backend, a: &ExactArgs) -> Result<bool, ReduceError> {
    match a.ty {
        ElemType::F32 => run_typed::<f32>(backend, a),
        ElemType::F64 => run_typed::<f64>(backend, a),
        other => Err(ReduceError::InvalidArgument(format!(
            "exact sums are for f32 and f64, not {other}"
        ))),
    }
}

fn us(t: &Timing) -> (f64, f64) {
    (t.min() * 1e3, t.median() * 1e3)
}

fn run_typed<T: ExactFloat + Sync>(backend: &Backend, a: &ExactArgs) -> Result<bool, ReduceError> {
    let data = generate::<T>(a.data, a.n, a.seed);
    if let Some(path) = &a.save_input {
        let mut f = std::fs::File::create(path).map_err(|e| {
            ReduceError::InvalidArgument(format!("cannot create {}: {e}", path.display()))
        })?;
        let mut bytes = Vec::with_capacity(data.len() * T::TYPE.size());
        for x in &data {
            bytes.extend_from_slice(&x.to_bits64().to_le_bytes()[..T::TYPE.size()]);
        }
        f.write_all(&bytes).map_err(|e| {
            ReduceError::InvalidArgument(format!("cannot write {}: {e}", path.display()))
        })?;
    }
    let input = backend.upload(&data)?;
    let overrides = a.overrides();
    let prepared = PreparedExact::<T>::new(backend, a.n, overrides)?;
    let got = prepared.run(backend, &input, 0)?;
    let mut reducer = Reducer::new(backend);
    let plain = reducer.sum(&input)?;
    let want = (!a.no_reference).then(|| exact_sum_parallel(&data));
    let ok = want.is_none_or(|w| ulps(got, w) == 0);

    let spec = TimingSpec::kernels(a.warmup, a.runs).with_protocol(Protocol::Gated);
    let spec = if backend.gpu().is_some() {
        spec
    } else {
        spec.with_protocol(Protocol::Plain)
    };
    let (mut exact_t, mut s8_t) = (None, None);
    if a.runs > 0 {
        exact_t = Some(us(&time_queued(backend, &spec, || {
            prepared.enqueue(backend, &input, 0)
        })?));
        let s8 = reducer.prepared::<T>(Op::Sum, a.n)?;
        s8_t = Some(us(&time_prepared(backend, s8, &input, &spec)?));
    }
    let record = serde_json::json!({
        "kind": "exact",
        "device": backend.caps().name,
        "type": T::TYPE.name(),
        "n": a.n,
        "data": a.data.name(),
        "seed": a.seed,
        "grid": prepared.plan.grid,
        "block": prepared.plan.block,
        "exact": got.to_f64(),
        "exact_bits": format!("{:#x}", got.to_bits64()),
        "reference_bits": want.map(|w| format!("{:#x}", w.to_bits64())),
        "exact_matches_reference": want.map(|w| ulps(got, w) == 0),
        "s8": plain.to_f64(),
        "s8_bits": format!("{:#x}", plain.to_bits64()),
        "s8_ulps": want.map(|w| ulps(plain, w)),
        "exact_min_us": exact_t.map(|t| t.0),
        "exact_median_us": exact_t.map(|t| t.1),
        "s8_min_us": s8_t.map(|t| t.0),
        "s8_median_us": s8_t.map(|t| t.1),
    });
    match a.format {
        Format::Json => println!("{record}"),
        _ => {
            println!(
                "exact sum of {} {} ({}): {:e} (bits {:#x}), grid {} × block {}",
                a.n,
                T::TYPE,
                a.data.name(),
                got.to_f64(),
                got.to_bits64(),
                prepared.plan.grid,
                prepared.plan.block
            );
            if let Some(w) = want {
                println!(
                    "host exact reference: {:e} — {}",
                    w.to_f64(),
                    if ok { "identical bits" } else { "DIFFERENT" }
                );
                println!(
                    "stage 8 plain sum:    {:e} ({} ulps from the correctly rounded sum)",
                    plain.to_f64(),
                    ulps(plain, w)
                );
            }
            if let (Some(e), Some(s)) = (exact_t, s8_t) {
                println!(
                    "time (min / median of {}): exact {:.1} / {:.1} µs, stage 8 {:.1} / {:.1} µs",
                    a.runs, e.0, e.1, s.0, s.1
                );
            }
        }
    }
    let mut repro_ok = true;
    if a.repro {
        let grids = repro_grids(backend, T::TYPE, a.n)?;
        let cells = repro_matrix(backend, &data, &grids, &[0, 1, 2, 3])?;
        let first = cells.first().map(|c| c.bits);
        repro_ok = cells.iter().all(|c| Some(c.bits) == first)
            && want.is_none_or(|w| first == Some(w.to_bits64()));
        match a.format {
            Format::Json => {
                for c in &cells {
                    let r = serde_json::json!({
                        "kind": "exact_repro",
                        "kernel": c.kernel,
                        "type": T::TYPE.name(),
                        "n": a.n,
                        "data": a.data.name(),
                        "grid": c.grid,
                        "block": c.block,
                        "offset": c.offset,
                        "bits": format!("{:#x}", c.bits),
                        "matches_reference": want.map(|w| w.to_bits64() == c.bits),
                    });
                    println!("{r}");
                }
            }
            _ => println!(
                "reproducibility: {} launches ({} kernel variants × grids {:?} × blocks {:?} × offsets 0-3): {}",
                cells.len(),
                reduce_host::exact::repro_variants().len(),
                grids,
                reduce_host::exact::exact_blocks(),
                if repro_ok {
                    "all the same bits"
                } else {
                    "DIFFERENT BITS"
                }
            ),
        }
    }
    let policies_ok = run_policies(backend, a, &input, want)?;
    Ok(ok && repro_ok && policies_ok)
}

/// Each `--policy`: plan, run, compare with the reference, time; one record (or line) each.
fn run_policies<T: ExactFloat>(
    backend: &Backend,
    a: &ExactArgs,
    input: &reduce_host::Buffer<T>,
    want: Option<T>,
) -> Result<bool, ReduceError> {
    let mut all_ok = true;
    for text in &a.policy {
        let policy = ExactPolicy::default().with_settings(text)?;
        let overrides = a.overrides();
        let p = PreparedExact::<T>::with_policy(backend, a.n, overrides, policy)?;
        let got = p.run(backend, input, 0)?;
        let ok = want.is_none_or(|w| ulps(got, w) == 0);
        all_ok &= ok;
        let mut t = None;
        if a.runs > 0 {
            let protocol = if backend.gpu().is_some() {
                Protocol::Gated
            } else {
                Protocol::Plain
            };
            let spec = TimingSpec::kernels(a.warmup, a.runs).with_protocol(protocol);
            t = Some(us(&time_queued(backend, &spec, || {
                p.enqueue(backend, input, 0)
            })?));
        }
        match a.format {
            Format::Json => println!(
                "{}",
                serde_json::json!({
                    "kind": "exact_policy",
                    "type": T::TYPE.name(),
                    "n": a.n,
                    "data": a.data.name(),
                    "policy": text,
                    "kernel": p.plan.kernel.to_string(),
                    "grid": p.plan.grid,
                    "block": p.plan.block,
                    "exact_bits": format!("{:#x}", got.to_bits64()),
                    "exact_matches_reference": want.map(|w| ulps(got, w) == 0),
                    "min_us": t.map(|t| t.0),
                    "median_us": t.map(|t| t.1),
                })
            ),
            _ => println!(
                "policy {text:?}: {} grid {} × block {}: bits {:#x}{}{}",
                p.plan.kernel,
                p.plan.grid,
                p.plan.block,
                got.to_bits64(),
                match want {
                    Some(_) if ok => " (= reference)",
                    Some(_) => " (DIFFERENT from the reference)",
                    None => "",
                },
                t.map(|t| format!(", {:.1} / {:.1} µs", t.0, t.1))
                    .unwrap_or_default()
            ),
        }
    }
    Ok(all_ok)
}
