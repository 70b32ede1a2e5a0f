//! The typed identity of a kernel: element type, operator, family (one row of the table), block
//! size, and the PTX symbol spelled from them.

pub use super::family::Family;
pub use super::op::{Op, UnknownOp};
use super::TABLE;

/// The element types the library reduces: one vocabulary for the kernel table, the host's
/// plans and the command line (`f32` …, [`ElemType::name`]). A Rust type names its own with
/// [`crate::Element::TYPE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum ElemType {
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
    /// IEEE binary16 ([`crate::half::F16`]): stage 8's operators, argmin/argmax and the
    /// transform-reduces; not in [`ElemType::ALL`].
    F16,
    /// bfloat16 ([`crate::half::Bf16`]): as [`ElemType::F16`].
    BF16,
}

impl ElemType {
    /// The six types every operator is built for.
    pub const ALL: [ElemType; 6] = [
        Self::F32,
        Self::F64,
        Self::I32,
        Self::U32,
        Self::I64,
        Self::U64,
    ];
    /// The two 2-byte float types (kept out of [`ElemType::ALL`]).
    pub const HALVES: [ElemType; 2] = [Self::F16, Self::BF16];
    /// The name in symbols and on the command line (`f32` …).
    pub const fn name(self) -> &'static str {
        match self {
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
            ElemType::I32 => "i32",
            ElemType::U32 => "u32",
            ElemType::I64 => "i64",
            ElemType::U64 => "u64",
            ElemType::F16 => "f16",
            ElemType::BF16 => "bf16",
        }
    }
    /// Size in bytes.
    pub const fn size(self) -> usize {
        match self {
            Self::F16 | Self::BF16 => 2,
            Self::F32 | Self::I32 | Self::U32 => 4,
            Self::F64 | Self::I64 | Self::U64 => 8,
        }
    }
    /// Is it a float (`f32`, `f64`, `f16`, `bf16`)?
    pub const fn is_float(self) -> bool {
        matches!(self, Self::F32 | Self::F64 | Self::F16 | Self::BF16)
    }
}

impl core::fmt::Display for ElemType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no [`ElemType`] (`"f8".parse::<ElemType>()`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownElemType;

impl core::fmt::Display for UnknownElemType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(
            "unknown element type (expected one of f32, f64, i32, u32, i64, u64, f16, bf16)",
        )
    }
}

impl core::error::Error for UnknownElemType {}

impl core::str::FromStr for ElemType {
    type Err = UnknownElemType;
    fn from_str(s: &str) -> Result<Self, UnknownElemType> {
        let mut all = Self::ALL.into_iter().chain(Self::HALVES);
        all.find(|t| t.name() == s).ok_or(UnknownElemType)
    }
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
    pub types: &'static [ElemType],
    /// Operators built.
    pub ops: &'static [Op],
    /// Block sizes accepted (`blockDim.x`).
    pub blocks: &'static [usize],
}

impl Row {
    /// The row of `family`: [`TABLE`] holds one row per [`Family`], in the enum's order (checked
    /// when the table is compiled), so this is an index.
    pub const fn of(family: Family) -> &'static Row {
        &TABLE[family as usize]
    }
}

/// One kernel: family, element type, operator, block size. For families whose block size is read
/// at run time, every block size of the row names the same kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelId {
    /// Which family.
    pub family: Family,
    /// Element type.
    pub ty: ElemType,
    /// Operator.
    pub op: Op,
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
}

/// The kernel's PTX entry name ([`KernelId::symbol`]): plans print and serialize kernels so.
impl core::fmt::Display for KernelId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.pad(self.symbol().as_str())
    }
}
