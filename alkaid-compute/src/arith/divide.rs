//! Integer division by a scalar, as a multiplication: a divisor known before the loop is
//! turned into a "magic" multiplier and a shift once (the method of Granlund and
//! Montgomery, as given in Warren's *Hacker's Delight*, section 10-1), so each row costs a
//! multiplication instead of a hardware division, which takes tens of cycles. Every integer
//! width divides through the 64-bit method; the results are those of Rust's `/` and `%`
//! (truncating toward zero), tested against them.

/// A signed 64-bit divisor prepared for [`SignedDivisor::divide`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct SignedDivisor {
    divisor: i64,
    magic: i64,
    shift: u32,
}

impl SignedDivisor {
    /// Prepares `divisor`, which must not be 0, 1 or -1 (those are answered without
    /// dividing).
    pub fn new(divisor: i64) -> Self {
        debug_assert!(!matches!(divisor, -1..=1));
        let two_63 = 1u64 << 63;
        let magnitude = divisor.unsigned_abs();
        let t = two_63 + ((divisor as u64) >> 63);
        // The largest multiple of `magnitude` below `t`, less one: where the remainder of
        // a dividend reaches its worst case.
        let limit = t - 1 - t % magnitude;
        let mut p = 63u32;
        let (mut q1, mut r1) = (two_63 / limit, two_63 % limit);
        let (mut q2, mut r2) = (two_63 / magnitude, two_63 % magnitude);
        loop {
            p += 1;
            q1 = q1.wrapping_mul(2);
            r1 = r1.wrapping_mul(2);
            if r1 >= limit {
                q1 = q1.wrapping_add(1);
                r1 = r1.wrapping_sub(limit);
            }
            q2 = q2.wrapping_mul(2);
            r2 = r2.wrapping_mul(2);
            if r2 >= magnitude {
                q2 = q2.wrapping_add(1);
                r2 = r2.wrapping_sub(magnitude);
            }
            let delta = magnitude - r2;
            if !(q1 < delta || (q1 == delta && r1 == 0)) {
                break;
            }
        }
        let mut magic = q2.wrapping_add(1) as i64;
        if divisor < 0 {
            magic = magic.wrapping_neg();
        }
        Self {
            divisor,
            magic,
            shift: p - 64,
        }
    }

    /// `n / divisor`, truncated toward zero (it cannot overflow: the divisor is not -1).
    #[inline(always)]
    pub fn divide(&self, n: i64) -> i64 {
        let mut q = ((i128::from(n) * i128::from(self.magic)) >> 64) as i64;
        if self.divisor > 0 && self.magic < 0 {
            q = q.wrapping_add(n);
        } else if self.divisor < 0 && self.magic > 0 {
            q = q.wrapping_sub(n);
        }
        q >>= self.shift;
        q + ((q as u64) >> 63) as i64
    }

    /// `n % divisor`, with the sign of `n`.
    #[inline(always)]
    pub fn remainder(&self, n: i64) -> i64 {
        n.wrapping_sub(self.divide(n).wrapping_mul(self.divisor))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(divisor: i64, dividends: &[i64]) {
        let prepared = SignedDivisor::new(divisor);
        for &n in dividends {
            assert_eq!(prepared.divide(n), n / divisor, "{n} / {divisor}");
            assert_eq!(prepared.remainder(n), n % divisor, "{n} % {divisor}");
        }
    }

    #[test]
    fn matches_hardware_division_at_the_edges() {
        let mut dividends = vec![0, 1, -1, 2, -2, 3, 7, -7, i64::MAX, i64::MIN, i64::MIN + 1];
        dividends.extend((0..64).map(|k| 1i64 << k));
        dividends.extend((0..64).map(|k| (1i64 << k).wrapping_neg()));
        dividends.extend((1..64).map(|k| (1i64 << k).wrapping_sub(1)));
        let mut divisors: Vec<i64> = vec![2, -2, 3, -3, 5, 7, -7, 10, 100, 641, 1_000_000_007];
        divisors.extend((1..63).map(|k| 1i64 << k));
        divisors.extend((1..63).map(|k| -(1i64 << k)));
        divisors.extend((2..63).map(|k| (1i64 << k) - 1));
        divisors.extend([i64::MAX, i64::MIN, i64::MIN + 1, i64::MAX - 1]);
        for &d in &divisors {
            check(d, &dividends);
            check(
                d,
                &[
                    d,
                    d.wrapping_sub(1),
                    d.wrapping_add(1),
                    d.wrapping_mul(3),
                    d.wrapping_neg(),
                ],
            );
        }
    }

    #[test]
    fn matches_hardware_division_on_random_values() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..2_000 {
            let divisor = (next() as i64) >> (next() % 63);
            if matches!(divisor, -1..=1) {
                continue;
            }
            let dividends: Vec<i64> = (0..200).map(|_| (next() as i64) >> (next() % 64)).collect();
            check(divisor, &dividends);
        }
    }
}
