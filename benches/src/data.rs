//! Random but fixed-seeded inputs, so that every run measures the same data.

/// A small, fast, seeded generator (SplitMix64); good enough for benchmark inputs.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

/// `bits` bits packed LSB first, each set with probability `density`.
pub fn bitmap_bytes(bits: usize, density: f64, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut bytes = vec![0u8; bits.div_ceil(8)];
    if density == 0.5 {
        for chunk in bytes.chunks_mut(8) {
            let word = rng.next_u64().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
    } else {
        for i in 0..bits {
            if rng.chance(density) {
                bytes[i / 8] |= 1 << (i % 8);
            }
        }
    }
    bytes
}

/// `n` random `i64`s.
pub fn i64_values(n: usize, seed: u64) -> Vec<i64> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.next_u64() as i64).collect()
}
