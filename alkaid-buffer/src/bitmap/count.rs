//! Population count with the instructions chosen at run time.
//!
//! A default release build targets baseline x86-64, which has no `POPCNT` instruction: there
//! `u64::count_ones` is a dozen shifts and masks. Instead of asking users to build with
//! `-C target-cpu`, there are three kernels — the portable loop, the same loop compiled with
//! `POPCNT`, and an explicit `AVX2` nibble-lookup kernel — and the best one the CPU supports
//! is picked once and cached.

use std::sync::atomic::{AtomicU8, Ordering};

use super::chunks::{BitChunks, join, word};

/// Counts the set bits among bits `[offset, offset + len)` of `bytes`.
///
/// # Panics
/// If the range does not fit in `bytes`.
///
/// # Examples
/// ```
/// use alkaid_buffer::bitmap::count_set_bits;
/// let bytes = [0b1011_0110u8, 0xff];
/// assert_eq!(count_set_bits(&bytes, 0, 16), 13);
/// assert_eq!(count_set_bits(&bytes, 1, 3), 2); // bits 1, 2 and 3: 1, 1, 0
/// ```
pub fn count_set_bits(bytes: &[u8], offset: usize, len: usize) -> usize {
    let chunks = BitChunks::new(bytes, offset, len);
    let (bytes, shift) = chunks.raw_parts();
    if len == 0 {
        return 0;
    }
    let shift = shift as usize;
    let end = shift + len; // in bits, relative to bytes[0]
    if bytes.len() == 1 {
        return ((bytes[0] as u32 >> shift) & ((1u32 << len) - 1)).count_ones() as usize;
    }
    // Count whole bytes, then take away the bits before the range in the first byte and the
    // bits after it in the last.
    let whole = popcount(bytes);
    let before = (bytes[0] & ((1u16 << shift) - 1) as u8).count_ones() as usize;
    let after = match end % 8 {
        0 => 0,
        used => (bytes[bytes.len() - 1] >> used).count_ones() as usize,
    };
    whole - before - after
}

/// Counts the runs of consecutive set bits among bits `[offset, offset + len)` of `bytes`:
/// what [`SetRuns`](super::SetRuns) would yield, without making them. Filters use it to
/// choose between copying runs and gathering slots before doing either.
///
/// # Panics
/// If the range does not fit in `bytes`.
///
/// # Examples
/// ```
/// use alkaid_buffer::bitmap::count_set_runs;
/// assert_eq!(count_set_runs(&[0b1110_0110, 0b0000_0001], 0, 10), 2);
/// assert_eq!(count_set_runs(&[0b1110_0110, 0b0000_0001], 2, 8), 2); // bit 2 starts a run
/// ```
pub fn count_set_runs(bytes: &[u8], offset: usize, len: usize) -> usize {
    count_set_runs_at_most(bytes, offset, len, usize::MAX).unwrap_or(usize::MAX)
}

/// Like [`count_set_runs`], but gives up with `None` as soon as there are more than
/// `limit` runs: a filter that only needs to know whether runs are long stops early on
/// scattered masks.
///
/// # Panics
/// If the range does not fit in `bytes`.
///
/// # Examples
/// ```
/// use alkaid_buffer::bitmap::count_set_runs_at_most;
/// let alternating = [0b0101_0101u8; 64];
/// assert_eq!(count_set_runs_at_most(&alternating, 0, 512, 10), None);
/// assert_eq!(count_set_runs_at_most(&alternating, 0, 16, 10), Some(8));
/// ```
pub fn count_set_runs_at_most(
    bytes: &[u8],
    offset: usize,
    len: usize,
    limit: usize,
) -> Option<usize> {
    let chunks = BitChunks::new(bytes, offset, len);
    count_runs_with(selected(), chunks, limit)
}

/// [`count_set_runs_at_most`] on `chunks`, using `kernel`, which must be in
/// [`available_kernels`].
pub(crate) fn count_runs_with(
    kernel: Kernel,
    chunks: BitChunks<'_>,
    limit: usize,
) -> Option<usize> {
    match kernel {
        Kernel::Portable => count_runs(chunks, limit),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: kernels are only handed out by available_kernels, which checked that the
        // CPU supports popcnt.
        Kernel::Popcnt => unsafe { count_runs_popcnt(chunks, limit) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, for popcnt and avx2.
        Kernel::Avx2 => unsafe { count_runs_avx2(chunks, limit) },
    }
}

/// Run starts, word by word: a run starts at a set bit whose predecessor is unset (the
/// padding after the range is unset). The bulk of the words are read as two plain loads
/// each; the limit is checked every 64 words, outside the inner loop.
#[inline(always)]
fn count_runs(chunks: BitChunks<'_>, limit: usize) -> Option<usize> {
    let mut carry = 0u64; // the last bit of the previous word
    let mut runs = 0;
    let mut count = |word: u64| {
        runs += (word & !(word << 1 | carry)).count_ones() as usize;
        carry = word >> 63;
        runs
    };
    let (low, high) = chunks.fast_words();
    let shift = chunks.shift();
    let fast = low.len() / 8;
    let mut counted = 0;
    for (low, high) in low.chunks(512).zip(high.chunks(512)) {
        for (l, h) in low.chunks_exact(8).zip(high.chunks_exact(8)) {
            counted = count(join(word(l), word(h), shift));
        }
        if counted > limit {
            return None;
        }
    }
    for i in fast..chunks.padded_count() {
        counted = count(chunks.padded_chunk(i));
    }
    (counted <= limit).then_some(counted)
}

/// [`count_runs`] with `count_ones` as one instruction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn count_runs_popcnt(chunks: BitChunks<'_>, limit: usize) -> Option<usize> {
    count_runs(chunks, limit)
}

/// [`count_runs`] four words to a vector: each word's run starts (`w & !(w << 1 | carry)`)
/// counted with the nibble lookup of [`popcount_avx2`]. The scalar loop spent 1.5 ns a word
/// (a quarter of the time filtering 1 Mi booleans by runs of 64); this one a fraction of
/// that. Words are read straight from the bytes: each vector loads the words from one
/// before its own to one after, and joins neighbours at the range's bit shift as
/// [`join`] does, so any offset takes the same path.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,avx2")]
fn count_runs_avx2(chunks: BitChunks<'_>, limit: usize) -> Option<usize> {
    use std::arch::x86_64::*;

    /// Words per block: eight vectors of four, so that byte counts cannot overflow (eight
    /// per byte per vector at most).
    const BLOCK: usize = 32;
    /// Blocks between checks of the limit.
    const CHECK: usize = 16;
    let (bytes, shift) = (chunks.input_bytes(), chunks.shift());
    // Words `0..fast` can be read with the word after them: `fast * 8 + 8 <= bytes.len()`.
    let fast = chunks.fast_words().0.len() / 8;
    let mut runs = 0usize;
    let mut done = 0usize;
    if fast > BLOCK {
        let first = chunks.padded_chunk(0);
        runs += (first & !(first << 1)).count_ones() as usize;
        done = 1;
        #[rustfmt::skip]
        let table = _mm256_setr_epi8(
            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
        );
        let low_nibbles = _mm256_set1_epi8(0x0f);
        let right = _mm_cvtsi32_si128(shift as i32);
        let left = _mm_cvtsi32_si128(63 - shift as i32);
        // `join` on four words at once: `low >> shift | (high << 1) << (63 - shift)`.
        let join = |low: __m256i, high: __m256i| {
            _mm256_or_si256(
                _mm256_srl_epi64(low, right),
                _mm256_sll_epi64(_mm256_slli_epi64::<1>(high), left),
            )
        };
        let mut blocks = 0;
        while done + BLOCK <= fast {
            let mut counts = _mm256_setzero_si256();
            for vector in 0..BLOCK / 4 {
                let at = (done + vector * 4) * 8;
                // SAFETY: `done >= 1`, so `at >= 8`; the last byte read is at
                // `at + 39 <= (done + BLOCK) * 8 + 7 <= fast * 8 + 7`, and `fast_words`
                // guarantees `fast * 8 + 8 <= bytes.len()`. loadu has no alignment need.
                let (before, own, after) = unsafe {
                    let p = bytes.as_ptr().add(at);
                    (
                        _mm256_loadu_si256(p.sub(8).cast()),
                        _mm256_loadu_si256(p.cast()),
                        _mm256_loadu_si256(p.add(8).cast()),
                    )
                };
                // Byte-aligned ranges (most masks) need no joining; the test is hoisted.
                let (words, carries) = if shift == 0 {
                    (own, _mm256_srli_epi64::<63>(before))
                } else {
                    (join(own, after), _mm256_srli_epi64::<63>(join(before, own)))
                };
                let starts = _mm256_andnot_si256(
                    _mm256_or_si256(_mm256_slli_epi64::<1>(words), carries),
                    words,
                );
                let low = _mm256_and_si256(starts, low_nibbles);
                let high = _mm256_and_si256(_mm256_srli_epi16::<4>(starts), low_nibbles);
                counts = _mm256_add_epi8(counts, _mm256_shuffle_epi8(table, low));
                counts = _mm256_add_epi8(counts, _mm256_shuffle_epi8(table, high));
            }
            let sums = _mm256_sad_epu8(counts, _mm256_setzero_si256());
            runs += [
                _mm256_extract_epi64::<0>(sums),
                _mm256_extract_epi64::<1>(sums),
                _mm256_extract_epi64::<2>(sums),
                _mm256_extract_epi64::<3>(sums),
            ]
            .iter()
            .sum::<i64>() as usize;
            done += BLOCK;
            blocks += 1;
            if blocks % CHECK == 0 && runs > limit {
                return None;
            }
        }
    }
    let mut carry = match done {
        0 => 0,
        _ => chunks.padded_chunk(done - 1) >> 63,
    };
    for i in done..chunks.padded_count() {
        let word = chunks.padded_chunk(i);
        runs += (word & !(word << 1 | carry)).count_ones() as usize;
        carry = word >> 63;
    }
    (runs <= limit).then_some(runs)
}

/// One compiled variant of the byte loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kernel {
    Portable = 1,
    #[cfg(target_arch = "x86_64")]
    Popcnt = 2,
    #[cfg(target_arch = "x86_64")]
    Avx2 = 3,
}

static SELECTED: AtomicU8 = AtomicU8::new(0);

fn selected() -> Kernel {
    match SELECTED.load(Ordering::Relaxed) {
        0 => {
            let best = *available_kernels()
                .last()
                .expect("the portable kernel always exists");
            SELECTED.store(best as u8, Ordering::Relaxed);
            best
        }
        #[cfg(target_arch = "x86_64")]
        3 => Kernel::Avx2,
        #[cfg(target_arch = "x86_64")]
        2 => Kernel::Popcnt,
        _ => Kernel::Portable,
    }
}

/// The kernels this CPU can run, worst first.
pub(crate) fn available_kernels() -> Vec<Kernel> {
    #[allow(unused_mut)]
    let mut kernels = vec![Kernel::Portable];
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("popcnt") {
            kernels.push(Kernel::Popcnt);
            if std::arch::is_x86_feature_detected!("avx2") {
                kernels.push(Kernel::Avx2);
            }
        }
    }
    kernels
}

/// Number of set bits in `bytes`.
#[inline]
fn popcount(bytes: &[u8]) -> usize {
    popcount_with(selected(), bytes)
}

/// Number of set bits in `bytes`, using `kernel`, which must be in [`available_kernels`].
pub(crate) fn popcount_with(kernel: Kernel, bytes: &[u8]) -> usize {
    match kernel {
        Kernel::Portable => popcount_portable(bytes),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: kernels are only handed out by available_kernels, which checked that the
        // CPU supports popcnt.
        Kernel::Popcnt => unsafe { popcount_popcnt(bytes) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, for popcnt and avx2.
        Kernel::Avx2 => unsafe { popcount_avx2(bytes) },
    }
}

/// The byte loop, written so that LLVM vectorises it: four independent sums over 32-byte
/// blocks, then the tail.
#[inline(always)]
fn popcount_portable(bytes: &[u8]) -> usize {
    let mut blocks = bytes.chunks_exact(32);
    let mut sums = [0u64; 4];
    for block in &mut blocks {
        for (sum, word) in sums.iter_mut().zip(block.chunks_exact(8)) {
            *sum += u64::from(u64::from_le_bytes(word.try_into().expect("8 bytes")).count_ones());
        }
    }
    let tail: u64 = blocks
        .remainder()
        .iter()
        .map(|b| u64::from(b.count_ones()))
        .sum();
    (sums.iter().sum::<u64>() + tail) as usize
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn popcount_popcnt(bytes: &[u8]) -> usize {
    popcount_portable(bytes)
}

/// Mula's AVX2 population count: each nibble is looked up in a 16-entry table with
/// `vpshufb`, byte counts accumulate over 8 vectors (at most 64 per byte, no overflow), then
/// `vpsadbw` folds them into four 64-bit sums. About twice the throughput of one `POPCNT`
/// per word, and enough to keep up with memory.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,avx2")]
fn popcount_avx2(bytes: &[u8]) -> usize {
    use std::arch::x86_64::*;

    const VECTOR: usize = 32;
    const GROUP: usize = 8 * VECTOR;
    #[rustfmt::skip]
    let table = _mm256_setr_epi8(
        0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
        0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
    );
    let low_nibbles = _mm256_set1_epi8(0x0f);
    let mut sums = _mm256_setzero_si256();
    let mut groups = bytes.chunks_exact(GROUP);
    for group in &mut groups {
        let mut counts = _mm256_setzero_si256();
        for vector in group.chunks_exact(VECTOR) {
            // SAFETY: `vector` is exactly 32 readable bytes; loadu has no alignment need.
            let v = unsafe { _mm256_loadu_si256(vector.as_ptr().cast()) };
            let low = _mm256_and_si256(v, low_nibbles);
            let high = _mm256_and_si256(_mm256_srli_epi16::<4>(v), low_nibbles);
            counts = _mm256_add_epi8(counts, _mm256_shuffle_epi8(table, low));
            counts = _mm256_add_epi8(counts, _mm256_shuffle_epi8(table, high));
        }
        sums = _mm256_add_epi64(sums, _mm256_sad_epu8(counts, _mm256_setzero_si256()));
    }
    let lanes = [
        _mm256_extract_epi64::<0>(sums),
        _mm256_extract_epi64::<1>(sums),
        _mm256_extract_epi64::<2>(sums),
        _mm256_extract_epi64::<3>(sums),
    ];
    lanes.iter().sum::<i64>() as usize + popcount_portable(groups.remainder())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_available_kernel_agrees_with_the_naive_count() {
        let bytes: Vec<u8> = (0..1000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for len in [0, 1, 7, 31, 32, 33, 64, 999, 1000] {
            let expected: usize = bytes[..len].iter().map(|b| b.count_ones() as usize).sum();
            for kernel in available_kernels() {
                assert_eq!(
                    popcount_with(kernel, &bytes[..len]),
                    expected,
                    "{kernel:?} {len}"
                );
            }
        }
    }

    #[test]
    fn partial_bytes_at_both_ends_are_trimmed() {
        let bytes = [0xffu8; 4];
        assert_eq!(count_set_bits(&bytes, 3, 0), 0);
        assert_eq!(count_set_bits(&bytes, 3, 4), 4);
        assert_eq!(count_set_bits(&bytes, 3, 5), 5);
        assert_eq!(count_set_bits(&bytes, 3, 29), 29);
        assert_eq!(count_set_bits(&bytes, 8, 24), 24);
        assert_eq!(count_set_bits(&[0b0101_0101], 1, 7), 3);
    }

    proptest::proptest! {
        #[test]
        fn kernels_agree_on_random_bytes(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..3000),
        ) {
            let expected: usize = bytes.iter().map(|b| b.count_ones() as usize).sum();
            for kernel in available_kernels() {
                proptest::prop_assert_eq!(popcount_with(kernel, &bytes), expected);
            }
        }
    }

    /// Runs of set bits counted one bit at a time.
    fn naive_runs(bytes: &[u8], offset: usize, len: usize) -> usize {
        let bit = |i: usize| bytes[i / 8] >> (i % 8) & 1 == 1;
        (offset..offset + len)
            .filter(|&i| bit(i) && (i == offset || !bit(i - 1)))
            .count()
    }

    #[test]
    fn every_kernel_counts_runs_at_every_offset_and_stops_past_the_limit() {
        // Long enough for the vector kernel's blocks (and a check of the limit) with a
        // scalar tail: runs of 1 to 40 bits, and a stretch of all ones across blocks.
        let mut bytes: Vec<u8> = (0..9_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8 & (i as u8 | 0x9c))
            .collect();
        bytes[3_000..3_600].fill(0xff);
        for offset in [0, 1, 7, 8, 63, 64, 65, 300] {
            for len in [0, 1, 100, 64 * 33, 64 * 33 + 5, 8 * 9_000 - 300 - 64] {
                let len = len.min(8 * bytes.len() - offset);
                let expected = naive_runs(&bytes, offset, len);
                for kernel in available_kernels() {
                    let chunks = BitChunks::new(&bytes, offset, len);
                    assert_eq!(
                        count_runs_with(kernel, chunks, usize::MAX),
                        Some(expected),
                        "{kernel:?} offset {offset} len {len}"
                    );
                    if expected > 0 {
                        let chunks = BitChunks::new(&bytes, offset, len);
                        assert_eq!(count_runs_with(kernel, chunks, expected - 1), None);
                        let chunks = BitChunks::new(&bytes, offset, len);
                        assert_eq!(count_runs_with(kernel, chunks, expected), Some(expected));
                    }
                }
            }
        }
    }

    #[test]
    fn the_best_kernel_is_selected_once() {
        let best = *available_kernels().last().unwrap();
        assert_eq!(selected(), best);
        assert_eq!(selected(), best);
    }
}
