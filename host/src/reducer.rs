//! The library's main API ([`Reducer`]) and [`run_stage`], both built on [`Prepared`].

use crate::backend::Backend;
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::plan::{plan, LaunchOverrides};
use crate::prepared::Prepared;
use crate::stage::Stage;
use crate::types::{ElemType, Op, Scalar};

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
    if op == Op::Mean {
        return Err(mean_is_not_a_t());
    }
    if n > input.len() {
        return Err(ReduceError::InvalidArgument(format!(
            "n = {n} but the buffer holds {} elements",
            input.len()
        )));
    }
    if n == 0 && matches!(op, Op::Min | Op::Max) {
        return Err(ReduceError::EmptyInput { op });
    }
    let p = plan(stage, T::TYPE, op, n, overrides, backend.caps())?;
    Prepared::<T>::new(backend, p)?.run(backend, input, 0)
}

fn mean_is_not_a_t() -> ReduceError {
    ReduceError::InvalidArgument(
        "a mean is an f64, not a value of the element type: use Reducer::mean".into(),
    )
}

/// How many prepared plans (and workspaces) a [`Reducer`] keeps.
pub const MAX_CACHED_PLANS: usize = 32;

/// The library's main API: reductions with stage 8, configured by [`crate::plan::SinglePassPolicy`] for
/// the device, workspaces cached per (type, op, n).
pub struct Reducer<'b> {
    backend: &'b Backend,
    overrides: LaunchOverrides,
    cache: std::collections::HashMap<(ElemType, Op, usize), Box<dyn std::any::Any>>,
    /// The exact sums' prepared launches (`crate::exact`), per (type, n).
    exact: std::collections::HashMap<(ElemType, usize), Box<dyn std::any::Any>>,
}

impl<'b> Reducer<'b> {
    /// A reducer on `backend` with the tuned policy.
    pub fn new(backend: &'b Backend) -> Self {
        Reducer {
            backend,
            overrides: LaunchOverrides::default(),
            cache: Default::default(),
            exact: Default::default(),
        }
    }

    /// Force a block size and/or grid size instead of the policy's.
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
        let key = (T::TYPE, n);
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
        let key = (T::TYPE, op.device_op(), n);
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

    /// `op` over `input[offset..offset + len]`. `None` for min/max of nothing; a sum of nothing
    /// is 0. [`Op::Mean`] is an error (a mean is not a `T`): use [`Reducer::mean`].
    pub fn reduce_range<T: Scalar>(
        &mut self,
        op: Op,
        input: &Buffer<T>,
        offset: usize,
        len: usize,
    ) -> Result<Option<T>> {
        if op == Op::Mean {
            return Err(mean_is_not_a_t());
        }
        input.check_owner(self.backend.id(), "the input buffer")?;
        if offset.checked_add(len).is_none_or(|e| e > input.len()) {
            return Err(ReduceError::InvalidArgument(format!(
                "range {offset}..{offset}+{len} is outside the {}-element buffer",
                input.len()
            )));
        }
        if len == 0 && op != Op::Sum {
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
        if offset.checked_add(len).is_none_or(|e| e > input.len()) {
            return Err(ReduceError::InvalidArgument(format!(
                "range {offset}..{offset}+{len} is outside the {}-element buffer",
                input.len()
            )));
        }
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
