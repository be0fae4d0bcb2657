//! A least-significant-digit radix sort of (word, row) pairs by word: stable, and linear
//! in the number of pairs for each byte of the words that varies, which beats comparison
//! sorts on large inputs (measured in `benches/benches/compute.rs`'s sort rows). Bytes
//! that are equal in every word are skipped, so integers of a small range take few passes.

/// Below this many pairs a comparison sort is as fast and needs no second buffer.
pub(super) const RADIX_MIN_LEN: usize = 1 << 10;

/// Sorts `pairs` by their words, keeping the order of pairs with equal words.
pub(super) fn radix_sort(pairs: &mut Vec<(u64, u32)>) {
    let (mut all_or, mut all_and) = (0u64, u64::MAX);
    for &(word, _) in pairs.iter() {
        all_or |= word;
        all_and &= word;
    }
    let varying = all_or ^ all_and;
    let mut scratch: Vec<(u64, u32)> = Vec::with_capacity(pairs.len());
    for digit in 0..8 {
        let shift = digit * 8;
        if (varying >> shift) & 0xff == 0 {
            continue;
        }
        let mut starts = [0usize; 256];
        for &(word, _) in pairs.iter() {
            starts[((word >> shift) & 0xff) as usize] += 1;
        }
        let mut next = 0;
        for start in starts.iter_mut() {
            let count = *start;
            *start = next;
            next += count;
        }
        scratch.clear();
        scratch.resize(pairs.len(), (0, 0));
        for &pair in pairs.iter() {
            let bucket = &mut starts[((pair.0 >> shift) & 0xff) as usize];
            scratch[*bucket] = pair;
            *bucket += 1;
        }
        std::mem::swap(pairs, &mut scratch);
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
    fn radix_sorts_are_stable_and_skip_constant_bytes() {
        check(Vec::new());
        check(vec![7; 3000]);
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        check((0..5000).map(|_| next()).collect());
        check((0..5000).map(|_| next() % 13).collect());
        check((0..5000).map(|_| (next() % 4) << 56 | 0xff).collect());
        check(vec![u64::MAX, 0, u64::MAX, 1 << 63, 0]);
    }
}
