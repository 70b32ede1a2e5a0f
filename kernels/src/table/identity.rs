//! The typed identity of a kernel: element type, operator, family (one row of the table), block
//! size, and the PTX symbol spelled from them.

pub use super::family::Family;
use super::TABLE;
pub use crate::vocabulary::{ElemType, Op, UnknownElemType, UnknownOp};

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
