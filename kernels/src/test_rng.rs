//! The unit tests' random numbers: one xorshift64 generator (Marsaglia, shifts 13, 7, 17), so
//! every test that wants a reproducible stream of `u64` takes it from here.

/// Advance `state` and return the new value (never 0 for a non-zero start).
pub(crate) fn xorshift64(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}
