//! The library's main API ([`Reducer`]) and [`run_stage`], both built on [`Prepared`].

use crate::backend::Backend;
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::halves::{Bf16, HalfFloat, F16};
use crate::plan::{plan, LaunchOverrides};
use crate::prepared::Prepared;
use crate::stage::Stage;
use crate::types::{ElemType, Op, Scalar};
use crate::view::View;
use crate::wide::{PreparedWide, Wide};
use reduce_kernels::Element;
use std::any::Any;

mod means;

/// Run any stage on the first `n` elements of `input` and return the single result (every pass on
/// the device). `op` is `Sum`, `Min` or `Max`; [`Op::Mean`] is an error here (its value is not a
/// `T`): use [`Reducer::mean`].
pub fn run_stage<T: Scalar>(
    backend: &Backend,
    stage: Stage,
    op: Op,
    input: &Buffer<T>,
    n: usize,
    overrides: LaunchOverrides,
) -> Result<T> {
    if op.is_mean() {
        return Err(mean_is_not_a_t());
    }
    input.check_span("n", 0, n)?;
    if n == 0 && op.is_extreme() {
        return Err(ReduceError::EmptyInput { op });
    }
    let p = plan(stage, T::TYPE, op, n, overrides, backend.caps())?;
    Prepared::<T>::new(backend, p)?.run(backend, input, 0)
}

fn mean_is_not_a_t() -> ReduceError {
    ReduceError::InvalidArgument(
        "a mean is an f64, not a value of the element type: use Reducer::mean or Reducer::nanmean"
            .into(),
    )
}

/// What a cached launch was made for: everything its plan depends on but the backend (whose
/// device and policy a reducer never changes). A setting changed after a launch was cached makes
/// another key, so the next call plans afresh with it (the same result, or the same typed error,
/// as a new reducer with that setting).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct CacheKey {
    ty: ElemType,
    op: Op,
    n: usize,
    overrides: LaunchOverrides,
}

type Cache = std::collections::HashMap<CacheKey, Box<dyn std::any::Any>>;

/// The library's main API: reductions with stage 8, configured by stage 8's policy for the device, workspaces cached per (type, op, n, overrides).
pub struct Reducer<'b> {
    backend: &'b Backend,
    overrides: LaunchOverrides,
    cache: Cache,
    /// Prepared 64-bit sums of `i32` / `u32` ([`Reducer::sum`]).
    wide: Cache,
    /// The exact sums' prepared launches (`crate::exact`).
    exact: Cache,
}

impl<'b> Reducer<'b> {
    /// How many prepared plans (and workspaces) a reducer keeps.
    pub const MAX_CACHED_PLANS: usize = 32;
    /// Elements per host copy in [`Reducer::mean`] of integers (bounds its host memory).
    pub const MEAN_CHUNK: usize = 1 << 24;
    /// Elements per device count in [`Reducer::count`]: an `f32` sum of ones is exact up to 2^24.
    pub const COUNT_CHUNK: usize = 1 << 24;

    /// A reducer on `backend` with the tuned policy.
    pub fn new(backend: &'b Backend) -> Self {
        Reducer {
            backend,
            overrides: LaunchOverrides::default(),
            cache: Default::default(),
            wide: Default::default(),
            exact: Default::default(),
        }
    }

    /// Force a block size and/or grid size instead of the policy's, from the next call on (the
    /// launches cached before are not reused under other overrides). They apply to stage 8's
    /// reductions ([`Reducer::reduce`], `sum`, `min`, `max`, `prod`, the nan-ops, means and
    /// counts — the 64-bit `i32` / `u32` sums and the `f16` / `bf16` ops in `f32` included) and
    /// the exact sums ([`Reducer::sum_exact`]); the transform-reduces, arg and axis reductions
    /// have their own policies ([`crate::PreparedTransform`], [`crate::PreparedArg`],
    /// [`crate::PreparedAxis`]).
    /// An invalid override is a typed error at the first call it applies to.
    pub fn with_overrides(mut self, overrides: LaunchOverrides) -> Self {
        self.overrides = overrides;
        self
    }

    /// The backend.
    pub fn backend(&self) -> &'b Backend {
        self.backend
    }

    /// The block and grid overrides in force.
    pub fn overrides(&self) -> LaunchOverrides {
        self.overrides
    }

    /// The cached exact-sum launch for `n` elements of `T`, made by `make` on first use.
    pub(crate) fn exact_cached<T: Scalar, P: 'static>(
        &mut self,
        n: usize,
        make: impl FnOnce() -> Result<P>,
    ) -> Result<&P> {
        let key = CacheKey {
            ty: T::TYPE,
            op: Op::Sum,
            n,
            overrides: self.overrides,
        };
        if !self.exact.contains_key(&key) {
            if self.exact.len() >= Self::MAX_CACHED_PLANS {
                self.exact.clear();
            }
            self.exact.insert(key, Box::new(make()?));
        }
        self.exact[&key]
            .downcast_ref::<P>()
            .ok_or_else(|| ReduceError::InvalidArgument("exact-sum cache type mismatch".into()))
    }

    /// How many prepared plans are cached (at most [`Reducer::MAX_CACHED_PLANS`]).
    pub fn cached_plans(&self) -> usize {
        self.cache.len()
    }

    /// The prepared stage-8 plan for `n` elements of `T` with `op` (cached).
    pub fn prepared<T: Scalar>(&mut self, op: Op, n: usize) -> Result<&Prepared<T>> {
        let key = CacheKey {
            ty: T::TYPE,
            op,
            n,
            overrides: self.overrides,
        };
        if !self.cache.contains_key(&key) {
            // Workspaces are small, but a caller cycling through many lengths must not grow
            // device memory without bound.
            if self.cache.len() >= Self::MAX_CACHED_PLANS {
                self.cache.clear();
            }
            let p = plan(
                Stage::S8,
                T::TYPE,
                op,
                n,
                self.overrides,
                self.backend.caps(),
            )?;
            self.cache
                .insert(key, Box::new(Prepared::<T>::new(self.backend, p)?));
        }
        Ok(self.cache[&key]
            .downcast_ref::<Prepared<T>>()
            .expect("cache key includes the type"))
    }

    /// `op` over `x` (a buffer, `&buf`, or a view of one, `buf.slice(a..b)?`) in `T::Acc` (see
    /// [`Scalar`]): stage 8's kernel of `T`, or for `f16` / `bf16` its half kernels, which combine
    /// the widened halves in `f32`. Integer sums and products wrap: `reduce(Op::Sum, x)` is the
    /// wrapping `i32` / `u32` sum, where [`Reducer::sum`] is the 64-bit one. `None` for min/max
    /// (and `nanmin`/`nanmax`) of nothing; a sum or count of nothing is 0, a product 1.
    ///
    /// # Errors
    /// [`ReduceError::WrongOp`] for an arg or transform op, on every element type;
    /// [`ReduceError::InvalidArgument`] for [`Op::Mean`] and [`Op::NanMean`] (a mean is an
    /// `f64`: [`Reducer::mean`], [`Reducer::nanmean`]); [`ReduceError::ForeignBuffer`] for
    /// another backend's buffer; the plan's errors.
    pub fn reduce<'a, T: Scalar>(
        &mut self,
        op: Op,
        x: impl Into<View<'a, T>>,
    ) -> Result<Option<T::Acc>> {
        let x = x.into();
        // Checked before any shortcut (the halves' path, an empty input): an arg or transform op
        // is the same typed error for every element type.
        ReduceError::check_op(op, &Op::REDUCE, "a reduce op")?;
        if op.is_mean() {
            return Err(mean_is_not_a_t());
        }
        x.check_owner(self.backend.id(), "the input buffer")?;
        if x.is_empty() && op.is_extreme() {
            return Ok(None);
        }
        if let Some(v) = self.half_op(op, x)? {
            return Ok(Some(v));
        }
        let backend = self.backend;
        let p = self.prepared::<T>(op, x.len())?;
        let v = p.run_view(backend, x)?;
        same_type(v).map(Some)
    }

    /// Sum in `T::Sum` (see [`Scalar`]): floats in their own type; `i64` / `u64` wrapping;
    /// `i32` / `u32` in a 64-bit accumulator into an `i64` / `u64` (NumPy's and PyTorch's result
    /// type, exact for up to 2^32 elements; the wrapping sum is `reduce(Op::Sum, x)`); `f16` /
    /// `bf16` widened exactly and summed in `f32` (`torch.sum` before its rounding to the half
    /// type; [`HalfFloat::round`](crate::HalfFloat::round) rounds it). 0 when empty.
    pub fn sum<'a, T: Scalar>(&mut self, x: impl Into<View<'a, T>>) -> Result<T::Sum> {
        let x = x.into();
        match T::TYPE {
            ElemType::I32 => self.wide_sum(x.cast::<i32>()?).and_then(same_type),
            ElemType::U32 => self.wide_sum(x.cast::<u32>()?).and_then(same_type),
            _ => same_type(self.reduce(Op::Sum, x)?.unwrap_or_default()),
        }
    }
    /// Minimum (NaN if any element is NaN); `None` when empty.
    pub fn min<'a, T: Scalar>(&mut self, x: impl Into<View<'a, T>>) -> Result<Option<T::Acc>> {
        self.reduce(Op::Min, x)
    }
    /// Maximum (NaN if any element is NaN); `None` when empty.
    pub fn max<'a, T: Scalar>(&mut self, x: impl Into<View<'a, T>>) -> Result<Option<T::Acc>> {
        self.reduce(Op::Max, x)
    }
    /// Product (wrapping for integers); 1 when empty.
    pub fn prod<'a, T: Scalar>(&mut self, x: impl Into<View<'a, T>>) -> Result<T::Acc> {
        Ok(self
            .reduce(Op::Prod, x)?
            .unwrap_or(<T::Acc as Element>::ONE))
    }
    /// Minimum ignoring NaN (`np.nanmin`); `None` when empty, NaN if every element is.
    pub fn nanmin<'a, T: Scalar>(&mut self, x: impl Into<View<'a, T>>) -> Result<Option<T::Acc>> {
        self.reduce(Op::NanMin, x)
    }
    /// Maximum ignoring NaN (`np.nanmax`); `None` when empty, NaN if every element is.
    pub fn nanmax<'a, T: Scalar>(&mut self, x: impl Into<View<'a, T>>) -> Result<Option<T::Acc>> {
        self.reduce(Op::NanMax, x)
    }
    /// Sum with every NaN element read as 0 (`np.nansum`); 0 when empty.
    pub fn nansum<'a, T: Scalar>(&mut self, x: impl Into<View<'a, T>>) -> Result<T::Acc> {
        Ok(self.reduce(Op::NanSum, x)?.unwrap_or_default())
    }

    /// The `i32` / `u32` sum in 64 bits (stage 8's wide kernel, cached like the plans).
    fn wide_sum<W: Scalar>(&mut self, x: View<'_, W>) -> Result<Wide<W>>
    where
        Wide<W>: Scalar,
    {
        x.check_owner(self.backend.id(), "the input buffer")?;
        let key = CacheKey {
            ty: W::TYPE,
            op: Op::Sum,
            n: x.len(),
            overrides: self.overrides,
        };
        if !self.wide.contains_key(&key) {
            if self.wide.len() >= Self::MAX_CACHED_PLANS {
                self.wide.clear();
            }
            let p = PreparedWide::<W>::new(self.backend, x.len(), self.overrides)?;
            self.wide.insert(key, Box::new(p));
        }
        self.wide[&key]
            .downcast_ref::<PreparedWide<W>>()
            .expect("keyed by the type")
            .run_view(self.backend, x)
    }

    /// For `f16` / `bf16`: `op` in stage 8's half kernels (an `f32`); `None` for other types.
    fn half_op<T: Scalar>(&mut self, op: Op, x: View<'_, T>) -> Result<Option<T::Acc>> {
        match T::TYPE {
            ElemType::F16 => self.half_op_as(op, x.cast::<F16>()?),
            ElemType::BF16 => self.half_op_as(op, x.cast::<Bf16>()?),
            _ => Ok(None),
        }
        .and_then(|v| v.map(same_type).transpose())
    }
    fn half_op_as<H: HalfFloat>(&mut self, op: Op, x: View<'_, H>) -> Result<Option<f32>> {
        let backend = self.backend;
        let p = PreparedWide::<H>::for_op(backend, x.len(), op, self.overrides)?;
        p.run_view(backend, x).map(Some)
    }
}

/// `v` as `B` when `B` is `A` (the dispatch on `T::TYPE` above picks the branch whose types
/// agree); an internal error otherwise, never a reinterpretation.
pub(crate) fn same_type<A: 'static + Copy, B: 'static + Copy>(v: A) -> Result<B> {
    (&v as &dyn Any)
        .downcast_ref::<B>()
        .copied()
        .ok_or_else(|| {
            ReduceError::InvalidArgument(format!(
                "internal: a {} where a {} was expected",
                std::any::type_name::<A>(),
                std::any::type_name::<B>()
            ))
        })
}
