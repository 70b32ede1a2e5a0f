//! The operators: one vocabulary for the kernel table, the host's API and plans, the command line
//! and the JSON records (`sum` …, [`Op::name`]).
//!
//! Three families, each a named subset: [`Op::REDUCE`] (what `Reducer::reduce`, the axis, stream
//! and multi-GPU reductions take), [`Op::ARG`] (the (index, value) reductions) and
//! [`Op::TRANSFORM`] (Σ of a function of the input, in `f64`). Two of the reduce ops are the
//! host's: [`Op::Mean`] and [`Op::NanMean`] run [`Op::Sum`], and [`Op::NanSum`] with
//! [`Op::Count`], on the device ([`Op::device_op`]); no kernel is built for them.

/// An operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum Op {
    /// Sum (wrapping for integers; [`crate::Sum`]).
    Sum,
    /// Minimum; for floats, NaN if any element is NaN (NumPy's `min`, PyTorch's `amin`).
    Min,
    /// Maximum; for floats, NaN if any element is NaN (NumPy's `max`, PyTorch's `amax`).
    Max,
    /// Arithmetic mean, as `f64`: the device computes [`Op::Sum`].
    Mean,
    /// Product (wrapping for integers; [`crate::Prod`]).
    Prod,
    /// Minimum ignoring NaN (NumPy's `nanmin`): NaN only if every element is NaN.
    NanMin,
    /// Maximum ignoring NaN (NumPy's `nanmax`).
    NanMax,
    /// Sum with every NaN element read as 0 (NumPy's `nansum`).
    NanSum,
    /// Mean of the elements that are not NaN, as `f64` (NumPy's `nanmean`; NaN if there are
    /// none): the device computes [`Op::NanSum`] and [`Op::Count`].
    NanMean,
    /// How many elements are not NaN, as a value of the element type (a device sum of ones:
    /// exact while the count fits the type's integers, 2^24 for `f32`).
    Count,
    /// The (index, value) of the first smallest element, or of the first NaN.
    ArgMin,
    /// The (index, value) of the first largest element, or of the first NaN.
    ArgMax,
    /// Argmin with NaN skipped (NumPy's `nanargmin`).
    NanArgMin,
    /// Argmax with NaN skipped (NumPy's `nanargmax`).
    NanArgMax,
    /// Σx² in `f64` (the L2 norm is its square root; [`crate::transform::SumSq`]).
    SumSq,
    /// Σ|x| in `f64` ([`crate::transform::L1`]).
    L1,
    /// Σaᵢbᵢ in `f64` over two inputs of the same length ([`crate::transform::Dot`]).
    Dot,
    /// Count, mean and M2 (variance, standard deviation; [`crate::transform::Moments`]).
    Moments,
    /// Σx in `f64` (the sum of `f16` / `bf16` inputs; also built for `f32` / `f64`).
    Total,
    /// Σx over the non-NaN elements and their count, in `f64`: the one-pass `nanmean` (of
    /// `f16` / `bf16` inputs above all, whose `f32` count stops being exact at 2^24).
    NanTotal,
}

impl Op {
    /// The reduce ops, in this order.
    pub const REDUCE: [Op; 10] = [
        Op::Sum,
        Op::Min,
        Op::Max,
        Op::Mean,
        Op::Prod,
        Op::NanMin,
        Op::NanMax,
        Op::NanSum,
        Op::NanMean,
        Op::Count,
    ];
    /// The arg-reductions, in this order.
    pub const ARG: [Op; 4] = [Op::ArgMin, Op::ArgMax, Op::NanArgMin, Op::NanArgMax];
    /// The transform-reduces, in this order.
    pub const TRANSFORM: [Op; 6] = [
        Op::SumSq,
        Op::L1,
        Op::Dot,
        Op::Moments,
        Op::Total,
        Op::NanTotal,
    ];

    /// The name in symbols, on the command line and in records (`sum` …).
    pub const fn name(self) -> &'static str {
        match self {
            Op::Sum => "sum",
            Op::Min => "min",
            Op::Max => "max",
            Op::Mean => "mean",
            Op::Prod => "prod",
            Op::NanMin => "nanmin",
            Op::NanMax => "nanmax",
            Op::NanSum => "nansum",
            Op::NanMean => "nanmean",
            Op::Count => "count",
            Op::ArgMin => "argmin",
            Op::ArgMax => "argmax",
            Op::NanArgMin => "nanargmin",
            Op::NanArgMax => "nanargmax",
            Op::SumSq => "sumsq",
            Op::L1 => "l1",
            Op::Dot => "dot",
            Op::Moments => "moments",
            Op::Total => "total",
            Op::NanTotal => "nantotal",
        }
    }
    /// One of [`Op::REDUCE`]?
    pub const fn is_reduce(self) -> bool {
        !self.is_arg() && !self.is_transform()
    }
    /// One of [`Op::ARG`]?
    pub const fn is_arg(self) -> bool {
        matches!(
            self,
            Op::ArgMin | Op::ArgMax | Op::NanArgMin | Op::NanArgMax
        )
    }
    /// One of [`Op::TRANSFORM`]?
    pub const fn is_transform(self) -> bool {
        matches!(
            self,
            Op::SumSq | Op::L1 | Op::Dot | Op::Moments | Op::Total | Op::NanTotal
        )
    }
    /// The operator the device runs: [`Op::Mean`] runs [`Op::Sum`], [`Op::NanMean`] runs
    /// [`Op::NanSum`] (and [`Op::Count`]); every other op runs itself.
    pub const fn device_op(self) -> Op {
        match self {
            Op::Mean => Op::Sum,
            Op::NanMean => Op::NanSum,
            _ => self,
        }
    }
    /// Is it a mean (an `f64`, not a value of the element type)?
    pub const fn is_mean(self) -> bool {
        matches!(self, Op::Mean | Op::NanMean)
    }
    /// Is it a minimum or a maximum (undefined on an empty input)?
    pub const fn is_extreme(self) -> bool {
        matches!(self, Op::Min | Op::Max | Op::NanMin | Op::NanMax)
    }
    /// The operator that combines partial results of this one (streamed chunks, GPUs): partial
    /// sums of `nansum` and partial counts are added, not lifted again.
    pub const fn combine_op(self) -> Op {
        match self.device_op() {
            Op::NanSum | Op::Count => Op::Sum,
            op => op,
        }
    }
    /// Does the arg-reduction look for the largest element (argmax, nanargmax)?
    pub const fn largest(self) -> bool {
        matches!(self, Op::ArgMax | Op::NanArgMax)
    }
    /// Does it skip NaN (nanargmin, nanargmax; nanmin, nanmax, nansum, nanmean, nantotal)?
    pub const fn skips_nan(self) -> bool {
        matches!(
            self,
            Op::NanArgMin
                | Op::NanArgMax
                | Op::NanMin
                | Op::NanMax
                | Op::NanSum
                | Op::NanMean
                | Op::NanTotal
        )
    }
    /// How many inputs it reads: 2 for [`Op::Dot`], 1 for every other op.
    pub const fn inputs(self) -> usize {
        if matches!(self, Op::Dot) {
            2
        } else {
            1
        }
    }
    /// Every op: [`Op::REDUCE`], then [`Op::ARG`], then [`Op::TRANSFORM`].
    pub fn all() -> impl Iterator<Item = Op> {
        Self::REDUCE
            .into_iter()
            .chain(Self::ARG)
            .chain(Self::TRANSFORM)
    }
}

impl core::fmt::Display for Op {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no [`Op`] (`"avg".parse::<Op>()`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownOp;

impl core::fmt::Display for UnknownOp {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(
            "unknown operator (expected one of sum, min, max, mean, prod, nanmin, nanmax, nansum, \
             nanmean, count, argmin, argmax, nanargmin, nanargmax, sumsq, l1, dot, moments, \
             total, nantotal)",
        )
    }
}

impl core::error::Error for UnknownOp {}

impl core::str::FromStr for Op {
    type Err = UnknownOp;
    fn from_str(s: &str) -> Result<Self, UnknownOp> {
        Self::all().find(|o| o.name() == s).ok_or(UnknownOp)
    }
}
