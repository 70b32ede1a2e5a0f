//! # reduce-host: run the reduction ladder on a GPU (or the CPU emulator)
//!
//! A library first: typed errors, no printing. The `reduce` binary and the benchmarks are thin
//! layers on top.
//!
//! ```no_run
//! use reduce_host::{Backend, BackendChoice, Reducer};
//! let backend = Backend::open(BackendChoice::Auto)?;
//! let mut reducer = Reducer::new(&backend);
//! let data: Vec<f32> = (0..1 << 22).map(|i| (i % 7) as f32).collect();
//! let input = backend.upload(&data)?;
//! let sum: f32 = reducer.sum(&input)?;
//! let max: Option<f32> = reducer.max(&input)?;
//! # Ok::<(), reduce_host::ReduceError>(())
//! ```
//!
//! * [`Reducer`] — the main API: stage 8 (one launch, tuned per device), any op and type.
//! * [`run_stage`] — any stage of the ladder (stages 1–7 in several passes on the device, stage 8
//!   in one), with launch overrides.
//! * [`HostReducer`] — data that starts in host memory, streamed through the GPU at the link's
//!   speed (pinned staging, chunks, copies overlapped with kernels); [`PinnedBuffer`].
//! * [`Reducer::reduce_rows`], [`Reducer::reduce_cols`], [`Reducer::reduce_segments`] — one result
//!   per row, column or segment ([`axis_api`]).
//! * [`Reducer::norm2`], [`Reducer::dot`], [`Reducer::moments`], [`Reducer::var`] … — transform-
//!   reduces in one pass: norms, dot products, mean and variance ([`transform`]).
//! * [`Reducer::sum_exact`], [`Reducer::mean_exact`] — correctly rounded, launch-independent sums
//!   ([`exact`]).
//! * [`measure`] — CUDA-event timing, the blog's benchmark and profile tables.
//! * [`Reducer::argmax`], [`Reducer::argmin`] — `(index, value)` with NumPy's rules
//!   ([`argreduce`]); [`CustomReduction`] — a user's own reduction built on the device primitives
//!   ([`custom`]).
//! * [`MultiReducer`] — data sharded across the GPUs of a host, partials combined through NCCL
//!   in rank order ([`multi`]).

pub mod argreduce;
pub mod axis;
pub mod axis_api;
pub mod axis_plan;
pub mod backend;
pub mod buffer;
pub mod custom;
pub mod emulator;
pub mod error;
pub mod exact;
pub mod gpu;
pub mod halves;
pub mod kernel_image;
mod launch;
pub(crate) mod mapped;
pub mod measure;
pub mod multi;
pub mod occupancy;
pub mod pinned;
pub mod plan;
pub(crate) mod policy_settings;
pub mod prepared;
pub mod record;
pub mod reducer;
pub mod reference;
pub mod seeded;
pub mod stage;
pub mod streaming;
pub(crate) mod streams;
pub mod transfer;
pub mod transform;
pub mod types;
pub mod verify;
pub mod wide;

pub use argreduce::{reference_arg, ArgOp, ArgPolicy, PreparedArg};
pub use axis::{PreparedAxis, Segments};
pub use axis_plan::log_uniform_segments;
pub use axis_plan::{AxisKind, AxisPlan, AxisPolicy};
pub use backend::{Backend, BackendChoice, DeviceCaps, KernelArgs, Launch};
pub use buffer::{BackendId, Buffer};
pub use custom::{CustomKernel, CustomReduction, PreparedCustom};
pub use emulator::Emulator;
pub use error::{ReduceError, Result};
pub use exact::{exact_sum, ExactData, ExactFloat, ExactPlan, ExactSum, PreparedExact};
pub use gpu::Gpu;
pub use halves::{matches_half_reference, reference_half, Bf16, HalfFloat, F16};
pub use measure::TimingSpec;
pub use multi::{
    split_even, AnyShard, AnyValue, Collective, InMemory, MultiReducer, MultiResult, MultiTiming,
    Nccl,
};
pub use pinned::PinnedBuffer;
pub use plan::{plan, LaunchOverrides, Plan};
pub use policy_settings::PolicySettings;
pub use prepared::{Prepared, ResultIn, Workspace};
pub use record::{ErrorRecord, Record, TimingRecord, TwinRecord};
pub use reducer::COUNT_CHUNK;
pub use reducer::{run_stage, Reducer, MAX_CACHED_PLANS, MEAN_CHUNK};
pub use reference::reference_nanmean;
pub use seeded::XorShift64;
pub use stage::Stage;
pub use streaming::{
    policy::StreamPolicy,
    timeline::{Lane, Span, Timeline},
    HostInput, HostReducer, Route,
};
pub use transform::reference::TransformReference;
pub use transform::{
    plan_transform, plan_transform_looped_on, plan_transform_on, Moments, PreparedTransform,
    TransformKind, TransformLoop, TransformPlan,
};
pub use types::{matches_reference, reference, reference_mean, ElemType, Op, Reference, Scalar};
pub use verify::{verify, Expected};
pub use wide::{PreparedWide, Wide};
