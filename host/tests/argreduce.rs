//! Argmin/argmax on the CPU emulator: the same checks the GPU suite runs (`arg_checks`).

mod arg_checks;
mod common;

use reduce_host::*;

fn emu() -> Backend {
    Backend::open(BackendChoice::Emu).unwrap()
}

#[test]
fn every_type_and_op_at_edge_sizes_and_offsets() {
    let mut sizes = common::edge_sizes(256);
    sizes.retain(|&n| n <= 5000);
    sizes.push(70_001);
    arg_checks::every_type(&emu(), &sizes).unwrap();
}

#[test]
fn nan_inf_signed_zero_and_subnormals_follow_numpy() {
    let b = emu();
    for n in [1, 2, 5, 33, 4099] {
        arg_checks::floats(&b, n).unwrap();
    }
}

#[test]
fn integer_min_and_max_take_the_first_occurrence() {
    let b = emu();
    for n in [2, 7, 1025] {
        arg_checks::integers(&b, n).unwrap();
    }
}

#[test]
fn an_empty_input_is_a_typed_error() {
    arg_checks::empty_is_an_error(&emu()).unwrap();
}

#[test]
fn results_are_the_same_on_every_run_and_for_a_buffer_of_another_backend_an_error() {
    let b = emu();
    let d = arg_checks::tied::<f32>(100_003, 3);
    let input = b.upload(&d).unwrap();
    let p = PreparedArg::<f32>::new(&b, ArgOp::ArgMax, d.len()).unwrap();
    let first = p.run(&b, &input, 0).unwrap();
    for _ in 0..3 {
        assert_eq!(p.run(&b, &input, 0).unwrap(), first);
    }
    let other = emu();
    let foreign = other.upload(&d).unwrap();
    assert!(matches!(
        Reducer::new(&b).argmax(&foreign),
        Err(ReduceError::ForeignBuffer { .. })
    ));
    assert!(matches!(
        p.enqueue(&b, &input, 1),
        Err(ReduceError::InvalidArgument(_))
    ));
}
