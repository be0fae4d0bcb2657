//! [`Buffer`]: immutable, shared, sliceable bytes.

use std::fmt;
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::{Arc, LazyLock};

use crate::MutableBuffer;
use crate::alloc::Allocation;
use crate::error::{BufferError, check_range};
use crate::memory::MemoryPool;
use crate::native::NativeType;
use crate::storage::Storage;

/// Immutable bytes with shared ownership.
///
/// A `Buffer` is a window `[ptr, ptr + len)` onto a shared allocation. [`Clone`] and
/// [`slice`](Self::slice) are O(1) and never copy: they share the allocation and move the
/// window. Memory that Alkaid allocates is [`ALIGNMENT`](crate::ALIGNMENT)-byte aligned and padded to a
/// multiple of [`ALIGNMENT`](crate::ALIGNMENT); memory wrapped with [`from_owner`](Self::from_owner) or
/// `From<Vec<u8>>` is used where it lies, with whatever alignment it has, so the typed view
/// [`typed`](Self::typed) checks alignment and length and returns an error rather than
/// undefined behaviour.
///
/// # Examples
/// ```
/// use alkaid_buffer::Buffer;
/// let buffer = Buffer::from_slice_ref(&[1i32, 2, 3, 4]);
/// let tail = buffer.slice(8, 8); // bytes 8..16: the values 3 and 4, not copied
/// assert_eq!(tail.typed::<i32>().unwrap(), &[3, 4]);
/// assert!(tail.shares_allocation_with(&buffer));
/// ```
#[derive(Clone)]
pub struct Buffer {
    storage: Arc<Storage>,
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: a Buffer only gives shared, read-only access to bytes kept alive by an
// Arc<Storage>, and Storage is Send + Sync.
unsafe impl Send for Buffer {}
// SAFETY: as above.
unsafe impl Sync for Buffer {}

impl Buffer {
    fn from_storage(storage: Storage) -> Self {
        let (ptr, len) = (storage.ptr(), storage.len());
        Self {
            storage: Arc::new(storage),
            ptr,
            len,
        }
    }

    /// An empty buffer; does not allocate: every empty buffer made here shares one owner
    /// (so they share one [`allocation_id`](Self::allocation_id), of size 0). A batch read
    /// from IPC has one for every column without nulls, and an allocation each cost a
    /// tenth of what opening a small file costs.
    pub fn empty() -> Self {
        static EMPTY: LazyLock<Buffer> = LazyLock::new(|| {
            // SAFETY: zero bytes are trivially initialised.
            Buffer::from_storage(unsafe { Storage::from_allocation(Allocation::empty(), 0) })
        });
        EMPTY.clone()
    }

    /// Copies `values` into a new aligned, padded allocation.
    pub fn from_slice_ref<T: NativeType>(values: &[T]) -> Self {
        let mut buffer = MutableBuffer::with_capacity(size_of_val(values));
        buffer.extend_from_slice(values);
        buffer.into()
    }

    /// Wraps memory owned by `owner` without copying, keeping `owner` alive for as long as any
    /// buffer refers to it.
    ///
    /// Anything that can lend its bytes works: a `Vec<u8>`, a `bytes::Bytes`, a memory map
    /// (`memmap2::Mmap`), a `Box<[u8]>`, a `&'static [u8]`. The bytes are used where they
    /// lie; their alignment is whatever the owner gives.
    ///
    /// # Examples
    /// ```
    /// use alkaid_buffer::Buffer;
    /// let owner: Box<[u8]> = vec![1, 2, 3].into_boxed_slice();
    /// let address = owner.as_ptr();
    /// let buffer = Buffer::from_owner(owner);
    /// assert_eq!(buffer.as_ptr(), address); // not copied
    /// assert_eq!(&buffer[..], &[1, 2, 3]);
    /// ```
    pub fn from_owner<T: AsRef<[u8]> + Send + Sync + 'static>(owner: T) -> Self {
        Self::from_storage(Storage::from_owner(owner))
    }

    /// Wraps a `Vec<T>` of native values without copying.
    ///
    /// # Examples
    /// ```
    /// use alkaid_buffer::Buffer;
    /// let buffer = Buffer::from_vec(vec![1.5f64, 2.5]);
    /// assert_eq!(buffer.len(), 16);
    /// assert_eq!(buffer.typed::<f64>().unwrap(), &[1.5, 2.5]);
    /// ```
    pub fn from_vec<T: NativeType>(values: Vec<T>) -> Self {
        Self::from_owner(crate::native::NativeVec(values))
    }

    /// Number of bytes in this buffer.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether this buffer has no bytes.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: [ptr, ptr + len) lies within the storage's initialised bytes (every
        // constructor and slice keeps that invariant), and the storage is alive and never
        // written while `self` borrows it.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// Pointer to the first byte.
    #[inline]
    pub fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }

    /// Whether the first byte's address is a multiple of `alignment`.
    pub fn is_aligned_to(&self, alignment: usize) -> bool {
        (self.as_ptr() as usize).is_multiple_of(alignment)
    }

    /// Views the bytes as a slice of `T`.
    ///
    /// # Errors
    /// [`BufferError::Misaligned`] if the bytes are not aligned for `T`, and
    /// [`BufferError::PartialElement`] if the length is not a multiple of `T`'s size.
    pub fn typed<T: NativeType>(&self) -> Result<&[T], BufferError> {
        crate::native::cast_slice(self.as_slice())
    }

    /// An O(1) view of `len` bytes starting at `offset`, sharing this buffer's memory.
    ///
    /// # Panics
    /// If `offset + len > self.len()`; see [`try_slice`](Self::try_slice) for a checked form.
    #[inline]
    pub fn slice(&self, offset: usize, len: usize) -> Self {
        if offset.checked_add(len).is_none_or(|end| end > self.len) {
            slice_out_of_bounds(offset, len, self.len);
        }
        self.slice_in_bounds(offset, len)
    }

    /// An O(1) view of `len` bytes starting at `offset`.
    ///
    /// # Errors
    /// [`BufferError::OutOfBounds`] if the range does not fit in this buffer.
    #[inline]
    pub fn try_slice(&self, offset: usize, len: usize) -> Result<Self, BufferError> {
        check_range("bytes", offset, len, self.len)?;
        Ok(self.slice_in_bounds(offset, len))
    }

    /// [`try_slice`](Self::try_slice) that consumes this buffer: the view keeps its
    /// reference to the memory instead of taking a new one, so no atomic reference-count
    /// update is paid (decoders slice every buffer they read).
    ///
    /// # Errors
    /// [`BufferError::OutOfBounds`] if the range does not fit in this buffer.
    #[inline]
    pub fn try_into_slice(mut self, offset: usize, len: usize) -> Result<Self, BufferError> {
        check_range("bytes", offset, len, self.len)?;
        // SAFETY: offset <= self.len (checked just above), so the pointer stays inside (or
        // one past the end of) the buffer's bytes, which `storage` keeps alive.
        self.ptr = unsafe { self.ptr.add(offset) };
        self.len = len;
        Ok(self)
    }

    /// The slice, once the caller has checked `offset + len <= self.len`.
    #[inline]
    fn slice_in_bounds(&self, offset: usize, len: usize) -> Self {
        debug_assert!(offset + len <= self.len);
        // SAFETY: offset <= self.len (checked by both callers), so the result stays inside
        // (or one past the end of) the buffer's bytes.
        let ptr = unsafe { self.ptr.add(offset) };
        Self {
            storage: Arc::clone(&self.storage),
            ptr,
            len,
        }
    }

    /// These bytes, copied to a new [`ALIGNMENT`](crate::ALIGNMENT)-aligned allocation if
    /// they are not aligned to `alignment` and returned as they are otherwise. Use it before
    /// [`typed`](Self::typed) on foreign bytes that may be misaligned (an 8-byte aligned IPC
    /// body holding `i128`s).
    pub fn realigned(self, alignment: usize) -> Self {
        if self.is_aligned_to(alignment) {
            self
        } else {
            Self::from_slice_ref(self.as_slice())
        }
    }

    /// Whether both buffers point into the same allocation.
    pub fn shares_allocation_with(&self, other: &Buffer) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }

    /// Bytes held by the allocation behind this buffer, which may be more than
    /// [`len`](Self::len): the whole padded capacity, or the whole foreign region a slice
    /// came from. Buffers that share an allocation report the same size; add them with a
    /// [`MemoryTally`](crate::memory::MemoryTally) to count it once.
    pub fn allocation_size(&self) -> usize {
        self.storage.size()
    }

    /// An identifier of the allocation behind this buffer, equal for buffers that share it
    /// and distinct among allocations alive at the same time.
    pub fn allocation_id(&self) -> usize {
        Arc::as_ptr(&self.storage) as usize
    }

    /// Accounts the allocation behind this buffer to `pool` until it is freed.
    ///
    /// Claiming an allocation already claimed by `pool` changes nothing; claiming it for a
    /// different pool moves the whole allocation there.
    pub fn claim(&self, pool: &Arc<dyn MemoryPool>) {
        self.storage.claim(pool);
    }

    /// Turns this buffer back into a [`MutableBuffer`] without copying, when it is the only
    /// reference to an allocation Alkaid made and covers it from the start; otherwise
    /// returns it unchanged.
    pub fn into_mutable(self) -> Result<MutableBuffer, Self> {
        let starts_at_allocation = self.ptr == self.storage.ptr();
        if !starts_at_allocation || !self.storage.is_allocation() {
            return Err(self);
        }
        let Self { storage, ptr, len } = self;
        let storage = match Arc::try_unwrap(storage) {
            Ok(storage) => storage,
            Err(storage) => return Err(Self { storage, ptr, len }),
        };
        match storage.into_allocation() {
            // SAFETY: the allocation is now owned by nobody else and its first `len` bytes
            // are this buffer's (initialised) bytes; len <= the storage's len <= capacity.
            Ok((allocation, _)) => Ok(unsafe { MutableBuffer::from_allocation(allocation, len) }),
            Err(storage) => Err(Self::from_storage(storage)),
        }
    }

    /// Builds a buffer over an Alkaid allocation (used by [`MutableBuffer`] to freeze).
    ///
    /// # Safety
    /// As [`Storage::from_allocation`].
    pub(crate) unsafe fn from_allocation(allocation: Allocation, len: usize) -> Self {
        // SAFETY: forwarded to the caller.
        Self::from_storage(unsafe { Storage::from_allocation(allocation, len) })
    }
}

#[cold]
#[track_caller]
fn slice_out_of_bounds(offset: usize, len: usize, available: usize) -> ! {
    panic!(
        "{}",
        BufferError::OutOfBounds {
            unit: "bytes",
            offset,
            len,
            available
        }
    )
}

impl Default for Buffer {
    fn default() -> Self {
        Self::empty()
    }
}

impl Deref for Buffer {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl AsRef<[u8]> for Buffer {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl PartialEq for Buffer {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Buffer {}

impl fmt::Debug for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 32;
        write!(
            f,
            "Buffer({} bytes: {:?}",
            self.len,
            &self.as_slice()[..self.len.min(SHOWN)]
        )?;
        if self.len > SHOWN {
            write!(f, "...")?;
        }
        write!(f, ")")
    }
}

impl From<Vec<u8>> for Buffer {
    /// Wraps the vector without copying.
    fn from(vec: Vec<u8>) -> Self {
        Self::from_owner(vec)
    }
}

impl From<&[u8]> for Buffer {
    /// Copies the bytes into an aligned allocation.
    fn from(bytes: &[u8]) -> Self {
        Self::from_slice_ref(bytes)
    }
}

impl<T: NativeType> FromIterator<T> for Buffer {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        MutableBuffer::from_iter(iter).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ALIGNMENT;

    #[test]
    fn allocated_buffers_are_aligned_and_padded() {
        let buffer = Buffer::from_slice_ref(&[1u8, 2, 3]);
        assert!(buffer.is_aligned_to(ALIGNMENT));
        assert_eq!(buffer.len(), 3);
        assert_eq!(buffer.allocation_size(), ALIGNMENT);
    }

    #[test]
    fn empty_buffer_has_no_allocation() {
        let buffer = Buffer::empty();
        assert!(buffer.is_empty());
        assert_eq!(buffer.allocation_size(), 0);
        assert_eq!(buffer.typed::<u64>().unwrap(), &[] as &[u64]);
        assert_eq!(buffer.slice(0, 0).len(), 0);
        // Every empty buffer shares one owner, which a claim leaves alone.
        assert_eq!(buffer.allocation_id(), Buffer::empty().allocation_id());
        let pool: Arc<dyn MemoryPool> = Arc::new(crate::memory::TrackingPool::default());
        buffer.claim(&pool);
        assert_eq!(pool.used(), 0);
        assert_eq!(
            Arc::strong_count(&pool),
            1,
            "the shared owner keeps no pool alive"
        );
        // Memory with bytes is claimed as before.
        let full = Buffer::from_slice_ref(&[1u8; 10]);
        full.claim(&pool);
        assert_eq!(pool.used(), ALIGNMENT);
        drop(full);
        assert_eq!(pool.used(), 0);
    }

    #[test]
    fn slices_share_memory_and_nest() {
        let buffer = Buffer::from_slice_ref(&(0u8..100).collect::<Vec<_>>());
        let a = buffer.slice(10, 50);
        let b = a.slice(5, 5);
        assert_eq!(&b[..], &[15, 16, 17, 18, 19]);
        assert_eq!(b.as_ptr(), buffer.as_ptr().wrapping_add(15));
        assert!(b.shares_allocation_with(&buffer));
        assert_eq!(a.slice(50, 0).len(), 0);
    }

    #[test]
    fn out_of_range_slices_are_errors() {
        let buffer = Buffer::from_slice_ref(&[0u8; 10]);
        assert_eq!(
            buffer.try_slice(8, 3),
            Err(BufferError::OutOfBounds {
                unit: "bytes",
                offset: 8,
                len: 3,
                available: 10
            })
        );
        assert!(buffer.try_slice(11, 0).is_err());
        assert!(buffer.try_slice(usize::MAX, 2).is_err());
        assert!(buffer.try_slice(10, 0).is_ok());
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn slice_panics_out_of_range() {
        Buffer::from_slice_ref(&[0u8; 4]).slice(2, 3);
    }

    #[test]
    fn typed_view_checks_alignment_and_length() {
        let buffer = Buffer::from_slice_ref(&[1u32, 2, 3]);
        assert_eq!(buffer.typed::<u32>().unwrap(), &[1, 2, 3]);
        let misaligned = buffer.slice(1, 8);
        assert!(matches!(
            misaligned.typed::<u32>(),
            Err(BufferError::Misaligned { required: 4, .. })
        ));
        let partial = buffer.slice(0, 6);
        assert_eq!(
            partial.typed::<u32>(),
            Err(BufferError::PartialElement {
                type_name: "u32",
                element_size: 4,
                byte_len: 6
            })
        );
        // u8 has no alignment requirement.
        assert_eq!(misaligned.typed::<u8>().unwrap().len(), 8);
    }

    #[test]
    fn realigned_copies_only_when_needed() {
        let buffer = Buffer::from_slice_ref(&[7u64, 8, 9]);
        let aligned = buffer.slice(8, 16).realigned(8);
        assert!(aligned.shares_allocation_with(&buffer));
        let odd = buffer.slice(1, 16);
        let fixed = odd.clone().realigned(8);
        assert!(!fixed.shares_allocation_with(&buffer));
        assert_eq!(fixed, odd);
        assert!(fixed.typed::<u64>().is_ok());
    }

    #[test]
    fn a_consuming_slice_is_the_borrowing_one() {
        let buffer = Buffer::from_slice_ref(&[1u8, 2, 3, 4, 5]);
        let moved = buffer.clone().try_into_slice(1, 3).unwrap();
        assert_eq!(moved, buffer.slice(1, 3));
        assert!(moved.shares_allocation_with(&buffer));
        // The edges: an empty view at the very end, and one byte past it.
        assert!(buffer.clone().try_into_slice(5, 0).unwrap().is_empty());
        assert!(matches!(
            buffer.clone().try_into_slice(5, 1),
            Err(BufferError::OutOfBounds { .. })
        ));
        assert!(buffer.clone().try_into_slice(usize::MAX, 2).is_err());
    }

    #[test]
    fn vec_is_wrapped_without_copy() {
        let vec: Vec<u8> = (0..200).collect();
        let address = vec.as_ptr();
        let buffer = Buffer::from(vec);
        assert_eq!(buffer.as_ptr(), address);
        assert_eq!(buffer.allocation_size(), 200);
        let typed = Buffer::from_vec(vec![1u16, 2, 3]);
        assert_eq!(typed.typed::<u16>().unwrap(), &[1, 2, 3]);
    }

    #[test]
    fn inline_owner_bytes_stay_valid_after_the_move() {
        // The owner keeps its bytes inline, so taking the slice before boxing would dangle.
        let buffer = Buffer::from_owner([9u8; 16]);
        let clone = buffer.clone();
        drop(buffer);
        assert_eq!(&clone[..], &[9u8; 16]);
    }

    #[test]
    fn into_mutable_reuses_a_unique_allocation() {
        let buffer = Buffer::from_slice_ref(&[1u8, 2, 3]);
        let address = buffer.as_ptr();
        let mut mutable = buffer.into_mutable().unwrap();
        assert_eq!(mutable.as_ptr(), address);
        mutable.push(4u8);
        assert_eq!(mutable.as_slice(), &[1, 2, 3, 4]);

        let shared = Buffer::from_slice_ref(&[1u8, 2, 3]);
        let other = shared.clone();
        let shared = shared.into_mutable().unwrap_err();
        assert_eq!(shared, other);
        drop(other);
        assert!(shared.slice(1, 2).into_mutable().is_err());
        assert!(Buffer::from(vec![1u8]).into_mutable().is_err());
    }

    #[test]
    fn allocation_ids_tell_shared_from_separate_memory() {
        let a = Buffer::from_slice_ref(&[1u8; 10]);
        let b = Buffer::from_slice_ref(&[1u8; 10]);
        assert_eq!(a.allocation_id(), a.slice(3, 2).allocation_id());
        assert_ne!(a.allocation_id(), b.allocation_id());
        assert_eq!(a, b); // equal bytes, different memory
    }

    #[test]
    fn debug_shows_a_prefix() {
        let text = format!("{:?}", Buffer::from_slice_ref(&[0u8; 40]));
        assert!(text.starts_with("Buffer(40 bytes: [0, 0"), "{text}");
        assert!(text.ends_with("...)"), "{text}");
    }
}
