//! The loop every aggregate of fixed-width values runs: eight lanes, the selection applied
//! without branches, so that the lanes are one vector.

use alkaid_buffer::BooleanBuffer;
use alkaid_buffer::bitmap::BitChunks;

/// Calls `add(lane, value, keep)` for every value, lane `i % 8`, with `keep` all ones for a
/// value the selection keeps and zero otherwise: branch-free, in groups of eight held as
/// arrays (so that the lane is a constant in each call, and the eight lanes are one vector).
#[inline(always)]
pub(crate) fn lanes<T: Copy>(
    values: &[T],
    selection: Option<&BooleanBuffer>,
    mut add: impl FnMut(usize, T, u64),
) {
    match selection {
        None => {
            let (groups, rest) = values.as_chunks::<8>();
            for group in groups {
                for (lane, &v) in group.iter().enumerate() {
                    add(lane, v, u64::MAX);
                }
            }
            for (lane, &v) in rest.iter().enumerate() {
                add(lane, v, u64::MAX);
            }
        }
        Some(selection) => {
            let words = BitChunks::new(selection.inner(), selection.offset(), selection.len());
            let (chunks, rest) = values.as_chunks::<64>();
            for (chunk, word) in chunks.iter().zip(words.iter()) {
                let (groups, _) = chunk.as_chunks::<8>();
                for (g, group) in groups.iter().enumerate() {
                    let bits = (word >> (g * 8)) as u8;
                    for (lane, &v) in group.iter().enumerate() {
                        add(lane, v, 0u64.wrapping_sub(u64::from(bits >> lane & 1)));
                    }
                }
            }
            let word = words.remainder();
            for (k, &v) in rest.iter().enumerate() {
                add(k % 8, v, 0u64.wrapping_sub((word >> k) & 1));
            }
        }
    }
}
