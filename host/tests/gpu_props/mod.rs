//! The property tests of `prop_checks` on the GPU: the same generators as the emulator suite
//! (`tests/props.rs`), [`GPU_CASES_FACTOR`] times the cases. Each prints the cases it ran.

use crate::gpu_toolbox::{custom_minmaxabs_kernel, custom_op_ptx, multi_gpus};
use crate::prop_checks;
use crate::{gpu, Test};
use libtest_mimic::Failed;
use reduce_host::*;

/// The GPU runs this many times the emulator suite's cases.
pub const GPU_CASES_FACTOR: u32 = 10;

/// The GPU's cases of `property`.
fn cases(property: &str) -> u32 {
    prop_checks::emulator_cases(property) * GPU_CASES_FACTOR
}

/// `(name, test)` for every property: `property_NAME` runs `prop_checks::MODULE::NAME` on the GPU
/// with [`cases`].
macro_rules! properties {
    ($($module:ident :: $name:ident),* $(,)?) => {
        vec![$((concat!("property_", stringify!($name)), {
            fn t() -> Result<(), Failed> {
                let ran = prop_checks::$module::$name(&gpu(), cases(stringify!($name)))?;
                println!("property {}: {ran} on the GPU", stringify!($name));
                Ok(())
            }
            t as Test
        })),*]
    };
}

pub fn tests() -> Vec<(&'static str, Test)> {
    let mut v = properties![
        reduce::stage8_ops,
        reduce::wide_and_half_ops,
        reduce::every_stage,
        settings::reducer_settings,
        settings::stream_settings,
        toolbox::transform_ops,
        toolbox::arg_ops,
        exact::exact_sums,
        axis::matrix_ops,
        axis::segment_ops,
        stream::host_stream,
        policy::axis_policies,
        policy::arg_policies,
        policy::exact_policies,
    ];
    v.push(("property_multi_ranks", multi_ranks as Test));
    v.push(("property_custom_op", custom_op as Test));
    v
}

/// The multi-rank property on every GPU through NCCL (passes, saying why, without NCCL).
fn multi_ranks() -> Result<(), Failed> {
    let Some(mut m) = multi_gpus()? else {
        return Ok(());
    };
    let ran = prop_checks::stream::multi_ranks(&mut m, cases("multi_ranks"))?;
    println!("property multi_ranks: {ran} on {} GPUs", m.ranks());
    Ok(())
}

/// The custom-operator property with `examples/custom-op`'s `custom_minmaxabs_f32` from its PTX.
fn custom_op() -> Result<(), Failed> {
    let b = gpu();
    let ptx = custom_op_ptx()?;
    let kernel = custom_minmaxabs_kernel(&ptx);
    // SAFETY: examples/custom-op's `custom_minmaxabs_f32` is an item kernel for f32 whose item is
    // three f32 words (min, max, max |x|), `((f32, f32), f32)`'s layout, with 256 threads.
    let op = unsafe { CustomReduction::<f32, prop_checks::custom::MinMaxAbs>::load(&b, kernel) }?;
    let ran = prop_checks::custom::custom_op(&b, &op, cases("custom_op"))?;
    println!("property custom_op: {ran} on the GPU");
    Ok(())
}
