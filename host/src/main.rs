//! `reduce` — the command line over the `reduce_host` library.
//!
//! `reduce table` reproduces the blog's benchmark table on this machine's GPU (or, without one, on
//! the CPU emulator, clearly labelled); `reduce --help` lists the rest.

use clap::{Parser, Subcommand, ValueEnum};
use rand::{Rng, SeedableRng};
use reduce_host::measure::{self, Protocol, Scope, Timing};
use reduce_host::with_elem_type;
use reduce_host::{
    Backend, BackendChoice, ElemType, LaunchOverrides, Op, Prepared, ReduceError, ResultIn, Scalar,
    Stage,
};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "reduce",
    version,
    about = "The parallel-reduction ladder in pure Rust: run, verify and time every stage"
)]
struct Cli {
    /// Where to run: the GPU if present (auto), the GPU only, or the CPU emulator.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto, global = true)]
    backend: BackendArg,
    /// Load the GPU kernels from this PTX file instead of the PTX built into the binary.
    #[arg(long, global = true)]
    ptx: Option<std::path::PathBuf>,
    #[command(subcommand)]
    cmd: Cmd,
}

/// `--backend`: the CLI's spelling of [`BackendChoice`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BackendArg {
    /// The GPU if there is one, else the emulator.
    Auto,
    /// The GPU; an error if there is none.
    Gpu,
    /// The CPU emulator.
    Emu,
}

impl BackendArg {
    fn choice(self) -> BackendChoice {
        match self {
            BackendArg::Auto => BackendChoice::Auto,
            BackendArg::Gpu => BackendChoice::Gpu,
            BackendArg::Emu => BackendChoice::Emu,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
    Csv,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Data {
    /// All ones (the blog's input: the exact answer is N).
    Ones,
    /// Seeded pseudo-random values (f32: [0, 1); integers: -1000..1000 or 0..1000).
    Random,
}

#[derive(clap::Args, Clone)]
struct Common {
    /// Elements to reduce [default: 4194304 on a GPU, 65536 on the emulator].
    #[arg(long)]
    n: Option<usize>,
    /// Element type.
    #[arg(long = "type", default_value = "f32")]
    ty: ElemType,
    /// Threads per block (default: each stage's own).
    #[arg(long)]
    block: Option<usize>,
    /// Blocks of the first pass, for stages 7 and 8.
    #[arg(long)]
    grid: Option<usize>,
    /// Stages to run, e.g. `1,3,8` [default: all].
    #[arg(long, value_delimiter = ',')]
    stages: Vec<usize>,
    /// Input values.
    #[arg(long, value_enum, default_value_t = Data::Ones)]
    data: Data,
    /// Seed for `--data random`.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Subcommand)]
enum Cmd {
    /// The blog's benchmark table: every stage's result and kernel time.
    Table {
        #[command(flatten)]
        common: Common,
        /// Warm-up runs per stage [default: 10 on a GPU, 1 on the emulator].
        #[arg(long)]
        warmup: Option<usize>,
        /// Timed runs per stage [default: 50 on a GPU, 5 on the emulator].
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000))]
        runs: Option<u64>,
        /// Skip the PyTorch column.
        #[arg(long)]
        no_torch: bool,
    },
    /// The blog's profile: allocation, host→device, kernel, device→host per stage.
    Profile {
        #[command(flatten)]
        common: Common,
    },
    /// Reduce once with one stage and check the result against the CPU reference.
    Run {
        #[command(flatten)]
        common: Common,
        /// Operator (stage 8 only for min, max, mean).
        #[arg(long, default_value = "sum")]
        op: Op,
    },
    /// Stage 8 over many sizes, ops and types, timed with the result copy (one JSON object per line).
    Sweep {
        /// Exponents: N = 2^e.
        #[arg(long, value_delimiter = ',', default_values_t = [12, 14, 16, 18, 20, 22, 24, 26, 28, 30])]
        exps: Vec<u32>,
        /// Operators.
        #[arg(long, value_delimiter = ',', default_values_t = [Op::Sum])]
        ops: Vec<Op>,
        /// Types.
        #[arg(long, value_delimiter = ',', default_values_t = [ElemType::F32])]
        types: Vec<ElemType>,
        /// Extra ladder stages to time at each size (kernels only, like `table`).
        #[arg(long, value_delimiter = ',')]
        stages: Vec<usize>,
        /// Warm-up runs.
        #[arg(long, default_value_t = 10)]
        warmup: usize,
        /// Timed runs.
        #[arg(long, default_value_t = 50)]
        runs: usize,
        /// Force stage 8's block size.
        #[arg(long)]
        block: Option<usize>,
        /// Force stage 8's grid size.
        #[arg(long)]
        grid: Option<usize>,
        /// Also time stage 8 with its result in device memory, plus a copy (`rust_s8_devmem`) and
        /// without one (`rust_s8_kernel`).
        #[arg(long)]
        devmem: bool,
        /// How each timed run is queued: `plain` (the window also holds the host's launch
        /// latency) or `gated` (queued behind a gate kernel, nvbench-style: GPU time only).
        #[arg(long, value_enum, default_value_t = Protocol::Plain)]
        protocol: Protocol,
    },
    /// Rust kernels against their CUDA C twins (PTX built by nvcc), same launches, side by side.
    Twins {
        /// The twins' PTX (`nvcc -O3 -arch=sm_90 -ptx benches/cuda/ladder_twins.cu`).
        #[arg(long)]
        twin_ptx: std::path::PathBuf,
        /// Exponents: N = 2^e.
        #[arg(long, value_delimiter = ',', default_values_t = [22, 28])]
        exps: Vec<u32>,
        /// Types.
        #[arg(long, value_delimiter = ',', default_values_t = [ElemType::F32, ElemType::I32])]
        types: Vec<ElemType>,
        /// Timed runs (after 10 warm-ups).
        #[arg(long, default_value_t = 50)]
        runs: usize,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Repetition and concurrency: many reductions, device memory before/after, several streams.
    Stress {
        /// Reductions in the repetition test.
        #[arg(long, default_value_t = 10_000)]
        reps: usize,
        /// Elements per reduction.
        #[arg(long, default_value_t = 1 << 20)]
        n: usize,
        /// Concurrent streams in the concurrency test.
        #[arg(long, default_value_t = 4)]
        streams: usize,
    },
    /// Run every kernel (every stage, type, op and block size) at the given sizes and check each
    /// result; the workload for `compute-sanitizer` (benches/sanitize.sh).
    Check {
        /// Input lengths.
        #[arg(long, value_delimiter = ',', default_values_t = [1usize, 33, 1000, 100_003])]
        sizes: Vec<usize>,
        /// Also launch the deliberately broken kernels once (their results are not checked), to
        /// show that racecheck flags them.
        #[arg(long)]
        broken: bool,
    },
    /// Describe the device and the plan each stage would use.
    Info {
        /// Elements.
        #[arg(long, default_value_t = 1 << 22)]
        n: usize,
        /// Element type.
        #[arg(long = "type", default_value = "f32")]
        ty: ElemType,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("error: at least one result did not match the CPU reference");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn make_data<T: Scalar>(n: usize, data: Data, seed: u64) -> Vec<T> {
    match data {
        Data::Ones => vec![T::from_f64(1.0); n],
        Data::Random => {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let signed = matches!(T::TYPE, ElemType::I32 | ElemType::I64);
            (0..n)
                .map(|_| match T::TYPE {
                    ElemType::F32 | ElemType::F64 => T::from_f64(rng.random::<f64>()),
                    _ if signed => T::from_f64(rng.random_range(-1000..1000) as f64),
                    _ => T::from_f64(rng.random_range(0..1000) as f64),
                })
                .collect()
        }
    }
}

fn stages_of(list: &[usize]) -> Result<Vec<Stage>, ReduceError> {
    if list.is_empty() {
        return Ok(Stage::ALL.to_vec());
    }
    list.iter().map(|&s| Stage::from_number(s)).collect()
}

fn banner(backend: &Backend, what: &str) {
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

fn default_n(backend: &Backend, n: Option<usize>) -> usize {
    n.unwrap_or(if backend.is_emulator() {
        1 << 16
    } else {
        1 << 22
    })
}

fn run(cli: Cli) -> Result<bool, ReduceError> {
    match cli.cmd {
        Cmd::Table {
            common,
            warmup,
            runs,
            no_torch,
        } => {
            let backend = Backend::open_with_ptx(cli.backend.choice(), cli.ptx.as_deref())?;
            with_elem_type!(common.ty, T => table::<T>(&backend, &common, warmup.unwrap_or(if backend.is_emulator() { 1 } else { 10 }), runs.map_or(if backend.is_emulator() { 5 } else { 50 }, |r| r as usize), no_torch))
        }
        Cmd::Profile { common } => {
            let backend = Backend::open_with_ptx(cli.backend.choice(), cli.ptx.as_deref())?;
            with_elem_type!(common.ty, T => profile::<T>(&backend, &common))
        }
        Cmd::Run { common, op } => {
            let backend = Backend::open_with_ptx(cli.backend.choice(), cli.ptx.as_deref())?;
            with_elem_type!(common.ty, T => run_one::<T>(&backend, &common, op))
        }
        Cmd::Sweep {
            exps,
            ops,
            types,
            stages,
            warmup,
            runs,
            block,
            grid,
            devmem,
            protocol,
        } => {
            let backend = Backend::open_with_ptx(cli.backend.choice(), cli.ptx.as_deref())?;
            let stages = stages
                .iter()
                .map(|&s| Stage::from_number(s))
                .collect::<Result<Vec<_>, _>>()?;
            let mut ok = true;
            for &e in &exps {
                if e > 34 {
                    return Err(ReduceError::InvalidArgument(format!(
                        "2^{e} elements is beyond any GPU's memory"
                    )));
                }
                for &ty in &types {
                    ok &= with_elem_type!(ty, T => sweep_one::<T>(&backend, 1usize << e, &ops, &stages, warmup, runs, LaunchOverrides { block, grid }, devmem, protocol)?);
                }
            }
            Ok(ok)
        }
        Cmd::Twins {
            twin_ptx,
            exps,
            types,
            runs,
            format,
        } => twins(&twin_ptx, &exps, &types, runs, format),
        Cmd::Stress { reps, n, streams } => stress(cli.backend.choice(), reps, n, streams),
        Cmd::Check { sizes, broken } => {
            let backend = Backend::open_with_ptx(cli.backend.choice(), cli.ptx.as_deref())?;
            check_all(&backend, &sizes, broken)
        }
        Cmd::Info { n, ty } => {
            let backend = Backend::open_with_ptx(cli.backend.choice(), cli.ptx.as_deref())?;
            println!(
                "{}",
                serde_json::to_string_pretty(backend.caps()).unwrap_or_default()
            );
            for s in Stage::ALL {
                if !s.types().contains(&ty) {
                    continue;
                }
                let p = reduce_host::plan(
                    s,
                    ty,
                    Op::Sum,
                    n,
                    LaunchOverrides::default(),
                    backend.caps(),
                )?;
                let shape: Vec<String> = p
                    .passes
                    .iter()
                    .map(|p| format!("{}x{}", p.grid, p.block))
                    .collect();
                println!(
                    "stage {} {:<40} {:<38} passes {}",
                    s.number(),
                    s.title(),
                    p.kernel,
                    shape.join(" -> ")
                );
            }
            Ok(true)
        }
    }
}

/// PyTorch's `sum()` on the same input, timed like `table` times the stages.
fn torch_mean_ms(
    n: usize,
    ty: ElemType,
    data: Data,
    warmup: usize,
    runs: usize,
) -> Result<f64, String> {
    let dtype = match ty {
        ElemType::F32 => "float32",
        ElemType::F64 => "float64",
        ElemType::I32 => "int32",
        ElemType::I64 => "int64",
        _ => return Err(format!("torch has no {ty} sum")),
    };
    let fill = match data {
        Data::Ones => format!("x = torch.ones({n}, dtype=torch.{dtype}, device='cuda')"),
        Data::Random => format!("x = (torch.rand({n}, device='cuda') * 1000).to(torch.{dtype})"),
    };
    let script = format!(
        "import torch\nassert torch.cuda.is_available(), 'torch sees no GPU'\n{fill}\n\
         s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)\nts = []\n\
         for i in range({}):\n    s.record(); y = x.sum(); e.record(); e.synchronize()\n    \
         if i >= {warmup}: ts.append(s.elapsed_time(e))\nprint(sum(ts) / len(ts))\n",
        warmup + runs
    );
    let out = std::process::Command::new("python3")
        .args(["-c", &script])
        .output()
        .map_err(|e| format!("python3 not runnable: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err.lines().last().unwrap_or("python3 failed").to_string();
        return Err(last);
    }
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse::<f64>()
        .map_err(|e| format!("unreadable torch timing: {e}"))
}

fn table<T: Scalar>(
    backend: &Backend,
    c: &Common,
    warmup: usize,
    runs: usize,
    no_torch: bool,
) -> Result<bool, ReduceError> {
    let n = default_n(backend, c.n);
    let stages = stages_of(&c.stages)?;
    for s in &stages {
        if !s.types().contains(&T::TYPE) {
            return Err(ReduceError::UnsupportedType {
                stage: *s,
                ty: T::TYPE,
            });
        }
    }
    let data = make_data::<T>(n, c.data, c.seed);
    let o = LaunchOverrides {
        block: c.block,
        grid: c.grid,
    };
    let rows = measure::table(backend, &stages, &data, o, warmup, runs, Protocol::Plain)?;
    let torch = if no_torch {
        Err("skipped (--no-torch)".to_string())
    } else if backend.is_emulator() {
        Err("no GPU".to_string())
    } else {
        torch_mean_ms(n, T::TYPE, c.data, warmup, runs)
    };
    let all_ok = rows.iter().all(|r| r.correct);
    match c.format {
        Format::Json => {
            let v = serde_json::json!({
                "device": backend.caps(), "emulated": backend.is_emulator(), "n": n, "type": T::TYPE,
                "warmup": warmup, "runs": runs, "rows": rows,
                "torch_mean_ms": torch.as_ref().ok(), "torch_note": torch.as_ref().err(),
            });
            println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        }
        Format::Csv => {
            println!(
                "stage,title,seed,kernel,block,grid,passes,result,correct,mean_ms,min_ms,median_ms"
            );
            for r in &rows {
                println!(
                    "{},{},{},{},{},{},{},{},{},{:.6},{:.6},{:.6}",
                    r.stage,
                    r.title,
                    r.seed,
                    r.kernel,
                    r.block,
                    r.grid,
                    r.passes,
                    r.result,
                    r.correct,
                    r.timing.mean(),
                    r.timing.min(),
                    r.timing.median()
                );
            }
        }
        Format::Text => {
            banner(backend, "Reduction ladder");
            println!(
                "N = {n} {} ({:?} data), {warmup} warm-up + {runs} timed runs per stage, kernel time by {}",
                T::TYPE,
                c.data,
                if backend.is_emulator() { "wall clock" } else { "CUDA events" }
            );
            let base = rows.first().map(|r| r.timing.mean()).unwrap_or(f64::NAN);
            println!(
                "| {:<2} | {:<40} | {:<22} | {:>16} | {:>10} | {:>10} | {:>8} | {:>10} | {:<2} |",
                "#",
                "stage",
                "seed step",
                "result",
                "avg ms",
                "min ms",
                "vs first",
                "vs PyTorch",
                "ok"
            );
            println!(
                "|----|{}|{}|{}|{}|{}|{}|{}|----|",
                "-".repeat(42),
                "-".repeat(24),
                "-".repeat(18),
                "-".repeat(12),
                "-".repeat(12),
                "-".repeat(10),
                "-".repeat(12)
            );
            for r in &rows {
                let vs_torch = match &torch {
                    Ok(t) => format!("{:.2}x", t / r.timing.mean()),
                    Err(_) => "n/a".into(),
                };
                println!(
                    "| {:<2} | {:<40} | {:<22} | {:>16} | {:>10.5} | {:>10.5} | {:>7.2}x | {:>10} | {:<2} |",
                    r.stage,
                    r.title,
                    r.seed,
                    r.result,
                    r.timing.mean(),
                    r.timing.min(),
                    base / r.timing.mean(),
                    vs_torch,
                    if r.correct { "ok" } else { "WRONG" }
                );
            }
            match &torch {
                Ok(t) => println!("| -  | PyTorch sum()                            | {:<22} | {:>16} | {:>10.5} | {:>10} | {:>7.2}x | {:>10} |    |", "baseline", "", t, "", base / t, "1.00x"),
                Err(why) => println!("PyTorch column: n/a ({why})"),
            }
        }
    }
    Ok(all_ok)
}

fn profile<T: Scalar>(backend: &Backend, c: &Common) -> Result<bool, ReduceError> {
    let n = default_n(backend, c.n);
    let stages = stages_of(&c.stages)?;
    let data = make_data::<T>(n, c.data, c.seed);
    let rows = measure::profile(
        backend,
        &stages,
        &data,
        LaunchOverrides {
            block: c.block,
            grid: c.grid,
        },
    )?;
    match c.format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&rows).unwrap_or_default()
        ),
        Format::Csv => {
            println!("stage,title,alloc_ms,h2d_ms,kernel_ms,d2h_ms,correct");
            for r in &rows {
                println!(
                    "{},{},{:.6},{:.6},{:.6},{:.6},{}",
                    r.stage, r.title, r.alloc_ms, r.h2d_ms, r.kernel_ms, r.d2h_ms, r.correct
                );
            }
        }
        Format::Text => {
            banner(backend, "Per-stage profile");
            println!("N = {n} {} ({:?} data); allocation, H2D and D2H by host clock around synchronous calls, kernel by CUDA events", T::TYPE, c.data);
            println!(
                "| {:<2} | {:<40} | {:>12} | {:>12} | {:>12} | {:>12} | {:<2} |",
                "#", "stage", "alloc ms", "H->D ms", "kernel ms", "D->H ms", "ok"
            );
            println!(
                "|----|{}|{}|{}|{}|{}|----|",
                "-".repeat(42),
                "-".repeat(14),
                "-".repeat(14),
                "-".repeat(14),
                "-".repeat(14)
            );
            for r in &rows {
                println!(
                    "| {:<2} | {:<40} | {:>12.6} | {:>12.6} | {:>12.6} | {:>12.6} | {:<2} |",
                    r.stage,
                    r.title,
                    r.alloc_ms,
                    r.h2d_ms,
                    r.kernel_ms,
                    r.d2h_ms,
                    if r.correct { "ok" } else { "WRONG" }
                );
            }
        }
    }
    Ok(rows.iter().all(|r| r.correct))
}

fn run_one<T: Scalar>(backend: &Backend, c: &Common, op: Op) -> Result<bool, ReduceError> {
    let n = default_n(backend, c.n);
    let stages = stages_of(&c.stages)?;
    let data = make_data::<T>(n, c.data, c.seed);
    let input = backend.upload(&data)?;
    let o = LaunchOverrides {
        block: c.block,
        grid: c.grid,
    };
    let reference = reduce_host::reference(op, &data);
    let mut ok = true;
    for stage in stages {
        let plan = reduce_host::plan(stage, T::TYPE, op, n, o, backend.caps())?;
        if n == 0 && op != Op::Sum {
            return Err(ReduceError::EmptyInput { op });
        }
        let got = reduce_host::run_stage(backend, stage, op.device_op(), &input, n, o)?;
        let r = reference.expect("non-empty input has a reference");
        let good = reduce_host::matches_reference(op, got, &r, plan.depth);
        ok &= good;
        let shown = if op == Op::Mean {
            format!("{}", got.to_f64() / n as f64)
        } else {
            got.to_string()
        };
        let want = if op == Op::Mean {
            format!(
                "{}",
                if T::TYPE.is_float() {
                    r.sum_f64
                } else {
                    r.value.to_f64()
                } / n as f64
            )
        } else if T::TYPE.is_float() && op == Op::Sum {
            format!("{} (f64 sum)", r.sum_f64)
        } else {
            r.value.to_string()
        };
        println!(
            "{stage}: {op} of {n} {} = {shown}   reference {want}   {}",
            T::TYPE,
            if good { "ok" } else { "WRONG" }
        );
    }
    Ok(ok)
}

#[allow(clippy::too_many_arguments)]
fn sweep_one<T: Scalar>(
    backend: &Backend,
    n: usize,
    ops: &[Op],
    stages: &[Stage],
    warmup: usize,
    runs: usize,
    o: LaunchOverrides,
    devmem_too: bool,
    protocol: Protocol,
) -> Result<bool, ReduceError> {
    let data = make_data::<T>(n, Data::Random, 7);
    let input = backend.upload(&data)?;
    let mut ok = true;
    for (&op, (name, result_in, scope)) in ops.iter().flat_map(|op| {
        [
            ("rust_s8", ResultIn::MappedHost, Scope::KernelsAndResultCopy),
            (
                "rust_s8_devmem",
                ResultIn::DeviceMemory,
                Scope::KernelsAndResultCopy,
            ),
            ("rust_s8_kernel", ResultIn::DeviceMemory, Scope::Kernels),
        ]
        .into_iter()
        .take(if devmem_too { 3 } else { 1 })
        .map(move |x| (op, x))
    }) {
        let (value, timing, plan) = measure::time_single_pass_in(
            backend, op, &input, o, warmup, runs, result_in, scope, protocol,
        )?;
        let r = reduce_host::reference(op, &data).expect("non-empty");
        let good = reduce_host::matches_reference(op, value, &r, plan.depth);
        ok &= good;
        print_json_line(
            name,
            op,
            T::TYPE,
            n,
            &timing,
            value.to_f64(),
            r.value.to_f64(),
            good,
            &plan,
            scope,
            protocol,
        );
    }
    for &stage in stages {
        let plan = reduce_host::plan(
            stage,
            T::TYPE,
            Op::Sum,
            n,
            LaunchOverrides::default(),
            backend.caps(),
        )?;
        let p = Prepared::<T>::new(backend, plan)?;
        let value = p.run(backend, &input, 0)?;
        let timing =
            measure::time_prepared(backend, &p, &input, warmup, runs, Scope::Kernels, protocol)?;
        let r = reduce_host::reference(Op::Sum, &data).expect("sum");
        let good = reduce_host::matches_reference(Op::Sum, value, &r, p.plan.depth);
        ok &= good;
        print_json_line(
            &format!("rust_s{}", stage.number()),
            Op::Sum,
            T::TYPE,
            n,
            &timing,
            value.to_f64(),
            r.value.to_f64(),
            good,
            &p.plan,
            Scope::Kernels,
            protocol,
        );
    }
    Ok(ok)
}

#[allow(clippy::too_many_arguments)]
fn print_json_line(
    name: &str,
    op: Op,
    ty: ElemType,
    n: usize,
    t: &Timing,
    result: f64,
    reference: f64,
    correct: bool,
    plan: &reduce_host::Plan,
    scope: Scope,
    protocol: Protocol,
) {
    let v = serde_json::json!({
        "impl": name, "op": op, "type": ty, "n": n, "runs": t.runs_ms.len(),
        "min_ms": t.min(), "median_ms": t.median(), "mean_ms": t.mean(),
        "result": result, "reference": reference, "correct": correct,
        "grid": plan.passes[0].grid, "block": plan.passes[0].block, "passes": plan.passes.len(), "scope": scope, "protocol": protocol,
    });
    println!("{v}");
}

fn twins(
    ptx: &std::path::Path,
    exps: &[u32],
    types: &[ElemType],
    runs: usize,
    format: Format,
) -> Result<bool, ReduceError> {
    let rust = Backend::Gpu(reduce_host::Gpu::open()?);
    let twin = Backend::Gpu(reduce_host::Gpu::open_with_ptx_file(ptx)?);
    let mut ok = true;
    if format == Format::Text {
        banner(&rust, "Rust kernels vs CUDA C twins (same launches)");
        println!(
            "| {:<5} | {:<3} | {:<40} | {:>11} | {:>11} | {:>8} | {:<5} |",
            "N", "ty", "kernel", "Rust ms", "CUDA C ms", "Rust/C", "ok"
        );
        println!(
            "|-------|-----|{}|-------------|-------------|----------|-------|",
            "-".repeat(42)
        );
    }
    for &e in exps {
        let n = 1usize << e;
        for &ty in types {
            ok &= with_elem_type!(ty, T => twins_one::<T>(&rust, &twin, n, e, runs, format)?);
        }
    }
    Ok(ok)
}

fn twins_one<T: Scalar>(
    rust: &Backend,
    twin: &Backend,
    n: usize,
    e: u32,
    runs: usize,
    format: Format,
) -> Result<bool, ReduceError> {
    let data = make_data::<T>(n, Data::Random, 3);
    let reference = reduce_host::reference(Op::Sum, &data).expect("sum");
    let mut ok = true;
    let inputs = (rust.upload(&data)?, twin.upload(&data)?);
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
        if !twin.has_kernel(&plan.kernel, T::TYPE) {
            continue;
        }
        let depth = plan.depth;
        let pr = Prepared::<T>::new(rust, plan.clone())?;
        let pt = Prepared::<T>::new(twin, plan.clone())?;
        let (vr, vt) = (pr.run(rust, &inputs.0, 0)?, pt.run(twin, &inputs.1, 0)?);
        let good = reduce_host::matches_reference(Op::Sum, vr, &reference, depth)
            && reduce_host::matches_reference(Op::Sum, vt, &reference, depth);
        ok &= good;
        // Interleave the two so clocks and temperature affect both alike.
        let (mut tr, mut tt) = (Timing::default(), Timing::default());
        for _ in 0..5 {
            tr.runs_ms.extend(
                measure::time_prepared(
                    rust,
                    &pr,
                    &inputs.0,
                    2,
                    runs.div_ceil(5),
                    Scope::Kernels,
                    Protocol::Plain,
                )?
                .runs_ms,
            );
            tt.runs_ms.extend(
                measure::time_prepared(
                    twin,
                    &pt,
                    &inputs.1,
                    2,
                    runs.div_ceil(5),
                    Scope::Kernels,
                    Protocol::Plain,
                )?
                .runs_ms,
            );
        }
        match format {
            Format::Text => println!(
                "| 2^{e:<3} | {} | {:<40} | {:>11.5} | {:>11.5} | {:>7.3}x | {:<5} |",
                T::TYPE,
                plan.kernel,
                tr.median(),
                tt.median(),
                tr.median() / tt.median(),
                if good { "ok" } else { "WRONG" }
            ),
            _ => println!(
                "{}",
                serde_json::json!({"n": n, "type": T::TYPE, "kernel": plan.kernel, "rust_median_ms": tr.median(),
                    "cuda_median_ms": tt.median(), "rust_min_ms": tr.min(), "cuda_min_ms": tt.min(), "correct": good})
            ),
        }
    }
    Ok(ok)
}

fn stress(
    choice: BackendChoice,
    reps: usize,
    n: usize,
    streams: usize,
) -> Result<bool, ReduceError> {
    let backend = Backend::open(choice)?;
    let gpu = backend.gpu();
    let data = make_data::<f32>(n, Data::Random, 11);
    let input = backend.upload(&data)?;
    let mut reducer = reduce_host::Reducer::new(&backend);
    let first = reducer.sum(&input)?; // allocates the cached workspace
    backend.synchronize()?;
    let before = gpu.map(|g| g.mem_info()).transpose()?;
    let mut identical = 0usize;
    for _ in 0..reps {
        let v = reducer.sum(&input)?;
        if v.to_bits() == first.to_bits() {
            identical += 1;
        }
    }
    backend.synchronize()?;
    let after = gpu.map(|g| g.mem_info()).transpose()?;
    // Fresh reducers (allocate + free a workspace each time) must not leak either.
    for _ in 0..reps.min(1000) {
        let mut r = reduce_host::Reducer::new(&backend);
        r.sum(&input)?;
    }
    backend.synchronize()?;
    let after_fresh = gpu.map(|g| g.mem_info()).transpose()?;
    let reference = reduce_host::reference(Op::Sum, &data).expect("sum");
    let depth = reduce_host::plan(
        Stage::S8,
        ElemType::F32,
        Op::Sum,
        n,
        LaunchOverrides::default(),
        backend.caps(),
    )?
    .depth;
    let correct = reduce_host::matches_reference(Op::Sum, first, &reference, depth);
    println!("repetition: {reps} sums of {n} f32 with one Reducer: {identical}/{reps} bit-identical to the first ({first}), reference {} -> {}", reference.sum_f64, if correct { "ok" } else { "WRONG" });
    if let (Some(b), Some(a), Some(f)) = (before, after, after_fresh) {
        println!("device free memory: before {} B, after {} B (diff {}), after {} fresh reducers {} B (diff {})", b.0, a.0, b.0 as i64 - a.0 as i64, reps.min(1000), f.0, b.0 as i64 - f.0 as i64);
    }
    let leak_free = match (before, after, after_fresh) {
        (Some(b), Some(a), Some(f)) => b.0 == a.0 && b.0 == f.0,
        _ => true,
    };
    let conc = concurrency(&backend, streams, n)?;
    Ok(correct && identical == reps && leak_free && conc)
}

/// Reductions of different inputs on several streams at once, each with its own workspace.
fn concurrency(backend: &Backend, streams: usize, n: usize) -> Result<bool, ReduceError> {
    let Some(_) = backend.gpu() else {
        println!("concurrency: skipped on the emulator (it has one stream)");
        return Ok(true);
    };
    // Each Gpu handle owns a context reference and a stream; open one per concurrent user.
    let handles: Vec<Backend> = (0..streams)
        .map(|_| reduce_host::Gpu::open().map(Backend::Gpu))
        .collect::<Result<_, _>>()?;
    let datas: Vec<Vec<f32>> = (0..streams)
        .map(|s| make_data::<f32>(n, Data::Random, 100 + s as u64))
        .collect();
    let inputs: Vec<_> = handles
        .iter()
        .zip(&datas)
        .map(|(h, d)| h.upload(d))
        .collect::<Result<_, _>>()?;
    let plan = reduce_host::plan(
        Stage::S8,
        ElemType::F32,
        Op::Sum,
        n,
        LaunchOverrides::default(),
        backend.caps(),
    )?;
    let prepared: Vec<_> = handles
        .iter()
        .map(|h| Prepared::<f32>::new(h, plan.clone()))
        .collect::<Result<_, _>>()?;
    let mut all = true;
    for round in 0..100 {
        for ((h, p), i) in handles.iter().zip(&prepared).zip(&inputs) {
            p.enqueue(h, i, 0)?; // queued on every stream before any is awaited
        }
        for (k, (h, p)) in handles.iter().zip(&prepared).enumerate() {
            let v = p.read_result(h)?;
            let r = reduce_host::reference(Op::Sum, &datas[k]).expect("sum");
            let good = reduce_host::matches_reference(Op::Sum, v, &r, plan.depth);
            if !good {
                println!(
                    "concurrency: round {round} stream {k}: {v} vs reference {} WRONG",
                    r.sum_f64
                );
            }
            all &= good;
        }
    }
    println!("concurrency: {streams} streams x 100 rounds of {n}-element sums, all correct: {all}");
    Ok(all)
}

fn check_all(backend: &Backend, sizes: &[usize], broken: bool) -> Result<bool, ReduceError> {
    let (mut runs, mut wrong) = (0usize, 0usize);
    for &n in sizes {
        for stage in Stage::ALL {
            for (ty, op, block) in stage.configs() {
                if n == 0 && op != Op::Sum {
                    continue;
                }
                let o = LaunchOverrides {
                    block: Some(block),
                    grid: None,
                };
                let good = with_elem_type!(ty, T => check_one::<T>(backend, stage, op, n, o)?);
                runs += 1;
                if !good {
                    wrong += 1;
                    println!("WRONG: {stage} {op} {ty} n={n} block={block}");
                }
            }
        }
    }
    if broken {
        for kernel in [
            "reduce_broken_racy_last_warp_f32",
            "reduce_broken_missing_barrier_f32",
        ] {
            let input = backend.upload(&make_data::<f32>(1024, Data::Random, 5))?;
            let out = backend.zeroed::<f32>(4)?;
            // SAFETY: both buffers are live f32 buffers of `backend` (1024 inputs, 4 partials for
            // 4 blocks), the broken kernels take the ladder ABI with 256 threads and 1024 bytes
            // of shared memory, and the buffers outlive the synchronize below.
            let launched = unsafe {
                backend.launch::<f32>(&reduce_host::Launch {
                    kernel,
                    grid: 4,
                    block: 256,
                    shared_bytes: 1024,
                    args: reduce_host::KernelArgs::MultiPass {
                        input: input.addr(0),
                        n: 1024,
                        partials: out.addr(0),
                    },
                })
            }
            .and_then(|()| backend.synchronize());
            match launched {
                Ok(()) => println!("launched the broken kernel {kernel} (result not checked)"),
                Err(e @ ReduceError::Emulator { .. }) => {
                    println!("the emulator caught the broken kernel: {e}")
                }
                Err(e) => return Err(e),
            }
        }
    }
    println!("check: {runs} kernel runs (every stage x type x op x block size x {} sizes), {wrong} wrong", sizes.len());
    Ok(wrong == 0)
}

fn check_one<T: Scalar>(
    backend: &Backend,
    stage: Stage,
    op: Op,
    n: usize,
    o: LaunchOverrides,
) -> Result<bool, ReduceError> {
    let data = make_data::<T>(n, Data::Random, n as u64);
    let input = backend.upload(&data)?;
    let plan = reduce_host::plan(stage, T::TYPE, op, n, o, backend.caps())?;
    let depth = plan.depth;
    let got = Prepared::<T>::new(backend, plan)?.run(backend, &input, 0)?;
    Ok(match reduce_host::reference(op, &data) {
        Some(r) => reduce_host::matches_reference(op, got, &r, depth),
        None => true,
    })
}
