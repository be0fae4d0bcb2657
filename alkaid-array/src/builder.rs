//! [`ArrayBuilder`]: any builder, behind `dyn`, so that nested builders can hold children of
//! any type.

use std::any::Any;
use std::sync::Arc;

use crate::types::PrimitiveType;
use crate::{ArrayRef, BooleanBuilder, ByteArrayType, GenericByteBuilder, PrimitiveBuilder};

/// A builder of any array type.
pub trait ArrayBuilder: Any + Send {
    /// Number of slots appended.
    fn len(&self) -> usize;

    /// Whether nothing was appended.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends a null slot.
    fn append_null(&mut self);

    /// Finishes the array, leaving the builder empty.
    fn finish(&mut self) -> ArrayRef;

    /// The builder as `Any`, to reach its typed methods.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: PrimitiveType> ArrayBuilder for PrimitiveBuilder<T> {
    fn len(&self) -> usize {
        PrimitiveBuilder::len(self)
    }
    fn append_null(&mut self) {
        PrimitiveBuilder::append_null(self);
    }
    fn finish(&mut self) -> ArrayRef {
        Arc::new(PrimitiveBuilder::finish(self))
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

impl ArrayBuilder for BooleanBuilder {
    fn len(&self) -> usize {
        BooleanBuilder::len(self)
    }
    fn append_null(&mut self) {
        BooleanBuilder::append_null(self);
    }
    fn finish(&mut self) -> ArrayRef {
        Arc::new(BooleanBuilder::finish(self))
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

impl<T: ByteArrayType> ArrayBuilder for GenericByteBuilder<T> {
    fn len(&self) -> usize {
        GenericByteBuilder::len(self)
    }
    fn append_null(&mut self) {
        GenericByteBuilder::append_null(self);
    }
    fn finish(&mut self) -> ArrayRef {
        Arc::new(GenericByteBuilder::finish(self))
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
