//! Importing an `ArrowArray`: its buffers wrapped in place, kept alive by the array.

use std::ptr;
use std::sync::Arc;

use alkaid_buffer::{BooleanBuffer, Buffer, NullBuffer};
use alkaid_schema::DataType;

use super::ArrowArray;
use crate::layout::{BufferSpec, ChildSpec, layout};
use crate::{ArrayData, DataError, DataErrorKind, ValidationLevel};

/// Arrays nested deeper than this are refused (a hostile producer could otherwise exhaust
/// the stack).
pub const MAX_IMPORT_DEPTH: usize = 64;

/// The imported root array; dropping the last reference releases it (and with it every
/// child and the dictionary, which the root's release frees).
struct Root(ArrowArray);

/// A foreign buffer: `len` bytes at `ptr`, alive while `root` is.
struct Foreign {
    _root: Arc<Root>,
    ptr: *const u8,
    len: usize,
}

// SAFETY: the bytes are immutable while the array is shared (the interface forbids the
// producer to change them before release), and `Root` may be released from any thread.
unsafe impl Send for Foreign {}
// SAFETY: as above.
unsafe impl Sync for Foreign {}

impl AsRef<[u8]> for Foreign {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: `ptr` is non-null (checked when made) and points to `len` bytes that
        // stay valid while `_root` is alive, per the importer's caller.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

fn error(path: &str, reason: impl Into<String>) -> DataError {
    let place = if path.is_empty() { "the array" } else { path };
    DataError::new(
        DataErrorKind::InvalidType,
        format!("{place}: {}", reason.into()),
    )
}

/// Imports the array `array` points to, of type `data_type`, checked structurally: the
/// struct is moved out (its `release` set to null), and the producer's release is called
/// once, when the last buffer of the result is dropped, or before returning an error.
///
/// # Errors
/// If the array is released, its buffer or child count does not fit `data_type`, a length
/// or offset is negative, it nests deeper than [`MAX_IMPORT_DEPTH`], or the result fails
/// the structural checks; use [`import_array_with`] for full validation.
///
/// # Safety
/// `array` must point to a valid `ArrowArray` as the C data interface defines it, of type
/// `data_type`: `n_buffers` buffer pointers each covering the bytes the layout gives its
/// length and offset, `n_children` valid children, values that pass full validation (this
/// crate's readers rely on it; see [`import_array_with`] to check instead of trusting).
pub unsafe fn import_array(
    array: *mut ArrowArray,
    data_type: &DataType,
) -> Result<ArrayData, DataError> {
    // SAFETY: passed on from the caller.
    unsafe { import_array_with(array, data_type, ValidationLevel::Structural) }
}

/// Like [`import_array`], with the validation `level` of the result chosen: `Full` checks
/// every value, for producers that are not trusted with them.
///
/// # Errors
/// As [`import_array`], and whatever `level` finds.
///
/// # Safety
/// As [`import_array`]; with `level` at `Full` or above, the values need not be valid,
/// only the pointers and the buffer sizes the layout implies.
pub unsafe fn import_array_with(
    array: *mut ArrowArray,
    data_type: &DataType,
    level: ValidationLevel,
) -> Result<ArrayData, DataError> {
    // SAFETY: a valid pointer or null, per the caller.
    let Some(source) = (unsafe { array.as_mut() }) else {
        return Err(error("", "the array pointer is null"));
    };
    if source.release.is_none() {
        return Err(error("", "the array was already released"));
    }
    // Moved out: the struct now belongs to `root`, and the caller's copy is released.
    // SAFETY: a valid struct, read once; the original is marked released right after.
    let root = Arc::new(Root(unsafe { ptr::read(source) }));
    source.release = None;
    // SAFETY: a valid array, per the caller; `root` keeps it alive.
    let data = unsafe { read(&root.0, data_type, &root, "", 0) }?;
    match level {
        ValidationLevel::Structural => Ok(data),
        _ => {
            data.validate(level)?;
            Ok(data)
        }
    }
}

/// Bytes of buffer `index` of `array`, wrapped in place (or copied when misaligned for
/// `align`); an empty buffer for a null pointer of no bytes.
///
/// # Safety
/// Buffer `index` exists and covers `len` bytes.
unsafe fn buffer(
    array: &ArrowArray,
    index: usize,
    len: usize,
    align: usize,
    root: &Arc<Root>,
    path: &str,
) -> Result<Buffer, DataError> {
    // SAFETY: `n_buffers` pointers, per the caller; `index` is below it (checked).
    let pointer = unsafe { *array.buffers.add(index) }.cast::<u8>();
    if pointer.is_null() {
        return if len == 0 {
            Ok(Buffer::empty())
        } else {
            Err(error(
                path,
                format!("buffer {index} is null but must hold {len} bytes"),
            ))
        };
    }
    let buffer = Buffer::from_owner(Foreign {
        _root: Arc::clone(root),
        ptr: pointer,
        len,
    });
    Ok(buffer.realigned(align))
}

/// Reads a count or length field: non-negative, fitting `usize`.
fn count(value: i64, what: &str, path: &str) -> Result<usize, DataError> {
    usize::try_from(value).map_err(|_| error(path, format!("{what} is {value}")))
}

/// One array and what hangs below it.
///
/// # Safety
/// As [`import_array`], for `array`, alive while `root` is.
unsafe fn read(
    array: &ArrowArray,
    data_type: &DataType,
    root: &Arc<Root>,
    path: &str,
    depth: usize,
) -> Result<ArrayData, DataError> {
    if depth > MAX_IMPORT_DEPTH {
        return Err(error(
            path,
            format!("nested deeper than {MAX_IMPORT_DEPTH} levels"),
        ));
    }
    let len = count(array.length, "the length", path)?;
    let offset = count(array.offset, "the offset", path)?;
    let n_buffers = count(array.n_buffers, "the buffer count", path)?;
    let n_children = count(array.n_children, "the child count", path)?;
    let end = offset
        .checked_add(len)
        .ok_or_else(|| error(path, "offset plus length overflows"))?;
    let spec = layout(data_type);
    let validity = usize::from(spec.has_validity);
    let fixed = validity + spec.buffers.len();
    // Some producers (Polars) give a Null array one buffer, a null pointer where other
    // types keep their validity; it holds nothing, so it is taken for none.
    let one_null_buffer = n_buffers == 1 && !array.buffers.is_null() && {
        // SAFETY: one buffer pointer, per the caller (the array of pointers is non-null).
        unsafe { *array.buffers }.is_null()
    };
    let n_buffers = if matches!(data_type, DataType::Null) && one_null_buffer {
        0
    } else {
        n_buffers
    };
    // Views: the data buffers, then one buffer of their sizes.
    let expected = if spec.variadic {
        n_buffers.max(fixed + 1)
    } else {
        fixed
    };
    if n_buffers != expected || (n_buffers > 0 && array.buffers.is_null()) {
        return Err(error(
            path,
            format!("{data_type} takes {expected} buffers here, found {n_buffers}"),
        ));
    }
    let mut buffers = Vec::with_capacity(n_buffers);
    let mut nulls = None;
    // SAFETY: `n_buffers` pointers (checked non-null above when there are any).
    let absent = |index: usize| n_buffers == 0 || unsafe { *array.buffers.add(index) }.is_null();
    if spec.has_validity && !absent(0) {
        // SAFETY: buffer 0 covers the bits up to `end`, per the caller.
        let bits = unsafe { buffer(array, 0, end.div_ceil(8), 1, root, path) }?;
        nulls = Some(NullBuffer::new(BooleanBuffer::new(bits, offset, len)));
    } else if spec.has_validity && array.null_count > 0 {
        return Err(error(
            path,
            format!("{} nulls but no validity bitmap", array.null_count),
        ));
    }
    let bytes = |width: usize, extra: usize| {
        end.checked_add(extra)
            .and_then(|n| n.checked_mul(width))
            .ok_or_else(|| error(path, "buffer size overflows"))
    };
    for (k, spec_k) in spec.buffers.iter().enumerate() {
        let index = validity + k;
        let (size, align) = match *spec_k {
            BufferSpec::Bitmap => (end.div_ceil(8), 1),
            BufferSpec::Fixed { width, align } => (bytes(width, 0)?, align),
            BufferSpec::Offsets { width } => {
                if end == 0 && absent(index) {
                    // Empty arrays may come without offsets: one zero offset stands in.
                    buffers.push(Buffer::from_vec(vec![0u8; width]));
                    continue;
                }
                (bytes(width, 1)?, width)
            }
            BufferSpec::ViewOffsets { width } | BufferSpec::Sizes { width } => {
                (bytes(width, 0)?, width)
            }
            BufferSpec::Views => (bytes(16, 0)?, 4),
            BufferSpec::TypeIds => (bytes(1, 0)?, 1),
            BufferSpec::UnionOffsets => (bytes(4, 0)?, 4),
            BufferSpec::Data => {
                // As far as the last offset reaches.
                let offsets = &buffers[k - 1];
                let last = match spec.buffers[k - 1] {
                    BufferSpec::Offsets { width: 8 } => offsets.typed::<i64>()?[end],
                    _ => i64::from(offsets.typed::<i32>()?[end]),
                };
                (count(last, "the last offset", path)?, 1)
            }
        };
        // SAFETY: the layout's buffer `index` covers `size` bytes, per the caller.
        buffers.push(unsafe { buffer(array, index, size, align, root, path) }?);
    }
    if spec.variadic {
        let variadic = n_buffers - fixed - 1;
        // SAFETY: the last buffer holds one `i64` size per data buffer, per the caller.
        let sizes = unsafe { buffer(array, n_buffers - 1, variadic * 8, 8, root, path) }?;
        let sizes: &[i64] = sizes.typed()?;
        for (j, &size) in sizes.iter().enumerate() {
            let size = count(size, "a view data buffer's size", path)?;
            // SAFETY: data buffer `j` covers `size` bytes, per the caller.
            buffers.push(unsafe { buffer(array, fixed + j, size, 1, root, path) }?);
        }
    }
    let child_types: Vec<DataType> = match spec.children {
        ChildSpec::None => Vec::new(),
        _ => data_type
            .children()
            .iter()
            .map(|f| f.data_type().clone())
            .collect(),
    };
    if n_children != child_types.len() || (n_children > 0 && array.children.is_null()) {
        return Err(error(
            path,
            format!(
                "{data_type} has {} children, found {n_children}",
                child_types.len()
            ),
        ));
    }
    let mut children = Vec::with_capacity(n_children);
    for (i, (child_type, field)) in child_types.iter().zip(data_type.children()).enumerate() {
        // SAFETY: `n_children` child pointers, per the caller.
        let child = unsafe { *array.children.add(i) };
        // SAFETY: each a valid array or null.
        let Some(child) = (unsafe { child.as_ref() }) else {
            return Err(error(path, format!("child {i} is null")));
        };
        let child_path = if path.is_empty() {
            field.name().to_string()
        } else {
            format!("{path}.{}", field.name())
        };
        // SAFETY: a valid child array, alive while the root is.
        children.push(unsafe { read(child, child_type, root, &child_path, depth + 1) }?);
    }
    let mut builder = ArrayData::builder(data_type.clone())
        .len(len)
        .offset(offset)
        .nulls(nulls)
        .buffers(buffers)
        .children(children);
    if let DataType::Dictionary { value, .. } = data_type {
        // SAFETY: a valid array or null, per the caller.
        let Some(dictionary) = (unsafe { array.dictionary.as_ref() }) else {
            return Err(error(path, "a dictionary array without its dictionary"));
        };
        let dictionary_path = format!("{path}[dictionary]");
        // SAFETY: a valid dictionary array, alive while the root is.
        builder = builder
            .dictionary(unsafe { read(dictionary, value, root, &dictionary_path, depth + 1) }?);
    }
    // SAFETY: the caller vouches for the values; this level's structure is checked here,
    // and every child's and the dictionary's were when they were read.
    unsafe { builder.build_structural_shallow() }
}
