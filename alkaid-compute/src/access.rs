//! Reading values out of plain `ArrayData`: fixed-width values as typed slices, and the
//! byte values of every binary-like layout through one trait, so that a kernel over bytes
//! is written once for `Binary`, `LargeBinary`, views and fixed-size binary (and their text
//! types) and compiled for each.

use alkaid_buffer::native::ByteView;
use alkaid_buffer::{Buffer, NativeType, OffsetSize, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::PhysicalType;

use crate::error::ComputeError;

/// The fixed-width values of `data` (buffer 0) as `T`s, slot 0 first. Memory that is not
/// aligned for `T` (wrapped from an IPC body) is copied to aligned memory first.
pub(crate) fn native_values<T: NativeType>(
    data: &ArrayData,
) -> Result<ScalarBuffer<T>, ComputeError> {
    let buffer = data.buffers().first().cloned().unwrap_or_default();
    ScalarBuffer::new_realigned(buffer, data.offset(), data.len())
        .map_err(|e| ComputeError::Data(e.into()))
}

/// Byte values by slot: what every binary-like layout offers.
///
/// The accessors are made by [`visit_bytes`] from valid `ArrayData` only, whose offsets
/// (or views) all lie inside their data, null slots included: alkaid-data's full
/// validation checks every one, and `ArrayData` made without `unsafe` is validated. The
/// unchecked reads rely on that.
pub(crate) trait ByteAccess<'a>: Copy + 'a {
    /// The length of slot `i`'s value, without reading it.
    ///
    /// # Panics
    /// If `i` is not a slot.
    fn value_len(&self, i: usize) -> usize;

    /// The bytes of slot `i` (whatever is stored, for a null slot).
    ///
    /// # Panics
    /// If `i` is not a slot.
    fn value(&self, i: usize) -> &'a [u8];

    /// The bytes of slot `i`, without bounds checks.
    ///
    /// # Safety
    /// `i` must be a slot (below the array's length).
    unsafe fn value_unchecked(&self, i: usize) -> &'a [u8];

    /// The lengths of slots `0..len` (`len` is the number of slots), each through
    /// `narrow` (to the output's integer type).
    fn value_lens<N>(&self, len: usize, narrow: impl Fn(usize) -> N) -> Vec<N> {
        (0..len).map(|i| narrow(self.value_len(i))).collect()
    }

    /// Every slot's bytes in one slice (null slots' included), where the layout keeps
    /// them together: a kernel can scan them at once instead of value by value.
    fn all_values(&self) -> Option<&'a [u8]> {
        None
    }

    /// Whether slot `i`'s value starts with `prefix`.
    ///
    /// # Panics
    /// If `i` is not a slot.
    fn starts_with(&self, i: usize, prefix: &[u8]) -> bool {
        self.value(i).starts_with(prefix)
    }
}

/// `i32` or `i64` offsets into one data buffer.
#[derive(Clone, Copy)]
pub(crate) struct OffsetBytes<'a, O> {
    /// One more offset than there are slots (none when there are no slots).
    offsets: &'a [O],
    data: &'a [u8],
}

impl<'a, O: OffsetSize> OffsetBytes<'a, O> {
    /// The offsets, one more than there are slots (none when there are no slots).
    pub(crate) fn offsets(&self) -> &'a [O] {
        self.offsets
    }
}

impl<'a, O: OffsetSize> ByteAccess<'a> for OffsetBytes<'a, O> {
    #[inline(always)]
    fn value_len(&self, i: usize) -> usize {
        self.offsets[i + 1].as_usize() - self.offsets[i].as_usize()
    }

    #[inline(always)]
    fn value(&self, i: usize) -> &'a [u8] {
        let (start, end) = (self.offsets[i].as_usize(), self.offsets[i + 1].as_usize());
        &self.data[start..end]
    }

    #[inline(always)]
    unsafe fn value_unchecked(&self, i: usize) -> &'a [u8] {
        // SAFETY: i is a slot (the caller's promise), so i + 1 < offsets.len(); the offsets
        // of valid data are non-decreasing and at most data.len() (see the trait docs).
        unsafe {
            let start = self.offsets.get_unchecked(i).as_usize();
            let end = self.offsets.get_unchecked(i + 1).as_usize();
            self.data.get_unchecked(start..end)
        }
    }

    fn value_lens<N>(&self, len: usize, narrow: impl Fn(usize) -> N) -> Vec<N> {
        // One subtraction of neighbouring offsets per slot, in a loop the compiler
        // vectorises (offsets of valid data never decrease, so nothing wraps).
        let ends = self.offsets.get(1..=len).unwrap_or(&[]);
        ends.iter()
            .zip(self.offsets)
            .map(|(&end, &start)| narrow(end.as_usize().wrapping_sub(start.as_usize())))
            .collect()
    }

    #[inline(always)]
    fn starts_with(&self, i: usize, prefix: &[u8]) -> bool {
        // The length from the offsets first; then only the prefix's bytes, read without a
        // panicking slice.
        let (start, end) = (self.offsets[i].as_usize(), self.offsets[i + 1].as_usize());
        let stop = start + prefix.len();
        stop <= end && self.data.get(start..stop) == Some(prefix)
    }

    fn all_values(&self) -> Option<&'a [u8]> {
        match (self.offsets.first(), self.offsets.last()) {
            (Some(first), Some(last)) => Some(&self.data[first.as_usize()..last.as_usize()]),
            _ => Some(&[]),
        }
    }
}

/// 16-byte views into data buffers.
#[derive(Clone, Copy)]
pub(crate) struct ViewBytes<'a> {
    pub views: &'a [ByteView],
    buffers: &'a [Buffer],
}

impl<'a> ByteAccess<'a> for ViewBytes<'a> {
    #[inline(always)]
    fn value_len(&self, i: usize) -> usize {
        self.views[i].len()
    }

    #[inline(always)]
    fn starts_with(&self, i: usize, prefix: &[u8]) -> bool {
        // The view holds a value's first four bytes, or all of a short one: most answers
        // need no data buffer.
        let view = &self.views[i];
        let n = prefix.len();
        if view.len() < n {
            return false;
        }
        let held = view.raw_rest();
        if view.is_inline() || n <= 4 {
            return held[..n] == *prefix;
        }
        held[..4] == prefix[..4] && self.value(i).starts_with(prefix)
    }

    #[inline(always)]
    fn value(&self, i: usize) -> &'a [u8] {
        let view = &self.views[i];
        match view.inline_bytes() {
            Some(bytes) => bytes,
            None => {
                let start = view.offset() as usize;
                &self.buffers[view.buffer_index() as usize][start..start + view.len()]
            }
        }
    }

    #[inline(always)]
    unsafe fn value_unchecked(&self, i: usize) -> &'a [u8] {
        // SAFETY: i is a slot (the caller's promise); a valid view's length is not
        // negative, and a referenced value lies inside an existing data buffer (see the
        // trait docs).
        unsafe {
            let view = self.views.get_unchecked(i);
            match view.inline_bytes() {
                Some(bytes) => bytes,
                None => {
                    let start = view.offset() as usize;
                    let buffer = self.buffers.get_unchecked(view.buffer_index() as usize);
                    buffer.get_unchecked(start..start + view.len())
                }
            }
        }
    }
}

/// Values of one width, back to back.
#[derive(Clone, Copy)]
pub(crate) struct FixedBytes<'a> {
    data: &'a [u8],
    width: usize,
}

impl<'a> ByteAccess<'a> for FixedBytes<'a> {
    #[inline(always)]
    fn value_len(&self, _: usize) -> usize {
        self.width
    }

    #[inline(always)]
    fn value(&self, i: usize) -> &'a [u8] {
        &self.data[i * self.width..(i + 1) * self.width]
    }

    #[inline(always)]
    unsafe fn value_unchecked(&self, i: usize) -> &'a [u8] {
        // SAFETY: i is a slot (the caller's promise), and data holds exactly
        // len * width bytes (visit_bytes cuts it so).
        unsafe {
            self.data
                .get_unchecked(i * self.width..(i + 1) * self.width)
        }
    }

    fn all_values(&self) -> Option<&'a [u8]> {
        Some(self.data)
    }
}

/// Something to do with the byte values of an array, whichever layout holds them.
pub(crate) trait BytesVisitor<'a> {
    /// What the visit gives.
    type Output;
    /// Runs with the array's values as `B`.
    fn visit<B: ByteAccess<'a>>(self, values: B) -> Self::Output;
}

/// The views of `data` (a view array), slot 0 first.
pub(crate) fn views_of(data: &ArrayData) -> Result<&[ByteView], ComputeError> {
    let views: &[ByteView] = data.buffers()[0]
        .typed()
        .map_err(|e| ComputeError::Data(e.into()))?;
    Ok(&views[data.offset()..data.offset() + data.len()])
}

/// Calls `visitor` with the byte values of `data`, or returns `None` if `data` is not
/// binary-like (binary, text, views, fixed-size binary).
///
/// # Errors
/// If view memory is misaligned (views are only ever read in place).
pub(crate) fn visit_bytes<'a, V: BytesVisitor<'a>>(
    data: &'a ArrayData,
    visitor: V,
) -> Result<Option<V::Output>, ComputeError> {
    let buffers = data.buffers();
    Ok(Some(match data.data_type().to_physical() {
        PhysicalType::Binary => visitor.visit(offset_bytes::<i32>(data)?),
        PhysicalType::LargeBinary => visitor.visit(offset_bytes::<i64>(data)?),
        PhysicalType::BinaryView => visitor.visit(view_bytes(data)?),
        PhysicalType::FixedSizeBinary(width) => {
            let width = usize::try_from(width).unwrap_or(0);
            let start = data.offset() * width;
            visitor.visit(FixedBytes {
                data: &buffers[0][start..start + data.len() * width],
                width,
            })
        }
        _ => return Ok(None),
    }))
}

/// The views and data buffers of a binary or text view array.
pub(crate) fn view_bytes(data: &ArrayData) -> Result<ViewBytes<'_>, ComputeError> {
    Ok(ViewBytes {
        views: views_of(data)?,
        buffers: &data.buffers()[1..],
    })
}

/// The offsets and data of a binary or text array with offsets of `O`.
pub(crate) fn offset_bytes<O: OffsetSize>(
    data: &ArrayData,
) -> Result<OffsetBytes<'_, O>, ComputeError> {
    // An empty array may have no offsets at all (the format allows an empty buffer); it
    // has no slot to read either.
    let offsets: &[O] = if data.is_empty() {
        &[]
    } else {
        &typed(&data.buffers()[0])?[data.offset()..data.offset() + data.len() + 1]
    };
    Ok(OffsetBytes {
        offsets,
        data: &data.buffers()[1],
    })
}

/// Each row's (start, length) in a list-like array's child (any list kind, views and
/// fixed-size lists included).
pub(crate) fn list_ranges(data: &ArrayData) -> Result<Vec<(usize, usize)>, ComputeError> {
    let (offset, len) = (data.offset(), data.len());
    if let PhysicalType::FixedSizeList(size) = data.data_type().to_physical() {
        let size = usize::try_from(size).unwrap_or(0);
        return Ok((0..len).map(|i| ((offset + i) * size, size)).collect());
    }
    if len == 0 {
        // Possibly no offsets at all.
        return Ok(Vec::new());
    }
    let wide = matches!(
        data.data_type().to_physical(),
        PhysicalType::LargeList | PhysicalType::LargeListView
    );
    let read = |index: usize, count: usize| -> Result<Vec<usize>, ComputeError> {
        let buffer = data.buffers()[index].clone();
        let error = |e: alkaid_buffer::BufferError| ComputeError::Data(e.into());
        Ok(if wide {
            let values =
                ScalarBuffer::<i64>::new_realigned(buffer, offset, count).map_err(error)?;
            values.iter().map(|&v| v.max(0) as usize).collect()
        } else {
            let values =
                ScalarBuffer::<i32>::new_realigned(buffer, offset, count).map_err(error)?;
            values.iter().map(|&v| v.max(0) as usize).collect()
        })
    };
    Ok(match data.data_type().to_physical() {
        PhysicalType::List | PhysicalType::LargeList => {
            let offsets = read(0, len + 1)?;
            offsets.windows(2).map(|w| (w[0], w[1] - w[0])).collect()
        }
        _ => read(0, len)?.into_iter().zip(read(1, len)?).collect(),
    })
}

/// A buffer as `T`s, in place.
fn typed<T: NativeType>(buffer: &Buffer) -> Result<&[T], ComputeError> {
    buffer.typed().map_err(|e| ComputeError::Data(e.into()))
}

/// Whether `data`'s values are bytes that [`visit_bytes`] reads.
pub(crate) fn is_binary_like(physical: PhysicalType) -> bool {
    matches!(
        physical,
        PhysicalType::Binary
            | PhysicalType::LargeBinary
            | PhysicalType::BinaryView
            | PhysicalType::FixedSizeBinary(_)
    )
}

#[cfg(test)]
mod tests {
    use alkaid_array::{
        Array, BinaryViewArray, FixedSizeBinaryArray, LargeStringArray, StringViewArray,
    };

    use super::*;

    struct Collect;

    impl<'a> BytesVisitor<'a> for Collect {
        type Output = Vec<Vec<u8>>;
        fn visit<B: ByteAccess<'a>>(self, values: B) -> Vec<Vec<u8>> {
            (0..3).map(|i| values.value(i).to_vec()).collect()
        }
    }

    fn collect(data: &ArrayData) -> Vec<Vec<u8>> {
        visit_bytes(data, Collect).unwrap().unwrap()
    }

    #[test]
    fn every_layout_reads_the_same_values_at_an_offset() {
        let words = ["zero", "one", "a value longer than twelve", "three"];
        let expected: Vec<Vec<u8>> = words[1..].iter().map(|w| w.as_bytes().to_vec()).collect();
        let large = LargeStringArray::from(words.to_vec()).to_data().slice(1, 3);
        assert_eq!(collect(&large), expected);
        let views = StringViewArray::from_iter_values(words)
            .to_data()
            .slice(1, 3);
        assert_eq!(collect(&views), expected);
        let binary = BinaryViewArray::from_iter_values(words.map(str::as_bytes));
        assert_eq!(collect(&binary.to_data().slice(1, 3)), expected);
        let pairs = ["ab", "cd", "ef", "gh"].map(|w| Some(w.as_bytes()));
        let fixed = FixedSizeBinaryArray::try_from_iter(2, pairs).unwrap();
        assert_eq!(
            collect(&fixed.to_data().slice(1, 3)),
            [b"cd".to_vec(), b"ef".to_vec(), b"gh".to_vec()]
        );
        let ints = alkaid_array::Int32Array::from(vec![1]).to_data();
        assert!(visit_bytes(&ints, Collect).unwrap().is_none());
    }

    #[test]
    fn an_empty_array_may_have_no_offsets() {
        let empty = ArrayData::builder(alkaid_schema::DataType::Utf8)
            .buffers(vec![Buffer::empty(), Buffer::empty()])
            .build()
            .unwrap();
        struct Count;
        impl<'a> BytesVisitor<'a> for Count {
            type Output = usize;
            fn visit<B: ByteAccess<'a>>(self, _: B) -> usize {
                1
            }
        }
        assert_eq!(visit_bytes(&empty, Count).unwrap(), Some(1));
    }
}
