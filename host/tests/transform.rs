//! Transform-reduces (norms, dot products, mean and variance) on the emulator, against the CPU
//! references and stated bounds of `transform_checks` (which `tests/gpu.rs` holds the GPU to too).

#[macro_use]
mod common;
mod transform_checks;

use reduce_host::*;
use transform_checks::*;

fn emu() -> Backend {
    Backend::open(BackendChoice::Emu).unwrap()
}

const AWKWARD: [usize; 12] = [
    0,
    1,
    2,
    3,
    31,
    33,
    97,
    1009,
    4099,
    65_537,
    65_539,
    (1 << 20) + 3,
];

test_each! {
    every_op_f32_awkward_sizes => every_op_at_sizes::<f32>(&emu(), &AWKWARD),
    every_op_f64_awkward_sizes => every_op_at_sizes::<f64>(&emu(), &AWKWARD),
    misaligned_subslices_f32 => misaligned_ranges::<f32>(&emu(), 10_007),
    misaligned_subslices_f64 => misaligned_ranges::<f64>(&emu(), 10_007),
    f32_norms_do_not_overflow_or_underflow => norms_without_overflow(&emu()),
    variance_of_large_mean_small_spread_f32 => {
        adversarial_variance::<f32>(&emu(), (1 << 20) + 3, 1e6)
    },
    variance_of_large_mean_small_spread_f64 => {
        adversarial_variance::<f64>(&emu(), (1 << 20) + 3, 1e9)
    },
    results_are_bit_identical_run_to_run => {
        bit_identical::<f32>(&emu(), 100_003);
        bit_identical::<f64>(&emu(), 100_003);
    },
    ddof_semantics_and_typed_errors => semantics_and_errors(&emu()),
    every_block_and_forced_grid => {
        forced_shapes::<f32>(&emu(), 20_011);
        forced_shapes::<f64>(&emu(), 20_011);
    },
}
