//! The buffers of each layout: the spec's table, written once.
//!
//! Everything that needs to know which buffers an array of some type has — validation, the
//! IPC reader and writer, the C data interface — asks [`layout`]. The validity bitmap is
//! listed as a flag, not as a buffer: [`ArrayData`](crate::ArrayData) keeps it apart as a
//! [`NullBuffer`](alkaid_buffer::NullBuffer), and formats that put it first in their buffer
//! list (IPC, C data) do so when [`Layout::has_validity`] says the layout has one.

use alkaid_schema::{DataType, PhysicalType};

/// One buffer of a layout, after the validity bitmap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BufferSpec {
    /// Bit-packed values (booleans): one bit per slot.
    Bitmap,
    /// Fixed-width values: `width` bytes per slot, aligned to `align` bytes.
    Fixed {
        /// Bytes per slot.
        width: usize,
        /// Alignment the values need in memory.
        align: usize,
    },
    /// Offsets into a data buffer or a child: `length + 1` signed integers of `width` bytes.
    Offsets {
        /// 4 or 8.
        width: usize,
    },
    /// List-view offsets: one signed integer of `width` bytes per slot (not `length + 1`:
    /// each slot has its own start, and its size in the next buffer).
    ViewOffsets {
        /// 4 or 8.
        width: usize,
    },
    /// List-view sizes: one signed integer of `width` bytes per slot.
    Sizes {
        /// 4 or 8.
        width: usize,
    },
    /// The bytes that offsets point into.
    Data,
    /// Binary views: 16 bytes per slot.
    Views,
    /// Union type ids: one `i8` per slot.
    TypeIds,
    /// Dense union offsets: one `i32` per slot.
    UnionOffsets,
}

/// How many children a layout has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChildSpec {
    /// None.
    None,
    /// Exactly one (lists, maps).
    One,
    /// One per field of the type (structs, unions).
    PerField,
    /// Run ends and values.
    RunEndsAndValues,
}

/// The buffers of a layout after the validity bitmap: at most two, held inline so that
/// asking for a layout never allocates. Reads as a slice.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct BufferSpecs {
    specs: [BufferSpec; 2],
    len: u8,
}

impl BufferSpecs {
    fn of(specs: &[BufferSpec]) -> Self {
        let mut inline = [BufferSpec::Data; 2];
        inline[..specs.len()].copy_from_slice(specs);
        Self {
            specs: inline,
            len: specs.len() as u8,
        }
    }
}

impl std::ops::Deref for BufferSpecs {
    type Target = [BufferSpec];

    fn deref(&self) -> &[BufferSpec] {
        &self.specs[..usize::from(self.len)]
    }
}

impl std::fmt::Debug for BufferSpecs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<const N: usize> PartialEq<[BufferSpec; N]> for BufferSpecs {
    fn eq(&self, other: &[BufferSpec; N]) -> bool {
        **self == other[..]
    }
}

impl PartialEq<Vec<BufferSpec>> for BufferSpecs {
    fn eq(&self, other: &Vec<BufferSpec>) -> bool {
        **self == other[..]
    }
}

/// The buffers, children and extras of one layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Whether the layout has a validity bitmap (unions, run-end encoded and null have none).
    pub has_validity: bool,
    /// The buffers after the validity bitmap, in order.
    pub buffers: BufferSpecs,
    /// Whether any number of data buffers follow (binary views).
    pub variadic: bool,
    /// The children.
    pub children: ChildSpec,
    /// Whether the array carries a dictionary.
    pub dictionary: bool,
}

impl Layout {
    fn new(has_validity: bool, buffers: &[BufferSpec], children: ChildSpec) -> Self {
        Self {
            has_validity,
            buffers: BufferSpecs::of(buffers),
            variadic: false,
            children,
            dictionary: false,
        }
    }
}

/// The layout of arrays of `data_type`.
///
/// # Examples
/// ```
/// use alkaid_data::{layout, BufferSpec};
/// use alkaid_schema::DataType;
/// let utf8 = layout(&DataType::Utf8);
/// assert!(utf8.has_validity);
/// assert_eq!(utf8.buffers, [BufferSpec::Offsets { width: 4 }, BufferSpec::Data]);
/// ```
pub fn layout(data_type: &DataType) -> Layout {
    use BufferSpec::*;
    match data_type.to_physical() {
        PhysicalType::Null => Layout::new(false, &[], ChildSpec::None),
        PhysicalType::Boolean => Layout::new(true, &[Bitmap], ChildSpec::None),
        PhysicalType::Primitive(primitive) => {
            let width = primitive.byte_width();
            // 16-byte values split into i128 (aligned to 16) and month-day-nano (8), and the
            // 32-byte i256 is four u64 words: the alignment of alkaid-buffer's native types.
            let align = match primitive {
                alkaid_schema::NativeKind::Int128 => 16,
                _ => width.min(8),
            };
            Layout::new(true, &[Fixed { width, align }], ChildSpec::None)
        }
        PhysicalType::FixedSizeBinary(width) => {
            let width = usize::try_from(width).unwrap_or(0);
            Layout::new(true, &[Fixed { width, align: 1 }], ChildSpec::None)
        }
        PhysicalType::Binary => Layout::new(true, &[Offsets { width: 4 }, Data], ChildSpec::None),
        PhysicalType::LargeBinary => {
            Layout::new(true, &[Offsets { width: 8 }, Data], ChildSpec::None)
        }
        PhysicalType::BinaryView => Layout {
            variadic: true,
            ..Layout::new(true, &[Views], ChildSpec::None)
        },
        PhysicalType::List => Layout::new(true, &[Offsets { width: 4 }], ChildSpec::One),
        PhysicalType::LargeList => Layout::new(true, &[Offsets { width: 8 }], ChildSpec::One),
        PhysicalType::ListView => Layout::new(
            true,
            &[ViewOffsets { width: 4 }, Sizes { width: 4 }],
            ChildSpec::One,
        ),
        PhysicalType::LargeListView => Layout::new(
            true,
            &[ViewOffsets { width: 8 }, Sizes { width: 8 }],
            ChildSpec::One,
        ),
        PhysicalType::FixedSizeList(_) => Layout::new(true, &[], ChildSpec::One),
        PhysicalType::Struct => Layout::new(true, &[], ChildSpec::PerField),
        PhysicalType::SparseUnion => Layout::new(false, &[TypeIds], ChildSpec::PerField),
        PhysicalType::DenseUnion => {
            Layout::new(false, &[TypeIds, UnionOffsets], ChildSpec::PerField)
        }
        PhysicalType::Dictionary(key) => {
            let width = key.byte_width();
            Layout {
                dictionary: true,
                ..Layout::new(
                    true,
                    &[Fixed {
                        width,
                        align: width,
                    }],
                    ChildSpec::None,
                )
            }
        }
        PhysicalType::RunEndEncoded(_) => Layout::new(false, &[], ChildSpec::RunEndsAndValues),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> DataType {
        text.parse().unwrap()
    }

    #[test]
    fn the_table_matches_the_spec() {
        use BufferSpec::*;
        let cases: [(&str, bool, Vec<BufferSpec>, ChildSpec); 10] = [
            ("Null", false, vec![], ChildSpec::None),
            ("Boolean", true, vec![Bitmap], ChildSpec::None),
            (
                "Decimal128(10, 2)",
                true,
                vec![Fixed {
                    width: 16,
                    align: 16,
                }],
                ChildSpec::None,
            ),
            (
                "Interval(MonthDayNano)",
                true,
                vec![Fixed {
                    width: 16,
                    align: 8,
                }],
                ChildSpec::None,
            ),
            (
                "LargeUtf8",
                true,
                vec![Offsets { width: 8 }, Data],
                ChildSpec::None,
            ),
            (
                "LargeListView(item: Int8)",
                true,
                vec![ViewOffsets { width: 8 }, Sizes { width: 8 }],
                ChildSpec::One,
            ),
            ("Struct(a: Int8)", true, vec![], ChildSpec::PerField),
            (
                "Union(Dense, 0 => a: Int8)",
                false,
                vec![TypeIds, UnionOffsets],
                ChildSpec::PerField,
            ),
            (
                "Union(Sparse, 0 => a: Int8)",
                false,
                vec![TypeIds],
                ChildSpec::PerField,
            ),
            (
                "RunEndEncoded(r: Int16 not null, v: Utf8)",
                false,
                vec![],
                ChildSpec::RunEndsAndValues,
            ),
        ];
        for (text, validity, buffers, children) in cases {
            let layout = layout(&parse(text));
            assert_eq!(
                (
                    layout.has_validity,
                    layout.buffers.to_vec(),
                    layout.children
                ),
                (validity, buffers, children),
                "{text}"
            );
        }
        assert!(layout(&DataType::Utf8View).variadic);
        let dictionary = layout(&parse("Dictionary(UInt16, Utf8)"));
        assert!(dictionary.dictionary);
        assert_eq!(dictionary.buffers, vec![Fixed { width: 2, align: 2 }]);
    }
}
