//! The library's main API ([`Reducer`]) and [`run_stage`], both built on [`Prepared`].

use crate::backend::Backend;
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::plan::{plan, LaunchOverrides};
use crate::prepared::Prepared;
use crate::stage::Stage;
use crate::types::{ElemType, Op, Scalar};
use crate::wide::{PreparedWide, Wide};

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

/// How many prepared plans (and workspaces) a [`Reducer`] keeps.
pub const MAX_CACHED_PLANS: usize = 32;

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

/// The library's main API: reductions with stage 8, configured by [`crate::plan::SinglePassPolicy`] for
/// the device, workspaces cached per (type, op, n, overrides).
pub struct Reducer<'b> {
    backend: &'b Backend,
    overrides: LaunchOverrides,
    cache: Cache,
    /// Prepared wide sums ([`Reducer::sum_wide`]).
    wide: Cache,
    /// The exact sums' prepared launches (`crate::exact`).
    exact: Cache,
}

impl<'b> Reducer<'b> {
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
    /// reductions (`sum`, `min`, `max`, `prod`, the nan-ops, means and counts and their
    /// `_range` forms), the wide sums ([`Reducer::sum_wide`]), the half ops in `f32`
    /// ([`Reducer::reduce_half_range`] and its whole-buffer forms) and the exact sums
    /// ([`Reducer::sum_exact`]); the transform-reduces, arg and axis reductions have their own
    /// policies ([`crate::PreparedTransform`], [`crate::PreparedArg`], [`crate::PreparedAxis`]).
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
            if self.exact.len() >= MAX_CACHED_PLANS {
                self.exact.clear();
            }
            self.exact.insert(key, Box::new(make()?));
        }
        self.exact[&key]
            .downcast_ref::<P>()
            .ok_or_else(|| ReduceError::InvalidArgument("exact-sum cache type mismatch".into()))
    }

    /// How many prepared plans are cached (at most [`MAX_CACHED_PLANS`]).
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
            if self.cache.len() >= MAX_CACHED_PLANS {
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

    /// `op` over `input[offset..offset + len]`. `None` for min/max (and `nanmin`/`nanmax`) of
    /// nothing; a sum or count of nothing is 0, a product 1. [`Op::Mean`] and [`Op::NanMean`] are
    /// errors (a mean is not a `T`): use [`Reducer::mean`] and [`Reducer::nanmean`].
    pub fn reduce_range<T: Scalar>(
        &mut self,
        op: Op,
        input: &Buffer<T>,
        offset: usize,
        len: usize,
    ) -> Result<Option<T>> {
        if op.is_mean() {
            return Err(mean_is_not_a_t());
        }
        input.check_owner(self.backend.id(), "the input buffer")?;
        input.check_range(offset, len)?;
        if len == 0 && op.is_extreme() {
            return Ok(None);
        }
        let backend = self.backend;
        let p = self.prepared::<T>(op, len)?;
        p.run(backend, input, offset).map(Some)
    }

    /// Sum (wrapping for integers); 0 for an empty buffer.
    pub fn sum<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<T> {
        Ok(self
            .reduce_range(Op::Sum, input, 0, input.len())?
            .unwrap_or_default())
    }
    /// Minimum; `None` for an empty buffer.
    pub fn min<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<Option<T>> {
        self.reduce_range(Op::Min, input, 0, input.len())
    }
    /// Maximum; `None` for an empty buffer.
    pub fn max<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<Option<T>> {
        self.reduce_range(Op::Max, input, 0, input.len())
    }
    /// Sum with NumPy's and PyTorch's result type: `i32` and `u32` are summed in a 64-bit
    /// accumulator into an `i64` / `u64` (exact for up to 2^32 elements; the wide stage-8 kernel,
    /// [`crate::wide`]); every other type as [`Reducer::sum`] (already 64-bit, or a float).
    /// 0 for an empty buffer.
    pub fn sum_wide<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<Wide<T>>
    where
        Wide<T>: Scalar,
    {
        self.sum_wide_range(input, 0, input.len())
    }
    /// [`Reducer::sum_wide`] of `input[offset..offset + len]`.
    pub fn sum_wide_range<T: Scalar>(
        &mut self,
        input: &Buffer<T>,
        offset: usize,
        len: usize,
    ) -> Result<Wide<T>>
    where
        Wide<T>: Scalar,
    {
        self.check_range(input, offset, len)?;
        if !matches!(T::TYPE, ElemType::I32 | ElemType::U32) {
            let v = self.reduce_range(Op::Sum, input, offset, len)?;
            // `Wide<T>` is `T` itself for these types.
            return Ok(reduce_kernels::Element::widen(v.unwrap_or_default()));
        }
        let key = CacheKey {
            ty: T::TYPE,
            op: Op::Sum,
            n: len,
            overrides: self.overrides,
        };
        if !self.wide.contains_key(&key) {
            if self.wide.len() >= MAX_CACHED_PLANS {
                self.wide.clear();
            }
            let p = PreparedWide::<T>::new(self.backend, len, self.overrides)?;
            self.wide.insert(key, Box::new(p));
        }
        self.wide[&key]
            .downcast_ref::<PreparedWide<T>>()
            .expect("keyed by the type")
            .run(self.backend, input, offset)
    }
    /// Product (wrapping for integers); 1 for an empty buffer.
    pub fn prod<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<T> {
        Ok(self
            .reduce_range(Op::Prod, input, 0, input.len())?
            .unwrap_or(T::ONE))
    }
    /// Minimum ignoring NaN (`np.nanmin`); `None` for an empty buffer, NaN if every element is.
    pub fn nanmin<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<Option<T>> {
        self.reduce_range(Op::NanMin, input, 0, input.len())
    }
    /// Maximum ignoring NaN (`np.nanmax`); `None` for an empty buffer, NaN if every element is.
    pub fn nanmax<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<Option<T>> {
        self.reduce_range(Op::NanMax, input, 0, input.len())
    }
    /// Sum with every NaN element read as 0 (`np.nansum`); 0 for an empty buffer.
    pub fn nansum<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<T> {
        Ok(self
            .reduce_range(Op::NanSum, input, 0, input.len())?
            .unwrap_or_default())
    }
    /// How many elements of `input[offset..offset + len]` are not NaN, exactly: one device count
    /// per [`COUNT_CHUNK`] elements (a count in `f32` is exact up to 2^24), added on the host.
    pub fn count_range<T: Scalar>(
        &mut self,
        input: &Buffer<T>,
        offset: usize,
        len: usize,
    ) -> Result<u64> {
        self.check_range(input, offset, len)?;
        if !T::TYPE.is_float() {
            return Ok(len as u64);
        }
        let (mut count, mut done) = (0u64, 0);
        while done < len {
            let chunk = COUNT_CHUNK.min(len - done);
            let c = self.reduce_range(Op::Count, input, offset + done, chunk)?;
            count += c.unwrap_or_default().to_f64() as u64;
            done += chunk;
        }
        Ok(count)
    }
    /// Mean of the elements that are not NaN, as `f64` (`np.nanmean`): the device's `nansum`
    /// divided by the exact count ([`Reducer::count_range`]); NaN if every element is NaN; an
    /// error for an empty buffer. Integers have no NaN: [`Reducer::mean`].
    pub fn nanmean<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<f64> {
        self.nanmean_range(input, 0, input.len())
    }
    /// [`Reducer::nanmean`] of `input[offset..offset + len]`.
    pub fn nanmean_range<T: Scalar>(
        &mut self,
        input: &Buffer<T>,
        offset: usize,
        len: usize,
    ) -> Result<f64> {
        self.check_range(input, offset, len)?;
        if len == 0 {
            return Err(ReduceError::EmptyInput { op: Op::NanMean });
        }
        if !T::TYPE.is_float() {
            return self.mean_range(input, offset, len);
        }
        let sum = self.reduce_range(Op::NanSum, input, offset, len)?;
        let count = self.count_range(input, offset, len)?;
        Ok(sum.unwrap_or_default().to_f64() / count as f64)
    }
    fn check_range<T: Scalar>(&self, input: &Buffer<T>, offset: usize, len: usize) -> Result<()> {
        input.check_owner(self.backend.id(), "the input buffer")?;
        input.check_range(offset, len)?;
        Ok(())
    }
    /// Mean as `f64`, as NumPy's `np.mean` gives it (to `f64` rounding); an error for an empty
    /// buffer.
    ///
    /// Floats: the device sum (in `T`) divided by the length. Integers: the **exact** sum divided
    /// by the length. The device's integer sum wraps modulo 2^bits (dividing it, the mean of
    /// `[i64::MAX, i64::MAX]` came out as -1), and the kernels have no wider accumulator, so the
    /// exact sum is recovered in `i128`:
    ///
    /// * on the device, when it can be: three launches give the wrapped sum `w`, the minimum
    ///   `lo` and the maximum `hi`. The exact sum `S` lies in `[n·lo, n·hi]`; when that interval
    ///   is narrower than 2^bits, `S` is the one value in it congruent to `w`, i.e.
    ///   `n·lo + ((w − n·lo) mod 2^bits)` — the usual case for data of moderate range;
    /// * otherwise on the host: the input is copied back in chunks of [`MEAN_CHUNK`] elements
    ///   and added in `i128`, which cannot overflow (fewer than 2^61 elements of at most 2^64
    ///   each).
    pub fn mean<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<f64> {
        self.mean_range(input, 0, input.len())
    }

    /// [`Reducer::mean`] of `input[offset..offset + len]`.
    pub fn mean_range<T: Scalar>(
        &mut self,
        input: &Buffer<T>,
        offset: usize,
        len: usize,
    ) -> Result<f64> {
        input.check_owner(self.backend.id(), "the input buffer")?;
        input.check_range(offset, len)?;
        if len == 0 {
            return Err(ReduceError::EmptyInput { op: Op::Mean });
        }
        if T::TYPE.is_float() {
            let sum = self.reduce_range(Op::Sum, input, offset, len)?;
            return Ok(sum.unwrap_or_default().to_f64() / len as f64);
        }
        let device = |r: &mut Self, op| -> Result<i128> {
            let v = r.reduce_range(op, input, offset, len)?.unwrap_or_default();
            Ok(v.to_i128().expect("an integer type"))
        };
        let (wrapped, lo, hi) = (
            device(self, Op::Sum)?,
            device(self, Op::Min)?,
            device(self, Op::Max)?,
        );
        let modulus = 1i128 << (8 * T::TYPE.size());
        let n = len as i128;
        if n * (hi - lo) < modulus {
            let low = n * lo;
            let sum = low + (wrapped - low).rem_euclid(modulus);
            return Ok(sum as f64 / len as f64);
        }
        let mut sum: i128 = 0;
        let mut done = 0;
        while done < len {
            let chunk = MEAN_CHUNK.min(len - done);
            let values = self.backend.download_range(input, offset + done, chunk)?;
            sum += values.iter().filter_map(|x| x.to_i128()).sum::<i128>();
            done += chunk;
        }
        Ok(sum as f64 / len as f64)
    }
}

/// Elements per host copy in [`Reducer::mean`] of integers (bounds its host memory).
pub const MEAN_CHUNK: usize = 1 << 24;

/// Elements per device count in [`Reducer::count_range`]: an `f32` sum of ones is exact up to
/// 2^24.
pub const COUNT_CHUNK: usize = 1 << 24;
