//! # reduce-host: parallel reductions on a GPU (or the CPU emulator), from Rust
//!
//! A library first: typed errors ([`ReduceError`]), no printing. One [`Reducer`] per backend;
//! every method is generic over the element type ([`Scalar`]: `f32`, `f64`, `i32`, `u32`, `i64`,
//! `u64`, [`F16`], [`Bf16`]) and reads a [`Buffer`] or a [`View`] of one
//! (`buf.slice(a..b)?`: a range outside the buffer is [`ReduceError::OutOfBounds`]).
//!
//! ```no_run
//! use reduce_host::*;
//! # fn main() -> Result<()> {
//! let backend = Backend::open(BackendChoice::Auto)?;     // GPU 0, or the emulator
//! let mut r = Reducer::new(&backend);                     // stage 8, tuned per device
//! let x = backend.upload(&vec![1.5f32; 1 << 20])?;
//! let y = backend.upload(&vec![2.0f32; 1 << 20])?;
//! // sum / min / max / mean — also prod, count, reduce(op, x)
//! let s: f32 = r.sum(&x)?;
//! let part: f32 = r.sum(x.slice(10..1000)?)?;
//! let (lo, hi): (Option<f32>, Option<f32>) = (r.min(&x)?, r.max(&x)?);
//! let mean: f64 = r.mean(&x)?;
//! // nan-ops: NumPy's nansum, nanmin, nanmax, nanmean
//! let nm: f64 = r.nanmean(&x)?;
//! // arg: (index, value), NumPy's rules — also arg(Op::NanArgMin, x)
//! let (i, v) = r.argmax(&x)?;
//! // transform-reduces, one pass in f64: sumsq, l1, norm2, dot, moments, var, std
//! let (l2, d, var) = (r.norm2(&x)?, r.dot(&x, &y)?, r.var(&x, 1)?);
//! // exact: correctly rounded, the same bits on any launch shape
//! let e: f32 = r.sum_exact(&x)?;
//! // axis: rows, columns, segments (`reduce_*_into` writes into your buffer)
//! let rows: Buffer<f32> = r.reduce_rows(Op::Sum, &x, 1024, 1024)?;
//! let cols: Vec<f64> = r.mean_axis(AxisKind::Cols, &x, 1024, 1024)?;
//! // element types: i32 sums into i64 (the wrapping sum is reduce(Op::Sum, x)), halves in f32
//! let w: i64 = r.sum(&backend.upload(&[i32::MAX, 1])?)?;
//! let h: f32 = r.sum(&backend.upload(&[F16::from_f64(0.5); 8])?)?;
//! // host streaming: data in host memory, copies overlapped with kernels
//! let hs: f32 = HostReducer::new(&backend).sum_host(&vec![1.0f32; 1 << 20])?;
//! // multi-GPU: shards on every GPU, combined through NCCL in rank order
//! let mut multi = MultiReducer::gpus(None)?;
//! let shards = multi.scatter(&vec![1.0f32; 1 << 20])?;
//! let total: Option<f32> = multi.reduce(Op::Sum, &shards)?.value;
//! # Ok(()) }
//! ```
//!
//! A custom operator — your own `no_std` kernel on the device primitives — loads as a
//! [`CustomReduction`] (`examples/custom-op`). The families' types, and the modules beside them:
//!
//! | family | methods of [`Reducer`] | types | module |
//! |---|---|---|---|
//! | stage 8 | [`reduce`](Reducer::reduce), `sum`, `min`, `max`, `prod`, `count`, `mean` | [`Op::REDUCE`], [`Scalar`], [`Prepared`], [`PreparedWide`] | [`plan`](mod@plan) |
//! | nan-ops | `nansum`, `nanmin`, `nanmax`, `nanmean` | | [`reference`](mod@reference) |
//! | arg | [`arg`](Reducer::arg), `argmin`, `argmax` | [`Op::ARG`], [`ArgPolicy`], [`PreparedArg`] | [`argreduce`] |
//! | transform | `sumsq`, `l1`, `norm2`, `dot`, [`moments`](Reducer::moments), `var`, `std` | [`Op::TRANSFORM`], [`Moments`], [`PreparedTransform`] | [`transform`] |
//! | exact | [`sum_exact`](Reducer::sum_exact), `mean_exact` | [`ExactFloat`], [`PreparedExact`] | [`exact`] |
//! | axis | `reduce_rows`, `reduce_cols`, `reduce_segments` (+`_into`), `mean_axis`, `mean_segments` | [`AxisKind`], [`AxisPolicy`], [`Segments`], [`PreparedAxis`] | [`axis_plan`] |
//! | halves | every method above but axis | [`F16`], [`Bf16`], [`HalfFloat`] | [`halves`] |
//! | host streaming | [`HostReducer`] | [`HostInput`], [`PinnedBuffer`], [`StreamPolicy`] | [`streaming`] |
//! | multi-GPU | [`MultiReducer`] | [`Collective`] | [`multi`] |
//! | custom operator | [`CustomReduction`] | [`CustomKernel`] | [`custom`] |
//! | borrowed memory | every method, on [`Backend::borrow_raw`] (and `borrow_cudarc`, feature `cudarc`) | [`View`], [`PointerProblem`] | [`borrowed`] |
//! | on your stream | [`Prepared::for_stream`], [`Prepared::enqueue_on`] (and `enqueue_on_cudarc`) | [`Prepared`] | [`on_stream`] |
//! | the ladder | [`run_stage`] (stages 1–8), [`plan()`] | [`Stage`], [`LaunchOverrides`] | [`plan`](mod@plan) |
//! | timing | | [`TimingSpec`] | [`measure`], [`transfer`], [`kernel_image`] |
//!
//! Backends: [`Backend`] ([`Gpu`] or [`Emulator`]), [`Buffer`], [`View`]; CPU references:
//! [`reference()`], [`matches_reference`], [`Reference`].

pub mod argreduce;
mod axis;
mod axis_api;
pub mod axis_plan;
mod backend;
pub mod borrowed;
mod buffer;
mod caps;
pub mod custom;
mod emulator;
mod error;
pub mod exact;
mod gpu;
pub mod halves;
pub mod kernel_image;
mod launch;
mod mapped;
pub mod measure;
pub mod multi;
mod occupancy;
pub mod on_stream;
mod pinned;
pub mod plan;
mod policy_settings;
mod prepared;
mod reducer;
pub mod reference;
mod seeded;
mod stage;
pub mod streaming;
mod streams;
pub mod transfer;
pub mod transform;
mod types;
mod view;
mod wide;

pub use argreduce::{ArgPolicy, PreparedArg};
pub use axis::{PreparedAxis, Segments};
pub use axis_plan::{AxisKind, AxisPolicy};
pub use backend::{Backend, BackendChoice, DeviceCaps, KernelArgs, Launch};
pub use borrowed::PointerProblem;
pub use buffer::{BackendId, Buffer};
pub use caps::PRESETS;
pub use custom::{CustomKernel, CustomReduction};
pub use emulator::Emulator;
pub use error::{ReduceError, Result};
pub use exact::{ExactFloat, PreparedExact};
pub use gpu::Gpu;
pub use halves::HalfFloat;
pub use measure::TimingSpec;
pub use multi::{Collective, MultiReducer};
pub use pinned::PinnedBuffer;
pub use plan::{plan, LaunchOverrides};
pub use prepared::Prepared;
pub use reducer::{run_stage, Reducer};
pub use reference::{matches_reference, reference, Reference};
pub use stage::Stage;
pub use streaming::{policy::StreamPolicy, HostInput, HostReducer};
pub use transform::{Moments, PreparedTransform};
pub use types::{Bf16, ElemType, Element, Op, Scalar, UnknownElemType, UnknownOp, F16};
pub use view::View;
pub use wide::{PreparedWide, Wide};
