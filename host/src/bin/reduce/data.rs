//! Inputs: the values to reduce, the default size, the stages asked for.

use crate::args::Data;
use rand::{Rng, SeedableRng};
use reduce_host::{Backend, ElemType, ReduceError, Scalar, Stage};

/// `n` values: all ones, or seeded pseudo-random ones (f32/f64 in [0, 1), signed integers in
/// -1000..1000, unsigned in 0..1000).
pub fn make_data<T: Scalar>(n: usize, data: Data, seed: u64) -> Result<Vec<T>, ReduceError> {
    // A length no host can hold is an error, not an allocation failure that aborts the process.
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        ReduceError::InvalidArgument(format!(
            "{n} elements of {} need {} bytes of host memory, which could not be allocated",
            T::TYPE,
            (n as u128) * T::TYPE.size() as u128
        ))
    })?;
    match data {
        Data::Ones => v.resize(n, T::from_f64(1.0)),
        Data::Random => {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let signed = matches!(T::TYPE, ElemType::I32 | ElemType::I64);
            v.extend((0..n).map(|_| match T::TYPE {
                ElemType::F32 | ElemType::F64 | ElemType::F16 | ElemType::BF16 => {
                    generated(rng.random::<f64>())
                }
                _ if signed => T::from_f64(rng.random_range(-1000..1000) as f64),
                _ => T::from_f64(rng.random_range(0..1000) as f64),
            }));
        }
    }
    Ok(v)
}

/// `v` as a generated input of `T`: through `f32` for `f16` and `bf16` (the nearest half to the
/// nearest `f32`, which is not always the nearest half to `v`), so that seeded inputs keep the
/// values they have always had; `T::from_f64(v)` for every other type.
pub fn generated<T: Scalar>(v: f64) -> T {
    if ElemType::HALVES.contains(&T::TYPE) {
        T::from_f64(v as f32 as f64)
    } else {
        T::from_f64(v)
    }
}

/// The stages numbered in `list`; all of them when it is empty.
pub fn stages_of(list: &[usize]) -> Result<Vec<Stage>, ReduceError> {
    if list.is_empty() {
        return Ok(Stage::ALL.to_vec());
    }
    list.iter().map(|&s| Stage::from_number(s)).collect()
}

/// `n`, or the default: 2^22 on a GPU, 2^16 on the emulator.
pub fn default_n(backend: &Backend, n: Option<usize>) -> usize {
    n.unwrap_or(if backend.is_emulator() {
        1 << 16
    } else {
        1 << 22
    })
}

/// The stages numbered in `list` (none when it is empty).
pub fn stages_of_listed(list: &[usize]) -> Result<Vec<Stage>, ReduceError> {
    list.iter().map(|&s| Stage::from_number(s)).collect()
}
