//! Property tests of every public entry point, shared by the emulator suite (`tests/props.rs`,
//! few cases: CI) and the GPU suite (`tests/gpu.rs` through `gpu_props`, more cases): arbitrary
//! lengths (0, 1, odd, around block and tile boundaries), offsets and ranges (some past the
//! buffer), launch overrides (some invalid), policies, shapes, segments and data with NaN, ±inf,
//! −0.0 and subnormals. Each case must give the CPU reference's result or a typed error that a
//! fresh plan of the same request gives too — never a panic (the runner catches one and fails)
//! or a wrong value. Each property returns how many cases it ran.
#![allow(dead_code)]

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use reduce_host::argreduce::reference_arg;
use reduce_host::exact::exact_sum;
use reduce_host::halves::{matches_half_reference, reference_half};
use reduce_host::plan::Plan;
use reduce_host::reference::{reference_mean, XorShift64};
use reduce_host::transform::plan_transform_on;
use reduce_host::*;
use std::cell::Cell;

/// A closure that makes a `$case` of a tuple of its fields' values, in the order named:
/// `fields!(Case: a, b)` is `|(a, b)| Case { a, b }`.
macro_rules! fields {
    ($case:ident: $($field:ident),+ $(,)?) => {
        |($($field),+)| $case { $($field),+ }
    };
}

/// [`run`] the property `$name`, checking each case `c` with `$check::<T>(b, &c)`, `T` its `c.ty`.
macro_rules! run_typed {
    ($name:literal, $cases:expr, $strategy:expr, $check:ident($b:expr)) => {
        run($name, $cases, $strategy, |c| {
            reduce_host::with_elem_type!(c.ty, T => $check::<T>($b, &c))
        })
    };
}

/// [`run`] the property `$name`, checking each case `c` with `$check::<f64>(b, &c)` when
/// `c.double`, else with `$check::<f32>(b, &c)`.
macro_rules! run_float {
    ($name:literal, $cases:expr, $strategy:expr, $check:ident($b:expr)) => {
        run($name, $cases, $strategy, |c| {
            if c.double {
                $check::<f64>($b, &c)
            } else {
                $check::<f32>($b, &c)
            }
        })
    };
}

pub mod axis;
pub mod custom;
pub mod exact;
pub mod policy;
pub mod reduce;
pub mod settings;
pub mod stream;
pub mod toolbox;

/// Each property's cases on the emulator (CI, two cores: the whole suite in about two
/// minutes); the GPU suite runs `gpu_props::GPU_CASES_FACTOR` times as many.
pub fn emulator_cases(property: &str) -> u32 {
    match property {
        "stage8_ops" => 256,
        "wide_and_half_ops" | "every_stage" | "transform_ops" | "arg_ops" | "segment_ops" => 128,
        "exact_sums" | "matrix_ops" | "axis_policies" | "arg_policies" => 96,
        "reducer_settings" | "host_stream" | "custom_op" | "exact_policies" => 64,
        _ => 32,
    }
}

/// One case's verdict: `Err` says what was wrong.
pub type Check = std::result::Result<(), String>;

/// What a property ran: its cases, and how many of them ended in a typed error (the rest gave
/// the reference's result).
#[derive(Clone, Copy, Debug)]
pub struct Ran {
    pub cases: usize,
    pub errors: usize,
}

impl std::fmt::Display for Ran {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} cases ({} typed errors)", self.cases, self.errors)
    }
}

thread_local! {
    /// Set when the running case's outcome was a typed error it expected.
    static TYPED: Cell<bool> = const { Cell::new(false) };
}

/// Note that the running case ended in an expected typed error.
fn typed() {
    TYPED.with(|t| t.set(true));
}

/// The verdict of a case that ended in an expected typed error.
pub fn typed_ok() -> Check {
    typed();
    Ok(())
}

/// Run `test` on `cases` values of `strategy` (shrinking a failure to a small case, reported
/// with its value).
pub fn run<S: Strategy>(
    name: &str,
    cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Check,
) -> Result<Ran, String>
where
    S::Value: std::fmt::Debug,
{
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 256,
        ..Config::default()
    };
    let (count, errors) = (Cell::new(0usize), Cell::new(0usize));
    TestRunner::new(config)
        .run(&strategy, |v| {
            TYPED.with(|t| t.set(false));
            count.set(count.get() + 1);
            let verdict = test(v);
            if verdict.is_ok() && TYPED.with(Cell::get) {
                errors.set(errors.get() + 1);
            }
            verdict.map_err(TestCaseError::fail)
        })
        .map_err(|e| format!("property {name}: {e}"))?;
    Ok(Ran {
        cases: count.get(),
        errors: errors.get(),
    })
}

/// Both errors of the same kind (variant) — the running case's expected typed error.
pub fn same_kind(a: &ReduceError, b: &ReduceError) -> bool {
    let same = std::mem::discriminant(a) == std::mem::discriminant(b);
    if same {
        typed();
    }
    same
}

/// `got` is an error of the kind of `want`.
pub fn expect_err<V>(got: &Result<V>, want: &ReduceError) -> Check {
    match got {
        Err(e) if same_kind(e, want) => Ok(()),
        Err(e) => Err(format!("expected an error like `{want}`, got `{e}`")),
        Ok(_) => Err(format!("expected an error like `{want}`, got a result")),
    }
}

/// `got` is [`ReduceError::OutOfBounds`].
pub fn expect_bounds<V>(got: &Result<V>) -> Check {
    match got {
        Err(ReduceError::OutOfBounds { .. }) => {
            typed();
            Ok(())
        }
        Err(e) => Err(format!("expected OutOfBounds, got `{e}`")),
        Ok(_) => Err("expected OutOfBounds, got a result".into()),
    }
}

/// Equal, or both NaN.
pub fn same<T: Scalar>(a: T, b: T) -> bool {
    a == b || (a.to_f64().is_nan() && b.to_f64().is_nan())
}

/// The element types of the stage-8 family.
pub const TYPES: [ElemType; 8] = [
    ElemType::F32,
    ElemType::F64,
    ElemType::I32,
    ElemType::U32,
    ElemType::I64,
    ElemType::U64,
    ElemType::F16,
    ElemType::BF16,
];

/// Lengths at and around the kernels' boundaries: warps, blocks, stage 8's one-block tiles.
pub const EDGES: [usize; 12] = [
    32, 64, 256, 512, 1024, 2048, 4096, 4099, 8192, 16384, 32768, 65536,
];

/// A length in `0..=max`: often 0, 1, small or odd, often next to a boundary of [`EDGES`].
pub fn length(max: usize) -> BoxedStrategy<usize> {
    let mut edges: Vec<usize> = EDGES.iter().copied().filter(|&e| e + 2 <= max).collect();
    if edges.is_empty() {
        edges.push(max.min(3));
    }
    let near = (prop::sample::select(edges), -2isize..=2)
        .prop_map(move |(e, d)| (e as isize + d).max(0) as usize);
    prop_oneof![
        2 => Just(0usize),
        2 => Just(1usize.min(max)),
        5 => 0..=max.min(100),
        5 => near,
        3 => 0..=max,
    ]
    .boxed()
}

/// Values to reduce, made from a seed: small integers (exact sums), fractions, or a wide range;
/// then up to four special values (NaN, ±inf, ±0, subnormals of `f32` and `f16`) at chosen
/// places. Integer types read a special through `from_f64` (NaN → 0, ±inf → the extremes).
#[derive(Clone, Debug)]
pub struct Data {
    pub len: usize,
    pub seed: u64,
    pub scale: u8,
    pub specials: Vec<(usize, u8)>,
}

/// [`Data`] of a [`length`] up to `max`.
pub fn data(max: usize) -> BoxedStrategy<Data> {
    data_of(length(max))
}

/// [`Data`] of lengths from `len`.
pub fn data_of(len: BoxedStrategy<usize>) -> BoxedStrategy<Data> {
    (
        len,
        any::<u64>(),
        0u8..3,
        prop::collection::vec((any::<usize>(), 0u8..8), 0..4),
    )
        .prop_map(fields!(Data: len, seed, scale, specials))
        .boxed()
}

/// The special values [`Data`] places.
pub const SPECIALS: [f64; 8] = [
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    -0.0,
    0.0,
    1e-40,
    6e-8,
    -1e-45,
];

impl Data {
    /// The values as `T`.
    pub fn values<T: Scalar>(&self) -> Vec<T> {
        self.values_as(self.scale, SPECIALS.len())
    }
    /// Small integers, and of the special values only NaN, ±inf and ±0: sums exact in any order.
    pub fn exact_values<T: Scalar>(&self) -> Vec<T> {
        self.values_as(0, 5)
    }
    fn values_as<T: Scalar>(&self, scale: u8, specials: usize) -> Vec<T> {
        let mut v: Vec<T> = XorShift64::new(self.seed | 1)
            .take(self.len)
            .map(|x| {
                T::from_f64(match scale {
                    0 => (x % 201) as f64 - 100.0,
                    1 => ((x >> 11) as f64 / (1u64 << 53) as f64 - 0.25) * 64.0,
                    _ if T::TYPE.is_float() => {
                        ((x >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 1e30
                    }
                    _ => x as i64 as f64,
                })
            })
            .collect();
        if !v.is_empty() {
            let n = v.len();
            for &(at, k) in &self.specials {
                v[at % n] = T::from_f64(SPECIALS[k as usize % specials]);
            }
        }
        v
    }
}

/// Where a call reads in a buffer of `offset + len + extra` elements: `offset..offset + len`,
/// or (`past`) a range that goes beyond the buffer's end, or one whose end overflows.
#[derive(Clone, Copy, Debug)]
pub struct Span {
    pub offset: usize,
    pub extra: usize,
    pub past: u8,
}

pub fn span() -> BoxedStrategy<Span> {
    (
        prop_oneof![3 => Just(0usize), 2 => 0usize..9],
        0usize..3,
        prop_oneof![10 => Just(0u8), 1 => Just(1u8), 1 => Just(2u8)],
    )
        .prop_map(fields!(Span: offset, extra, past))
        .boxed()
}

impl Span {
    /// The buffer's length for a slice of `len`.
    pub fn buffer_len(&self, len: usize) -> usize {
        self.offset + len + self.extra
    }
    /// The `(offset, len)` asked for, and whether it lies in the buffer.
    pub fn request(&self, len: usize) -> (usize, usize, bool) {
        match self.past {
            0 => (self.offset, len, true),
            1 => (self.offset, len + self.extra + 1, false),
            _ => (usize::MAX - len / 2, len + 1, false),
        }
    }
}

/// Launch overrides: mostly none, sometimes valid blocks and forced grids, sometimes invalid
/// ones (blocks not built or not a warp multiple, grids of 0 or past the workspace).
pub fn overrides() -> BoxedStrategy<LaunchOverrides> {
    let block = prop_oneof![
        4 => Just(None),
        2 => prop::sample::select(vec![256usize, 512, 1024]).prop_map(Some),
        1 => prop::sample::select(vec![0usize, 1, 32, 100, 128, 2048]).prop_map(Some),
    ];
    let grid = prop_oneof![
        4 => Just(None),
        2 => (1usize..9).prop_map(Some),
        1 => prop::sample::select(vec![0usize, 4097, 1 << 31]).prop_map(Some),
    ];
    (block, grid)
        .prop_map(|(block, grid)| LaunchOverrides { block, grid })
        .boxed()
}

/// An element type of `types`.
pub fn elem_type(types: &[ElemType]) -> BoxedStrategy<ElemType> {
    prop::sample::select(types.to_vec()).boxed()
}
