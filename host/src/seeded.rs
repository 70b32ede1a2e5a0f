//! Seeded pseudo-random bits for test and benchmark data: one generator for the library's data
//! makers ([`crate::log_uniform_segments`]) and the test suites' helpers, so that every one of them
//! draws the same stream from the same seed.

/// Marsaglia's xorshift64 (shifts 13, 7, 17) started from `seed` × the golden-ratio constant
/// (made odd, so no seed gives the all-zero state). Not cryptographic; fast and reproducible.
#[derive(Clone, Debug)]
pub struct XorShift64(u64);

impl XorShift64 {
    /// The generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
}

impl Iterator for XorShift64 {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        let x = &mut self.0;
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        Some(*x)
    }
}

#[cfg(test)]
mod tests {
    use super::XorShift64;

    #[test]
    fn the_stream_is_the_seeds_and_never_zero() {
        let a: Vec<u64> = XorShift64::new(42).take(1000).collect();
        assert_eq!(a, XorShift64::new(42).take(1000).collect::<Vec<_>>());
        assert_ne!(a, XorShift64::new(43).take(1000).collect::<Vec<_>>());
        assert!(XorShift64::new(0).take(1000).all(|x| x != 0));
    }
}
