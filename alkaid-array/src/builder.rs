//! [`ArrayBuilder`]: any builder, behind `dyn`, so that nested builders can hold children of
//! any type.

use std::any::Any;
use std::sync::Arc;

use crate::types::PrimitiveType;
use crate::{
    ArrayError, ArrayRef, BooleanBuilder, ByteArrayType, GenericByteBuilder, PrimitiveBuilder,
};

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
    ///
    /// # Errors
    /// If the values appended do not make a valid array (a null map key, say); builders
    /// whose typed `finish` cannot fail never return an error.
    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError>;

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
    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
        Ok(Arc::new(PrimitiveBuilder::finish(self)))
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
    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
        Ok(Arc::new(BooleanBuilder::finish(self)))
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
    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
        Ok(Arc::new(GenericByteBuilder::finish(self)))
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// A boxed builder is a builder, so that nested builders can hold children chosen at run
/// time (see [`make_builder`](crate::make_builder)).
impl ArrayBuilder for Box<dyn ArrayBuilder> {
    fn len(&self) -> usize {
        self.as_ref().len()
    }
    fn append_null(&mut self) {
        self.as_mut().append_null();
    }
    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
        self.as_mut().try_finish()
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self.as_mut().as_any_mut()
    }
}
