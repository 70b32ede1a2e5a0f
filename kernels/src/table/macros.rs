//! `kernel_table!`: the rows at the end of [`super`] → [`super::TABLE`], the `KernelId` symbols,
//! the `#[no_mangle]` PTX entry points and the emulator's dispatch (one arm per calling
//! convention).

/// Generates [`TABLE`], [`emulated`] and the PTX entry points from the rows at the end of
/// `table/mod.rs` (see its module docs).
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
                ops: &[$(Op::$op),*],
                blocks: &kernel_table!(@blocks $blocks),
            }
        ),*];

        // `Row::of` indexes `TABLE` by `Family`: the rows must follow the enum's order.
        const _: () = {
            let mut i = 0;
            while i < TABLE.len() {
                assert!(TABLE[i].family as usize == i, "the table's rows follow `Family`'s order");
                i += 1;
            }
        };

        /// The Rust function behind `id`, for the emulator; `None` if `id` is not built or `T`
        /// is not its element type.
        #[cfg(not(target_arch = "nvptx64"))]
        pub fn emulated<T: Element>(id: KernelId) -> Option<Body<T>> {
            use crate::stages::*;
            use crate::axis::*;
            use crate::transform::{one_pass, Dot, Moments, NanTotal, SumSq, Total, L1};
            #[allow(unused_imports)]
            use crate::exact::*;
            use crate::{Max, Min, Sum};
            #[allow(unused_imports)]
            use crate::{Count, NanMax, NanMin, NanSum, Prod};
            use crate::argreduce::{self, ArgMax, ArgMin, NanArgMax, NanArgMin};
            if T::TYPE != id.ty || !id.is_built() {
                return None;
            }
            match id.family {$(
                Family::$family => kernel_table!(@emu $abi $mode id [$($op),*] $blocks $module $func),
            )*}
        }

        /// The PTX entry points. Each is an `unsafe extern "ptx-kernel" fn` whose contract is
        /// that of [`crate::exports::multi_pass`] / [`crate::exports::single_pass`] plus the launch
        /// shape the host's plan gives (block size, shared memory).
        /// (Behind the `entry-points` feature, on by default: a user's crate built on
        /// [`crate::primitives`] turns it off so that its PTX holds its own kernels only.)
        #[cfg(all(target_arch = "nvptx64", feature = "entry-points"))]
        mod ptx_entry_points {
            use crate::exports::{axis, axis_ticket, exact, multi_pass, single_pass, single_pass_wide};
            use crate::stages::*;
            use crate::axis::*;
            use crate::transform::{entry as transform_entry, one_pass, Dot, Moments, NanTotal, SumSq, Total, L1};
            // The table's type names for the 2-byte inputs (they shadow the unstable primitives).
            #[allow(unused_imports)]
            use crate::half::{Bf16 as bf16, F16 as f16};
            #[allow(unused_imports)]
            use crate::exact::*;
            use crate::{Max, Min, Sum};
            #[allow(unused_imports)]
            use crate::{Count, NanMax, NanMin, NanSum, Prod};
            use crate::argreduce::{self, ArgMax, ArgMin, NanArgMax, NanArgMin};
            use super::SINGLE_PASS_UNROLL;
            $( kernel_table!(@export $abi $mode $stem [$($t),*] [$($op),*] $blocks $module $func); )*
        }
    };

    (@const any) => { false };
    (@const const) => { true };
    (@kind f32) => { ElemType::F32 };
    (@kind f64) => { ElemType::F64 };
    (@kind i32) => { ElemType::I32 };
    (@kind u32) => { ElemType::U32 };
    (@kind i64) => { ElemType::I64 };
    (@kind u64) => { ElemType::U64 };
    (@kind f16) => { ElemType::F16 };
    (@kind bf16) => { ElemType::BF16 };
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
            $(Op::$op => kernel_table!(@emu_sp $id $op $blocks $module $func),)*
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
    (@emu Axis const $id:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        match $id.op {
            $(Op::$op => kernel_table!(@emu_ax $id $op $blocks $module $func),)*
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
    (@emu Transform const $id:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        match $id.op {
            $(Op::$op => kernel_table!(@emu_tr $id $op $blocks $module $func),)*
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
    (@emu Item const $id:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        match $id.op {
            $(Op::$op => kernel_table!(@emu_it $id $op $blocks $module $func),)*
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
    (@emu_tr $id:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        match $id.block {
            $($b => Some(Body::Transform($module::$func::<T, $op, $b>)),)*
            _ => None,
        }
    };
    (@emu_it $id:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        match $id.block {
            $($b => Some(Body::Item($module::$func::<T, $op, $b>)),)*
            _ => None,
        }
    };
    (@emu Exact const $id:ident $ops:tt [$($b:literal),*] $module:ident $func:ident) => {
        match $id.block {
            $($b => Some(Body::Exact($module::$func::<T, $b, SINGLE_PASS_UNROLL>)),)*
            _ => None,
        }
    };
    (@emu ExactWords const $id:ident $ops:tt [$($b:literal),*] $module:ident $func:ident) => {
        match $id.block {
            $($b => Some(Body::ExactWords($module::$func::<T, $b, SINGLE_PASS_UNROLL>)),)*
            _ => None,
        }
    };
    (@emu ExactCombine any $id:ident $ops:tt $blocks:tt $module:ident $func:ident) => {
        Some(Body::ExactCombine($module::$func::<T>))
    };
    (@emu_ax $id:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        match $id.block {
            $($b => Some(Body::Axis($module::$func::<T, $op, $b>)),)*
            _ => None,
        }
    };
    (@emu AxisTicket const $id:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        match $id.op {
            $(Op::$op => kernel_table!(@emu_axt $id $op $blocks $module $func),)*
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
    (@emu_axt $id:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        match $id.block {
            $($b => Some(Body::AxisTicket($module::$func::<T, $op, $b>)),)*
            _ => None,
        }
    };
    (@emu SinglePassWide const $id:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        match $id.op {
            $(Op::$op => kernel_table!(@emu_spw $id $op $blocks $module $func),)*
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
    (@emu_spw $id:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        match $id.block {
            $($b => Some(Body::SinglePassWide($module::$func::<T, $op, $b, SINGLE_PASS_UNROLL>)),)*
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
    (@export Exact const $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_ex $stem $t $blocks $module $func); )*
    };
    (@export_ex $stem:ident $t:ident [$($b:literal),*] $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _sum_b $b _ $t>](
                input: *const $t, n: usize, words: *mut i64, counter: *mut u32, out: *mut $t,
            ) {
                exact($module::$func::<$t, $b, SINGLE_PASS_UNROLL>, input, n, words, counter, out)
            }
        )* }
    };
    (@export ExactWords const $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_exw $stem $t $blocks $module $func); )*
    };
    (@export_exw $stem:ident $t:ident [$($b:literal),*] $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _sum_b $b _ $t>](
                input: *const $t, n: usize, words: *mut i64, counter: *mut u32, out: *mut i64,
            ) {
                crate::exact::words::words_entry(
                    $module::$func::<$t, $b, SINGLE_PASS_UNROLL>, input, n, words, counter, out,
                )
            }
        )* }
    };
    (@export ExactCombine any $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _sum_ $t>](
                gathered: *const i64, len: usize, out: *mut $t,
            ) {
                crate::exact::words::combine_entry($module::$func::<$t>, gathered, len, out)
            }
        )* }
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
    (@export AxisTicket const $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_axt_t $stem $t $ops $blocks $module $func); )*
    };
    (@export_axt_t $stem:ident $t:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_axt $stem $t $op $blocks $module $func); )*
    };
    (@export_axt $stem:ident $t:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _ $op:lower _b $b _ $t>](
                input: *const $t, n: usize, partials: *mut $t, counter: *mut u32, out: *mut $t,
                out_len: usize, count: usize, len: usize, parts: usize, group: usize,
            ) {
                axis_ticket(
                    $module::$func::<$t, $op, $b>, input, n, partials, counter, out, out_len,
                    count, len, parts, group,
                )
            }
        )* }
    };
    (@export Transform const $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_tr_t $stem $t $ops $blocks $module $func); )*
    };
    (@export_tr_t $stem:ident $t:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_tr $stem $t $op $blocks $module $func); )*
    };
    (@export_tr $stem:ident $t:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _ $op:lower _b $b _ $t>](
                a: *const $t, b: *const $t, n: usize, partials: *mut f64, counter: *mut u32,
                out: *mut f64,
            ) {
                transform_entry($module::$func::<$t, $op, $b>, a, b, n, partials, counter, out)
            }
        )* }
    };
    (@export SinglePassWide const $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_spw_t $stem $t $ops $blocks $module $func); )*
    };
    (@export_spw_t $stem:ident $t:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_spw $stem $t $op $blocks $module $func); )*
    };
    (@export_spw $stem:ident $t:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _ $op:lower _b $b _ $t>](
                input: *const $t, n: usize, partials: *mut <$t as crate::Element>::Wide,
                counter: *mut u32, out: *mut <$t as crate::Element>::Wide,
            ) {
                single_pass_wide(
                    $module::$func::<$t, $op, $b, SINGLE_PASS_UNROLL>, input, n, partials, counter, out,
                )
            }
        )* }
    };
    (@export Item const $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_it_t $stem $t $ops $blocks $module $func); )*
    };
    (@export_it_t $stem:ident $t:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_it $stem $t $op $blocks $module $func); )*
    };
    (@export_it $stem:ident $t:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _ $op:lower _b $b _ $t>](
                input: *const $t, n: usize, partials: *mut u32, counter: *mut u32, out: *mut u32,
            ) {
                // SAFETY: the entry point's contract is the item ABI's, this kernel's.
                unsafe { $module::$func::<$t, $op, $b>(input, n, partials, counter, out) }
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
