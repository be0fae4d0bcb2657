//! Text and bytes in, text and bytes out: visiting the values of any binary-like layout
//! with a per-value function compiled for that layout, and writing results in the
//! flavour (32-bit offsets, 64-bit offsets, views) the input came in.

use alkaid_array::{
    Array, BinaryViewType, GenericBinaryType, GenericByteBuilder, GenericByteViewBuilder,
};
use alkaid_buffer::BooleanBuffer;
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, PhysicalType};

use crate::access::{ByteAccess, BytesVisitor, visit_bytes};
use crate::bits::collect_bits;
use crate::error::ComputeError;

/// Whether `data_type` is text (`Utf8`, `LargeUtf8`, `Utf8View`).
pub(crate) fn is_text(data_type: &DataType) -> bool {
    data_type.is_string()
}

/// `Unsupported` for a kernel given something that is not text (or bytes, if `bytes_too`).
pub(crate) fn check_input(
    kernel: &'static str,
    data: &ArrayData,
    bytes_too: bool,
) -> Result<(), ComputeError> {
    let physical = data.data_type().to_physical();
    let binary_like = matches!(
        physical,
        PhysicalType::Binary | PhysicalType::LargeBinary | PhysicalType::BinaryView
    );
    if binary_like && (bytes_too || is_text(data.data_type())) {
        return Ok(());
    }
    let wanted = if bytes_too { "text or bytes" } else { "text" };
    Err(ComputeError::unsupported(
        kernel,
        format!("takes {wanted}, not {}", data.data_type()),
    ))
}

/// Bit `i` is `test(value i)`, for the values of a binary-like `data` (null slots are
/// tested too, on whatever bytes they hold; the caller sets the validity).
pub(crate) fn test_values(
    data: &ArrayData,
    test: impl Fn(&[u8]) -> bool,
) -> Result<BooleanBuffer, ComputeError> {
    struct Test<F>(usize, F);
    impl<'a, F: Fn(&[u8]) -> bool> BytesVisitor<'a> for Test<F> {
        type Output = BooleanBuffer;
        fn visit<B: ByteAccess<'a>>(self, values: B) -> BooleanBuffer {
            collect_bits(self.0, |i| (self.1)(values.value(i)))
        }
    }
    visit_bytes(data, Test(data.len(), test))?.ok_or_else(|| not_bytes(data))
}

/// Bit `i` is whether value `i` of a binary-like `data` starts with `prefix` (as
/// [`test_values`], but asked of the layout, which answers most of it from a view).
pub(crate) fn test_prefix(data: &ArrayData, prefix: &[u8]) -> Result<BooleanBuffer, ComputeError> {
    struct Prefix<'p>(usize, &'p [u8]);
    impl<'a> BytesVisitor<'a> for Prefix<'_> {
        type Output = BooleanBuffer;
        fn visit<B: ByteAccess<'a>>(self, values: B) -> BooleanBuffer {
            collect_bits(self.0, |i| values.starts_with(i, self.1))
        }
    }
    visit_bytes(data, Prefix(data.len(), prefix))?.ok_or_else(|| not_bytes(data))
}

/// Calls `each(i, value)` for every valid slot of a binary-like `data`, in order, and
/// `each(i, None)` for null slots; stops at the first error.
pub(crate) fn each_value<'a>(
    data: &'a ArrayData,
    each: impl FnMut(usize, Option<&'a [u8]>) -> Result<(), ComputeError>,
) -> Result<(), ComputeError> {
    struct Each<'d, F>(&'d ArrayData, F);
    impl<'a, F: FnMut(usize, Option<&'a [u8]>) -> Result<(), ComputeError>> BytesVisitor<'a>
        for Each<'_, F>
    {
        type Output = Result<(), ComputeError>;
        fn visit<B: ByteAccess<'a>>(mut self, values: B) -> Self::Output {
            for i in 0..self.0.len() {
                let value = self.0.is_valid(i).then(|| values.value(i));
                (self.1)(i, value)?;
            }
            Ok(())
        }
    }
    visit_bytes(data, Each(data, each))?.ok_or_else(|| not_bytes(data))?
}

fn not_bytes(data: &ArrayData) -> ComputeError {
    ComputeError::unsupported(
        "string kernel",
        format!("{} holds no bytes", data.data_type()),
    )
}

/// Results written in one of the three layouts, as bytes; [`finish`](Self::finish) labels
/// them with the output type.
pub(crate) enum TextWriter {
    Offsets32(GenericByteBuilder<GenericBinaryType<i32>>, usize),
    Offsets64(GenericByteBuilder<GenericBinaryType<i64>>),
    Views(GenericByteViewBuilder<BinaryViewType>),
}

impl TextWriter {
    /// A writer for `len` values of about `bytes` bytes in all, in the layout of
    /// `data_type` (a binary-like type).
    pub fn like(data_type: &DataType, len: usize, bytes: usize) -> Self {
        match data_type.to_physical() {
            PhysicalType::LargeBinary => {
                Self::Offsets64(GenericByteBuilder::with_capacity(len, bytes))
            }
            PhysicalType::BinaryView => Self::Views(GenericByteViewBuilder::new()),
            _ => Self::Offsets32(GenericByteBuilder::with_capacity(len, bytes), 0),
        }
    }

    /// A writer for as many values as `data` has, in its layout, with room for its bytes.
    pub fn like_input(data: &ArrayData) -> Self {
        let bytes = data.buffers().get(1).map_or(0, |b| b.len());
        Self::like(data.data_type(), data.len(), bytes)
    }

    /// Appends a value, or a null.
    ///
    /// # Errors
    /// If 32-bit offsets cannot address the data any more (2 GiB); `row` is named.
    pub fn push(&mut self, row: usize, value: Option<&[u8]>) -> Result<(), ComputeError> {
        match self {
            Self::Offsets32(builder, total) => {
                let len = value.map_or(0, <[u8]>::len);
                *total += len;
                if i32::try_from(*total).is_err() {
                    return Err(ComputeError::offsets_overflow(row));
                }
                builder.append_option(value);
            }
            Self::Offsets64(builder) => builder.append_option(value),
            Self::Views(builder) => match value {
                Some(value) => builder.append_value(value),
                None => builder.append_null(),
            },
        }
        Ok(())
    }

    /// The values written, as `data_type` (the binary or text type of the same layout).
    ///
    /// # Errors
    /// If `data_type` is text and a value written is not UTF-8 (a kernel bug, reported
    /// rather than trusted).
    pub fn finish(self, data_type: DataType) -> Result<ArrayData, ComputeError> {
        let bytes = match self {
            Self::Offsets32(mut builder, _) => builder.finish().to_data(),
            Self::Offsets64(mut builder) => builder.finish().to_data(),
            Self::Views(mut builder) => builder.finish().to_data(),
        };
        if bytes.data_type() == &data_type {
            return Ok(bytes);
        }
        let builder = ArrayData::builder(data_type)
            .len(bytes.len())
            .nulls(bytes.nulls().cloned())
            .buffers(bytes.buffers().to_vec());
        Ok(builder.build()?)
    }
}
