//! A least-significant-digit radix sort of (word, row) pairs by word: stable, and linear
//! in the number of pairs for each digit the words' range needs, which beats comparison
//! sorts on large inputs (measured in `benches/benches/compute.rs`'s sort rows).
//!
//! The words are first reduced by their minimum, so a column of integers from a small
//! range (or dates, or dictionary ranks) needs only the digits of that range, eleven bits
//! at a time. When the range's bits and the row numbers' bits fit one 64-bit integer
//! together, each pair is packed into one (range above, row below) and 8-byte integers
//! are sorted instead of 16-byte pairs: half the memory traffic, and the row order within
//! equal words is already in the low bits.

/// Below this many pairs a comparison sort is as fast and needs no second buffer.
pub(super) const RADIX_MIN_LEN: usize = 1 << 10;

/// Bits per digit: 2048 counters, which fit the first-level cache.
const DIGIT_BITS: u32 = 11;
const BUCKETS: usize = 1 << DIGIT_BITS;

/// Sorts `pairs` by their words, keeping the order of pairs with equal words (which must
/// be the order of their rows: the pairs arrive in row order).
pub(super) fn radix_sort(pairs: &mut Vec<(u64, u32)>) {
    let Some(min) = pairs.iter().map(|p| p.0).min() else {
        return;
    };
    // The bits that vary between words, above the minimum: low bits every word shares
    // (floats of few significant digits) are skipped too.
    let (mut any, mut all) = (0u64, u64::MAX);
    for pair in pairs.iter() {
        let reduced = pair.0 - min;
        any |= reduced;
        all &= reduced;
    }
    let varying = any ^ all;
    if varying == 0 {
        return;
    }
    let low = varying.trailing_zeros();
    let range_bits = u64::BITS - any.leading_zeros() - low;
    let row_bits = u32::BITS - (pairs.len() as u32).leading_zeros();
    if range_bits + row_bits <= 64 {
        let mut packed: Vec<u64> = pairs
            .iter()
            .map(|&(word, row)| (((word - min) >> low) << row_bits) | u64::from(row))
            .collect();
        sort_by_digits(&mut packed, row_bits, range_bits, |&v| v);
        let mask = (1u64 << row_bits) - 1;
        // The low bits are the same in every word: those of any one.
        let shared = (pairs[0].0 - min) & ((1u64 << low) - 1);
        for (pair, v) in pairs.iter_mut().zip(&packed) {
            *pair = ((((v >> row_bits) << low) | shared) + min, (v & mask) as u32);
        }
    } else {
        sort_by_digits(pairs, low, range_bits, |p| p.0 - min);
    }
}

/// LSD passes over the `bits` bits of `key` that start at bit `low`.
fn sort_by_digits<T: Copy + Default>(
    items: &mut Vec<T>,
    low: u32,
    bits: u32,
    key: impl Fn(&T) -> u64,
) {
    if bits == 0 || items.len() < 2 {
        return;
    }
    let mut scratch: Vec<T> = vec![T::default(); items.len()];
    let mut shift = low;
    while shift < low + bits {
        let digit = |item: &T| ((key(item) >> shift) as usize) & (BUCKETS - 1);
        let mut starts = vec![0usize; BUCKETS];
        for item in items.iter() {
            starts[digit(item)] += 1;
        }
        let mut next = 0;
        for start in starts.iter_mut() {
            let count = *start;
            *start = next;
            next += count;
        }
        for &item in items.iter() {
            let bucket = &mut starts[digit(&item)];
            scratch[*bucket] = item;
            *bucket += 1;
        }
        std::mem::swap(items, &mut scratch);
        shift += DIGIT_BITS;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(words: Vec<u64>) {
        let mut pairs: Vec<(u64, u32)> = words
            .iter()
            .enumerate()
            .map(|(i, &w)| (w, i as u32))
            .collect();
        let mut expected = pairs.clone();
        expected.sort_by_key(|&(w, _)| w);
        radix_sort(&mut pairs);
        assert_eq!(pairs, expected);
    }

    #[test]
    fn radix_sorts_are_stable_packed_or_not() {
        check(Vec::new());
        check(vec![7]);
        check(vec![7; 3000]);
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        // Full 64-bit range: pairs; small ranges far from zero: packed.
        check((0..5000).map(|_| next()).collect());
        check((0..5000).map(|_| next() % 13).collect());
        check(
            (0..5000)
                .map(|_| (1 << 63) + next() % 100_000 - 50_000)
                .collect(),
        );
        check((0..5000).map(|_| (next() % 4) << 56 | 0xff).collect());
        check(vec![u64::MAX, 0, u64::MAX, 1 << 63, 0]);
        check(vec![u64::MAX, u64::MAX - 1, u64::MAX]);
        // Shared low bits (floats with few significant digits), packed and not.
        check((0..5000).map(|_| (next() % 1000) << 40 | 0x1234).collect());
        check((0..5000).map(|_| next() << 3 | 5).collect());
    }
}
