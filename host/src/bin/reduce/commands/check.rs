//! `reduce check`: every kernel (stage × type × op × block size) at the given sizes, each result
//! checked; the workload of `compute-sanitizer` (`benches/gpu.sh sanitizer`).

use crate::args::Data;
use crate::data::make_data;
use reduce_host::{
    with_elem_type, Backend, KernelArgs, Launch, LaunchOverrides, Op, Prepared, ReduceError,
    Scalar, Stage,
};
use reduce_kernels::table::{ElemType, Family, KernelId};

/// The deliberately broken kernels `--broken` launches once (f32, 256 threads).
const BROKEN: [Family; 2] = [Family::BrokenRacyLastWarp, Family::BrokenMissingBarrier];

pub fn run(backend: &Backend, sizes: &[usize], broken: bool) -> Result<bool, ReduceError> {
    let (mut runs, mut wrong) = (0usize, 0usize);
    for &n in sizes {
        for stage in Stage::ALL {
            for (ty, op, block) in stage.configs() {
                if n == 0 && op != Op::Sum {
                    continue;
                }
                let o = LaunchOverrides {
                    block: Some(block),
                    grid: None,
                };
                let good = with_elem_type!(ty, T => check_one::<T>(backend, stage, op, n, o)?);
                runs += 1;
                if !good {
                    wrong += 1;
                    println!("WRONG: {stage} {op} {ty} n={n} block={block}");
                }
            }
        }
    }
    if broken {
        for family in BROKEN {
            let id = KernelId {
                family,
                ty: ElemType::F32,
                op: Op::Sum,
                block: 256,
            };
            launch_broken(backend, id)?;
        }
    }
    println!(
        "check: {runs} kernel runs (every stage x type x op x block size x {} sizes), {wrong} wrong",
        sizes.len()
    );
    Ok(wrong == 0)
}

/// Launch a broken kernel once on 1024 elements; its result is not checked.
fn launch_broken(backend: &Backend, kernel: KernelId) -> Result<(), ReduceError> {
    let input = backend.upload(&make_data::<f32>(1024, Data::Random, 5)?)?;
    let out = backend.zeroed::<f32>(4)?;
    // SAFETY: both buffers are live f32 buffers of `backend` (1024 inputs, 4 partials for 4
    // blocks), the broken kernels take the multi-pass ABI with 256 threads and 1024 bytes of
    // shared memory, and the buffers outlive the synchronize below.
    let launched = unsafe {
        backend.launch::<f32>(&Launch {
            kernel,
            grid: 4,
            block: 256,
            shared_bytes: 1024,
            args: KernelArgs::MultiPass {
                input: input.addr(0),
                n: 1024,
                partials: out.addr(0),
            },
        })
    }
    .and_then(|()| backend.synchronize());
    match launched {
        Ok(()) => println!("launched the broken kernel {kernel} (result not checked)"),
        Err(e @ ReduceError::Emulator { .. }) => {
            println!("the emulator caught the broken kernel: {e}")
        }
        Err(e) => return Err(e),
    }
    Ok(())
}

fn check_one<T: Scalar>(
    backend: &Backend,
    stage: Stage,
    op: Op,
    n: usize,
    o: LaunchOverrides,
) -> Result<bool, ReduceError> {
    let data = make_data::<T>(n, Data::Random, n as u64)?;
    let input = backend.upload(&data)?;
    let plan = reduce_host::plan(stage, T::TYPE, op, n, o, backend.caps())?;
    let got = Prepared::<T>::new(backend, plan.clone())?.run(backend, &input, 0)?;
    Ok(reduce_host::reference::verify(op, &data, got, &plan))
}
