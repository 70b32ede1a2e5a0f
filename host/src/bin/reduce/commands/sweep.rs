//! `reduce sweep`: stage 8 (and optionally ladder stages) over sizes, ops and types; one
//! [`TimingRecord`] per line on stdout.

use crate::args::Data;
use crate::data::make_data;
use reduce_host::measure::{self, Protocol, Scope, Timing, TimingSpec};
use reduce_host::measure::{Record, TimingRecord};
use reduce_host::plan::{Plan, ResultIn};
use reduce_host::reference::Expected;
use reduce_host::{
    with_elem_type, Backend, Buffer, ElemType, LaunchOverrides, Op, Prepared, PreparedWide,
    ReduceError, Scalar, Stage, Wide,
};

/// What to sweep besides the sizes and types.
pub struct Sweep {
    pub ops: Vec<Op>,
    /// Ladder stages timed too (sums, kernels only).
    pub stages: Vec<Stage>,
    pub warmup: usize,
    pub runs: usize,
    /// Stage 8's block and grid, if forced.
    pub overrides: LaunchOverrides,
    /// Also time stage 8 with its result in device memory.
    pub devmem: bool,
    pub protocol: Protocol,
    /// Also time the i32/u32 sums with the 64-bit accumulator.
    pub wide: bool,
}

/// Stage 8's variants: the row name, where the result goes, what is timed.
const SINGLE_PASS: [(&str, ResultIn, Scope); 3] = [
    ("rust_s8", ResultIn::MappedHost, Scope::KernelsAndResultCopy),
    (
        "rust_s8_devmem",
        ResultIn::DeviceMemory,
        Scope::KernelsAndResultCopy,
    ),
    ("rust_s8_kernel", ResultIn::DeviceMemory, Scope::Kernels),
];

impl Sweep {
    pub fn run(
        &self,
        backend: &Backend,
        exps: &[u32],
        types: &[ElemType],
    ) -> Result<bool, ReduceError> {
        let mut ok = true;
        for &e in exps {
            for &ty in types {
                ok &= with_elem_type!(ty, T => self.one_size::<T>(backend, 1usize << e)?);
                ok &= match (self.wide, ty) {
                    (true, ElemType::I32) => self.wide_sum::<i32>(backend, 1usize << e)?,
                    (true, ElemType::U32) => self.wide_sum::<u32>(backend, 1usize << e)?,
                    _ => true,
                };
            }
        }
        Ok(ok)
    }

    fn spec(&self, scope: Scope) -> TimingSpec {
        TimingSpec::kernels(self.warmup, self.runs)
            .with_scope(scope)
            .with_protocol(self.protocol)
    }

    fn one_size<T: Scalar>(&self, backend: &Backend, n: usize) -> Result<bool, ReduceError> {
        let data = make_data::<T>(n, Data::Random, 7)?;
        let input = backend.upload(&data)?;
        let variants = if self.devmem { 3 } else { 1 };
        let mut ok = true;
        for &op in &self.ops {
            let expected = Expected::of(op, &data);
            for &(name, result_in, scope) in &SINGLE_PASS[..variants] {
                let (value, again, timing, plan) =
                    self.single_pass(backend, op, &input, self.overrides, result_in, scope)?;
                // Right, and the same bits after the timed runs as before them.
                let good = expected.matches(value, &plan) && again.to_bits64() == value.to_bits64();
                ok &= good;
                let reference = expected.reference().map_or(f64::NAN, |r| r.value.to_f64());
                let record = TimingRecord::rust(name, op, &plan, &timing, scope, self.protocol)
                    .checked(value.to_f64(), reference, good);
                println!("{}", Record::from(record).to_json_line());
            }
        }
        let expected = Expected::of(Op::Sum, &data);
        for &stage in &self.stages {
            let plan = reduce_host::plan(
                stage,
                T::TYPE,
                Op::Sum,
                n,
                LaunchOverrides::default(),
                backend.caps(),
            )?;
            let p = Prepared::<T>::new(backend, plan)?;
            let value = p.run(backend, &input, 0)?;
            let timing = measure::time_prepared(backend, &p, &input, &self.spec(Scope::Kernels))?;
            let good = expected.matches(value, &p.plan);
            ok &= good;
            let reference = expected.reference().map_or(f64::NAN, |r| r.value.to_f64());
            let name = format!("rust_s{}", stage.number());
            let record = TimingRecord::rust(
                name,
                Op::Sum,
                &p.plan,
                &timing,
                Scope::Kernels,
                self.protocol,
            )
            .checked(value.to_f64(), reference, good);
            println!("{}", Record::from(record).to_json_line());
        }
        Ok(ok)
    }

    /// Stage 8 once (the value), timed, and the value the last timed run left (`again`).
    fn single_pass<T: Scalar>(
        &self,
        backend: &Backend,
        op: Op,
        input: &Buffer<T>,
        o: LaunchOverrides,
        result_in: ResultIn,
        scope: Scope,
    ) -> Result<(T, T, Timing, Plan), ReduceError> {
        let plan = reduce_host::plan(Stage::S8, T::TYPE, op, input.len(), o, backend.caps())?;
        let p = Prepared::<T>::with_result_in(backend, plan, result_in)?;
        let value = p.run(backend, input, 0)?;
        let timing = measure::time_prepared(backend, &p, input, &self.spec(scope))?;
        let again = p.read_result(backend)?;
        Ok((value, again, timing, p.plan))
    }

    /// The wide sum of `n` elements of `T` (`i32`/`u32` into `i64`/`u64`), kernel only, checked
    /// against the exact sum; one [`TimingRecord`] line (`rust_s8_wide_kernel`, type = the input's).
    fn wide_sum<T: Scalar>(&self, backend: &Backend, n: usize) -> Result<bool, ReduceError>
    where
        Wide<T>: Scalar,
    {
        let data = make_data::<T>(n, Data::Random, 7)?;
        let input = backend.upload(&data)?;
        let p = PreparedWide::<T>::new(backend, n, self.overrides)?;
        let value = p.run(backend, &input, 0)?;
        let exact: i128 = data.iter().filter_map(|x| x.to_i128()).sum();
        let good = value.to_i128() == Some(exact);
        let spec = self.spec(Scope::Kernels);
        let timing = measure::time_queued(backend, &spec, || p.enqueue(backend, &input, 0))?;
        let plan = reduce_host::plan(
            Stage::S8,
            <Wide<T> as reduce_kernels::Element>::TYPE,
            Op::Sum,
            n,
            self.overrides,
            backend.caps(),
        )?;
        let record = TimingRecord {
            ty: T::TYPE,
            ..TimingRecord::rust(
                "rust_s8_wide_kernel",
                Op::Sum,
                &plan,
                &timing,
                Scope::Kernels,
                self.protocol,
            )
        }
        .checked(value.to_f64(), exact as f64, good);
        println!("{}", Record::from(record).to_json_line());
        Ok(good)
    }
}
