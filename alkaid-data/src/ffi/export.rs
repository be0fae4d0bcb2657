//! Exporting an [`ArrayData`] as an `ArrowArray` without copying its buffers.

use std::ffi::c_void;
use std::ptr;

use alkaid_buffer::builder::BooleanBufferBuilder;
use alkaid_buffer::{Buffer, NullBuffer};

use super::ArrowArray;
use crate::ArrayData;
use crate::layout::layout;

/// What an exported array owns until it is released.
struct Exported {
    /// This level's buffers, moved in (the children and the dictionary keep their own).
    _buffers: Vec<Buffer>,
    _nulls: Option<NullBuffer>,
    /// Buffers made for the export: a validity bitmap moved to the array's offset, the
    /// sizes of view data buffers.
    _made: Vec<Buffer>,
    buffers: Pointers,
    /// The children themselves, in one allocation; a consumer may move any of them out,
    /// leaving a released struct behind.
    children: Vec<ArrowArray>,
    child_pointers: Vec<*mut ArrowArray>,
    dictionary: Option<ArrowArray>,
}

/// How many buffer pointers an export keeps inside its own allocation: every layout's
/// (validity and up to three buffers) but a view array's with data buffers.
const INLINE_POINTERS: usize = 4;

/// The buffer pointers the consumer reads, inside the export's allocation when they fit,
/// so that exporting a batch of many columns allocates once per column.
enum Pointers {
    Inline([*const c_void; INLINE_POINTERS], usize),
    Heap(Vec<*const c_void>),
}

impl Pointers {
    fn new(count: usize) -> Self {
        match count <= INLINE_POINTERS {
            true => Pointers::Inline([ptr::null(); INLINE_POINTERS], 0),
            false => Pointers::Heap(Vec::with_capacity(count)),
        }
    }

    fn push(&mut self, pointer: *const c_void) {
        match self {
            Pointers::Inline(pointers, len) if *len < INLINE_POINTERS => {
                pointers[*len] = pointer;
                *len += 1;
            }
            Pointers::Inline(pointers, len) => {
                let mut heap = pointers[..*len].to_vec();
                heap.push(pointer);
                *self = Pointers::Heap(heap);
            }
            Pointers::Heap(pointers) => pointers.push(pointer),
        }
    }

    fn len(&self) -> usize {
        match self {
            Pointers::Inline(_, len) => *len,
            Pointers::Heap(pointers) => pointers.len(),
        }
    }

    fn as_mut_ptr(&mut self) -> *mut *const c_void {
        match self {
            Pointers::Inline(pointers, _) => pointers.as_mut_ptr(),
            Pointers::Heap(pointers) => pointers.as_mut_ptr(),
        }
    }
}

impl ArrowArray {
    /// Exports `data`, sharing its buffers (the memory stays alive until the consumer
    /// releases the array). The only copy ever made is of a validity bitmap whose bit
    /// offset differs from the array's, which the interface's single offset cannot express.
    ///
    /// ```
    /// use alkaid_buffer::Buffer;
    /// use alkaid_data::ArrayData;
    /// use alkaid_data::ffi::{ArrowArray, import_array};
    /// use alkaid_schema::DataType;
    /// let data = ArrayData::builder(DataType::Int32)
    ///     .len(3)
    ///     .buffers(vec![Buffer::from_slice_ref(&[1i32, 2, 3])])
    ///     .build()?;
    /// let mut exported = ArrowArray::export(&data);
    /// // SAFETY: an export of this crate, of an Int32 array, imported once.
    /// let back = unsafe { import_array(&mut exported, &DataType::Int32) }?;
    /// assert!(alkaid_data::equal(&back, &data));
    /// assert_eq!(back.buffers()[0].as_ptr(), data.buffers()[0].as_ptr()); // shared
    /// # Ok::<(), alkaid_data::DataError>(())
    /// ```
    pub fn export(data: &ArrayData) -> Self {
        Self::export_owned(data.clone())
    }

    /// Exports `data` as [`export`](Self::export) does, taking it: its buffer lists move
    /// into the export instead of being cloned (the cheaper call for data made only to
    /// be exported, as a record batch's struct is).
    pub fn export_owned(data: ArrayData) -> Self {
        let spec = layout(data.data_type());
        let (len, offset, null_count) = (data.len(), data.offset(), data.null_count());
        let parts = data.into_parts();
        let mut made = Vec::new();
        let count =
            usize::from(spec.has_validity) + parts.buffers.len() + usize::from(spec.variadic);
        let mut buffers = Pointers::new(count);
        let nulls = parts.nulls.filter(|n| n.null_count() > 0);
        if spec.has_validity {
            buffers.push(match &nulls {
                None => ptr::null(),
                Some(nulls) => {
                    let validity = nulls.validity();
                    if validity.offset() == offset {
                        validity.inner().as_ptr().cast()
                    } else {
                        // Bit `offset + i` must be slot i's.
                        let mut bits = BooleanBufferBuilder::new(offset + len);
                        bits.append_n(offset, false);
                        bits.append_packed_range(validity.inner(), validity.offset(), len);
                        let moved = bits.finish().inner().clone();
                        let pointer = moved.as_ptr().cast();
                        made.push(moved);
                        pointer
                    }
                }
            });
        }
        for buffer in &parts.buffers {
            buffers.push(buffer.as_ptr().cast());
        }
        if spec.variadic {
            // The interface wants the data buffers' sizes as one more buffer.
            let sizes: Vec<i64> = parts.buffers[1..].iter().map(|b| b.len() as i64).collect();
            let sizes = Buffer::from_vec(sizes);
            buffers.push(sizes.as_ptr().cast());
            made.push(sizes);
        }
        let mut exported = Box::new(Exported {
            _buffers: parts.buffers,
            _nulls: nulls,
            _made: made,
            buffers,
            children: parts.children.into_iter().map(Self::export_owned).collect(),
            child_pointers: Vec::new(),
            dictionary: parts.dictionary.map(|d| Self::export(&d)),
        });
        // Taken once everything is in its final place: the box is not moved again.
        exported.child_pointers = exported.children.iter_mut().map(|c| c as *mut _).collect();
        let dictionary_pointer = exported
            .dictionary
            .as_mut()
            .map_or(ptr::null_mut(), |d| d as *mut ArrowArray);
        Self {
            length: len as i64,
            null_count: null_count as i64,
            offset: offset as i64,
            n_buffers: exported.buffers.len() as i64,
            n_children: exported.child_pointers.len() as i64,
            buffers: exported.buffers.as_mut_ptr(),
            children: exported.child_pointers.as_mut_ptr(),
            dictionary: dictionary_pointer,
            release: Some(release_exported),
            private_data: Box::into_raw(exported).cast(),
        }
    }
}

/// The release callback of exported arrays.
unsafe extern "C" fn release_exported(array: *mut ArrowArray) {
    // SAFETY: the interface passes the array whose callback this is; null or an already
    // released array is ignored.
    let Some(array) = (unsafe { array.as_mut() }) else {
        return;
    };
    if array.release.is_none() || array.private_data.is_null() {
        return;
    }
    // SAFETY: made by `Box::into_raw` of an `Exported` in `export`, and cleared below, so
    // freed once. Dropping it drops the children and the dictionary, which releases each
    // one a consumer did not move out.
    drop(unsafe { Box::from_raw(array.private_data.cast::<Exported>()) });
    array.private_data = ptr::null_mut();
    array.release = None;
}
