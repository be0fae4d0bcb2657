//! Objects of Python's buffer protocol (`bytes`, `bytearray`, `memoryview`, `array.array`,
//! `mmap`, ...) as arrays of their items' type, read through a `memoryview` (the stable
//! ABI of Python 3.10 has no buffer protocol of its own). The struct-module format of the
//! items names the type (`b`/`B` to `q`/`Q` as integers of the item's size, `e`, `f`, `d`
//! as floats, `?` as booleans), in the byte order it states. A whole `bytes` object is
//! taken without a copy (it is immutable, and the array keeps a reference to it); other
//! exporters' memory may change or be freed once the view is released, so it is copied
//! once. pyarrow iterates such objects as Python ints instead (`bytes` becomes `int64`).

use std::sync::Arc;

use alkaid_array::{ArrayRef, BooleanArray, make_array};
use alkaid_buffer::Buffer;
use alkaid_data::ArrayData;
use alkaid_schema::DataType;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyMemoryView};

use crate::error::to_py;
use crate::memory::PythonMemory;

/// A `memoryview` of `object` when it exports a buffer (not for numpy arrays and Arrow
/// producers, which have their own paths, nor for `str`, which exports none).
///
/// # Errors
/// If making the view fails for another reason than the object having no buffer.
pub(crate) fn view_of<'py>(object: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    match PyMemoryView::from(object) {
        Ok(view) => Ok(Some(view.into_any())),
        Err(e) if e.is_instance_of::<PyTypeError>(object.py()) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The items of `view` (a `memoryview`) as an array.
///
/// # Errors
/// For a view of more or fewer than one dimension, or of items no type here holds.
pub(crate) fn from_view(view: &Bound<'_, PyAny>) -> PyResult<ArrayRef> {
    let ndim: usize = view.getattr("ndim")?.extract()?;
    if ndim != 1 {
        return Err(to_py(format!(
            "a buffer of {ndim} dimensions: alkaid.array takes one"
        )));
    }
    let format: String = view.getattr("format")?.extract()?;
    let width: usize = view.getattr("itemsize")?.extract()?;
    let len: usize = view.call_method0("__len__")?.extract()?;
    let (swapped, data_type) = item_type(&format, width).ok_or_else(|| unknown(&format))?;
    let bytes = whole_bytes(view)?.map_or_else(
        || {
            view.call_method0("tobytes")?
                .cast_into::<PyBytes>()
                .map_err(PyErr::from)
        },
        Ok,
    )?;
    let contents = bytes.as_bytes();
    if data_type == DataType::Boolean {
        let bools: BooleanArray = contents.iter().map(|&b| Some(b != 0)).collect();
        return Ok(Arc::new(bools));
    }
    let buffer = if swapped {
        let mut copy = contents.to_vec();
        copy.chunks_exact_mut(width).for_each(<[u8]>::reverse);
        Buffer::from_vec(copy)
    } else if (contents.as_ptr() as usize).is_multiple_of(width) {
        let (address, len) = (contents.as_ptr() as usize, contents.len());
        // SAFETY: the contents of `bytes`, a `bytes` object, which neither change nor
        // move while it lives.
        Buffer::from_owner(unsafe { PythonMemory::new(bytes.into_any().unbind(), address, len) })
    } else {
        Buffer::from_slice_ref(contents)
    };
    let data = ArrayData::builder(data_type)
        .len(len)
        .buffers(vec![buffer])
        .build()
        .map_err(to_py)?;
    Ok(make_array(data))
}

/// The `bytes` object `view` shows whole and in order, when it shows one: then its
/// contents are the view's, without a copy.
fn whole_bytes<'py>(view: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let Ok(bytes) = view.getattr("obj")?.cast_into::<PyBytes>() else {
        return Ok(None);
    };
    let contiguous: bool = view.getattr("c_contiguous")?.extract()?;
    let size: usize = view.getattr("nbytes")?.extract()?;
    Ok((contiguous && size == bytes.as_bytes().len()).then_some(bytes))
}

/// Whether items of struct-module `format` (each `width` bytes) are in the other byte
/// order than this machine's, and the type that holds them; `None` for items no type
/// here holds.
fn item_type(format: &str, width: usize) -> Option<(bool, DataType)> {
    let (order, code) = match format.as_bytes() {
        [order @ (b'@' | b'=' | b'<' | b'>' | b'!'), code] => (*order, *code),
        [code] => (b'@', *code),
        _ => return None,
    };
    let big = matches!(order, b'>' | b'!');
    let swapped = width > 1 && big != cfg!(target_endian = "big") && order != b'@' && order != b'=';
    let data_type = match (code, width) {
        (b'?', 1) => DataType::Boolean,
        (b'b' | b'h' | b'i' | b'l' | b'q' | b'n', 1) => DataType::Int8,
        (b'b' | b'h' | b'i' | b'l' | b'q' | b'n', 2) => DataType::Int16,
        (b'b' | b'h' | b'i' | b'l' | b'q' | b'n', 4) => DataType::Int32,
        (b'b' | b'h' | b'i' | b'l' | b'q' | b'n', 8) => DataType::Int64,
        (b'B' | b'H' | b'I' | b'L' | b'Q' | b'N' | b'c', 1) => DataType::UInt8,
        (b'B' | b'H' | b'I' | b'L' | b'Q' | b'N', 2) => DataType::UInt16,
        (b'B' | b'H' | b'I' | b'L' | b'Q' | b'N', 4) => DataType::UInt32,
        (b'B' | b'H' | b'I' | b'L' | b'Q' | b'N', 8) => DataType::UInt64,
        (b'e', 2) => DataType::Float16,
        (b'f', 4) => DataType::Float32,
        (b'd', 8) => DataType::Float64,
        _ => return None,
    };
    Some((swapped, data_type))
}

/// The error for a buffer of items no type here holds.
fn unknown(format: &str) -> PyErr {
    to_py(format!(
        "a buffer of items of format {format:?}: alkaid.array takes numbers and booleans \
         (struct-module formats b, B, h, H, i, I, l, L, q, Q, n, N, e, f, d, ?)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_name_types_and_byte_orders() {
        let little = cfg!(target_endian = "little");
        assert_eq!(item_type("i", 4), Some((false, DataType::Int32)));
        assert_eq!(item_type("<q", 8), Some((!little, DataType::Int64)));
        assert_eq!(item_type(">H", 2), Some((little, DataType::UInt16)));
        assert_eq!(item_type("!d", 8), Some((little, DataType::Float64)));
        assert_eq!(item_type(">b", 1), Some((false, DataType::Int8)));
        assert_eq!(item_type("=l", 8), Some((false, DataType::Int64)));
        assert_eq!(item_type("?", 1), Some((false, DataType::Boolean)));
        for bad in ["T{i:x:}", "Zd", "P", "", "ii"] {
            assert_eq!(item_type(bad, 8), None, "{bad}");
        }
    }
}
