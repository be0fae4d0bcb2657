//! The C data interface's importers, fed by a fake producer whose every field the input
//! chooses: formats (from a list, or raw bytes), names, metadata, flags, child counts,
//! lengths, offsets, null counts, buffer counts, buffer contents and alignment, null
//! pointers, and release callbacks that count their calls.
//!
//! The importers must trust what the interface cannot check: that a buffer pointer covers
//! the bytes its layout, length and offset imply. The fake producer keeps that promise and
//! no other. Lengths and offsets stay small and every buffer is backed by
//! [`BUFFER_BYTES`] of memory. The two sizes that the importer reads from the data itself
//! (a string array's last offset, a view array's data buffer sizes) are brought within it
//! when larger. Everything else is hostile, so arrays are imported with full validation.

use std::cell::Cell;
use std::ffi::c_void;
use std::ptr;

use alkaid_array::display::format_value;
use alkaid_array::make_array;
use alkaid_data::ffi::{ArrowArray, import_array_with};
use alkaid_data::{ArrayData, BufferSpec, ChildSpec, ValidationLevel, equal, layout};
use alkaid_schema::DataType;
use alkaid_schema::ffi::{ArrowSchema, import_field};

/// The memory behind every buffer the fake producer hands out.
const BUFFER_BYTES: usize = 1 << 17;
/// Longest array the producer declares: with the widest fixed-width type of [`FORMATS`]
/// (32 bytes) and the largest offset, a buffer needs at most 33 KiB.
const MAX_LEN: i64 = 1024;
/// Widest `FixedSizeBinary` whose arrays are imported (raw formats can name any width).
const MAX_WIDTH: usize = 64;

/// Formats the producer picks from, with the number of children each normally has.
const FORMATS: [(&str, u8); 52] = [
    ("n", 0),
    ("b", 0),
    ("c", 0),
    ("C", 0),
    ("s", 0),
    ("S", 0),
    ("i", 0),
    ("I", 0),
    ("l", 0),
    ("L", 0),
    ("e", 0),
    ("f", 0),
    ("g", 0),
    ("z", 0),
    ("Z", 0),
    ("u", 0),
    ("U", 0),
    ("vz", 0),
    ("vu", 0),
    ("d:10,2", 0),
    ("d:38,10,256", 0),
    ("d:5,1,32", 0),
    ("d:12,2,64", 0),
    ("w:4", 0),
    ("w:0", 0),
    ("tdD", 0),
    ("tdm", 0),
    ("tts", 0),
    ("ttm", 0),
    ("ttu", 0),
    ("ttn", 0),
    ("tss:", 0),
    ("tsu:UTC", 0),
    ("tsn:Europe/Paris", 0),
    ("tDs", 0),
    ("tDn", 0),
    ("tiM", 0),
    ("tiD", 0),
    ("tin", 0),
    // Nested formats come last: past `LEAVES`.
    ("+l", 1),
    ("+L", 1),
    ("+vl", 1),
    ("+vL", 1),
    ("+w:3", 1),
    ("+w:0", 1),
    ("+s", 2),
    ("+s", 0),
    ("+m", 1),
    ("+r", 2),
    ("+ud:0,1", 2),
    ("+us:3,5", 2),
    ("+ud:", 0),
];
/// How many of [`FORMATS`] have no children.
const LEAVES: usize = 39;
/// Levels of nesting the producer builds, except for the deliberately deep chain.
const MAX_DEPTH: usize = 4;
/// Length of the deep chain of lists (see [`Producer::chain`]), past the importers' limit.
const DEEP: usize = 70;

thread_local! {
    static ROOT_RELEASES: Cell<usize> = const { Cell::new(0) };
    static CHILD_RELEASES: Cell<usize> = const { Cell::new(0) };
}

fn count(counter: &'static std::thread::LocalKey<Cell<usize>>) -> usize {
    counter.with(Cell::get)
}

fn bump(counter: &'static std::thread::LocalKey<Cell<usize>>) {
    counter.with(|c| c.set(c.get() + 1));
}

unsafe extern "C" fn release_root_array(array: *mut ArrowArray) {
    bump(&ROOT_RELEASES);
    // SAFETY: the importer passes the (moved) root it was given, a valid struct.
    unsafe { (*array).release = None };
}

unsafe extern "C" fn release_child_array(array: *mut ArrowArray) {
    bump(&CHILD_RELEASES);
    // SAFETY: as above; calling it at all is the bug the counter reports.
    unsafe { (*array).release = None };
}

unsafe extern "C" fn release_root_schema(schema: *mut ArrowSchema) {
    bump(&ROOT_RELEASES);
    // SAFETY: the importer passes the schema it was given, a valid struct.
    unsafe { (*schema).release = None };
}

unsafe extern "C" fn release_child_schema(schema: *mut ArrowSchema) {
    bump(&CHILD_RELEASES);
    // SAFETY: as above.
    unsafe { (*schema).release = None };
}

/// The fuzzer's bytes, read front to back; zeros once they run out.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        let Some((&first, rest)) = self.0.split_first() else {
            return 0;
        };
        self.0 = rest;
        first
    }

    fn bytes(&mut self, n: usize) -> &[u8] {
        let (head, tail) = self.0.split_at(n.min(self.0.len()));
        self.0 = tail;
        head
    }

    /// True about once in `n` reads (never once the input runs out).
    fn one_in(&mut self, n: u8) -> bool {
        self.byte() % n == n - 1
    }
}

/// Everything the fake producer hands out, alive until it is dropped (after whatever was
/// imported from it). Heap blocks do not move when the vectors holding them grow.
#[derive(Default)]
#[allow(
    clippy::vec_box,
    reason = "the structs are handed out by address: boxed, they stay put as the vector grows"
)]
struct Producer {
    memory: Vec<Vec<u8>>,
    buffer_lists: Vec<Vec<*const c_void>>,
    arrays: Vec<Box<ArrowArray>>,
    array_lists: Vec<Vec<*mut ArrowArray>>,
    schemas: Vec<Box<ArrowSchema>>,
    schema_lists: Vec<Vec<*mut ArrowSchema>>,
}

impl Drop for Producer {
    fn drop(&mut self) {
        // The structs' own `Drop` would call their release callbacks: the producer frees
        // its memory itself.
        for array in &mut self.arrays {
            array.release = None;
        }
        for schema in &mut self.schemas {
            schema.release = None;
        }
    }
}

impl Producer {
    /// A NUL-terminated copy of `bytes` (cut at the first NUL).
    fn c_string(&mut self, bytes: &[u8]) -> *const std::ffi::c_char {
        let mut owned: Vec<u8> = bytes.iter().copied().take_while(|&b| b != 0).collect();
        owned.push(0);
        let pointer = owned.as_ptr().cast();
        self.memory.push(owned);
        pointer
    }

    /// Metadata in the interface's encoding, well framed (the encoding has no total length
    /// to check against) but with counts and lengths that may be negative and bytes that
    /// may not be UTF-8.
    fn metadata(&mut self, input: &mut Input<'_>) -> *const std::ffi::c_char {
        if !input.one_in(4) {
            return ptr::null();
        }
        let mut encoded = Vec::new();
        let entries = i32::from(input.byte() % 3);
        let negative = |input: &mut Input<'_>, value: i32| {
            if input.one_in(32) { -1 - value } else { value }
        };
        let entries = negative(input, entries);
        encoded.extend_from_slice(&entries.to_ne_bytes());
        'entries: for _ in 0..entries.max(0) {
            for _ in 0..2 {
                let len = i32::from(input.byte() % 6);
                let len = negative(input, len);
                encoded.extend_from_slice(&len.to_ne_bytes());
                let Ok(len) = usize::try_from(len) else {
                    break 'entries;
                };
                let bytes = input.bytes(len).to_vec();
                encoded.extend_from_slice(&bytes);
                encoded.resize(encoded.len() + len - bytes.len(), b'x');
            }
        }
        let pointer = encoded.as_ptr().cast();
        self.memory.push(encoded);
        pointer
    }

    /// A schema tree chosen by the input.
    fn schema(&mut self, input: &mut Input<'_>, depth: usize) -> *mut ArrowSchema {
        let choice = input.byte();
        if choice == 0xFE {
            return self.chain(DEEP, depth);
        }
        let (format, natural) = if choice == 0xFD {
            let len = usize::from(input.byte() % 8);
            let raw = input.bytes(len).to_vec();
            (self.c_string(&raw), input.byte() % 3)
        } else {
            let choices = if depth >= MAX_DEPTH {
                LEAVES
            } else {
                FORMATS.len()
            };
            let (format, natural) = FORMATS[usize::from(choice) % choices];
            (self.c_string(format.as_bytes()), natural)
        };
        let name = if input.one_in(8) {
            ptr::null()
        } else {
            let len = usize::from(input.byte() % 6);
            let raw = input.bytes(len).to_vec();
            self.c_string(&raw)
        };
        let metadata = self.metadata(input);
        let flags = if input.one_in(64) {
            (i64::from(input.byte()) << 40) | 7
        } else {
            i64::from(input.byte() & 7)
        };
        let n_children = if input.one_in(16) {
            usize::from(input.byte() % 4)
        } else {
            usize::from(natural)
        };
        let children = if n_children > 0 && input.one_in(32) {
            ptr::null_mut()
        } else {
            let list: Vec<*mut ArrowSchema> = (0..n_children)
                .map(|_| {
                    if input.one_in(32) {
                        ptr::null_mut()
                    } else {
                        self.schema(input, depth + 1)
                    }
                })
                .collect();
            self.keep_schema_list(list)
        };
        let dictionary = if depth < MAX_DEPTH && input.one_in(8) {
            self.schema(input, depth + 1)
        } else {
            ptr::null_mut()
        };
        let schema = ArrowSchema {
            format,
            name,
            metadata,
            flags,
            n_children: i64::try_from(n_children).unwrap_or(0),
            children,
            dictionary,
            release: None,
            private_data: ptr::null_mut(),
        };
        self.keep_schema(schema, depth)
    }

    /// Lists of lists `levels` deep, ending in nulls: past the importer's depth limit.
    fn chain(&mut self, levels: usize, depth: usize) -> *mut ArrowSchema {
        let (format, children) = if levels == 0 {
            (self.c_string(b"n"), ptr::null_mut())
        } else {
            let child = self.chain(levels - 1, depth + 1);
            (self.c_string(b"+l"), self.keep_schema_list(vec![child]))
        };
        let schema = ArrowSchema {
            format,
            name: ptr::null(),
            metadata: ptr::null(),
            flags: 0,
            n_children: i64::from(levels > 0),
            children,
            dictionary: ptr::null_mut(),
            release: None,
            private_data: ptr::null_mut(),
        };
        self.keep_schema(schema, depth)
    }

    /// Keeps `schema` until the producer is dropped, with the release callback of a root
    /// (depth 0) or of a child, and hands out its address.
    fn keep_schema(&mut self, mut schema: ArrowSchema, depth: usize) -> *mut ArrowSchema {
        schema.release = Some(if depth == 0 {
            release_root_schema
        } else {
            release_child_schema
        });
        let mut schema = Box::new(schema);
        let pointer: *mut ArrowSchema = &mut *schema;
        self.schemas.push(schema);
        pointer
    }

    /// As [`keep_schema`](Self::keep_schema), for an array.
    fn keep_array(&mut self, mut array: ArrowArray, depth: usize) -> *mut ArrowArray {
        array.release = Some(if depth == 0 {
            release_root_array
        } else {
            release_child_array
        });
        let mut array = Box::new(array);
        let pointer: *mut ArrowArray = &mut *array;
        self.arrays.push(array);
        pointer
    }

    fn keep_schema_list(&mut self, mut list: Vec<*mut ArrowSchema>) -> *mut *mut ArrowSchema {
        let pointer = list.as_mut_ptr();
        self.schema_lists.push(list);
        pointer
    }

    /// A buffer of [`BUFFER_BYTES`], its start filled from the input, its pointer
    /// sometimes misaligned; returns the pointer and the index of its memory.
    fn buffer(&mut self, input: &mut Input<'_>) -> (*const c_void, usize, usize) {
        let mut memory = vec![0u8; BUFFER_BYTES + 8];
        let skew = if input.one_in(8) {
            1 + usize::from(input.byte() % 7)
        } else {
            0
        };
        let filled = usize::from(input.byte()) * 16;
        let filled = input.bytes(filled);
        memory[skew..skew + filled.len()].copy_from_slice(filled);
        let pointer = memory[skew..].as_ptr().cast();
        self.memory.push(memory);
        (pointer, self.memory.len() - 1, skew)
    }

    /// Brings the integer of `width` bytes at byte `at` of memory `index` within
    /// [`BUFFER_BYTES`] when it is larger (a negative one stays: it must be refused).
    fn clamp(&mut self, index: usize, at: usize, width: usize) {
        let bytes = &mut self.memory[index][at..at + width];
        let value = match width {
            4 => i64::from(i32::from_ne_bytes(bytes.try_into().expect("4 bytes"))),
            _ => i64::from_ne_bytes(bytes.try_into().expect("8 bytes")),
        };
        let limit = i64::try_from(BUFFER_BYTES).expect("small");
        if value > limit {
            let value = value % (limit + 1);
            match width {
                4 => bytes.copy_from_slice(&i32::try_from(value).expect("small").to_ne_bytes()),
                _ => bytes.copy_from_slice(&value.to_ne_bytes()),
            }
        }
    }

    /// An array of `data_type` as the input chooses; `hint` is a length that would fit
    /// the parent (the input decides whether to use it).
    fn array(
        &mut self,
        data_type: &DataType,
        input: &mut Input<'_>,
        hint: i64,
        depth: usize,
    ) -> *mut ArrowArray {
        let spec = layout(data_type);
        let length = match input.byte() {
            0..=127 => hint.min(MAX_LEN),
            250..=255 => -1 - i64::from(input.byte()),
            _ => i64::from(u16::from_ne_bytes([input.byte(), input.byte()])) % (MAX_LEN + 1),
        };
        let offset = if input.one_in(32) {
            -1
        } else {
            i64::from(input.byte() % 16)
        };
        let null_count = match input.byte() % 4 {
            0 => -1,
            1 => 0,
            2 => i64::from(input.byte()),
            _ => length,
        };
        let validity = usize::from(spec.has_validity);
        let fixed = validity + spec.buffers.len();
        let natural = fixed
            + if spec.variadic {
                1 + usize::from(input.byte() % 3)
            } else {
                0
            };
        let n_buffers = if input.one_in(16) {
            usize::from(input.byte() % 6)
        } else {
            natural
        };
        let mut buffers = Vec::with_capacity(n_buffers);
        let mut places = Vec::with_capacity(n_buffers);
        for k in 0..n_buffers {
            let absent = if k == 0 && spec.has_validity {
                input.one_in(2)
            } else {
                input.one_in(32)
            };
            if absent {
                buffers.push(ptr::null());
                places.push(None);
            } else {
                let (pointer, index, skew) = self.buffer(input);
                buffers.push(pointer);
                places.push(Some((index, skew)));
            }
        }
        // The sizes the importer reads from the data: brought within the memory behind.
        if let (Ok(offset), Ok(length)) = (usize::try_from(offset), usize::try_from(length)) {
            let end = offset + length;
            for (k, buffer) in spec.buffers.iter().enumerate().skip(1) {
                if let (BufferSpec::Data, BufferSpec::Offsets { width }) =
                    (buffer, spec.buffers[k - 1])
                    && let Some(Some((index, skew))) = places.get(validity + k - 1)
                {
                    self.clamp(*index, skew + end * width, width);
                }
            }
        }
        if spec.variadic
            && n_buffers > fixed
            && let Some(Some((index, skew))) = places.last()
        {
            for j in 0..n_buffers - fixed - 1 {
                self.clamp(*index, skew + j * 8, 8);
            }
        }
        let natural_children = match spec.children {
            ChildSpec::None => 0,
            _ => data_type.children().len(),
        };
        let n_children = if input.one_in(16) {
            usize::from(input.byte() % 4)
        } else {
            natural_children
        };
        let end = length.max(0) + offset.max(0);
        let children = if n_children > 0 && input.one_in(32) {
            ptr::null_mut()
        } else {
            let mut list: Vec<*mut ArrowArray> = (0..n_children)
                .map(|i| {
                    if input.one_in(32) {
                        return ptr::null_mut();
                    }
                    match data_type.children().get(i) {
                        Some(field) if i < natural_children => {
                            self.array(field.data_type(), input, end, depth + 1)
                        }
                        _ => self.array(&DataType::Null, input, end, depth + 1),
                    }
                })
                .collect();
            let pointer = list.as_mut_ptr();
            self.array_lists.push(list);
            pointer
        };
        let dictionary = match data_type {
            DataType::Dictionary { value, .. } if !input.one_in(16) => {
                let hint = i64::from(input.byte());
                self.array(value, input, hint, depth + 1)
            }
            _ => ptr::null_mut(),
        };
        let mut buffer_list = buffers;
        let buffer_pointer = if n_buffers > 0 && input.one_in(64) {
            ptr::null_mut()
        } else {
            buffer_list.as_mut_ptr()
        };
        self.buffer_lists.push(buffer_list);
        let array = ArrowArray {
            length,
            null_count,
            offset,
            n_buffers: i64::try_from(n_buffers).unwrap_or(0),
            n_children: i64::try_from(n_children).unwrap_or(0),
            buffers: buffer_pointer,
            children,
            dictionary,
            release: None,
            private_data: ptr::null_mut(),
        };
        self.keep_array(array, depth)
    }
}

/// Whether every fixed-size binary in `data_type` is narrow enough for the producer's
/// buffers (raw format strings can name any width).
fn fits(data_type: &DataType) -> bool {
    match data_type {
        DataType::FixedSizeBinary(width) => usize::try_from(*width).is_ok_and(|w| w <= MAX_WIDTH),
        DataType::Dictionary { value, .. } => fits(value),
        other => other.children().iter().all(|f| fits(f.data_type())),
    }
}

/// Uses everything in an imported array and sends it through export and import again.
fn use_array(data: &ArrayData) {
    assert!(data.validate(ValidationLevel::Full).is_ok());
    assert!(equal(data, data));
    let array = make_array(data.clone());
    for i in 0..array.len() {
        let _ = format_value(array.as_ref(), i);
    }
    let mut exported = ArrowArray::export(data);
    // SAFETY: a struct just exported by this crate, of `data`'s type.
    let back = unsafe { import_array_with(&mut exported, data.data_type(), ValidationLevel::Full) }
        .expect("an exported array imports again");
    assert!(
        equal(&back, data),
        "an array changed through export and import"
    );
}

/// The C data interface import: a schema, then an array of the imported type, both from a
/// producer the input controls. Each import must call the root's `release` exactly once
/// (for the array, once the result is dropped) and never a child's.
pub fn c_data(data: &[u8]) {
    let mut input = Input(data);
    ROOT_RELEASES.with(|c| c.set(0));
    CHILD_RELEASES.with(|c| c.set(0));
    let mut producer = Producer::default();
    let schema = producer.schema(&mut input, 0);
    // SAFETY: the producer keeps every promise of a valid `ArrowSchema`, and outlives it.
    let field = unsafe { import_field(schema) };
    assert_eq!(count(&ROOT_RELEASES), 1, "the schema is released once");
    assert_eq!(count(&CHILD_RELEASES), 0, "no child schema is released");
    let Ok(field) = field else {
        return;
    };
    let mut exported = ArrowSchema::try_export(&field).expect("an imported field exports");
    // SAFETY: a schema this crate just exported.
    let again = unsafe { import_field(&mut exported) }.expect("an exported field imports");
    assert_eq!(again, field, "a field changed through export and import");
    if !fits(field.data_type()) {
        return;
    }
    ROOT_RELEASES.with(|c| c.set(0));
    let hint = i64::from(input.byte());
    let array = producer.array(field.data_type(), &mut input, hint, 0);
    // SAFETY: the producer's buffers cover what the layout implies (see the module docs)
    // and outlive the import; values are checked, by full validation.
    let imported = unsafe { import_array_with(array, field.data_type(), ValidationLevel::Full) };
    if let Ok(data) = &imported {
        use_array(data);
    }
    drop(imported);
    assert_eq!(count(&ROOT_RELEASES), 1, "the array is released once");
    assert_eq!(count(&CHILD_RELEASES), 0, "no child array is released");
    drop(producer);
}
