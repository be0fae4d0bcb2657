//! The packing of one answer per value into a bitmap, 64 to a word, that comparisons and
//! tests share.

use alkaid_buffer::{BooleanBuffer, MutableBuffer};

/// A bitmap of `f(value)` for each value, packed 64 to a word. Written over whole chunks
/// of 64, so that the loop has no bounds checks and vectorises.
#[inline(always)]
pub(crate) fn map_bits<T: Copy>(values: &[T], f: impl Fn(T) -> bool) -> BooleanBuffer {
    let mut out = MutableBuffer::with_capacity(values.len().div_ceil(64) * 8);
    let chunks = values.chunks_exact(64);
    let rest = chunks.remainder();
    out.extend_counted(
        values.len() / 64,
        chunks.map(|chunk| {
            chunk
                .iter()
                .enumerate()
                .fold(0u64, |word, (bit, &v)| word | (u64::from(f(v)) << bit))
        }),
    );
    if !rest.is_empty() {
        let word = rest
            .iter()
            .enumerate()
            .fold(0u64, |word, (bit, &v)| word | (u64::from(f(v)) << bit));
        out.push(word);
    }
    finish(out, values.len())
}

/// A bitmap of `f(left[i], right[i])` (equal lengths), packed as [`map_bits`] does.
#[inline(always)]
pub(crate) fn zip_bits<A: Copy, B: Copy>(
    left: &[A],
    right: &[B],
    f: impl Fn(A, B) -> bool,
) -> BooleanBuffer {
    debug_assert_eq!(left.len(), right.len());
    let len = left.len().min(right.len());
    let (left, right) = (&left[..len], &right[..len]);
    let mut out = MutableBuffer::with_capacity(len.div_ceil(64) * 8);
    let pairs = left.chunks_exact(64).zip(right.chunks_exact(64));
    out.extend_counted(
        len / 64,
        pairs.map(|(l, r)| {
            l.iter()
                .zip(r)
                .enumerate()
                .fold(0u64, |word, (bit, (&a, &b))| {
                    word | (u64::from(f(a, b)) << bit)
                })
        }),
    );
    let done = len / 64 * 64;
    if done < len {
        let word = left[done..]
            .iter()
            .zip(&right[done..])
            .enumerate()
            .fold(0u64, |word, (bit, (&a, &b))| {
                word | (u64::from(f(a, b)) << bit)
            });
        out.push(word);
    }
    finish(out, len)
}

fn finish(mut out: MutableBuffer, len: usize) -> BooleanBuffer {
    out.truncate(len.div_ceil(8));
    BooleanBuffer::new(out.into(), 0, len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_slices_of_every_length() {
        for len in [0usize, 1, 63, 64, 65, 130] {
            let values: Vec<u32> = (0..len as u32).collect();
            let odd = map_bits(&values, |v| v % 2 == 1);
            let same = zip_bits(&values, &values, |a, b| a == b);
            for i in 0..len {
                assert_eq!(odd.value(i), i % 2 == 1);
                assert!(same.value(i));
            }
            assert_eq!((odd.len(), same.len()), (len, len));
        }
    }
}
