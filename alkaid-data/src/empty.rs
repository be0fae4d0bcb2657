//! Arrays of no slots, for any type, built from the layout table.

use alkaid_buffer::Buffer;
use alkaid_schema::DataType;

use crate::{ArrayData, BufferSpec, ChildSpec, layout};

impl ArrayData {
    /// An array of `data_type` with no slots: every buffer empty but offsets (one zero),
    /// every child empty, and an empty dictionary for dictionary types.
    ///
    /// ```
    /// use alkaid_data::{ArrayData, ValidationLevel};
    /// use alkaid_schema::DataType;
    ///
    /// let data_type: DataType = "Dictionary(Int8, List(item: Utf8))".parse()?;
    /// let empty = ArrayData::new_empty(&data_type);
    /// assert_eq!((empty.len(), empty.data_type()), (0, &data_type));
    /// empty.validate(ValidationLevel::Full)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new_empty(data_type: &DataType) -> ArrayData {
        let spec = layout(data_type);
        let buffers = spec
            .buffers
            .iter()
            .map(|buffer| match buffer {
                BufferSpec::Offsets { width: 4 } => Buffer::from_slice_ref(&[0i32]),
                BufferSpec::Offsets { .. } => Buffer::from_slice_ref(&[0i64]),
                _ => Buffer::empty(),
            })
            .collect();
        let children = match spec.children {
            ChildSpec::None => Vec::new(),
            _ => data_type
                .children()
                .iter()
                .map(|field| Self::new_empty(field.data_type()))
                .collect(),
        };
        let mut builder = ArrayData::builder(data_type.clone())
            .len(0)
            .buffers(buffers)
            .children(children);
        if let DataType::Dictionary { value, .. } = data_type {
            builder = builder.dictionary(Self::new_empty(value));
        }
        // SAFETY: no slots, so no value is ever read; the buffers and children are the ones
        // the layout table lists, and the tests validate the result for every type.
        unsafe { builder.build_unchecked() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ValidationLevel;

    #[test]
    fn empty_arrays_of_every_kind_of_layout_are_valid() {
        for text in [
            "Null",
            "Boolean",
            "Int32",
            "Decimal256(40, 2)",
            "Utf8",
            "LargeBinary",
            "Utf8View",
            "FixedSizeBinary(3)",
            "List(item: Int8)",
            "LargeListView(item: Utf8)",
            "FixedSizeList(4, item: Int16)",
            "Struct(a: Int8, b: List(item: Struct(c: Utf8)))",
            "Map(entries: Struct(key: Utf8 not null, value: Int32) not null)",
            "Union(Sparse, 0 => a: Int8, 5 => b: Utf8)",
            "Union(Dense, 0 => a: Int8, 5 => b: Utf8)",
            "RunEndEncoded(run_ends: Int32 not null, values: Utf8)",
            "Dictionary(UInt16, Dictionary(Int8, Utf8))",
        ] {
            let data_type: DataType = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            let empty = ArrayData::new_empty(&data_type);
            assert_eq!(empty.len(), 0);
            empty
                .validate(ValidationLevel::Strict)
                .unwrap_or_else(|e| panic!("{text}: {e}"));
        }
    }
}
