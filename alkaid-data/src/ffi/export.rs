//! Exporting an [`ArrayData`] as an `ArrowArray` without copying its buffers.

use std::ffi::c_void;
use std::ptr;

use alkaid_buffer::Buffer;
use alkaid_buffer::builder::BooleanBufferBuilder;

use super::ArrowArray;
use crate::ArrayData;
use crate::layout::layout;

/// What an exported array owns until it is released.
struct Exported {
    /// Keeps every shared buffer alive.
    _data: ArrayData,
    /// Buffers made for the export: a validity bitmap moved to the array's offset, the
    /// sizes of view data buffers.
    _made: Vec<Buffer>,
    buffers: Vec<*const c_void>,
    children: Vec<*mut ArrowArray>,
    dictionary: *mut ArrowArray,
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
        let spec = layout(data.data_type());
        let mut made = Vec::new();
        let mut buffers: Vec<*const c_void> = Vec::with_capacity(data.buffers().len() + 2);
        if spec.has_validity {
            buffers.push(match data.nulls().filter(|n| n.null_count() > 0) {
                None => ptr::null(),
                Some(nulls) => {
                    let validity = nulls.validity();
                    if validity.offset() == data.offset() {
                        validity.inner().as_ptr().cast()
                    } else {
                        // Bit `offset + i` must be slot i's.
                        let mut bits = BooleanBufferBuilder::new(data.offset() + data.len());
                        bits.append_n(data.offset(), false);
                        bits.append_packed_range(validity.inner(), validity.offset(), data.len());
                        let moved = bits.finish().inner().clone();
                        let pointer = moved.as_ptr().cast();
                        made.push(moved);
                        pointer
                    }
                }
            });
        }
        buffers.extend(data.buffers().iter().map(|b| b.as_ptr().cast::<c_void>()));
        if spec.variadic {
            // The interface wants the data buffers' sizes as one more buffer.
            let sizes: Vec<i64> = data.buffers()[1..].iter().map(|b| b.len() as i64).collect();
            let sizes = Buffer::from_vec(sizes);
            buffers.push(sizes.as_ptr().cast());
            made.push(sizes);
        }
        let children: Vec<*mut ArrowArray> = data
            .children()
            .iter()
            .map(|child| Box::into_raw(Box::new(Self::export(child))))
            .collect();
        let dictionary = data.dictionary().map_or(ptr::null_mut(), |d| {
            Box::into_raw(Box::new(Self::export(d)))
        });
        let mut exported = Box::new(Exported {
            _data: data.clone(),
            _made: made,
            buffers,
            children,
            dictionary,
        });
        Self {
            length: data.len() as i64,
            null_count: data.null_count() as i64,
            offset: data.offset() as i64,
            n_buffers: exported.buffers.len() as i64,
            n_children: exported.children.len() as i64,
            buffers: exported.buffers.as_mut_ptr(),
            children: exported.children.as_mut_ptr(),
            dictionary: exported.dictionary,
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
    // freed once.
    let exported = unsafe { Box::from_raw(array.private_data.cast::<Exported>()) };
    for &child in exported.children.iter().chain([exported.dictionary].iter()) {
        if !child.is_null() {
            // SAFETY: from `Box::into_raw` in `export`, freed only here; dropping releases
            // the child unless a consumer moved it out (its release is then null).
            drop(unsafe { Box::from_raw(child) });
        }
    }
    array.private_data = ptr::null_mut();
    array.release = None;
}
