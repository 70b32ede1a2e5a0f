//! The command line: every subcommand's arguments, and the CLI's own value types (the library
//! has no clap types; [`BackendArg`] and [`ProtocolArg`] map onto its enums).
//!
//! Every count is parsed by [`count`] and every exponent by [`exponent`], so a value is accepted
//! or rejected the same way in every command.

use clap::builder::TypedValueParser;
use clap::{Parser, Subcommand, ValueEnum};
use reduce_host::measure::Protocol;
use reduce_host::plan::PolicySettings;
use reduce_host::{BackendChoice, ElemType, LaunchOverrides, Op, ReduceError};
use std::path::PathBuf;

/// The largest `--runs`, `--warmup`, `--reps` … accepted.
pub const MAX_COUNT: u64 = 100_000;

/// The largest exponent: 2^34 elements is beyond any GPU's memory already.
pub const MAX_EXPONENT: u32 = 34;

/// `reduce sweep`'s default exponents.
const SWEEP_EXPS: [u32; 10] = [12, 14, 16, 18, 20, 22, 24, 26, 28, 30];
/// `reduce twins`' default exponents.
const TWINS_EXPS: [u32; 2] = [22, 28];

/// A count between `min` and [`MAX_COUNT`] (`--runs`, `--warmup`, `--reps`, `--streams`).
pub fn count(min: u64) -> impl TypedValueParser<Value = usize> {
    clap::value_parser!(u64)
        .range(min..=MAX_COUNT)
        .map(|v| v as usize)
}

/// An exponent `e` of N = 2^e, 0 to [`MAX_EXPONENT`].
pub fn exponent() -> impl TypedValueParser<Value = u32> {
    clap::value_parser!(u32).try_map(|e| {
        if e > MAX_EXPONENT {
            Err(format!(
                "2^{e} elements is beyond any GPU's memory (exponents are 0 to {MAX_EXPONENT})"
            ))
        } else {
            Ok(e)
        }
    })
}

/// An operator of `family` (`--op`, `--ops`): an unknown name, or an op of another family, is
/// rejected with the names this command takes.
pub fn op_in(family: &'static [Op], what: &'static str) -> impl TypedValueParser<Value = Op> {
    clap::builder::StringValueParser::new().try_map(move |s| match s.parse::<Op>() {
        Ok(op) if family.contains(&op) => Ok(op),
        _ => {
            let names: Vec<&str> = family.iter().map(|o| o.name()).collect();
            Err(format!(
                "`{s}` is not {what} (expected one of {})",
                names.join(", ")
            ))
        }
    })
}

/// The one empty `--policy` text: the default policy, when none is given.
static DEFAULT_POLICY: [String; 1] = [String::new()];

/// The `--policy` texts of a command (one empty text, the default policy, when none was given)
/// and the policies they set over `P`'s default, in the same order: every text is checked
/// before anything runs.
pub fn parse_policies<P: PolicySettings + Default>(
    given: &[String],
) -> Result<(&[String], Vec<P>), ReduceError> {
    let texts = if given.is_empty() {
        &DEFAULT_POLICY[..]
    } else {
        given
    };
    let policies = texts
        .iter()
        .map(|t| P::default().with_settings(t))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((texts, policies))
}

#[derive(Parser)]
#[command(
    name = "reduce",
    version,
    about = "The parallel-reduction ladder in pure Rust: run, verify and time every stage"
)]
pub struct Cli {
    /// Where to run: the GPU if present (auto), the GPU only, or the CPU emulator.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto, global = true)]
    pub backend: BackendArg,
    /// Load the GPU kernels from this PTX file instead of the PTX built into the binary.
    #[arg(long, global = true)]
    pub ptx: Option<PathBuf>,
    #[command(subcommand)]
    pub cmd: Cmd,
}

/// Which backend to open (the library's [`BackendChoice`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// The GPU if there is one, else the emulator.
    Auto,
    /// The GPU; an error if there is none.
    Gpu,
    /// The CPU emulator.
    Emu,
}

impl From<BackendArg> for BackendChoice {
    fn from(b: BackendArg) -> Self {
        match b {
            BackendArg::Auto => BackendChoice::Auto,
            BackendArg::Gpu => BackendChoice::Gpu,
            BackendArg::Emu => BackendChoice::Emu,
        }
    }
}

/// How each timed run is queued (the library's [`Protocol`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    /// The window also holds the host's launch latency.
    Plain,
    /// Queued behind a gate kernel, nvbench-style: GPU time only.
    Gated,
}

impl From<ProtocolArg> for Protocol {
    fn from(p: ProtocolArg) -> Self {
        match p {
            ProtocolArg::Plain => Protocol::Plain,
            ProtocolArg::Gated => Protocol::Gated,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
    Csv,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Data {
    /// All ones (the blog's input: the exact answer is N).
    Ones,
    /// Seeded pseudo-random values (f32: [0, 1); integers: -1000..1000 or 0..1000).
    Random,
}

/// Which host memory `reduce host` reduces from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum HostInputArg {
    /// An ordinary `Vec` (staged through pinned buffers by CPU threads).
    Pageable,
    /// A `PinnedBuffer` (copied by the device straight from it).
    Pinned,
    /// Both, one after the other.
    Both,
    /// A `PinnedBuffer` read by the kernel where it lies (the zero-copy route, forced).
    ZeroCopy,
}

#[derive(clap::Args, Clone)]
pub struct Common {
    /// Elements to reduce [default: 4194304 on a GPU, 65536 on the emulator].
    #[arg(long)]
    pub n: Option<usize>,
    /// Element type.
    #[arg(long = "type", default_value = "f32")]
    pub ty: ElemType,
    /// Threads per block (default: each stage's own).
    #[arg(long)]
    pub block: Option<usize>,
    /// Blocks of the first pass, for stages 7 and 8.
    #[arg(long)]
    pub grid: Option<usize>,
    /// Stages to run, e.g. `1,3,8` [default: all].
    #[arg(long, value_delimiter = ',')]
    pub stages: Vec<usize>,
    /// Input values.
    #[arg(long, value_enum, default_value_t = Data::Ones)]
    pub data: Data,
    /// Seed for `--data random`.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

impl Common {
    /// The launch-shape overrides these flags ask for.
    pub fn overrides(&self) -> LaunchOverrides {
        LaunchOverrides {
            block: self.block,
            grid: self.grid,
        }
    }
}

#[derive(Subcommand)]
pub enum Cmd {
    /// The blog's benchmark table: every stage's result and kernel time.
    Table {
        #[command(flatten)]
        common: Common,
        /// Warm-up runs per stage [default: 10 on a GPU, 1 on the emulator].
        #[arg(long, value_parser = count(0))]
        warmup: Option<usize>,
        /// Timed runs per stage [default: 50 on a GPU, 5 on the emulator].
        #[arg(long, value_parser = count(1))]
        runs: Option<usize>,
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
        #[arg(long, default_value = "sum", value_parser = op_in(&Op::REDUCE, "a reduce op"))]
        op: Op,
    },
    /// Stage 8 over many sizes, ops and types, timed with the result copy (one JSON object per line).
    Sweep {
        /// Exponents: N = 2^e.
        #[arg(long, value_delimiter = ',', value_parser = exponent(), default_values_t = SWEEP_EXPS)]
        exps: Vec<u32>,
        /// Operators.
        #[arg(long, value_delimiter = ',', default_values_t = [Op::Sum],
              value_parser = op_in(&Op::REDUCE, "a reduce op"))]
        ops: Vec<Op>,
        /// Types.
        #[arg(long, value_delimiter = ',', default_values_t = [ElemType::F32])]
        types: Vec<ElemType>,
        /// Extra ladder stages to time at each size (kernels only, like `table`).
        #[arg(long, value_delimiter = ',')]
        stages: Vec<usize>,
        /// Warm-up runs.
        #[arg(long, value_parser = count(0), default_value_t = 10)]
        warmup: usize,
        /// Timed runs.
        #[arg(long, value_parser = count(1), default_value_t = 50)]
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
        #[arg(long, value_enum, default_value_t = ProtocolArg::Plain)]
        protocol: ProtocolArg,
        /// Also time the i32/u32 sums of `--types` with the 64-bit accumulator
        /// (`rust_s8_wide_kernel`, result in device memory, kernel only).
        #[arg(long)]
        wide: bool,
    },
    /// Rust kernels against their CUDA C twins (PTX built by nvcc), same launches, side by side.
    Twins {
        /// The twins' PTX (`nvcc -O3 -arch=sm_90 -ptx benches/cuda/ladder_twins.cu`).
        #[arg(long)]
        twin_ptx: PathBuf,
        /// Exponents: N = 2^e.
        #[arg(long, value_delimiter = ',', value_parser = exponent(), default_values_t = TWINS_EXPS)]
        exps: Vec<u32>,
        /// Types.
        #[arg(long, value_delimiter = ',', default_values_t = [ElemType::F32, ElemType::I32])]
        types: Vec<ElemType>,
        /// Timed runs (after 10 warm-ups).
        #[arg(long, value_parser = count(1), default_value_t = 50)]
        runs: usize,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Repetition and concurrency: many reductions, device memory before/after, several streams.
    Stress {
        /// Reductions in the repetition test.
        #[arg(long, value_parser = count(1), default_value_t = 10_000)]
        reps: usize,
        /// Elements per reduction.
        #[arg(long, default_value_t = 1 << 20)]
        n: usize,
        /// Concurrent streams in the concurrency test.
        #[arg(long, value_parser = count(1), default_value_t = 4)]
        streams: usize,
    },
    /// Run every kernel (every stage, type, op and block size) at the given sizes and check each
    /// result; the workload for `compute-sanitizer` (`benches/gpu.sh sanitizer`).
    Check {
        /// Input lengths.
        #[arg(long, value_delimiter = ',', default_values_t = [1usize, 33, 1000, 100_003])]
        sizes: Vec<usize>,
        /// Also launch the deliberately broken kernels once (their results are not checked), to
        /// show that racecheck flags them.
        #[arg(long)]
        broken: bool,
    },
    /// Data that starts in host memory, streamed through the GPU: end-to-end wall time (until the
    /// result is on the host) from pageable and/or pinned memory, min and median of the runs.
    Host(crate::commands::host::HostCmd),
    /// Describe the device and the plan each stage would use.
    Info {
        /// Elements.
        #[arg(long, default_value_t = 1 << 22)]
        n: usize,
        /// Element type.
        #[arg(long = "type", default_value = "f32")]
        ty: ElemType,
    },
    /// Reduce along an axis of a row-major matrix (one result per row or column), or over ragged
    /// segments; check every result against the CPU reference and time it.
    Axis(crate::commands::axis::AxisArgs),
    /// Norms, dot products, mean and variance in one pass (sumsq, l1, norm2, dot, mean, var,
    /// std); check each against the CPU reference and its error bound, and time it.
    Transform(crate::commands::transform::TransformArgs),
    /// Argmin / argmax (NumPy's rules: first occurrence, first NaN wins): check every result
    /// against the CPU reference and time it (min and median of the runs).
    Arg(crate::commands::arg::ArgCmd),
    /// One reduction over shards on several GPUs, combined through NCCL in rank order (or on
    /// emulated ranks with `--backend emu`): checked, timed per phase, bits compared across runs.
    Multi(crate::commands::multi::MultiArgs),
    /// The correctly rounded sum (f32, f64): checked against the host's exact reference,
    /// compared with stage 8, timed; `--repro` runs it for every grid × block × input split.
    Exact(crate::commands::exact::ExactArgs),
    /// Stage 8's operators on f16 / bf16 (widened exactly, combined in f32, an f32 result):
    /// check each against the CPU reference and its bound, and time it.
    Half(crate::commands::half::HalfArgs),
}
