//! The typed identity of a kernel: element type, operator, family (one row of the table), block
//! size, and the PTX symbol spelled from them.

use super::TABLE;

/// The element type of a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemKind {
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `i32`
    I32,
    /// `u32`
    U32,
    /// `i64`
    I64,
    /// `u64`
    U64,
    /// IEEE binary16 ([`crate::half::F16`]; the transform family, stage 8's half kernels and argmin/argmax).
    F16,
    /// bfloat16 ([`crate::half::Bf16`]; the transform family, stage 8's half kernels and argmin/argmax).
    BF16,
}

impl ElemKind {
    /// The name in symbols (`f32` …).
    pub const fn name(self) -> &'static str {
        match self {
            ElemKind::F32 => "f32",
            ElemKind::F64 => "f64",
            ElemKind::I32 => "i32",
            ElemKind::U32 => "u32",
            ElemKind::I64 => "i64",
            ElemKind::U64 => "u64",
            ElemKind::F16 => "f16",
            ElemKind::BF16 => "bf16",
        }
    }
}

/// The operator a kernel computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// [`crate::Sum`]
    Sum,
    /// [`crate::Min`]
    Min,
    /// [`crate::Max`]
    Max,
    /// [`crate::transform::SumSq`]: Σx² (transform family only).
    SumSq,
    /// [`crate::transform::L1`]: Σ|x| (transform family only).
    L1,
    /// [`crate::transform::Dot`]: Σaᵢbᵢ (transform family only).
    Dot,
    /// [`crate::transform::Moments`]: count, mean, M2 (transform family only).
    Moments,
    /// [`crate::Prod`]
    Prod,
    /// [`crate::NanMin`]
    NanMin,
    /// [`crate::NanMax`]
    NanMax,
    /// [`crate::NanSum`]
    NanSum,
    /// [`crate::Count`]
    Count,
    /// [`crate::argreduce::ArgMin`]: the (index, value) of the smallest element.
    ArgMin,
    /// [`crate::argreduce::ArgMax`]: the (index, value) of the largest element.
    ArgMax,
    /// [`crate::transform::Total`]: Σx accumulated in `f64` (transform family only: the sum of
    /// `f16` / `bf16` inputs).
    Total,
    /// [`crate::argreduce::NanArgMin`]: argmin with NaN skipped (NumPy's `nanargmin`).
    NanArgMin,
    /// [`crate::argreduce::NanArgMax`]: argmax with NaN skipped (NumPy's `nanargmax`).
    NanArgMax,
    /// [`crate::transform::NanTotal`]: Σx over the non-NaN elements and their count, in `f64`
    /// (transform family only: the one-pass `nanmean` of `f16` / `bf16` inputs).
    NanTotal,
}

impl OpKind {
    /// The name in symbols (`sum` …).
    pub const fn name(self) -> &'static str {
        match self {
            OpKind::Sum => "sum",
            OpKind::Min => "min",
            OpKind::Max => "max",
            OpKind::SumSq => "sumsq",
            OpKind::L1 => "l1",
            OpKind::Dot => "dot",
            OpKind::Moments => "moments",
            OpKind::Prod => "prod",
            OpKind::NanMin => "nanmin",
            OpKind::NanMax => "nanmax",
            OpKind::NanSum => "nansum",
            OpKind::Count => "count",
            OpKind::ArgMin => "argmin",
            OpKind::ArgMax => "argmax",
            OpKind::Total => "total",
            OpKind::NanArgMin => "nanargmin",
            OpKind::NanArgMax => "nanargmax",
            OpKind::NanTotal => "nantotal",
        }
    }
}

/// A kernel family: one row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Stage 1.
    S1,
    /// Stage 2.
    S2,
    /// Stage 3.
    S3,
    /// Stage 4.
    S4,
    /// Stage 5.
    S5,
    /// Stage 6.
    S6,
    /// Stage 7.
    S7,
    /// Stage 8.
    S8,
    /// [`crate::stages::broken::reduce_racy_last_warp`].
    BrokenRacyLastWarp,
    /// [`crate::stages::broken::reduce_missing_barrier`].
    BrokenMissingBarrier,
    /// [`crate::axis::segments::rows`]: one result per row.
    AxisRows,
    /// [`crate::axis::segments::segments`]: one result per `[begin[i], end[i])`.
    AxisSegments,
    /// [`crate::axis::columns::columns`]: one result per column.
    AxisColumns,
    /// [`crate::transform::one_pass::reduce`]: transform-reduce in one pass (norms, dot,
    /// moments).
    Transform,
    /// [`crate::stages::s8_shuffle_vectorized::reduce_wide`]: stage 8 summing 32-bit integers
    /// into a 64-bit result.
    S8Wide,
    /// Argmin / argmax on the device primitives ([`crate::argreduce`]).
    ArgReduce,
    /// [`crate::exact::kernel::sum`]: the correctly rounded sum.
    Exact,
    /// [`crate::exact::kernel::sum_fast`]: the correctly rounded sum with the one-addition fast
    /// path.
    ExactFast,
    /// [`crate::exact::kernel::sum_merge`]: the correctly rounded sum with the block merge.
    ExactMerge,
    /// [`crate::exact::kernel::sum_fast_merge`]: the fast path and the block merge.
    ExactFastMerge,
    /// [`crate::exact::lean::sum_lean`]: the correctly rounded sum, publish without per-thread
    /// fences.
    ExactLean,
    /// [`crate::exact::lean::sum_fast_lean`]: the fast path and the lean publish.
    ExactFastLean,
    /// [`crate::exact::lean::sum_lean_pipe`]: the lean publish with the rolling loads (the next
    /// tile's vector loaded as soon as the current one is read).
    ExactLeanPipe,
    /// [`crate::exact::lean::sum_fast_lean_pipe`]: the fast path, the lean publish, the rolling
    /// loads.
    ExactFastLeanPipe,
    /// [`crate::axis::columns::columns_deep`]: one result per column, 8 loads in flight.
    AxisColumnsDeep,
    /// [`crate::exact::words::sum_words`]: the exact sum's words, unrounded (multi-GPU).
    ExactWords,
    /// [`crate::exact::words::combine`]: R ranks' exact words added and rounded once.
    ExactCombine,
    /// [`crate::stages::s8_shuffle_vectorized::reduce_wide`] for `f16` / `bf16`: every stage-8
    /// operator, each half widened exactly to `f32` and combined there (an `f32` result).
    S8Half,
    /// [`crate::argreduce::entry_u8`]: argmin / argmax with 8 loads in flight (a candidate,
    /// `reduce arg --policy unroll=8`).
    ArgReduceU8,
    /// [`crate::argreduce::entry_lean`]: argmin / argmax, the lane found in the loop (a
    /// candidate, `--policy lane=loop`).
    ArgReduceLean,
    /// [`crate::argreduce::entry_lean8`]: both candidates' changes (`--policy unroll=8,lane=loop`).
    ArgReduceLean8,
    /// [`crate::argreduce::entry_pdl_u8`]: argmin / argmax's grid kernel of the two-kernel form,
    /// one item per block, no ticket (`--policy unroll=8,combine=pdl`).
    ArgPdlU8,
    /// [`crate::argreduce::entry_pdl_lean8`]: as [`Family::ArgPdlU8`] over the lean loop
    /// (`--policy unroll=8,lane=loop,combine=pdl`).
    ArgPdlLean8,
    /// [`crate::argreduce::entry_pdl_combine`]: the two-kernel form's one-block combine, a
    /// programmatic dependent launch.
    ArgPdlCombine,
    /// [`crate::axis::columns_once::columns_once`]: one result per column in one launch (the
    /// last block finishes).
    AxisColumnsOnce,
    /// [`crate::axis::segments::rows_deep`]: one result per row, 8 loads in flight per lane.
    AxisRowsDeep,
    /// [`crate::axis::columns_short::columns_vst`]: the column kernel with 16-byte result
    /// stores (a candidate, `col_vec_store=1`).
    AxisColumnsVst,
    /// [`crate::axis::columns_short::columns_short16`]: 16-byte stores and items of at most 16
    /// rows loaded at once (a candidate, `col_short_rows=16`).
    AxisColumnsShort16,
    /// [`crate::axis::columns_flat::columns_flat`]: a narrow matrix's columns in one launch,
    /// read as one flat run of 16-byte vectors (`col_once_flat=1`).
    AxisColumnsFlat,
    /// [`crate::axis::columns_flat::columns_flat_deep`]: the flat column kernel with 8 loads in
    /// flight per thread (`col_flat_unroll=8`).
    AxisColumnsFlatDeep,
    /// [`crate::stages::s8_pdl::partials`]: stage 8's grid, one partial per block, no ticket.
    S8PdlPartials,
    /// [`crate::stages::s8_pdl::combine`]: stage 8's last step as a programmatic dependent launch.
    S8PdlCombine,
    /// [`crate::transform::one_pass::reduce_rolling`]: the transform kernel with rolling loads
    /// (the next tile in flight during this one's arithmetic): the `f16`/`bf16` moments.
    TransformRolling,
    /// [`crate::transform::one_pass::reduce_async`]: the transform kernel with its next tiles in
    /// flight as `cp.async` copies into shared memory (a candidate, chosen by the plan's loop).
    TransformAsync,
    /// [`crate::exact::lean::sum_lean_async`]: the lean publish with the async loop (three
    /// tiles per thread in flight as `cp.async` copies into shared memory).
    ExactLeanAsync,
    /// [`crate::exact::lean::sum_fast_lean_async`]: the fast path, the lean publish, the async
    /// loop.
    ExactFastLeanAsync,
    /// [`crate::exact::probe::sum_probe`]: the default plain exact kernel with per-block phase
    /// stamps (a diagnostic).
    ExactProbe,
    /// [`crate::exact::probe::sum_fast_probe`]: the fast-path kernel with the stamps.
    ExactFastProbe,
}

/// A kernel's calling convention (see [`crate::exports`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Abi {
    /// `(const T* input, size_t n, T* partials)`: one partial per block, launched again on the
    /// partials until one value is left (the multi-pass stages 1–7).
    MultiPass,
    /// `(const T* input, size_t n, T* partials, unsigned* counter, T* out)`: stage 8.
    SinglePass,
    /// `(const T* input, size_t n, const u64* begin, const u64* end, T* out, size_t out_len,
    /// size_t count, size_t len, size_t parts, size_t group)`: the reductions along an axis
    /// ([`crate::axis`]).
    Axis,
    /// `(const T* a, const T* b, size_t n, double* partials, unsigned* counter, double* out)`:
    /// transform-reduce in one pass ([`crate::transform`]); `b` is null for one-input ops,
    /// `partials` holds `3 * gridDim.x` doubles, `out` three.
    Transform,
    /// `(const T* input, size_t n, W* partials, unsigned* counter, W* out)` with `W` the wide
    /// type ([`crate::Element::Wide`]): stage 8 with a 64-bit accumulator.
    SinglePassWide,
    /// `(const T* input, size_t n, u32* partials, u32* counter, u32* out)`: an item kernel on the
    /// device primitives ([`crate::primitives::device::item_pass`]); partials and result are
    /// items stored as 32-bit words.
    Item,
    /// `(const T* input, size_t n, int64_t* words, unsigned* counter, T* out)`: the exact sums
    /// ([`crate::exact`]).
    Exact,
    /// `(const T* input, size_t n, int64_t* words, unsigned* counter, int64_t* out)`: the exact
    /// sum's words out, unrounded ([`crate::exact::words::sum_words`]).
    ExactWords,
    /// `(const int64_t* gathered, size_t len, T* out)`: the ranks' words added and rounded once
    /// ([`crate::exact::words::combine`]).
    ExactCombine,
    /// `(const T* input, size_t n, T* partials, unsigned* counter, T* out, size_t out_len,
    /// size_t count, size_t len, size_t parts, size_t group)`: an axis reduction in one launch
    /// whose last block finishes ([`crate::axis::columns_once`]); `partials` holds `gridDim.x ·
    /// len` elements.
    AxisTicket,
    /// `(const T* input, size_t n, T* partials)` as [`Abi::MultiPass`], one partial per block,
    /// but one kernel per operator (the operator is in the name): stage 8's PDL grid
    /// ([`crate::stages::s8_pdl::partials`]).
    SplitPartials,
    /// `(const T* partials, size_t count, T* out)`: one block combines `count` partials
    /// ([`crate::stages::s8_pdl::combine`], launched programmatically dependent on the grid).
    PdlCombine,
}

/// One row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// Which family.
    pub family: Family,
    /// Symbol stem (`reduce_s3_sequential`).
    pub stem: &'static str,
    /// Calling convention.
    pub abi: Abi,
    /// Is the block size a compile-time constant (one kernel per block size)?
    pub block_in_name: bool,
    /// Element types built.
    pub types: &'static [ElemKind],
    /// Operators built.
    pub ops: &'static [OpKind],
    /// Block sizes accepted (`blockDim.x`).
    pub blocks: &'static [usize],
}

impl Row {
    /// The row of `family`.
    pub fn of(family: Family) -> &'static Row {
        TABLE
            .iter()
            .find(|r| r.family == family)
            .expect("every Family has a row (the table is generated from the Family list)")
    }
}

/// One kernel: family, element type, operator, block size. For families whose block size is read
/// at run time, every block size of the row names the same kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelId {
    /// Which family.
    pub family: Family,
    /// Element type.
    pub ty: ElemKind,
    /// Operator.
    pub op: OpKind,
    /// Threads per block.
    pub block: usize,
}

/// A kernel symbol, spelled without allocating (the kernels crate is `no_std`).
#[derive(Clone, Copy)]
pub struct Symbol {
    buf: [u8; 64],
    len: usize,
}

impl Symbol {
    fn push(&mut self, s: &str) {
        let end = self.len + s.len();
        assert!(end <= self.buf.len(), "kernel symbol longer than 64 bytes");
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
    }
    /// The symbol.
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(&self.buf[..self.len]).expect("built from &str pieces")
    }
}

impl core::fmt::Display for Symbol {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::fmt::Debug for Symbol {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq<str> for Symbol {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl KernelId {
    /// This kernel's row.
    pub fn row(&self) -> &'static Row {
        Row::of(self.family)
    }
    /// Is this kernel built (its type, operator and block size are in its row)?
    pub fn is_built(&self) -> bool {
        let r = self.row();
        r.types.contains(&self.ty) && r.ops.contains(&self.op) && r.blocks.contains(&self.block)
    }
    /// The PTX entry name (see the module docs for the pattern).
    pub fn symbol(&self) -> Symbol {
        let r = self.row();
        let mut s = Symbol {
            buf: [0; 64],
            len: 0,
        };
        s.push(r.stem);
        if r.abi != Abi::MultiPass {
            s.push("_");
            s.push(self.op.name());
        }
        if r.block_in_name {
            s.push("_b");
            let mut digits = [0u8; 20];
            let (mut b, mut i) = (self.block, digits.len());
            loop {
                i -= 1;
                digits[i] = b'0' + (b % 10) as u8;
                b /= 10;
                if b == 0 {
                    break;
                }
            }
            s.push(core::str::from_utf8(&digits[i..]).expect("ASCII digits"));
        }
        s.push("_");
        s.push(self.ty.name());
        s
    }
    /// Every built kernel, row by row (types, then operators, then block sizes).
    pub fn all() -> impl Iterator<Item = KernelId> {
        TABLE.iter().flat_map(|r| {
            r.types.iter().flat_map(move |&ty| {
                r.ops.iter().flat_map(move |&op| {
                    r.blocks.iter().map(move |&block| KernelId {
                        family: r.family,
                        ty,
                        op,
                        block,
                    })
                })
            })
        })
    }
    /// The kernel whose PTX entry is `symbol`, launched with `block` threads per block: a lookup
    /// in the table (for run-time-block families, `block` need only be in the row). `None` if no
    /// built kernel has that name, or a `const` family's name says another block size.
    pub fn find(symbol: &str, block: usize) -> Option<KernelId> {
        Self::all()
            .find(|id| (!id.row().block_in_name || id.block == block) && id.symbol() == *symbol)
    }
}
