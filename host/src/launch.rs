//! One launch: which kernel (its [`KernelId`]), the shape, and the arguments as device
//! addresses ([`KernelArgs`]), in the words both backends pass on.

use reduce_kernels::table::{Abi, ArgWords, KernelId};

/// The stream a launch is queued on: the backend's own, or one the caller gave
/// ([`crate::on_stream`]). The emulator runs every launch at once and has no streams.
#[derive(Clone, Copy, Debug)]
pub(crate) enum On {
    /// The backend's own stream.
    Own,
    /// A live stream of the GPU's context (null: the legacy default stream).
    Caller(cust::sys::CUstream),
}

/// Arguments of one launch, as device addresses (the emulator's are host addresses).
#[derive(Clone, Copy, Debug)]
pub enum KernelArgs {
    /// Stages 1–7: `(input, n, partials)`.
    MultiPass {
        /// Input address.
        input: u64,
        /// Input length.
        n: usize,
        /// Output (one per block) address.
        partials: u64,
    },
    /// Stage 8: `(input, n, partials, counter, out)`.
    SinglePass {
        /// Input address.
        input: u64,
        /// Input length.
        n: usize,
        /// Per-block partials.
        partials: u64,
        /// Zeroed ticket counter.
        counter: u64,
        /// Result address.
        out: u64,
    },
    /// The reductions along an axis: `(input, n, begin, end, out, out_len, count, len, parts,
    /// group)` (see `reduce_kernels::axis`).
    Axis {
        /// Input address.
        input: u64,
        /// Input length.
        n: usize,
        /// Segment start offsets (`count` × `u64`), or 0 for none.
        begin: u64,
        /// Segment end offsets (`count` × `u64`), or 0 for none.
        end: u64,
        /// Results (or partials) address.
        out: u64,
        /// Results (or partials) length.
        out_len: usize,
        /// Rows or segments.
        count: usize,
        /// Elements per row.
        len: usize,
        /// Work items per row, segment or column.
        parts: usize,
        /// Threads per work item (row and segment kernels).
        group: usize,
    },
    /// An axis reduction in one launch, the last block finishing: `(input, n, partials,
    /// counter, out, out_len, count, len, parts, group)` (see
    /// `reduce_kernels::axis::columns_once`).
    AxisTicket {
        /// Input address.
        input: u64,
        /// Input length.
        n: usize,
        /// `grid · len` partials.
        partials: u64,
        /// Zeroed ticket counter.
        counter: u64,
        /// Results address.
        out: u64,
        /// Results length.
        out_len: usize,
        /// Rows.
        count: usize,
        /// Elements per row.
        len: usize,
        /// Work items per column (unused: one per block).
        parts: usize,
        /// Tile width in (vector) columns.
        group: usize,
    },
    /// Transform-reduce: `(a, b, n, partials, counter, out)` (see `reduce_kernels::transform`).
    Transform {
        /// First input address.
        a: u64,
        /// Second input address (the dot product), or 0 for none.
        b: u64,
        /// Elements of each input.
        n: usize,
        /// `3 · grid` `f64` partials.
        partials: u64,
        /// Zeroed ticket counter.
        counter: u64,
        /// Three `f64` result words.
        out: u64,
    },
}

impl KernelArgs {
    /// The arguments as 64-bit words, in the order the kernel declares them (the rest 0): what
    /// the GPU passes to `cuLaunchKernel` and the emulator to [`reduce_kernels::table::Body::call`].
    pub(crate) fn words(&self) -> ArgWords {
        match *self {
            KernelArgs::MultiPass { input, n, partials } => {
                [input, n as u64, partials, 0, 0, 0, 0, 0, 0, 0]
            }
            KernelArgs::SinglePass {
                input,
                n,
                partials,
                counter,
                out,
            } => [input, n as u64, partials, counter, out, 0, 0, 0, 0, 0],
            KernelArgs::Axis {
                input,
                n,
                begin,
                end,
                out,
                out_len,
                count,
                len,
                parts,
                group,
            } => [
                input,
                n as u64,
                begin,
                end,
                out,
                out_len as u64,
                count as u64,
                len as u64,
                parts as u64,
                group as u64,
            ],
            KernelArgs::AxisTicket {
                input,
                n,
                partials,
                counter,
                out,
                out_len,
                count,
                len,
                parts,
                group,
            } => [
                input,
                n as u64,
                partials,
                counter,
                out,
                out_len as u64,
                count as u64,
                len as u64,
                parts as u64,
                group as u64,
            ],
            KernelArgs::Transform {
                a,
                b,
                n,
                partials,
                counter,
                out,
            } => [a, b, n as u64, partials, counter, out, 0, 0, 0, 0],
        }
    }

    /// Do these arguments have the shape of the calling convention `abi` (the same words, in
    /// the same order)? The exact sums, the wide and the item kernels take the single-pass
    /// words; the exact sums' combine takes the multi-pass ones.
    pub(crate) fn fit(&self, abi: Abi) -> bool {
        match self {
            KernelArgs::MultiPass { .. } => matches!(abi, Abi::MultiPass | Abi::ExactCombine),
            KernelArgs::SinglePass { .. } => matches!(
                abi,
                Abi::SinglePass | Abi::SinglePassWide | Abi::Item | Abi::Exact | Abi::ExactWords
            ),
            KernelArgs::Axis { .. } => abi == Abi::Axis,
            KernelArgs::AxisTicket { .. } => abi == Abi::AxisTicket,
            KernelArgs::Transform { .. } => abi == Abi::Transform,
        }
    }
}

/// A launch: kernel, shape, arguments.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The kernel (its typed identity in the kernel table).
    pub kernel: KernelId,
    /// Blocks.
    pub grid: usize,
    /// Threads per block.
    pub block: usize,
    /// Dynamic shared memory bytes.
    pub shared_bytes: usize,
    /// Arguments.
    pub args: KernelArgs,
}

/// Serialize a kernel as its symbol (plans print and serialize their kernel so).
pub(crate) fn serialize_symbol<S: serde::Serializer>(
    id: &KernelId,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.collect_str(id)
}
