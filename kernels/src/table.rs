//! # The kernel table: one typed identity for every kernel
//!
//! Each row of `kernel_table!` (at the bottom of this file) is one kernel family: which
//! [`Family`] it is, its symbol stem, its calling convention ([`Abi`]), whether the block size is
//! a compile-time constant (`const`: one kernel per block size, named `…_b{BLOCK}_…`) or read at
//! run time (`any`), and the element types, operators and block sizes it is built for, then the
//! Rust function. From that one row the macro generates
//!
//! * the `#[no_mangle]` PTX entry points (on `nvptx64`),
//! * [`TABLE`], which the host's stage table, planner and kernel lookup read,
//! * [`emulated`], the emulator's function-pointer dispatch,
//!
//! and [`KernelId::symbol`] spells the entry names from the same row. Adding a block size is an
//! edit of one row; adding a stage is one row plus its file under `stages/` (and the host's
//! description of it in `host/src/stage.rs`).
//!
//! Symbol names: `{stem}[_{op}][_b{BLOCK}]_{type}` — the operator only for stage 8 and the axis
//! families (the ones with more than one), the block size only for `const` families. E.g.
//! `reduce_s3_sequential_f32`, `reduce_s6_complete_unroll_b256_i32`, `reduce_s8_max_b512_f64`,
//! `reduce_rows_sum_b256_f32`.

#[cfg(not(target_arch = "nvptx64"))]
use crate::gpu::{Coherent, Counter, Global, GlobalMut};
#[cfg(not(target_arch = "nvptx64"))]
use crate::Element;

/// Independent 16-byte loads per thread per step in stage 8 (8 measured no faster on the H200).
pub const SINGLE_PASS_UNROLL: usize = 4;

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
}

impl OpKind {
    /// The name in symbols (`sum` …).
    pub const fn name(self) -> &'static str {
        match self {
            OpKind::Sum => "sum",
            OpKind::Min => "min",
            OpKind::Max => "max",
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

/// A kernel's Rust function, as the emulator calls it.
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Clone, Copy)]
pub enum Body<T> {
    /// [`Abi::MultiPass`].
    MultiPass(fn(Global<T>, GlobalMut<T>)),
    /// [`Abi::SinglePass`].
    SinglePass(fn(Global<T>, Coherent<T>, Counter, GlobalMut<T>)),
    /// [`Abi::Axis`].
    Axis(AxisBody<T>),
}

/// An axis kernel's Rust function: `(input, begin, end, out, params)`.
#[cfg(not(target_arch = "nvptx64"))]
pub type AxisBody<T> =
    fn(Global<T>, Global<u64>, Global<u64>, GlobalMut<T>, crate::axis::AxisParams);

/// Generates [`TABLE`], [`emulated`] and the PTX entry points from the rows at the end of this
/// file (see the module docs).
macro_rules! kernel_table {
    ($(
        $family:ident $stem:ident $abi:ident $mode:ident
        [$($t:ident),*] [$($op:ident),*] $blocks:tt => $module:ident :: $func:ident;
    )*) => {
        /// Every kernel family, in ladder order (stages 1–8, then the broken variants, then the
        /// reductions along an axis).
        pub const TABLE: &[Row] = &[$(
            Row {
                family: Family::$family,
                stem: stringify!($stem),
                abi: Abi::$abi,
                block_in_name: kernel_table!(@const $mode),
                types: &[$(kernel_table!(@kind $t)),*],
                ops: &[$(OpKind::$op),*],
                blocks: &kernel_table!(@blocks $blocks),
            }
        ),*];

        /// The Rust function behind `id`, for the emulator; `None` if `id` is not built or `T`
        /// is not its element type.
        #[cfg(not(target_arch = "nvptx64"))]
        pub fn emulated<T: Element>(id: KernelId) -> Option<Body<T>> {
            use crate::stages::*;
            use crate::axis::*;
            use crate::{Max, Min, Sum};
            if T::KIND != id.ty || !id.is_built() {
                return None;
            }
            match id.family {$(
                Family::$family => kernel_table!(@emu $abi $mode id [$($op),*] $blocks $module $func),
            )*}
        }

        /// The PTX entry points. Each is an `unsafe extern "ptx-kernel" fn` whose contract is
        /// that of [`crate::exports::multi_pass`] / [`crate::exports::single_pass`] plus the launch
        /// shape the host's plan gives (block size, shared memory).
        #[cfg(target_arch = "nvptx64")]
        mod ptx_entry_points {
            use crate::exports::{axis, multi_pass, single_pass};
            use crate::stages::*;
            use crate::axis::*;
            use crate::{Max, Min, Sum};
            use super::SINGLE_PASS_UNROLL;
            $( kernel_table!(@export $abi $mode $stem [$($t),*] [$($op),*] $blocks $module $func); )*
        }
    };

    (@const any) => { false };
    (@const const) => { true };
    (@kind f32) => { ElemKind::F32 };
    (@kind f64) => { ElemKind::F64 };
    (@kind i32) => { ElemKind::I32 };
    (@kind u32) => { ElemKind::U32 };
    (@kind i64) => { ElemKind::I64 };
    (@kind u64) => { ElemKind::U64 };
    (@blocks [$($b:literal),*]) => { [$($b),*] };

    // The emulator's dispatch.
    (@emu MultiPass any $id:ident $ops:tt $blocks:tt $module:ident $func:ident) => {
        Some(Body::MultiPass($module::$func::<T>))
    };
    (@emu MultiPass const $id:ident $ops:tt [$($b:literal),*] $module:ident $func:ident) => {
        match $id.block {
            $($b => Some(Body::MultiPass($module::$func::<T, $b>)),)*
            _ => None,
        }
    };
    (@emu SinglePass const $id:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        match $id.op {
            $(OpKind::$op => kernel_table!(@emu_sp $id $op $blocks $module $func),)*
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
    (@emu Axis const $id:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        match $id.op {
            $(OpKind::$op => kernel_table!(@emu_ax $id $op $blocks $module $func),)*
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
    (@emu_ax $id:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        match $id.block {
            $($b => Some(Body::Axis($module::$func::<T, $op, $b>)),)*
            _ => None,
        }
    };
    (@emu_sp $id:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        match $id.block {
            $($b => Some(Body::SinglePass($module::$func::<T, $op, $b, SINGLE_PASS_UNROLL>)),)*
            _ => None,
        }
    };

    // The PTX entry points.
    (@export MultiPass any $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _ $t>](input: *const $t, n: usize, partials: *mut $t) {
                multi_pass($module::$func::<$t>, input, n, partials)
            }
        )* }
    };
    (@export MultiPass const $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_lc $stem $t $blocks $module $func); )*
    };
    (@export_lc $stem:ident $t:ident [$($b:literal),*] $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _b $b _ $t>](input: *const $t, n: usize, partials: *mut $t) {
                multi_pass($module::$func::<$t, $b>, input, n, partials)
            }
        )* }
    };
    (@export SinglePass const $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_sp_t $stem $t $ops $blocks $module $func); )*
    };
    (@export_sp_t $stem:ident $t:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_sp $stem $t $op $blocks $module $func); )*
    };
    (@export Axis const $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_ax_t $stem $t $ops $blocks $module $func); )*
    };
    (@export_ax_t $stem:ident $t:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_ax $stem $t $op $blocks $module $func); )*
    };
    (@export_ax $stem:ident $t:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _ $op:lower _b $b _ $t>](
                input: *const $t, n: usize, begin: *const u64, end: *const u64, out: *mut $t,
                out_len: usize, count: usize, len: usize, parts: usize, group: usize,
            ) {
                axis(
                    $module::$func::<$t, $op, $b>, input, n, begin, end, out, out_len,
                    count, len, parts, group,
                )
            }
        )* }
    };
    (@export_sp $stem:ident $t:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _ $op:lower _b $b _ $t>](
                input: *const $t, n: usize, partials: *mut $t, counter: *mut u32, out: *mut $t,
            ) {
                single_pass($module::$func::<$t, $op, $b, SINGLE_PASS_UNROLL>, input, n, partials, counter, out)
            }
        )* }
    };
}

// family  symbol stem  ABI  block  types  operators  block sizes  => function
kernel_table! {
    S1 reduce_s1_interleaved_divergent MultiPass any [f32, i32] [Sum] [32, 64, 128, 256, 512, 1024]
        => s1_interleaved_divergent::reduce;
    S2 reduce_s2_interleaved_strided MultiPass any [f32, i32] [Sum] [32, 64, 128, 256, 512, 1024]
        => s2_interleaved_strided::reduce;
    S3 reduce_s3_sequential MultiPass any [f32, i32] [Sum] [32, 64, 128, 256, 512, 1024]
        => s3_sequential::reduce;
    S4 reduce_s4_first_add_during_load MultiPass any [f32, i32] [Sum] [32, 64, 128, 256, 512, 1024]
        => s4_first_add_during_load::reduce;
    S5 reduce_s5_unroll_last_warp MultiPass any [f32, i32] [Sum] [64, 128, 256, 512, 1024]
        => s5_unroll_last_warp::reduce;
    S6 reduce_s6_complete_unroll MultiPass const [f32, i32] [Sum] [64, 128, 256, 512, 1024]
        => s6_complete_unroll::reduce;
    S7 reduce_s7_grid_stride MultiPass const [f32, i32] [Sum] [64, 128, 256, 512, 1024]
        => s7_grid_stride::reduce;
    S8 reduce_s8 SinglePass const [f32, f64, i32, u32, i64, u64] [Sum, Min, Max] [256, 512, 1024]
        => s8_shuffle_vectorized::reduce;
    BrokenRacyLastWarp reduce_broken_racy_last_warp MultiPass any [f32, i32] [Sum] [64, 128, 256, 512, 1024]
        => broken::reduce_racy_last_warp;
    BrokenMissingBarrier reduce_broken_missing_barrier MultiPass any [f32, i32] [Sum] [32, 64, 128, 256, 512, 1024]
        => broken::reduce_missing_barrier;
    AxisRows reduce_rows Axis const [f32, f64, i32, u32, i64, u64] [Sum, Min, Max] [256]
        => segments::rows;
    AxisSegments reduce_segments Axis const [f32, f64, i32, u32, i64, u64] [Sum, Min, Max] [256]
        => segments::segments;
    AxisColumns reduce_cols Axis const [f32, f64, i32, u32, i64, u64] [Sum, Min, Max] [256]
        => columns::columns;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_follow_the_pattern_and_are_unique() {
        let id = |family, ty, op, block| KernelId {
            family,
            ty,
            op,
            block,
        };
        let s = |k: KernelId| std::string::String::from(k.symbol().as_str());
        assert_eq!(
            s(id(Family::S3, ElemKind::F32, OpKind::Sum, 256)),
            "reduce_s3_sequential_f32"
        );
        assert_eq!(
            s(id(Family::S6, ElemKind::I32, OpKind::Sum, 1024)),
            "reduce_s6_complete_unroll_b1024_i32"
        );
        assert_eq!(
            s(id(Family::S8, ElemKind::F64, OpKind::Max, 512)),
            "reduce_s8_max_b512_f64"
        );
        let mut seen = std::collections::HashSet::new();
        for k in KernelId::all() {
            assert!(k.is_built());
            if k.row().block_in_name || k.block == k.row().blocks[0] {
                assert!(seen.insert(s(k)), "{} twice", s(k));
            }
            assert_eq!(
                KernelId::find(k.symbol().as_str(), k.block)
                    .map(|f| f.symbol().as_str() == k.symbol().as_str()),
                Some(true)
            );
        }
        assert!(KernelId::find("reduce_s6_complete_unroll_b256_f32", 128).is_none());
        assert!(KernelId::find("no_such_kernel_f32", 256).is_none());
    }

    #[test]
    fn the_emulator_has_a_body_for_every_built_kernel_of_its_type() {
        for k in KernelId::all() {
            let body = match k.ty {
                ElemKind::F32 => emulated::<f32>(k).map(|b| matches!(b, Body::MultiPass(_))),
                ElemKind::F64 => emulated::<f64>(k).map(|b| matches!(b, Body::MultiPass(_))),
                ElemKind::I32 => emulated::<i32>(k).map(|b| matches!(b, Body::MultiPass(_))),
                ElemKind::U32 => emulated::<u32>(k).map(|b| matches!(b, Body::MultiPass(_))),
                ElemKind::I64 => emulated::<i64>(k).map(|b| matches!(b, Body::MultiPass(_))),
                ElemKind::U64 => emulated::<u64>(k).map(|b| matches!(b, Body::MultiPass(_))),
            };
            assert_eq!(body, Some(k.row().abi == Abi::MultiPass), "{:?}", k);
        }
        let s3 = KernelId {
            family: Family::S3,
            ty: ElemKind::F32,
            op: OpKind::Sum,
            block: 256,
        };
        assert!(emulated::<i32>(s3).is_none(), "another element type");
        assert!(
            emulated::<f32>(KernelId { block: 96, ..s3 }).is_none(),
            "not a built block size"
        );
    }
}
