//! [`MutableBuffer`]: a growable, aligned byte buffer that freezes into a [`Buffer`].

use std::fmt;

use crate::Buffer;
use crate::alloc::{self, Allocation};
use crate::error::BufferError;
use crate::native::NativeType;

/// A growable byte buffer, [`ALIGNMENT`](crate::ALIGNMENT)-byte aligned, with capacity in multiples of
/// [`ALIGNMENT`](crate::ALIGNMENT).
///
/// Growth is amortised (capacity at least doubles). Zero-filled growth from an empty buffer
/// ([`zeroed`](Self::zeroed), [`resize`](Self::resize) with 0) asks the allocator for zeroed
/// memory, which for large sizes maps fresh zero pages instead of writing zeros.
/// [`into`](Into::into) a [`Buffer`] freezes it without copying.
///
/// # Examples
/// ```
/// use alkaid_buffer::{Buffer, MutableBuffer};
/// let mut values = MutableBuffer::new();
/// values.push(1i64);
/// values.extend_from_slice(&[2i64, 3]);
/// let frozen: Buffer = values.into();
/// assert_eq!(frozen.typed::<i64>().unwrap(), &[1, 2, 3]);
/// ```
pub struct MutableBuffer {
    data: Allocation,
    /// Initialised bytes at the start of `data`.
    len: usize,
}

impl MutableBuffer {
    /// An empty buffer; does not allocate.
    pub fn new() -> Self {
        Self {
            data: Allocation::empty(),
            len: 0,
        }
    }

    /// An empty buffer with room for at least `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            data: Allocation::new(alloc::round_up(capacity), false),
            len: 0,
        }
    }

    /// A buffer of `len` zero bytes, from the allocator's zeroed allocation.
    pub fn zeroed(len: usize) -> Self {
        Self {
            data: Allocation::new(alloc::round_up(len), true),
            len,
        }
    }

    /// Takes over an allocation.
    ///
    /// # Safety
    /// `len <= allocation.capacity()` and the first `len` bytes must be initialised.
    pub(crate) unsafe fn from_allocation(data: Allocation, len: usize) -> Self {
        debug_assert!(len <= data.capacity());
        Self { data, len }
    }

    /// Number of initialised bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no bytes.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes the buffer can hold without reallocating.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.data.capacity()
    }

    /// Pointer to the first byte.
    #[inline]
    pub fn as_ptr(&self) -> *const u8 {
        self.data.ptr().as_ptr()
    }

    /// The initialised bytes.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: the first `len` bytes of the allocation are initialised (every method that
        // grows `len` writes the bytes first) and uniquely owned by `self`.
        unsafe { std::slice::from_raw_parts(self.data.ptr().as_ptr(), self.len) }
    }

    /// The initialised bytes, mutably.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in as_slice, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.data.ptr().as_ptr(), self.len) }
    }

    /// The bytes viewed as `T`s; always aligned, since the allocation is.
    ///
    /// # Errors
    /// [`BufferError::PartialElement`] if the length is not a multiple of `T`'s size.
    pub fn typed<T: NativeType>(&self) -> Result<&[T], BufferError> {
        crate::native::cast_slice(self.as_slice())
    }

    /// The bytes viewed as mutable `T`s.
    ///
    /// # Errors
    /// [`BufferError::PartialElement`] if the length is not a multiple of `T`'s size.
    pub fn typed_mut<T: NativeType>(&mut self) -> Result<&mut [T], BufferError> {
        crate::native::cast_slice_mut(self.as_mut_slice())
    }

    /// Makes room for at least `additional` more bytes, growing the capacity to at least
    /// double its current size so that repeated pushes cost amortised O(1).
    #[inline(always)]
    pub fn reserve(&mut self, additional: usize) {
        // capacity >= len always, so this cannot overflow; grow does the checked arithmetic.
        if additional > self.data.capacity() - self.len {
            self.grow(additional);
        }
    }

    #[cold]
    fn grow(&mut self, additional: usize) {
        let required = self
            .len
            .checked_add(additional)
            .expect("buffer length overflows usize");
        let new_capacity = alloc::round_up(required.max(self.capacity().saturating_mul(2)));
        self.data.resize(new_capacity, self.len);
    }

    /// Sets the length to `new_len`, filling new bytes with `value`.
    ///
    /// Growing an empty, unallocated buffer with zeros uses the allocator's zeroed memory.
    pub fn resize(&mut self, new_len: usize, value: u8) {
        if new_len <= self.len {
            self.len = new_len;
            return;
        }
        if value == 0 && self.capacity() == 0 {
            *self = Self::zeroed(new_len);
            return;
        }
        let additional = new_len - self.len;
        self.reserve(additional);
        // SAFETY: reserve made capacity >= new_len, so the `additional` bytes after `len`
        // are inside the allocation; writing initialises them before len covers them.
        unsafe { self.data.ptr().add(self.len).write_bytes(value, additional) };
        self.len = new_len;
    }

    /// Appends `n` zero bytes.
    pub fn extend_zeros(&mut self, n: usize) {
        self.resize(
            self.len
                .checked_add(n)
                .expect("buffer length overflows usize"),
            0,
        );
    }

    /// Shortens the buffer to `len` bytes; does nothing if it is shorter already.
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Removes all bytes, keeping the capacity.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Shrinks the capacity to the length rounded up to the alignment.
    pub fn shrink_to_fit(&mut self) {
        self.data.resize(alloc::round_up(self.len), self.len);
    }

    /// Appends one value.
    #[inline(always)]
    pub fn push<T: NativeType>(&mut self, value: T) {
        let size = size_of::<T>();
        self.reserve(size);
        // SAFETY: reserve made room for `size` bytes after `len`; write_unaligned has no
        // alignment requirement; T is plain data.
        unsafe {
            self.data
                .ptr()
                .add(self.len)
                .cast::<T>()
                .write_unaligned(value)
        };
        self.len += size;
    }

    /// Appends a slice of values.
    #[inline]
    pub fn extend_from_slice<T: NativeType>(&mut self, values: &[T]) {
        let bytes = crate::native::as_bytes(values);
        self.reserve(bytes.len());
        // SAFETY: reserve made room for bytes.len() bytes after len; the source is a
        // different allocation (borrowed immutably while self is borrowed mutably).
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                self.data.ptr().add(self.len).as_ptr(),
                bytes.len(),
            );
        }
        self.len += bytes.len();
    }

    /// Appends every value of an iterator: the number its size hint promises are written
    /// without per-value capacity checks, the rest one by one.
    pub fn extend<T: NativeType, I: IntoIterator<Item = T>>(&mut self, values: I) {
        let mut iter = values.into_iter();
        let promised = iter.size_hint().0;
        self.extend_counted(promised, iter.by_ref());
        for value in iter {
            self.push(value);
        }
    }

    /// Appends `count` values, value `i` being `f(i)`.
    ///
    /// The fastest way to fill a buffer from a computation: the room is reserved once and
    /// each value written in place, with no zeroing first and no per-value capacity check,
    /// so simple `f`s vectorise.
    ///
    /// # Examples
    /// ```
    /// use alkaid_buffer::MutableBuffer;
    /// let mut squares = MutableBuffer::new();
    /// squares.extend_with(4, |i| (i * i) as u32);
    /// assert_eq!(squares.typed::<u32>().unwrap(), &[0, 1, 4, 9]);
    /// ```
    #[inline]
    pub fn extend_with<T: NativeType>(&mut self, count: usize, f: impl FnMut(usize) -> T) {
        self.extend_counted(count, (0..count).map(f));
    }

    /// Appends the first `count` values of `values` (fewer if it ends sooner), reserving
    /// room for `count` once and writing in place, so that zipped slice iterators vectorise.
    ///
    /// # Examples
    /// ```
    /// use alkaid_buffer::MutableBuffer;
    /// let (a, b) = ([1u8, 2, 3], [10u8, 20, 30]);
    /// let mut sums = MutableBuffer::new();
    /// sums.extend_counted(3, a.iter().zip(&b).map(|(x, y)| x + y));
    /// assert_eq!(sums.as_slice(), &[11, 22, 33]);
    /// ```
    #[inline]
    pub fn extend_counted<T: NativeType>(
        &mut self,
        count: usize,
        values: impl IntoIterator<Item = T>,
    ) {
        let size = size_of::<T>();
        self.reserve(
            count
                .checked_mul(size)
                .expect("buffer length overflows usize"),
        );
        // SAFETY: reserve made room for count * size bytes after len.
        let dst = unsafe { self.data.ptr().add(self.len) }
            .as_ptr()
            .cast::<T>();
        let mut written = 0;
        for value in values.into_iter().take(count) {
            // SAFETY: written < count (take), so the write is inside the reserved room;
            // write_unaligned has no alignment requirement. len grows only after the loop, so
            // if the iterator panics the values written so far are simply not counted.
            unsafe { dst.add(written).write_unaligned(value) };
            written += 1;
        }
        self.len += written * size;
    }

    /// Resizes to `len` values of `T`, each new one equal to `value`.
    ///
    /// # Panics
    /// If the current length is not a multiple of `T`'s size.
    pub fn resize_values<T: NativeType>(&mut self, len: usize, value: T) {
        let size = size_of::<T>();
        assert!(
            self.len.is_multiple_of(size),
            "buffer length is not a whole number of values"
        );
        let current = self.len / size;
        if len <= current {
            self.len = len * size;
        } else if crate::native::is_all_zero_bits(&value) {
            self.extend_zeros((len - current) * size);
        } else {
            self.reserve((len - current) * size);
            for _ in current..len {
                self.push(value);
            }
        }
    }

    /// Freezes the bytes into an immutable [`Buffer`] without copying.
    pub fn into_buffer(self) -> Buffer {
        // SAFETY: the first `len` bytes of the allocation are initialised (the invariant of
        // this type), and len <= capacity.
        unsafe { Buffer::from_allocation(self.data, self.len) }
    }
}

impl Default for MutableBuffer {
    fn default() -> Self {
        Self::new()
    }
}

impl Clone for MutableBuffer {
    fn clone(&self) -> Self {
        let mut copy = Self::with_capacity(self.len);
        copy.extend_from_slice(self.as_slice());
        copy
    }
}

impl fmt::Debug for MutableBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "MutableBuffer(len {}, capacity {})",
            self.len,
            self.capacity()
        )
    }
}

impl PartialEq for MutableBuffer {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl From<MutableBuffer> for Buffer {
    fn from(buffer: MutableBuffer) -> Self {
        buffer.into_buffer()
    }
}

impl<T: NativeType> FromIterator<T> for MutableBuffer {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut buffer = Self::new();
        buffer.extend(iter);
        buffer
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ALIGNMENT;

    #[test]
    fn growth_is_aligned_and_amortised() {
        let mut buffer = MutableBuffer::new();
        assert_eq!(buffer.capacity(), 0);
        let mut reallocations = 0;
        let mut last = buffer.capacity();
        for i in 0..10_000u32 {
            buffer.push(i);
            if buffer.capacity() != last {
                reallocations += 1;
                last = buffer.capacity();
                assert!(buffer.capacity().is_multiple_of(ALIGNMENT));
                assert_eq!(buffer.as_ptr() as usize % ALIGNMENT, 0);
            }
        }
        assert!(reallocations <= 12, "{reallocations} reallocations");
        assert_eq!(buffer.typed::<u32>().unwrap()[9_999], 9_999);
    }

    #[test]
    fn zeroed_and_resize_fill_correctly() {
        let zeroed = MutableBuffer::zeroed(1000);
        assert_eq!(zeroed.len(), 1000);
        assert!(zeroed.as_slice().iter().all(|&b| b == 0));

        let mut buffer = MutableBuffer::new();
        buffer.resize(5, 0);
        assert_eq!(buffer.as_slice(), &[0; 5]);
        buffer.resize(8, 7);
        assert_eq!(buffer.as_slice(), &[0, 0, 0, 0, 0, 7, 7, 7]);
        buffer.resize(2, 9);
        assert_eq!(buffer.as_slice(), &[0, 0]);
        buffer.extend_zeros(100);
        assert_eq!(buffer.len(), 102);
        assert!(buffer.as_slice().iter().all(|&b| b == 0));
        assert!(MutableBuffer::zeroed(0).is_empty());
    }

    #[test]
    fn typed_push_extend_and_resize() {
        let mut buffer = MutableBuffer::with_capacity(3);
        assert_eq!(buffer.capacity(), ALIGNMENT);
        buffer.push(1u16);
        buffer.extend_from_slice(&[2u16, 3]);
        buffer.extend([4u16, 5]);
        assert_eq!(buffer.typed::<u16>().unwrap(), &[1, 2, 3, 4, 5]);
        buffer.resize_values(7, 9u16);
        assert_eq!(buffer.typed::<u16>().unwrap(), &[1, 2, 3, 4, 5, 9, 9]);
        buffer.resize_values(8, 0u16);
        assert_eq!(buffer.typed::<u16>().unwrap(), &[1, 2, 3, 4, 5, 9, 9, 0]);
        buffer.resize_values(2, 0u16);
        assert_eq!(buffer.typed::<u16>().unwrap(), &[1, 2]);
        buffer.typed_mut::<u16>().unwrap()[0] = 10;
        assert_eq!(buffer.typed::<u16>().unwrap(), &[10, 2]);
        buffer.push(1u8);
        assert!(buffer.typed::<u16>().is_err());
    }

    #[test]
    fn extend_counted_stops_at_the_shorter_of_count_and_iterator() {
        let mut buffer = MutableBuffer::new();
        buffer.extend_counted(5, [1u32, 2]);
        assert_eq!(buffer.typed::<u32>().unwrap(), &[1, 2]);
        buffer.extend_counted(1, [3u32, 4, 5]);
        assert_eq!(buffer.typed::<u32>().unwrap(), &[1, 2, 3]);
        buffer.extend_with(0, |_| 9u32);
        assert_eq!(buffer.len(), 12);
    }

    #[test]
    fn a_panicking_producer_leaves_the_buffer_consistent() {
        let mut buffer = MutableBuffer::new();
        buffer.push(7u64);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            buffer.extend_with(10, |i| {
                if i == 5 {
                    panic!("producer failed")
                } else {
                    i as u64
                }
            });
        }));
        assert!(result.is_err());
        assert_eq!(buffer.typed::<u64>().unwrap(), &[7]);
    }

    #[test]
    fn negative_zero_is_not_zero_filled() {
        let mut buffer = MutableBuffer::new();
        buffer.resize_values(2, -0.0f64);
        let values = buffer.typed::<f64>().unwrap();
        assert!(values.iter().all(|v| v.is_sign_negative()));
    }

    #[test]
    fn freeze_does_not_copy() {
        let mut buffer = MutableBuffer::with_capacity(100);
        buffer.extend_from_slice(&[1u8; 100]);
        let address = buffer.as_ptr();
        let frozen = buffer.into_buffer();
        assert_eq!(frozen.as_ptr(), address);
        assert_eq!(frozen.len(), 100);
        assert_eq!(frozen.allocation_size(), 128);
        assert_eq!(Buffer::from(MutableBuffer::new()).len(), 0);
    }

    #[test]
    fn shrink_truncate_clear_and_clone() {
        let mut buffer = MutableBuffer::with_capacity(1000);
        buffer.extend_from_slice(&[5u8; 70]);
        buffer.shrink_to_fit();
        assert_eq!(buffer.capacity(), 128);
        let copy = buffer.clone();
        buffer.truncate(10);
        assert_eq!(buffer.len(), 10);
        buffer.truncate(50);
        assert_eq!(buffer.len(), 10);
        buffer.clear();
        buffer.shrink_to_fit();
        assert_eq!(buffer.capacity(), 0);
        assert_eq!(copy.len(), 70);
        assert_ne!(copy, buffer);
    }
}
