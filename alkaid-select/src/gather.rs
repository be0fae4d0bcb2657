//! Gathering slots by position, shared by `filter` (selected indices) and `take`: the loops
//! that copy fixed-width values, bits, and variable-width bytes one slot at a time.
//!
//! `None` positions (null indices of `take`) produce zeroed values, unset bits and empty
//! byte strings; the caller marks them null.

use alkaid_buffer::builder::BooleanBufferBuilder;
use alkaid_buffer::{Buffer, MutableBuffer, NullBuffer, OffsetSize};

/// Where each slot of a result comes from: position `get(k)` of the input, or `None` for a
/// null slot. Implemented for plain position lists and, without copying them, for the
/// typed indices `take` is given.
pub(crate) trait Positions {
    /// Number of slots.
    fn len(&self) -> usize;
    /// The input position of slot `k`.
    fn get(&self, k: usize) -> Option<usize>;
}

impl Positions for [Option<usize>] {
    fn len(&self) -> usize {
        <[Option<usize>]>::len(self)
    }
    fn get(&self, k: usize) -> Option<usize> {
        self[k]
    }
}

/// Selected positions, all present (a filter's indices).
pub(crate) struct Present<'a>(pub &'a [usize]);

impl Positions for Present<'_> {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn get(&self, k: usize) -> Option<usize> {
        Some(self.0[k])
    }
}

/// The integer types indices come in.
pub(crate) trait Index: Copy {
    /// The index as a position, or `None` if it is negative.
    fn position(self) -> Option<usize>;
}

macro_rules! index {
    ($($t:ty),*) => {$(
        impl Index for $t {
            #[inline]
            fn position(self) -> Option<usize> {
                usize::try_from(self).ok()
            }
        }
    )*};
}
index!(i8, i16, i32, i64, u8, u16, u32, u64);

/// Indices of an integer array, read in place; every valid one was checked to be in range.
pub(crate) struct Typed<'a, T> {
    pub values: &'a [T],
    pub nulls: Option<&'a NullBuffer>,
}

impl<T: Index> Positions for Typed<'_, T> {
    fn len(&self) -> usize {
        self.values.len()
    }
    #[inline]
    fn get(&self, k: usize) -> Option<usize> {
        if self.nulls.is_some_and(|n| n.is_null(k)) {
            None
        } else {
            // In range: checked before any gathering starts.
            Some(self.values[k].position().unwrap_or(usize::MAX))
        }
    }
}

/// `width`-byte values at `positions` (relative to slot `offset`).
pub(crate) fn fixed<P: Positions + ?Sized>(
    buffer: &Buffer,
    offset: usize,
    width: usize,
    positions: &P,
) -> Buffer {
    match width {
        1 => fixed_of::<1, P>(buffer, offset, positions),
        2 => fixed_of::<2, P>(buffer, offset, positions),
        4 => fixed_of::<4, P>(buffer, offset, positions),
        8 => fixed_of::<8, P>(buffer, offset, positions),
        16 => fixed_of::<16, P>(buffer, offset, positions),
        32 => fixed_of::<32, P>(buffer, offset, positions),
        _ => {
            let mut out = MutableBuffer::with_capacity(positions.len() * width);
            for k in 0..positions.len() {
                match positions.get(k) {
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
fn fixed_of<const W: usize, P: Positions + ?Sized>(
    buffer: &Buffer,
    offset: usize,
    positions: &P,
) -> Buffer {
    let (chunks, _) = buffer[offset * W..].as_chunks::<W>();
    let gathered: Vec<[u8; W]> = (0..positions.len())
        .map(|k| positions.get(k).map_or([0; W], |i| chunks[i]))
        .collect();
    // The vector's bytes become the buffer without a copy. Its allocation is only
    // byte-aligned by type; the system allocator gives 16 bytes in practice, enough for
    // every fixed-width type, and `realigned` copies in the rare case it did not (an empty
    // vector's dangling pointer, say).
    Buffer::from(gathered.into_flattened()).realigned(16)
}

/// Bits at `positions` (relative to bit `offset`); `None` gives an unset bit.
pub(crate) fn bits<P: Positions + ?Sized>(bytes: &[u8], offset: usize, positions: &P) -> Buffer {
    let mut out = BooleanBufferBuilder::new(positions.len());
    for k in 0..positions.len() {
        out.append(positions.get(k).is_some_and(|i| {
            let at = offset + i;
            bytes[at / 8] >> (at % 8) & 1 == 1
        }));
    }
    out.finish().inner().clone()
}

/// Offsets and bytes of the variable-width values at `positions` (slot `offset` first);
/// `None` gives an empty value.
pub(crate) fn bytes<O: OffsetSize, P: Positions + ?Sized>(
    offsets: &Buffer,
    values: &Buffer,
    offset: usize,
    positions: &P,
) -> Option<(Buffer, Buffer)> {
    let all: &[O] = offsets.typed().ok()?;
    let all = &all[offset..];
    let total: usize = (0..positions.len())
        .filter_map(|k| positions.get(k))
        .map(|i| all[i + 1].as_usize() - all[i].as_usize())
        .sum();
    let mut new_offsets = MutableBuffer::with_capacity((positions.len() + 1) * size_of::<O>());
    let mut data = MutableBuffer::with_capacity(total);
    new_offsets.push(O::ZERO);
    for k in 0..positions.len() {
        if let Some(i) = positions.get(k) {
            data.extend_from_slice(&values[all[i].as_usize()..all[i + 1].as_usize()]);
        }
        new_offsets.push(O::from_usize(data.len())?);
    }
    Some((new_offsets.into_buffer(), data.into_buffer()))
}
