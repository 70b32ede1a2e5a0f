//! Test data for exact sums: the cases where an ordinary sum goes wrong (seeded, reproducible,
//! no dependencies: a SplitMix64 generator).

use super::reference::ExactFloat;

/// A family of inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum ExactData {
    /// Uniform in [0, 1): the friendly case.
    Uniform,
    /// Huge cancellation: `1e30, 1, -1e30` (scaled for f32), shuffled with small values, so
    /// the exact sum is tiny next to the partial sums.
    Cancellation,
    /// Random signs and exponents over every binade of the type (no overflow of the sum).
    Binades,
    /// Subnormals and the smallest normals, both signs.
    Subnormals,
    /// Sums that round exactly halfway: `1` plus pairs that leave half an ulp of 1.
    Ties,
    /// Mixed magnitudes whose exact sum is beyond the largest finite value (→ ±inf).
    Overflow,
}

impl ExactData {
    /// Every family.
    pub const ALL: [ExactData; 6] = [
        ExactData::Uniform,
        ExactData::Cancellation,
        ExactData::Binades,
        ExactData::Subnormals,
        ExactData::Ties,
        ExactData::Overflow,
    ];
    /// The name (`uniform`, `cancellation` …).
    pub fn name(self) -> &'static str {
        match self {
            ExactData::Uniform => "uniform",
            ExactData::Cancellation => "cancellation",
            ExactData::Binades => "binades",
            ExactData::Subnormals => "subnormals",
            ExactData::Ties => "ties",
            ExactData::Overflow => "overflow",
        }
    }
}

impl std::str::FromStr for ExactData {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        ExactData::ALL
            .into_iter()
            .find(|d| d.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = ExactData::ALL.iter().map(|d| d.name()).collect();
                format!("unknown data family {s:?} (one of {})", names.join(", "))
            })
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): tiny and good enough for test data.
#[derive(Clone, Debug)]
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix(seed)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * 2f64.powi(-53)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// `n` values of family `data` as `T`, from `seed`.
pub fn generate<T: ExactFloat>(data: ExactData, n: usize, seed: u64) -> Vec<T> {
    let mut r = SplitMix::new(seed ^ (data as u64).wrapping_mul(0x1234_5678_9abc_def1));
    let single = T::PRECISION == 24;
    // The type's largest binade exponent and smallest normal's.
    let (max_exp, min_exp) = if single { (127, -126) } else { (1023, -1022) };
    let sub = if single {
        2f64.powi(-149)
    } else {
        f64::from_bits(1)
    };
    let big = if single { 1e30 } else { 1e300 };
    let random_sign = |r: &mut SplitMix, v: f64| if r.next_u64() & 1 == 0 { v } else { -v };
    let mut out: Vec<T> = Vec::with_capacity(n);
    match data {
        ExactData::Uniform => out.extend((0..n).map(|_| T::narrow_round(r.unit()))),
        ExactData::Cancellation => {
            let mut i = 0;
            while out.len() < n {
                let v = match i % 4 {
                    0 => big,
                    1 => 1.0 + r.unit(),
                    2 => -big,
                    _ => {
                        let u = r.unit() * 1e-6;
                        random_sign(&mut r, u)
                    }
                };
                out.push(T::narrow_round(v));
                i += 1;
            }
        }
        ExactData::Binades => {
            // Exponents up to max_exp − 34 so that 2^30 of them cannot overflow.
            let span = (max_exp - 34 - min_exp) as u64;
            out.extend((0..n).map(|_| {
                let e = min_exp + r.below(span) as i32;
                let v = (1.0 + r.unit()) * 2f64.powi(e);
                T::narrow_round(random_sign(&mut r, v))
            }));
        }
        ExactData::Subnormals => out.extend((0..n).map(|_| {
            let k = 1 + r.below(1 << 22) as i64;
            let v = random_sign(&mut r, k as f64 * sub);
            T::narrow_round(v)
        })),
        ExactData::Ties => {
            // 1, then +u/2 pairs that cancel except for a final half ulp of 1: the exact sum is
            // 1 + ulp/2 (+ the ±k·ulp pairs), a tie that must go to even.
            let half_ulp = 2f64.powi(-(T::PRECISION as i32));
            out.push(T::narrow_round(1.0));
            if n > 1 {
                out.push(T::narrow_round(half_ulp));
            }
            while out.len() < n {
                let k = (1 + r.below(1000)) as f64 * 4.0 * half_ulp;
                out.push(T::narrow_round(k));
                if out.len() < n {
                    out.push(T::narrow_round(-k));
                }
            }
        }
        ExactData::Overflow => {
            let top = 2f64.powi(max_exp) * 1.5;
            out.extend((0..n).map(|i| {
                if i % 2 == 0 {
                    T::narrow_round(top)
                } else {
                    T::narrow_round(r.unit())
                }
            }));
        }
    }
    if data == ExactData::Uniform {
        return out; // already independent draws; no shuffle (fast at 2^30)
    }
    // A deterministic shuffle (Fisher–Yates) so that big and small values interleave in every
    // block, warp and thread.
    for i in (1..out.len()).rev() {
        let j = r.below(i as u64 + 1) as usize;
        out.swap(i, j);
    }
    out
}
