//! Property tests: every bit kernel against a plain `Vec<bool>` reference, at random bit
//! offsets (0..130) and lengths (0..2000 bits).

use alkaid_buffer::bitmap::{self, BitChunks, BitIter, SetIndices, SetRuns};
use alkaid_buffer::builder::BooleanBufferBuilder;
use alkaid_buffer::{BooleanBuffer, Buffer, NullBuffer};
use proptest::prelude::*;

/// A bitmap as packed bytes plus the bits it holds, with `offset` bits of noise before the
/// range of interest and a few bytes of noise after it.
#[derive(Debug, Clone)]
struct Case {
    bytes: Vec<u8>,
    offset: usize,
    bits: Vec<bool>,
}

fn case(max_len: usize) -> impl Strategy<Value = Case> {
    (0usize..130, 0usize..max_len, 0.0f64..=1.0).prop_flat_map(|(offset, len, density)| {
        let total = offset + len + 24; // trailing noise
        proptest::collection::vec(proptest::bool::weighted(density), total).prop_map(move |all| {
            let mut bytes = vec![0u8; total.div_ceil(8)];
            for (i, &bit) in all.iter().enumerate() {
                if bit {
                    bitmap::set_bit(&mut bytes, i);
                }
            }
            Case {
                bytes,
                offset,
                bits: all[offset..offset + len].to_vec(),
            }
        })
    })
}

/// Two ranges of the same length at independent offsets.
fn pair() -> impl Strategy<Value = (Case, Case)> {
    (case(2000), 0usize..130, 0.0f64..=1.0).prop_flat_map(|(left, offset, density)| {
        let len = left.bits.len();
        let total = offset + len + 9;
        proptest::collection::vec(proptest::bool::weighted(density), total).prop_map(move |all| {
            let mut bytes = vec![0u8; total.div_ceil(8)];
            for (i, &bit) in all.iter().enumerate() {
                if bit {
                    bitmap::set_bit(&mut bytes, i);
                }
            }
            (
                left.clone(),
                Case {
                    bytes,
                    offset,
                    bits: all[offset..offset + len].to_vec(),
                },
            )
        })
    })
}

fn bits_of(buffer: &Buffer, len: usize) -> Vec<bool> {
    (0..len).map(|i| bitmap::get_bit(buffer, i)).collect()
}

fn padding_is_clear(buffer: &Buffer, len: usize) -> bool {
    buffer.len() == len.div_ceil(8) && (len..buffer.len() * 8).all(|i| !bitmap::get_bit(buffer, i))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn count_set_bits_matches(c in case(2000)) {
        let expected = c.bits.iter().filter(|&&b| b).count();
        prop_assert_eq!(bitmap::count_set_bits(&c.bytes, c.offset, c.bits.len()), expected);
    }

    #[test]
    fn chunks_match(c in case(2000)) {
        let chunks = BitChunks::new(&c.bytes, c.offset, c.bits.len());
        let words: Vec<u64> = chunks.iter_padded().collect();
        for (i, &bit) in c.bits.iter().enumerate() {
            prop_assert_eq!(words[i / 64] >> (i % 64) & 1 == 1, bit);
        }
        // Padding above the remainder is zero.
        if chunks.remainder_len() > 0 {
            prop_assert_eq!(chunks.remainder() >> chunks.remainder_len(), 0);
        }
    }

    #[test]
    fn iterators_match(c in case(2000)) {
        let len = c.bits.len();
        let all: Vec<bool> = BitIter::new(&c.bytes, c.offset, len).collect();
        prop_assert_eq!(&all, &c.bits);

        let expected_indices: Vec<usize> = (0..len).filter(|&i| c.bits[i]).collect();
        let indices: Vec<usize> = SetIndices::new(&c.bytes, c.offset, len).collect();
        prop_assert_eq!(&indices, &expected_indices);
        // Internal iteration (`fold`) after a few steps of `next`.
        let mut iter = SetIndices::new(&c.bytes, c.offset, len);
        let mut folded: Vec<usize> = iter.by_ref().take(3).collect();
        iter.for_each(|i| folded.push(i));
        prop_assert_eq!(&folded, &expected_indices);

        let mut expected_runs = Vec::new();
        let mut i = 0;
        while i < len {
            if c.bits[i] {
                let start = i;
                while i < len && c.bits[i] { i += 1; }
                expected_runs.push((start, i));
            } else {
                i += 1;
            }
        }
        let runs: Vec<(usize, usize)> = SetRuns::new(&c.bytes, c.offset, len).collect();
        prop_assert_eq!(bitmap::count_set_runs(&c.bytes, c.offset, len), expected_runs.len());
        let limit = expected_runs.len() / 2;
        let at_most = bitmap::count_set_runs_at_most(&c.bytes, c.offset, len, limit);
        prop_assert_eq!(at_most, (expected_runs.len() <= limit).then_some(expected_runs.len()));
        prop_assert_eq!(runs, expected_runs);
    }

    #[test]
    fn compress_keeps_the_masked_bits((values, mask) in pair()) {
        let len = values.bits.len();
        let expected: Vec<bool> = (0..len).filter(|&i| mask.bits[i]).map(|i| values.bits[i]).collect();
        for kernel in [bitmap::compress, bitmap::compress_portable] {
            let (packed, count) = kernel(&values.bytes, values.offset, &mask.bytes, mask.offset, len);
            prop_assert_eq!(count, expected.len());
            prop_assert_eq!(packed.len(), count.div_ceil(64) * 8);
            let got: Vec<bool> = (0..count).map(|i| bitmap::get_bit(&packed, i)).collect();
            prop_assert_eq!(&got, &expected);
            // Nothing set past the count.
            let past = (count..packed.len() * 8).filter(|&i| bitmap::get_bit(&packed, i)).count();
            prop_assert_eq!(past, 0);
        }
    }

    #[test]
    fn binary_kernels_match((l, r) in pair()) {
        let len = l.bits.len();
        type Kernel = fn(&[u8], usize, &[u8], usize, usize) -> Buffer;
        type Reference = fn(bool, bool) -> bool;
        let kernels: [(Kernel, Reference); 4] = [
            (bitmap::and, |a, b| a & b),
            (bitmap::or, |a, b| a | b),
            (bitmap::xor, |a, b| a ^ b),
            (bitmap::and_not, |a, b| a & !b),
        ];
        for (kernel, reference) in kernels {
            let result = kernel(&l.bytes, l.offset, &r.bytes, r.offset, len);
            let expected: Vec<bool> = l.bits.iter().zip(&r.bits).map(|(&a, &b)| reference(a, b)).collect();
            prop_assert_eq!(bits_of(&result, len), expected);
            prop_assert!(padding_is_clear(&result, len));
        }
    }

    #[test]
    fn not_matches(c in case(2000)) {
        let len = c.bits.len();
        let result = bitmap::not(&c.bytes, c.offset, len);
        let expected: Vec<bool> = c.bits.iter().map(|b| !b).collect();
        prop_assert_eq!(bits_of(&result, len), expected);
        prop_assert!(padding_is_clear(&result, len));
    }

    #[test]
    fn boolean_buffer_slices_match(c in case(2000), cut in 0.0f64..1.0, keep in 0.0f64..1.0) {
        let len = c.bits.len();
        let bits = BooleanBuffer::new(Buffer::from(c.bytes.clone()), c.offset, len);
        let start = (len as f64 * cut) as usize;
        let slice_len = ((len - start) as f64 * keep) as usize;
        let slice = bits.slice(start, slice_len);
        let expected = &c.bits[start..start + slice_len];
        prop_assert_eq!(slice.iter().collect::<Vec<_>>(), expected.to_vec());
        prop_assert_eq!(slice.count_set_bits(), expected.iter().filter(|&&b| b).count());
        prop_assert_eq!(BooleanBuffer::new(slice.bit_aligned(), 0, slice_len), slice.clone());
        prop_assert_eq!(BooleanBuffer::from(expected), slice.clone());

        let nulls = NullBuffer::new(bits).slice(start, slice_len);
        prop_assert_eq!(nulls.null_count(), expected.iter().filter(|&&b| !b).count());
    }

    #[test]
    fn builder_appends_match(parts in proptest::collection::vec(case(300), 1..6), flags in proptest::collection::vec(any::<bool>(), 6)) {
        let mut builder = BooleanBufferBuilder::new(0);
        let mut expected = Vec::new();
        for (part, &as_slice) in parts.iter().zip(&flags) {
            if as_slice {
                builder.append_slice(&part.bits);
            } else {
                builder.append_packed_range(&part.bytes, part.offset, part.bits.len());
            }
            expected.extend_from_slice(&part.bits);
            let run = part.bits.len() % 11;
            builder.append_n(run, as_slice);
            expected.extend(std::iter::repeat_n(as_slice, run));
        }
        prop_assert_eq!(builder.len(), expected.len());
        prop_assert!(padding_is_clear(&Buffer::from(builder.as_slice()), expected.len()));
        let finished = builder.finish();
        prop_assert_eq!(finished.iter().collect::<Vec<_>>(), expected);
    }
}
