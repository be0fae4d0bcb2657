//! The loop every aggregate of fixed-width values runs: eight lanes, the selection applied
//! without branches, so that the lanes are one vector.

use alkaid_buffer::BooleanBuffer;
use alkaid_buffer::bitmap::BitChunks;

/// Calls `add(lane, value, keep)` for every value, lane `i % 8`, with `keep` all ones for a
/// value the selection keeps and zero otherwise: branch-free, in groups of eight, so that
/// the eight lanes are one vector.
#[inline(always)]
pub(crate) fn lanes<T: Copy>(
    values: &[T],
    selection: Option<&BooleanBuffer>,
    mut add: impl FnMut(usize, T, u64),
) {
    match selection {
        None => {
            let groups = values.chunks_exact(8);
            let rest = groups.remainder();
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
            let chunks = values.chunks_exact(64);
            let rest = chunks.remainder();
            for (chunk, word) in chunks.zip(words.iter()) {
                for (g, group) in chunk.chunks_exact(8).enumerate() {
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
