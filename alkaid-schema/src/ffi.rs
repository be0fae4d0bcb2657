//! The C data interface's `ArrowSchema`: a [`Field`]'s type, name, nullability and
//! metadata handed to another library in the same process, or taken from one, without
//! either side knowing the other's types.
//!
//! [`ArrowSchema::try_export`] makes a schema this crate owns until the consumer calls
//! its `release`; [`import_field`] reads a foreign schema into a [`Field`] and releases it,
//! exactly once, whatever happens. The layout, flags and metadata encoding are the Arrow
//! project's "C Data Interface" specification; this crate only fills and reads them.
#![allow(unsafe_code)]

use std::ffi::{CStr, c_char, c_void};
use std::ptr;
use std::sync::Arc;

use crate::{DataType, Field, FieldRef, Metadata, SchemaError};

/// The dictionary's order is meaningful.
pub const FLAG_DICTIONARY_ORDERED: i64 = 1;
/// The field may hold nulls.
pub const FLAG_NULLABLE: i64 = 2;
/// A map's keys are sorted within each entry.
pub const FLAG_MAP_KEYS_SORTED: i64 = 4;

/// Schemas nested deeper than this are refused on import (a hostile producer could
/// otherwise exhaust the stack).
pub const MAX_IMPORT_DEPTH: usize = 64;

/// The C `struct ArrowSchema`, field for field.
#[repr(C)]
#[derive(Debug)]
pub struct ArrowSchema {
    /// The format string, NUL-terminated (see [`DataType::c_format`]).
    pub format: *const c_char,
    /// The field name, NUL-terminated; may be null.
    pub name: *const c_char,
    /// Key/value metadata in the interface's binary encoding; may be null.
    pub metadata: *const c_char,
    /// [`FLAG_NULLABLE`], [`FLAG_DICTIONARY_ORDERED`], [`FLAG_MAP_KEYS_SORTED`].
    pub flags: i64,
    /// Number of children.
    pub n_children: i64,
    /// The children.
    pub children: *mut *mut ArrowSchema,
    /// The dictionary's values, for a dictionary-encoded field; else null.
    pub dictionary: *mut ArrowSchema,
    /// Frees everything the producer allocated; null once released.
    pub release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    /// The producer's bookkeeping.
    pub private_data: *mut c_void,
}

// SAFETY: an exported schema owns all it points to (its private data) and nothing in it is
// tied to a thread; the interface lets any thread release it.
unsafe impl Send for ArrowSchema {}

/// What an exported schema owns: the strings, and the child and dictionary schemas
/// themselves (one allocation for all children; a consumer may still move any of them
/// out, leaving a released struct behind).
struct Owned {
    /// The format string and the name, each NUL-terminated; the name starts at `name_at`.
    strings: CStrings,
    name_at: usize,
    metadata: Option<Vec<u8>>,
    children: Vec<ArrowSchema>,
    child_pointers: Vec<*mut ArrowSchema>,
    dictionary: Option<ArrowSchema>,
}

/// How many bytes of format and name an export keeps inside its own allocation.
const INLINE_STRINGS: usize = 64;

/// A field's format and name, each NUL-terminated, in one place: inside the export's own
/// allocation when they fit (every field whose name is short), so that exporting a schema
/// of many columns allocates once per column.
struct CStrings {
    inline: [u8; INLINE_STRINGS],
    len: usize,
    /// Everything, once it no longer fits inline.
    heap: Vec<u8>,
}

impl Default for CStrings {
    fn default() -> Self {
        Self {
            inline: [0; INLINE_STRINGS],
            len: 0,
            heap: Vec::new(),
        }
    }
}

impl CStrings {
    fn push(&mut self, bytes: &[u8]) {
        if self.heap.is_empty() && self.len + bytes.len() <= INLINE_STRINGS {
            self.inline[self.len..self.len + bytes.len()].copy_from_slice(bytes);
            self.len += bytes.len();
        } else {
            if self.heap.is_empty() {
                self.heap.extend_from_slice(&self.inline[..self.len]);
            }
            self.heap.extend_from_slice(bytes);
        }
    }

    fn bytes(&self) -> &[u8] {
        match self.heap.is_empty() {
            true => &self.inline[..self.len],
            false => &self.heap,
        }
    }
}

impl std::fmt::Write for CStrings {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.push(s.as_bytes());
        Ok(())
    }
}

impl ArrowSchema {
    /// An empty, released schema, for a consumer to hand to a producer to fill.
    pub fn empty() -> Self {
        Self {
            format: ptr::null(),
            name: ptr::null(),
            metadata: ptr::null(),
            flags: 0,
            n_children: 0,
            children: ptr::null_mut(),
            dictionary: ptr::null_mut(),
            release: None,
            private_data: ptr::null_mut(),
        }
    }

    /// Exports `field`: its type, name, nullability and metadata, children and dictionary
    /// included.
    ///
    /// # Errors
    /// If a name holds a NUL byte, which C strings cannot, or a metadata entry is longer
    /// than 2 GiB.
    ///
    /// ```
    /// use alkaid_schema::ffi::{ArrowSchema, import_field};
    /// use alkaid_schema::Field;
    /// let field = Field::new("tags", "List(item: Dictionary(Int8, Utf8))".parse()?, true);
    /// let mut exported = ArrowSchema::try_export(&field)?;
    /// // SAFETY: a schema this crate exported, passed on once.
    /// let back = unsafe { import_field(&mut exported) }?;
    /// assert_eq!(back, field);
    /// assert!(exported.release.is_none()); // released by the import
    /// # Ok::<(), alkaid_schema::SchemaError>(())
    /// ```
    pub fn try_export(field: &Field) -> Result<Self, SchemaError> {
        let data_type = field.data_type();
        let mut flags = 0;
        if field.is_nullable() {
            flags |= FLAG_NULLABLE;
        }
        let (level_children, dictionary): (Vec<FieldRef>, Option<Field>) = match data_type {
            DataType::Dictionary { value, ordered, .. } => {
                if *ordered {
                    flags |= FLAG_DICTIONARY_ORDERED;
                }
                (Vec::new(), Some(Field::new("", (**value).clone(), true)))
            }
            DataType::Map(map) => {
                if map.keys_sorted() {
                    flags |= FLAG_MAP_KEYS_SORTED;
                }
                (data_type.children().to_vec(), None)
            }
            _ => (data_type.children().to_vec(), None),
        };
        let nul = |what: &str, value: &str| SchemaError::InvalidType {
            type_name: "C data interface schema",
            reason: format!("{what} {value:?} holds a NUL byte"),
        };
        if field.name().contains('\0') {
            return Err(nul("field name", field.name()));
        }
        let mut strings = CStrings::default();
        // Writing into `CStrings` cannot fail.
        let _ = data_type.write_c_format(&mut strings);
        if strings.bytes().contains(&0) {
            return Err(nul("format", &String::from_utf8_lossy(strings.bytes())));
        }
        strings.push(b"\0");
        let name_at = strings.bytes().len();
        strings.push(field.name().as_bytes());
        strings.push(b"\0");
        let metadata = encode_metadata(field.metadata())?;
        // Children and dictionary are exported whole before any becomes a raw pointer, so
        // that a failure drops (and so releases) what was made. A dictionary's children
        // are those of its values, under the dictionary schema.
        let children = level_children
            .iter()
            .map(|child| Self::try_export(child))
            .collect::<Result<Vec<_>, _>>()?;
        let dictionary = dictionary.map(|d| Self::try_export(&d)).transpose()?;
        let mut owned = Box::new(Owned {
            strings,
            name_at,
            metadata,
            children,
            child_pointers: Vec::new(),
            dictionary,
        });
        // Taken once everything is in its final place: the box is not moved again.
        owned.child_pointers = owned.children.iter_mut().map(|c| c as *mut _).collect();
        let dictionary_pointer = owned
            .dictionary
            .as_mut()
            .map_or(ptr::null_mut(), |d| d as *mut ArrowSchema);
        Ok(Self {
            format: owned.strings.bytes().as_ptr().cast(),
            name: owned.strings.bytes()[owned.name_at..].as_ptr().cast(),
            metadata: owned
                .metadata
                .as_ref()
                .map_or(ptr::null(), |m| m.as_ptr().cast()),
            flags,
            n_children: owned.child_pointers.len() as i64,
            children: owned.child_pointers.as_mut_ptr(),
            dictionary: dictionary_pointer,
            release: Some(release_exported),
            private_data: Box::into_raw(owned).cast(),
        })
    }
}

impl Drop for ArrowSchema {
    /// A schema still holding its release callback is released when dropped, so that an
    /// export nobody consumed frees what it owns.
    fn drop(&mut self) {
        if let Some(release) = self.release {
            // SAFETY: a schema with a release callback has not been released; the callback
            // is the producer's, for this schema.
            unsafe { release(self) };
        }
    }
}

/// The release callback of exported schemas.
unsafe extern "C" fn release_exported(schema: *mut ArrowSchema) {
    // SAFETY: the interface passes the schema whose callback this is; a null pointer or an
    // already released schema is ignored.
    let Some(schema) = (unsafe { schema.as_mut() }) else {
        return;
    };
    if schema.release.is_none() || schema.private_data.is_null() {
        return;
    }
    // SAFETY: `private_data` was made by `Box::into_raw` of an `Owned` in `try_export`,
    // and is cleared below, so it is freed once.
    // Dropping it drops the children and the dictionary, which releases each one a
    // consumer did not move out.
    drop(unsafe { Box::from_raw(schema.private_data.cast::<Owned>()) });
    schema.private_data = ptr::null_mut();
    schema.release = None;
}

/// Metadata in the interface's encoding: an `i32` count, then for each entry the key's and
/// the value's `i32` length and bytes, native byte order. `None` when empty.
fn encode_metadata(metadata: &Metadata) -> Result<Option<Vec<u8>>, SchemaError> {
    if metadata.is_empty() {
        return Ok(None);
    }
    let too_long = || SchemaError::InvalidType {
        type_name: "C data interface schema",
        reason: "a metadata key or value is longer than 2 GiB".into(),
    };
    let mut out = Vec::new();
    let count = i32::try_from(metadata.len()).map_err(|_| too_long())?;
    out.extend_from_slice(&count.to_ne_bytes());
    for (key, value) in metadata.iter() {
        for text in [key, value] {
            let len = i32::try_from(text.len()).map_err(|_| too_long())?;
            out.extend_from_slice(&len.to_ne_bytes());
            out.extend_from_slice(text.as_bytes());
        }
    }
    Ok(Some(out))
}

fn import_error(path: &str, reason: impl Into<String>) -> SchemaError {
    SchemaError::InvalidType {
        type_name: "C data interface schema",
        reason: format!(
            "{}: {}",
            if path.is_empty() { "<root>" } else { path },
            reason.into()
        ),
    }
}

/// Reads `schema` into a [`Field`], then releases it (also when reading fails).
///
/// # Errors
/// If the schema is already released, its format is unknown, its children do not fit its
/// format, a string is not UTF-8, its metadata is malformed, or it nests deeper than
/// [`MAX_IMPORT_DEPTH`]. The error names the path of the offending child.
///
/// # Safety
/// `schema` must point to a valid `ArrowSchema` as the C data interface defines it (its
/// strings NUL-terminated, `n_children` child pointers, metadata in the documented
/// encoding), which the caller owns and does not use after this call.
pub unsafe fn import_field(schema: *mut ArrowSchema) -> Result<Field, SchemaError> {
    // SAFETY: the caller vouches for `schema`.
    let Some(schema) = (unsafe { schema.as_mut() }) else {
        return Err(import_error("", "the schema pointer is null"));
    };
    let Some(release) = schema.release else {
        return Err(import_error("", "the schema was already released"));
    };
    // SAFETY: a valid, unreleased schema, per the caller.
    let field = unsafe { read_field(schema, "", 0) };
    // SAFETY: the producer's callback for this schema, called once; it releases the
    // children and dictionary too.
    unsafe { release(schema) };
    field
}

/// One schema and what hangs below it, as a field.
///
/// # Safety
/// As [`import_field`], for `schema`.
unsafe fn read_field(schema: &ArrowSchema, path: &str, depth: usize) -> Result<Field, SchemaError> {
    if depth > MAX_IMPORT_DEPTH {
        return Err(import_error(
            path,
            format!("nested deeper than {MAX_IMPORT_DEPTH} levels"),
        ));
    }
    let text = |p: *const c_char, what: &str| -> Result<String, SchemaError> {
        if p.is_null() {
            return Ok(String::new());
        }
        // SAFETY: a non-null string of the schema is NUL-terminated, per the caller.
        unsafe { CStr::from_ptr(p) }
            .to_str()
            .map(str::to_owned)
            .map_err(|_| import_error(path, format!("the {what} is not UTF-8")))
    };
    if schema.format.is_null() {
        return Err(import_error(path, "the format is null"));
    }
    let format = text(schema.format, "format")?;
    let name = text(schema.name, "name")?;
    let here = if path.is_empty() {
        name.clone()
    } else {
        format!("{path}.{name}")
    };
    let count = usize::try_from(schema.n_children)
        .map_err(|_| import_error(&here, format!("{} children", schema.n_children)))?;
    if count > 0 && schema.children.is_null() {
        return Err(import_error(
            &here,
            format!("{count} children but no child pointers"),
        ));
    }
    let mut children = Vec::new();
    for i in 0..count {
        // SAFETY: `n_children` child pointers, per the caller.
        let child = unsafe { *schema.children.add(i) };
        // SAFETY: as above, each a valid schema.
        let Some(child) = (unsafe { child.as_ref() }) else {
            return Err(import_error(&here, format!("child {i} is null")));
        };
        // SAFETY: a valid schema, per the caller.
        children.push(Arc::new(unsafe { read_field(child, &here, depth + 1) }?));
    }
    // SAFETY: a valid schema or null, per the caller.
    let dictionary = match unsafe { schema.dictionary.as_ref() } {
        None => None,
        Some(values) => {
            // SAFETY: a valid schema, per the caller.
            let values = unsafe { read_field(values, &here, depth + 1) }?;
            Some((
                Arc::new(values),
                schema.flags & FLAG_DICTIONARY_ORDERED != 0,
            ))
        }
    };
    let keys_sorted = schema.flags & FLAG_MAP_KEYS_SORTED != 0;
    let data_type = DataType::from_c_format(&format, children, dictionary, keys_sorted)
        .map_err(|e| import_error(&here, e.to_string()))?;
    // SAFETY: null or the documented encoding, per the caller.
    let metadata =
        unsafe { decode_metadata(schema.metadata) }.map_err(|r| import_error(&here, r))?;
    Ok(Field::new(name, data_type, schema.flags & FLAG_NULLABLE != 0).with_metadata(metadata))
}

/// Reads metadata in the interface's encoding.
///
/// # Safety
/// `metadata` is null or points to the documented encoding.
unsafe fn decode_metadata(metadata: *const c_char) -> Result<Metadata, String> {
    let mut out = Metadata::new();
    if metadata.is_null() {
        return Ok(out);
    }
    let mut at = metadata.cast::<u8>();
    let mut take = |len: usize| -> Vec<u8> {
        let mut bytes = vec![0u8; len];
        // SAFETY: the encoding holds `len` more bytes at `at`, per the caller; the copy is
        // unaligned-safe (bytes).
        unsafe { ptr::copy_nonoverlapping(at, bytes.as_mut_ptr(), len) };
        // SAFETY: as above, `at + len` is within (or one past) the encoding.
        at = unsafe { at.add(len) };
        bytes
    };
    let length = |take: &mut dyn FnMut(usize) -> Vec<u8>, what: &str| {
        let raw: [u8; 4] = take(4).try_into().unwrap_or([0; 4]);
        let value = i32::from_ne_bytes(raw);
        usize::try_from(value).map_err(|_| format!("a metadata {what} of {value}"))
    };
    let count = length(&mut take, "count")?;
    for _ in 0..count {
        let key_len = length(&mut take, "key length")?;
        let key = String::from_utf8(take(key_len)).map_err(|_| "a metadata key is not UTF-8")?;
        let value_len = length(&mut take, "value length")?;
        let value =
            String::from_utf8(take(value_len)).map_err(|_| "a metadata value is not UTF-8")?;
        out.insert(key, value);
    }
    Ok(out)
}
