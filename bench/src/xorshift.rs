//! The benchmarks' pseudo-random numbers: deterministic, so every run sees
//! the same machines and traces.

/// xorshift64: tiny, deterministic, good enough to shuffle a workload.
pub struct XorShift(u64);

impl XorShift {
    /// A generator started from `seed` (0 is taken as 1).
    pub fn new(seed: u64) -> Self {
        // xorshift never leaves 0.
        XorShift(seed.max(1))
    }

    /// The next 64 pseudo-random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Uniform-enough in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// `k` distinct indices below `n` (`k <= n`).
    pub fn distinct(&mut self, k: usize, n: usize) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::with_capacity(k);
        while out.len() < k {
            let i = self.below(n);
            if !out.contains(&i) {
                out.push(i);
            }
        }
        out
    }
}
