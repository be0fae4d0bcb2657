//! [`GenericByteViewBuilder`]: builds view arrays, packing long values into data blocks.

use std::any::Any;
use std::sync::Arc;

use alkaid_buffer::builder::NullBufferBuilder;
use alkaid_buffer::native::ByteView;
use alkaid_buffer::{Buffer, MutableBuffer, ScalarBuffer};

use super::{ByteViewType, GenericByteViewArray};
use crate::{ArrayBuilder, ArrayError, ArrayRef};

/// The first data block's size; each next block doubles, up to [`MAX_BLOCK`].
const FIRST_BLOCK: usize = 8 * 1024;
/// The largest data block the builder starts (a longer value gets a block of its own size).
const MAX_BLOCK: usize = 2 * 1024 * 1024;

/// Appends values: up to 12 bytes go inline in the view, longer ones into the current data
/// block, which is sealed and replaced by a larger one when full.
///
/// # Examples
/// ```
/// use alkaid_array::{Array, GenericByteViewBuilder, StringViewType};
/// let mut builder = GenericByteViewBuilder::<StringViewType>::new();
/// builder.append_value("tiny");
/// builder.append_null();
/// builder.append_value("long enough to leave the view");
/// let array = builder.finish();
/// assert_eq!((array.len(), array.null_count()), (3, 1));
/// ```
#[derive(Debug)]
pub struct GenericByteViewBuilder<T: ByteViewType> {
    views: MutableBuffer,
    sealed: Vec<Buffer>,
    current: Vec<u8>,
    next_block: usize,
    nulls: NullBufferBuilder,
    phantom: std::marker::PhantomData<T>,
}

impl<T: ByteViewType> GenericByteViewBuilder<T> {
    /// An empty builder.
    pub fn new() -> Self {
        Self {
            views: MutableBuffer::new(),
            sealed: Vec::new(),
            current: Vec::new(),
            next_block: FIRST_BLOCK,
            nulls: NullBufferBuilder::new(0),
            phantom: std::marker::PhantomData,
        }
    }

    /// Appends a value.
    ///
    /// # Panics
    /// If one value is longer than `i32::MAX` bytes.
    pub fn append_value(&mut self, value: impl AsRef<T::Native>) {
        let bytes: &[u8] = value.as_ref().as_ref();
        let view = if bytes.len() <= ByteView::MAX_INLINE {
            ByteView::new_inline(bytes)
        } else {
            if self.current.len() + bytes.len() > self.current.capacity() {
                self.seal();
                let block = self.next_block.max(bytes.len());
                self.next_block = (self.next_block * 2).min(MAX_BLOCK);
                self.current = Vec::with_capacity(block);
            }
            let index = i32::try_from(self.sealed.len()).expect("fewer than 2^31 data blocks");
            let offset = i32::try_from(self.current.len()).expect("blocks stay below 2 GiB");
            self.current.extend_from_slice(bytes);
            ByteView::new_reference(bytes, index, offset)
        };
        self.views.push(view);
        self.nulls.append_non_null();
    }

    /// Appends `n` copies of `value`; long values are stored once and viewed `n` times.
    ///
    /// # Panics
    /// As [`append_value`](Self::append_value).
    pub fn append_n(&mut self, n: usize, value: impl AsRef<T::Native>) {
        if n == 0 {
            return;
        }
        self.append_value(value);
        let view = self.views.typed::<ByteView>().expect("whole views")[self.views.len() / 16 - 1];
        for _ in 1..n {
            self.views.push(view);
            self.nulls.append_non_null();
        }
    }

    /// Appends a null (an empty inline view).
    pub fn append_null(&mut self) {
        self.views.push(ByteView::default());
        self.nulls.append_null();
    }

    fn seal(&mut self) {
        if !self.current.is_empty() {
            self.sealed
                .push(Buffer::from(std::mem::take(&mut self.current)));
        }
    }

    /// Number of slots appended.
    pub fn len(&self) -> usize {
        self.nulls.len()
    }

    /// Whether nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Finishes the array, leaving the builder empty.
    pub fn finish(&mut self) -> GenericByteViewArray<T> {
        self.seal();
        let views: Buffer = std::mem::take(&mut self.views).into();
        let views = ScalarBuffer::try_from(views).expect("whole views in an aligned allocation");
        self.next_block = FIRST_BLOCK;
        GenericByteViewArray {
            views,
            buffers: std::mem::take(&mut self.sealed).into(),
            nulls: self.nulls.finish(),
            phantom: std::marker::PhantomData,
        }
    }
}

impl<T: ByteViewType> Default for GenericByteViewBuilder<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: ByteViewType> ArrayBuilder for GenericByteViewBuilder<T> {
    fn len(&self) -> usize {
        GenericByteViewBuilder::len(self)
    }
    fn append_null(&mut self) {
        GenericByteViewBuilder::append_null(self);
    }
    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
        Ok(Arc::new(GenericByteViewBuilder::finish(self)))
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
