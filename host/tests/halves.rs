//! `f16` / `bf16` inputs on the emulator (the checks in `half_checks`, which `tests/gpu.rs`
//! holds the GPU to too).

#[macro_use]
mod common;
mod half_checks;
mod transform_checks;

use half_checks::*;
use reduce_host::*;

fn emu() -> Backend {
    Backend::open(BackendChoice::Emu).unwrap()
}

const AWKWARD: [usize; 10] = [0, 1, 7, 9, 33, 97, 1009, 4099, 65_537, (1 << 20) + 3];

test_each! {
    every_op_and_offset_f16 => every_op_and_offset::<F16>(&emu(), &AWKWARD),
    every_op_and_offset_bf16 => every_op_and_offset::<Bf16>(&emu(), &AWKWARD),
    special_values_f16 => special_values::<F16>(&emu()),
    special_values_bf16 => special_values::<Bf16>(&emu()),
    unbuilt_ops_are_typed_errors_for_halves => {
        unbuilt_ops_are_typed_errors::<F16>(&emu());
        unbuilt_ops_are_typed_errors::<Bf16>(&emu());
    },
    upload_half_keeps_bits => upload_half_round_trips(&emu()),
    the_grid_shift_meets_its_bound_f16_bf16 => {
        let mut h = transform_checks::signed::<F16>((1 << 18) + 11, 99);
        h[1000] = F16::from_f64(f64::NAN);
        transform_checks::loops::shifted_meets_its_bound::<F16>(&emu(), &h[..]);
        transform_checks::loops::shifted_meets_its_bound::<F16>(&emu(), &h[1001..]);
        let h = transform_checks::signed::<Bf16>((1 << 18) + 11, 98);
        transform_checks::loops::shifted_meets_its_bound::<Bf16>(&emu(), &h);
    },
    half_results_are_bit_identical_run_to_run => {
        transform_checks::bit_identical::<F16>(&emu(), 100_003);
        transform_checks::bit_identical::<Bf16>(&emu(), 100_003);
    },
}

/// Sizes around the edges of stage 8's tiles for halves (8 per vector, 4 vectors per thread:
/// one tile of a 256-thread block is 8192 halves).
const STAGE8_SIZES: [usize; 14] = [
    0,
    1,
    7,
    8,
    9,
    31,
    33,
    1009,
    8191,
    8192,
    8193,
    16_385,
    65_537,
    (1 << 20) + 3,
];

test_each! {
    stage8_every_op_size_and_offset_f16 => {
        half_checks::stage8::every_op_size_and_offset::<F16>(&emu(), &STAGE8_SIZES)
    },
    stage8_every_op_size_and_offset_bf16 => {
        half_checks::stage8::every_op_size_and_offset::<Bf16>(&emu(), &STAGE8_SIZES)
    },
    stage8_special_values_f16 => half_checks::stage8::special_values::<F16>(&emu()),
    stage8_special_values_bf16 => half_checks::stage8::special_values::<Bf16>(&emu()),
    stage8_results_are_bit_identical_run_to_run => {
        half_checks::stage8::bit_identical::<F16>(&emu(), 300_007);
        half_checks::stage8::bit_identical::<Bf16>(&emu(), 300_007);
    },
}
