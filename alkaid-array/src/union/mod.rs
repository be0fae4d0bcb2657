//! [`UnionArray`]: each slot a value of one of several child types, and [`UnionBuilder`].

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use alkaid_buffer::{MutableBuffer, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, Fields, UnionMode, UnionType};

use crate::{Array, ArrayBuilder, ArrayError, ArrayRef, make_array};

/// A union: slot `i` is a value of the child its type id selects. Sparse unions keep every
/// child as long as the union; dense ones add an offset into the selected child.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{ArrayRef, AsArray, Int32Array, StringArray, UnionArray};
/// use alkaid_schema::{DataType, Field, UnionMode, UnionType};
///
/// let union_type = UnionType::try_new(
///     vec![Field::new("i", DataType::Int32, true), Field::new("s", DataType::Utf8, true)],
///     [0, 1],
///     UnionMode::Dense,
/// )?;
/// let children: Vec<ArrayRef> = vec![Arc::new(Int32Array::from(vec![7])), Arc::new(StringArray::from(vec!["x"]))];
/// let union = UnionArray::try_new(union_type, vec![1, 0].into(), Some(vec![0, 0].into()), children)?;
/// assert_eq!(union.type_id(0), 1);
/// assert_eq!(union.value(0).as_string::<i32>().value(0), "x");
/// # Ok::<(), alkaid_array::ArrayError>(())
/// ```
#[derive(Clone)]
pub struct UnionArray {
    data_type: DataType,
    type_ids: ScalarBuffer<i8>,
    /// Dense unions only.
    offsets: Option<ScalarBuffer<i32>>,
    /// Sparse: positioned at the union's slot 0 and as long as the union. Dense: whole.
    children: Vec<ArrayRef>,
}

impl UnionArray {
    /// A union from its parts, checked fully (type ids declared, dense offsets inside their
    /// child).
    ///
    /// # Errors
    /// If offsets are given for a sparse union or missing for a dense one, or validation
    /// fails.
    pub fn try_new(
        union_type: UnionType,
        type_ids: ScalarBuffer<i8>,
        offsets: Option<ScalarBuffer<i32>>,
        children: Vec<ArrayRef>,
    ) -> Result<Self, ArrayError> {
        let dense = union_type.mode() == UnionMode::Dense;
        if dense != offsets.is_some() {
            return Err(ArrayError::ColumnMismatch {
                column: "union".to_string(),
                reason: "offsets are required for dense unions and not allowed for sparse ones"
                    .to_string(),
            });
        }
        let mut buffers = vec![type_ids.inner().clone()];
        buffers.extend(offsets.map(|o| o.inner().clone()));
        let data = ArrayData::builder(DataType::Union(union_type))
            .len(type_ids.len())
            .buffers(buffers)
            .children(children.iter().map(|c| c.to_data()).collect())
            .build()?;
        Self::try_from(data)
    }

    fn union_type(&self) -> &UnionType {
        match &self.data_type {
            DataType::Union(union) => union,
            _ => unreachable!("a union array has a union type"),
        }
    }

    /// The type id of slot `i`.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn type_id(&self, i: usize) -> i8 {
        self.type_ids[i]
    }

    /// The type ids.
    pub fn type_ids(&self) -> &ScalarBuffer<i8> {
        &self.type_ids
    }

    /// The dense offsets (`None` for sparse unions).
    pub fn offsets(&self) -> Option<&ScalarBuffer<i32>> {
        self.offsets.as_ref()
    }

    /// The children.
    pub fn children(&self) -> &[ArrayRef] {
        &self.children
    }

    /// The child index and the slot in it that hold slot `i`'s value.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn locate(&self, i: usize) -> (usize, usize) {
        let child = self
            .union_type()
            .child_index(self.type_ids[i])
            .expect("validated type ids are declared");
        let slot = match &self.offsets {
            Some(offsets) => offsets[i] as usize,
            None => i,
        };
        (child, slot)
    }

    /// Slot `i` as a one-value array of its child's type.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn value(&self, i: usize) -> ArrayRef {
        let (child, slot) = self.locate(i);
        self.children[child].slice(slot, 1)
    }

    /// Every slot as a one-value array of its child's type.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = ArrayRef> + '_ {
        (0..self.len()).map(|i| self.value(i))
    }

    /// Slots `[offset, offset + len)`, sharing memory.
    ///
    /// # Panics
    /// If the range does not fit.
    pub fn slice_typed(&self, offset: usize, len: usize) -> Self {
        let sparse = self.offsets.is_none();
        Self {
            data_type: self.data_type.clone(),
            type_ids: self.type_ids.slice(offset, len),
            offsets: self.offsets.as_ref().map(|o| o.slice(offset, len)),
            children: if sparse {
                self.children.iter().map(|c| c.slice(offset, len)).collect()
            } else {
                self.children.clone()
            },
        }
    }
}

impl Array for UnionArray {
    // Unions have no validity of their own; nulls live in the children.
    array_basics!(self => data_type: &self.data_type, len: self.type_ids.len(), nulls: None);

    fn to_data(&self) -> ArrayData {
        let mut buffers = vec![self.type_ids.inner().clone()];
        buffers.extend(self.offsets.as_ref().map(|o| o.inner().clone()));
        let builder = ArrayData::builder(self.data_type.clone())
            .len(self.type_ids.len())
            .buffers(buffers)
            .children(self.children.iter().map(|c| c.to_data()).collect());
        // SAFETY: type ids and offsets were checked against the children when the array was
        // made (or recorded by the builder); slicing keeps them consistent.
        unsafe { builder.build_unchecked() }
    }
}

impl TryFrom<ArrayData> for UnionArray {
    type Error = ArrayError;

    fn try_from(data: ArrayData) -> Result<Self, ArrayError> {
        let DataType::Union(union) = data.data_type() else {
            return Err(ArrayError::TypeMismatch {
                expected: "Union".to_string(),
                found: data.data_type().clone(),
            });
        };
        let typed_ids = ScalarBuffer::try_new(data.buffers()[0].clone(), data.offset(), data.len())
            .map_err(alkaid_data::DataError::from)?;
        let (offsets, children) = match union.mode() {
            UnionMode::Dense => {
                let offsets =
                    ScalarBuffer::try_new(data.buffers()[1].clone(), data.offset(), data.len())
                        .map_err(alkaid_data::DataError::from)?;
                (
                    Some(offsets),
                    data.children().iter().cloned().map(make_array).collect(),
                )
            }
            UnionMode::Sparse => {
                let children = data
                    .children()
                    .iter()
                    .map(|c| make_array(c.slice(data.offset(), data.len())))
                    .collect();
                (None, children)
            }
        };
        Ok(Self {
            data_type: data.data_type().clone(),
            type_ids: typed_ids,
            offsets,
            children,
        })
    }
}

impl fmt::Debug for UnionArray {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UnionArray({} slots of {})", self.len(), self.data_type)
    }
}

/// Builds a union: append a value to the child for a type id through
/// [`child`](Self::child), then record it with [`append`](Self::append).
///
/// # Examples
/// ```
/// use alkaid_array::{Array, Int32Array, PrimitiveBuilder, StringArray, UnionBuilder, GenericByteBuilder, GenericStringType};
/// use alkaid_array::types::Int32Type;
/// use alkaid_schema::{DataType, Field, UnionMode, UnionType};
///
/// let union_type = UnionType::try_new(
///     vec![Field::new("i", DataType::Int32, true), Field::new("s", DataType::Utf8, true)],
///     [3, 9],
///     UnionMode::Sparse,
/// )?;
/// let mut builder = UnionBuilder::new(union_type, vec![Box::new(Int32Array::builder(0)), Box::new(StringArray::builder(0, 0))])?;
/// builder.child::<PrimitiveBuilder<Int32Type>>(3).unwrap().append_value(5);
/// builder.append(3)?;
/// builder.child::<GenericByteBuilder<GenericStringType<i32>>>(9).unwrap().append_value("x");
/// builder.append(9)?;
/// let union = builder.finish()?;
/// assert_eq!((union.len(), union.type_id(1)), (2, 9));
/// # Ok::<(), alkaid_array::ArrayError>(())
/// ```
pub struct UnionBuilder {
    union_type: UnionType,
    type_ids: MutableBuffer,
    offsets: MutableBuffer,
    children: Vec<Box<dyn ArrayBuilder>>,
    len: usize,
}

impl UnionBuilder {
    /// A builder for `union_type`, with one child builder per field, in order.
    ///
    /// # Errors
    /// If the builder count differs from the field count.
    pub fn new(
        union_type: UnionType,
        children: Vec<Box<dyn ArrayBuilder>>,
    ) -> Result<Self, ArrayError> {
        if children.len() != union_type.fields().len() {
            return Err(ArrayError::LengthMismatch {
                what: "union child builders".to_string(),
                expected: union_type.fields().len(),
                found: children.len(),
            });
        }
        Ok(Self {
            union_type,
            type_ids: MutableBuffer::new(),
            offsets: MutableBuffer::new(),
            children,
            len: 0,
        })
    }

    /// The builder of the child tagged `type_id`, as its concrete type.
    pub fn child<B: ArrayBuilder>(&mut self, type_id: i8) -> Option<&mut B> {
        let index = self.union_type.child_index(type_id)?;
        self.children[index].as_any_mut().downcast_mut()
    }

    /// Records a slot holding the value just appended to the child tagged `type_id`.
    ///
    /// # Errors
    /// If the type id is not declared, or that child did not get exactly one new value
    /// (sparse unions: the child must be one longer than the union so far).
    pub fn append(&mut self, type_id: i8) -> Result<(), ArrayError> {
        let Some(index) = self.union_type.child_index(type_id) else {
            return Err(ArrayError::ColumnMismatch {
                column: "union".to_string(),
                reason: format!("type id {type_id} is not declared"),
            });
        };
        match self.union_type.mode() {
            UnionMode::Dense => {
                let child_len = self.children[index].len();
                let used = self
                    .type_ids
                    .as_slice()
                    .iter()
                    .filter(|&&id| id as i8 == type_id)
                    .count();
                if child_len != used + 1 {
                    return Err(ArrayError::LengthMismatch {
                        what: format!("union child for type id {type_id}"),
                        expected: used + 1,
                        found: child_len,
                    });
                }
                let offset = i32::try_from(used).map_err(|_| ArrayError::LengthMismatch {
                    what: "dense union child".to_string(),
                    expected: i32::MAX as usize,
                    found: used,
                })?;
                self.offsets.push(offset);
            }
            UnionMode::Sparse => {
                let expected = self.len + 1;
                if self.children[index].len() != expected {
                    return Err(ArrayError::LengthMismatch {
                        what: format!("union child for type id {type_id}"),
                        expected,
                        found: self.children[index].len(),
                    });
                }
                for (i, child) in self.children.iter_mut().enumerate() {
                    if i != index {
                        while child.len() < expected {
                            child.append_null();
                        }
                    }
                }
            }
        }
        self.type_ids.push(type_id);
        self.len += 1;
        Ok(())
    }

    /// Number of slots appended.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Finishes the union, leaving the builder empty.
    ///
    /// # Errors
    /// If a child builder's values do not make a valid array.
    pub fn finish(&mut self) -> Result<UnionArray, ArrayError> {
        let children = self
            .children
            .iter_mut()
            .map(|c| c.try_finish())
            .collect::<Result<Vec<ArrayRef>, _>>()?;
        let type_ids = ScalarBuffer::try_from(alkaid_buffer::Buffer::from(std::mem::take(
            &mut self.type_ids,
        )))
        .expect("whole ids");
        let offsets = match self.union_type.mode() {
            UnionMode::Dense => Some(
                ScalarBuffer::try_from(alkaid_buffer::Buffer::from(std::mem::take(
                    &mut self.offsets,
                )))
                .expect("whole offsets"),
            ),
            UnionMode::Sparse => None,
        };
        self.len = 0;
        let fields: Fields = self
            .union_type
            .fields()
            .iter()
            .zip(&children)
            .map(|(field, child)| {
                field
                    .as_ref()
                    .clone()
                    .with_data_type(child.data_type().clone())
            })
            .collect();
        let ids = self.union_type.type_ids().iter().map(|&id| i32::from(id));
        let union_type = UnionType::try_new(fields, ids, self.union_type.mode())
            .expect("the ids were valid already");
        Ok(UnionArray {
            data_type: DataType::Union(union_type),
            type_ids,
            offsets,
            children,
        })
    }
}

impl ArrayBuilder for UnionBuilder {
    fn len(&self) -> usize {
        self.len
    }

    /// A null slot: a null in the first child.
    ///
    /// # Panics
    /// If the union has no children (it can hold no slot at all).
    fn append_null(&mut self) {
        let first = *self
            .union_type
            .type_ids()
            .first()
            .expect("a union without children holds no slots");
        let index = 0;
        match self.union_type.mode() {
            UnionMode::Dense => self.children[index].append_null(),
            UnionMode::Sparse => {
                while self.children[index].len() <= self.len {
                    self.children[index].append_null();
                }
            }
        }
        self.append(first)
            .expect("the child got exactly the one value the slot needs");
    }

    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
        Ok(Arc::new(UnionBuilder::finish(self)?))
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
