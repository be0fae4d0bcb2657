//! Gathering slots by position, shared by `filter` (selected indices) and `take`: the loops
//! that copy fixed-width values, bits, and variable-width bytes one slot at a time.
//!
//! `None` positions (null indices of `take`) produce zeroed values, unset bits and empty
//! byte strings; the caller marks them null.

use alkaid_buffer::builder::BooleanBufferBuilder;
use alkaid_buffer::{Buffer, MutableBuffer, OffsetSize};

/// `width`-byte values at `positions` (relative to slot `offset`).
pub(crate) fn fixed(
    buffer: &Buffer,
    offset: usize,
    width: usize,
    positions: &[Option<usize>],
) -> Buffer {
    match width {
        1 => fixed_of::<1>(buffer, offset, positions),
        2 => fixed_of::<2>(buffer, offset, positions),
        4 => fixed_of::<4>(buffer, offset, positions),
        8 => fixed_of::<8>(buffer, offset, positions),
        16 => fixed_of::<16>(buffer, offset, positions),
        32 => fixed_of::<32>(buffer, offset, positions),
        _ => {
            let mut out = MutableBuffer::with_capacity(positions.len() * width);
            for position in positions {
                match position {
                    Some(i) => out
                        .extend_from_slice(&buffer[(offset + i) * width..(offset + i + 1) * width]),
                    None => out.extend_zeros(width),
                }
            }
            out.into_buffer()
        }
    }
}

/// Values of a width known at compile time: each copy is one load and one store.
fn fixed_of<const W: usize>(buffer: &Buffer, offset: usize, positions: &[Option<usize>]) -> Buffer {
    let (chunks, _) = buffer[offset * W..].as_chunks::<W>();
    let gathered: Vec<[u8; W]> = positions
        .iter()
        .map(|p| p.map_or([0; W], |i| chunks[i]))
        .collect();
    let mut out = MutableBuffer::with_capacity(gathered.len() * W);
    out.extend_from_slice(gathered.as_flattened());
    out.into_buffer()
}

/// Bits at `positions` (relative to bit `offset`); `None` gives an unset bit.
pub(crate) fn bits(bytes: &[u8], offset: usize, positions: &[Option<usize>]) -> Buffer {
    let mut out = BooleanBufferBuilder::new(positions.len());
    for position in positions {
        out.append(position.is_some_and(|i| {
            let at = offset + i;
            bytes[at / 8] >> (at % 8) & 1 == 1
        }));
    }
    out.finish().inner().clone()
}

/// Offsets and bytes of the variable-width values at `positions` (slot `offset` first);
/// `None` gives an empty value.
pub(crate) fn bytes<O: OffsetSize>(
    offsets: &Buffer,
    values: &Buffer,
    offset: usize,
    positions: &[Option<usize>],
) -> Option<(Buffer, Buffer)> {
    let all: &[O] = offsets.typed().ok()?;
    let all = &all[offset..];
    let total: usize = positions
        .iter()
        .flatten()
        .map(|&i| all[i + 1].as_usize() - all[i].as_usize())
        .sum();
    let mut new_offsets = MutableBuffer::with_capacity((positions.len() + 1) * size_of::<O>());
    let mut data = MutableBuffer::with_capacity(total);
    new_offsets.push(O::ZERO);
    for position in positions {
        if let Some(i) = position {
            data.extend_from_slice(&values[all[*i].as_usize()..all[i + 1].as_usize()]);
        }
        new_offsets.push(O::from_usize(data.len())?);
    }
    Some((new_offsets.into_buffer(), data.into_buffer()))
}
