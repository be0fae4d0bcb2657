//! Writing Variant values: a value encoder, objects and arrays written in place, and the
//! dictionaries their field names go to.

use std::collections::HashMap;

use super::{Variant, VariantError, VariantMetadata};

/// Where an encoder's field names get their ids: a dictionary being built
/// ([`MetadataBuilder`]) or one already written ([`VariantMetadata`], whose names must
/// then hold every name written).
pub trait FieldNames {
    /// The id of `name`.
    ///
    /// # Errors
    /// When the dictionary has no such name and cannot add it.
    fn id_of(&mut self, name: &str) -> Result<usize, VariantError>;
    /// The name of `id`, which [`id_of`](Self::id_of) gave.
    fn name_of(&self, id: usize) -> &str;
}

impl FieldNames for VariantMetadata<'_> {
    fn id_of(&mut self, name: &str) -> Result<usize, VariantError> {
        self.find(name).ok_or_else(|| {
            VariantError::value(format!("field name {name:?} is not in the metadata"))
        })
    }
    fn name_of(&self, id: usize) -> &str {
        self.name(id).unwrap_or_default()
    }
}

/// A metadata dictionary being built: names get ids in the order first seen.
///
/// ```
/// use alkaid_array::variant::{MetadataBuilder, Variant, VariantMetadata, ValueEncoder};
///
/// let mut names = MetadataBuilder::default();
/// let mut value = Vec::new();
/// let mut object = ValueEncoder::new(&mut names, &mut value).object();
/// object.field("b")?.string("x");
/// object.field("a")?.primitive(Variant::Int8(1))?;
/// object.finish()?;
/// let metadata = names.finish();
/// let read = Variant::try_new(VariantMetadata::try_new(&metadata)?, &value)?;
/// let object = read.as_object().unwrap();
/// assert_eq!(object.field_name(0)?, "a"); // fields are kept sorted by name
/// assert_eq!(object.get("b")?, Some(Variant::String("x")));
/// # Ok::<(), alkaid_array::variant::VariantError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct MetadataBuilder {
    names: Vec<String>,
    ids: HashMap<String, usize>,
}

impl MetadataBuilder {
    /// A dictionary holding `names` (in that order) to start with.
    pub fn with_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut builder = Self::default();
        for name in names {
            builder.add(name);
        }
        builder
    }

    fn add(&mut self, name: &str) -> usize {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        self.names.push(name.to_string());
        self.ids.insert(name.to_string(), self.names.len() - 1);
        self.names.len() - 1
    }

    /// The metadata's bytes: the names in id order, marked sorted when they are, with
    /// offsets as narrow as the names allow.
    pub fn finish(&self) -> Vec<u8> {
        let total: usize = self.names.iter().map(String::len).sum();
        let width = byte_width(total.max(self.names.len()));
        let sorted = self.names.windows(2).all(|w| w[0] < w[1]);
        let header = 0x01 | (u8::from(sorted) << 4) | ((width as u8 - 1) << 6);
        let mut out = Vec::with_capacity(1 + width * (self.names.len() + 2) + total);
        out.push(header);
        write_unsigned(&mut out, self.names.len(), width);
        let mut offset = 0;
        write_unsigned(&mut out, 0, width);
        for name in &self.names {
            offset += name.len();
            write_unsigned(&mut out, offset, width);
        }
        for name in &self.names {
            out.extend_from_slice(name.as_bytes());
        }
        out
    }
}

impl FieldNames for MetadataBuilder {
    fn id_of(&mut self, name: &str) -> Result<usize, VariantError> {
        Ok(self.add(name))
    }
    fn name_of(&self, id: usize) -> &str {
        &self.names[id]
    }
}

/// Writes one Variant value to the end of a byte vector.
pub struct ValueEncoder<'a> {
    names: &'a mut dyn FieldNames,
    out: &'a mut Vec<u8>,
}

impl<'a> ValueEncoder<'a> {
    /// An encoder appending to `out`, naming fields through `names`.
    pub fn new(names: &'a mut dyn FieldNames, out: &'a mut Vec<u8>) -> Self {
        Self { names, out }
    }

    /// Writes Variant null.
    pub fn null(self) {
        self.out.push(0);
    }

    /// Writes text, as a short string when under 64 bytes.
    pub fn string(self, text: &str) {
        if text.len() < 64 {
            self.out.push(1 | ((text.len() as u8) << 2));
        } else {
            self.out.push(16 << 2);
            self.out
                .extend_from_slice(&(text.len() as u32).to_le_bytes());
        }
        self.out.extend_from_slice(text.as_bytes());
    }

    /// Writes `value`; an object or array is written again, field by field, with this
    /// encoder's names (its metadata may differ from the value's).
    ///
    /// # Errors
    /// When a nested value does not read, a name has no id, or text or bytes are 4 GiB
    /// or longer.
    pub fn primitive(self, value: Variant<'_, '_>) -> Result<(), VariantError> {
        let out = self.out;
        let head = |out: &mut Vec<u8>, id: u8| out.push(id << 2);
        match value {
            Variant::Null => head(out, 0),
            Variant::Boolean(b) => head(out, if b { 1 } else { 2 }),
            Variant::Int8(v) => {
                head(out, 3);
                out.extend(v.to_le_bytes());
            }
            Variant::Int16(v) => {
                head(out, 4);
                out.extend(v.to_le_bytes());
            }
            Variant::Int32(v) => {
                head(out, 5);
                out.extend(v.to_le_bytes());
            }
            Variant::Int64(v) => {
                head(out, 6);
                out.extend(v.to_le_bytes());
            }
            Variant::Double(v) => {
                head(out, 7);
                out.extend(v.to_le_bytes());
            }
            Variant::Decimal4(v, scale) => {
                head(out, 8);
                out.push(scale);
                out.extend(v.to_le_bytes());
            }
            Variant::Decimal8(v, scale) => {
                head(out, 9);
                out.push(scale);
                out.extend(v.to_le_bytes());
            }
            Variant::Decimal16(v, scale) => {
                head(out, 10);
                out.push(scale);
                out.extend(v.to_le_bytes());
            }
            Variant::Date(v) => {
                head(out, 11);
                out.extend(v.to_le_bytes());
            }
            Variant::TimestampMicros(v) => {
                head(out, 12);
                out.extend(v.to_le_bytes());
            }
            Variant::TimestampNtzMicros(v) => {
                head(out, 13);
                out.extend(v.to_le_bytes());
            }
            Variant::Float(v) => {
                head(out, 14);
                out.extend(v.to_le_bytes());
            }
            Variant::Binary(bytes) => {
                head(out, 15);
                out.extend(length_prefix(bytes.len())?);
                out.extend_from_slice(bytes);
            }
            Variant::String(text) => {
                if text.len() >= 64 {
                    length_prefix(text.len())?;
                }
                Self {
                    names: self.names,
                    out,
                }
                .string(text);
            }
            Variant::Time(v) => {
                head(out, 17);
                out.extend(v.to_le_bytes());
            }
            Variant::TimestampNanos(v) => {
                head(out, 18);
                out.extend(v.to_le_bytes());
            }
            Variant::TimestampNtzNanos(v) => {
                head(out, 19);
                out.extend(v.to_le_bytes());
            }
            Variant::Uuid(bytes) => {
                head(out, 20);
                out.extend(bytes);
            }
            Variant::Object(object) => {
                let mut into = Self {
                    names: self.names,
                    out,
                }
                .object();
                for field in object.iter() {
                    let (name, value) = field?;
                    into.field(name)?.primitive(value)?;
                }
                into.finish()?;
            }
            Variant::List(list) => {
                let mut into = Self {
                    names: self.names,
                    out,
                }
                .list();
                for element in list.iter() {
                    into.element().primitive(element?)?;
                }
                into.finish()?;
            }
        }
        Ok(())
    }

    /// Appends `bytes`, one encoded value whose field ids are already this encoder's.
    pub fn raw(self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
    }

    /// Starts an object; its fields are written through [`ObjectEncoder::field`].
    pub fn object(self) -> ObjectEncoder<'a> {
        let start = self.out.len();
        ObjectEncoder {
            names: self.names,
            out: self.out,
            start,
            fields: Vec::new(),
        }
    }

    /// Starts an array; its elements are written through [`ListEncoder::element`].
    pub fn list(self) -> ListEncoder<'a> {
        let start = self.out.len();
        ListEncoder {
            names: self.names,
            out: self.out,
            start,
            offsets: Vec::new(),
        }
    }
}

fn length_prefix(len: usize) -> Result<[u8; 4], VariantError> {
    u32::try_from(len).map(u32::to_le_bytes).map_err(|_| {
        VariantError::value(format!("{len} bytes do not fit a Variant's 4-byte length"))
    })
}

/// An object being written: each field's value goes straight after the previous one, and
/// [`finish`](Self::finish) puts the header, sorted ids and offsets in front.
pub struct ObjectEncoder<'a> {
    names: &'a mut dyn FieldNames,
    out: &'a mut Vec<u8>,
    start: usize,
    /// Each field's id and where its value starts, from `start`.
    fields: Vec<(usize, usize)>,
}

impl ObjectEncoder<'_> {
    /// The encoder of field `name`'s value, which must be written before the next call.
    ///
    /// # Errors
    /// When `name` has no id.
    pub fn field(&mut self, name: &str) -> Result<ValueEncoder<'_>, VariantError> {
        let id = self.names.id_of(name)?;
        self.fields.push((id, self.out.len() - self.start));
        Ok(ValueEncoder {
            names: &mut *self.names,
            out: &mut *self.out,
        })
    }

    /// Writes the object's header in front of its values, and puts the values in the
    /// order of their names when they were written in another (the spec allows any
    /// order; one order makes equal objects equal bytes, as Parquet's own corpus has them).
    ///
    /// # Errors
    /// When a field appears twice or was given no value, or the values pass 4 GiB.
    pub fn finish(self) -> Result<(), VariantError> {
        let data_len = values_len(self.out, self.start, "an object")?;
        // Each field's span, from its start to the next field's (written in order).
        let mut spans: Vec<(usize, usize, usize)> = Vec::with_capacity(self.fields.len());
        for (k, &(id, start)) in self.fields.iter().enumerate() {
            let end = self.fields.get(k + 1).map_or(data_len, |f| f.1);
            if end <= start {
                return Err(VariantError::value(format!(
                    "field {:?} was given no value",
                    self.names.name_of(id)
                )));
            }
            spans.push((id, start, end));
        }
        let names = &*self.names;
        spans.sort_by(|a, b| names.name_of(a.0).cmp(names.name_of(b.0)));
        if let Some(pair) = spans
            .windows(2)
            .find(|w| names.name_of(w[0].0) == names.name_of(w[1].0))
        {
            return Err(VariantError::value(format!(
                "field {:?} written twice",
                names.name_of(pair[0].0)
            )));
        }
        if spans.windows(2).any(|w| w[1].1 < w[0].1) {
            let data = self.out.split_off(self.start);
            for span in &mut spans {
                let at = self.out.len() - self.start;
                self.out.extend_from_slice(&data[span.1..span.2]);
                *span = (span.0, at, at + span.2 - span.1);
            }
        }
        let ids: Vec<usize> = spans.iter().map(|span| span.0).collect();
        let offsets = spans.iter().map(|span| span.1).chain([data_len]);
        write_header(self.out, self.start, Some(&ids), offsets.collect());
        Ok(())
    }
}

/// An array being written, like [`ObjectEncoder`] without names.
pub struct ListEncoder<'a> {
    names: &'a mut dyn FieldNames,
    out: &'a mut Vec<u8>,
    start: usize,
    offsets: Vec<usize>,
}

impl ListEncoder<'_> {
    /// The encoder of the next element, which must be written before the next call.
    pub fn element(&mut self) -> ValueEncoder<'_> {
        self.offsets.push(self.out.len() - self.start);
        ValueEncoder {
            names: &mut *self.names,
            out: &mut *self.out,
        }
    }

    /// Writes the array's header in front of its elements.
    ///
    /// # Errors
    /// When an element was given no value, or the elements pass 4 GiB.
    pub fn finish(mut self) -> Result<(), VariantError> {
        let data_len = values_len(self.out, self.start, "an array")?;
        self.offsets.push(data_len);
        if let Some(i) = self.offsets.windows(2).position(|pair| pair[1] <= pair[0]) {
            return Err(VariantError::value(format!(
                "element {i} was given no value"
            )));
        }
        write_header(self.out, self.start, None, self.offsets);
        Ok(())
    }
}

/// How many bytes of values an object or array (`what`) written from `start` holds.
///
/// # Errors
/// When they pass the 4 GiB a Variant's offsets reach.
fn values_len(out: &[u8], start: usize, what: &str) -> Result<usize, VariantError> {
    let len = out.len() - start;
    match u32::try_from(len) {
        Ok(_) => Ok(len),
        Err(_) => Err(VariantError::value(format!(
            "{what} of {len} bytes passes the Variant's 4 GiB"
        ))),
    }
}

/// Puts an object's (`ids` given) or an array's header in front of its values, which
/// start at `start`: its first byte, its count, the field ids and the `offsets` (one per
/// element and the end), each as narrow as the values allow.
fn write_header(out: &mut Vec<u8>, start: usize, ids: Option<&[usize]>, offsets: Vec<usize>) {
    let count = offsets.len() - 1;
    let offset_size = byte_width(offsets.last().copied().unwrap_or(0));
    let large = count > 255;
    let (first, id_size) = match ids {
        Some(ids) => {
            let id_size = byte_width(ids.iter().copied().max().unwrap_or(0));
            let first = 2
                | ((offset_size as u8 - 1) << 2)
                | ((id_size as u8 - 1) << 4)
                | (u8::from(large) << 6);
            (first, id_size)
        }
        None => (
            3 | ((offset_size as u8 - 1) << 2) | (u8::from(large) << 4),
            0,
        ),
    };
    let mut head = Vec::with_capacity(5 + count * id_size + offsets.len() * offset_size);
    head.push(first);
    write_unsigned(&mut head, count, if large { 4 } else { 1 });
    for &id in ids.unwrap_or_default() {
        write_unsigned(&mut head, id, id_size);
    }
    for &offset in &offsets {
        write_unsigned(&mut head, offset, offset_size);
    }
    out.splice(start..start, head);
}

/// The fewest bytes (1 to 4) that hold `max`.
fn byte_width(max: usize) -> usize {
    match max {
        0..=0xff => 1,
        0x100..=0xffff => 2,
        0x1_0000..=0xff_ffff => 3,
        _ => 4,
    }
}

fn write_unsigned(out: &mut Vec<u8>, value: usize, size: usize) {
    out.extend_from_slice(&(value as u64).to_le_bytes()[..size]);
}
