//! Footer fields of another type than Parquet's own, left out as Thrift's generated readers
//! leave them out (Arrow C++, parquet-java: a field whose wire type is not the declared
//! one is skipped). arrow-rs reads the fields it knows by id without looking at their
//! type, so one such field derails the rest of the footer: development builds of
//! parquet-mr 1.12 wrote a list where `ColumnMetaData` now has `bloom_filter_length`, an
//! `i32`, and arrow-rs 60 then fails with "Expected list element type of I64 but got I16".
//!
//! The footer's bytes are copied without such fields before arrow-rs decodes them, when
//! it has one; the field headers after a dropped field are written again (their ids are
//! deltas). The walk follows the structs on the way to column metadata, the place such
//! fields are known; the footer was walked by `thrift.rs` first, so every size is honest.

use super::thrift::{self, kind};

/// A field of a struct: its id, the wire type it must have, and for a struct or a list of
/// structs, its own fields.
struct Field {
    id: i16,
    wire: u8,
    inner: Option<Fields>,
}

/// A struct's fields.
type Fields = &'static [Field];

/// A field whose value is copied as it is.
const fn field(id: i16, wire: u8) -> Field {
    Field {
        id,
        wire,
        inner: None,
    }
}

/// A field holding a struct, or a list of structs, of `inner`.
const fn holding(id: i16, wire: u8, inner: Fields) -> Field {
    Field {
        id,
        wire,
        inner: Some(inner),
    }
}

/// A boolean field's header carries its value: either code is the boolean type.
fn same_type(wire: u8, declared: u8) -> bool {
    let boolean = |t| t == kind::TRUE || t == kind::FALSE;
    wire == declared || (boolean(wire) && boolean(declared))
}

const COLUMN_META_DATA: Fields = &[
    field(1, kind::I32),
    field(2, kind::LIST),
    field(3, kind::LIST),
    field(4, kind::I32),
    field(5, kind::I64),
    field(6, kind::I64),
    field(7, kind::I64),
    field(8, kind::LIST),
    field(9, kind::I64),
    field(10, kind::I64),
    field(11, kind::I64),
    field(12, kind::STRUCT),
    field(13, kind::LIST),
    field(14, kind::I64),
    field(15, kind::I32),
    field(16, kind::STRUCT),
    field(17, kind::STRUCT),
];

const COLUMN_CHUNK: Fields = &[
    field(1, kind::BINARY),
    field(2, kind::I64),
    holding(3, kind::STRUCT, COLUMN_META_DATA),
    field(4, kind::I64),
    field(5, kind::I32),
    field(6, kind::I64),
    field(7, kind::I32),
    field(8, kind::STRUCT),
    field(9, kind::BINARY),
];

const ROW_GROUP: Fields = &[
    holding(1, kind::LIST, COLUMN_CHUNK),
    field(2, kind::I64),
    field(3, kind::I64),
    field(4, kind::LIST),
    field(5, kind::I64),
    field(6, kind::I64),
    field(7, kind::I16),
];

const FILE_META_DATA: Fields = &[
    field(1, kind::I32),
    field(2, kind::LIST),
    field(3, kind::I64),
    holding(4, kind::LIST, ROW_GROUP),
    field(5, kind::LIST),
    field(6, kind::BINARY),
    field(7, kind::LIST),
    field(8, kind::STRUCT),
    field(9, kind::BINARY),
];

/// The footer's bytes without the fields of another type than Parquet's, or `None` when
/// it has none (the footer is then read as it is).
///
/// # Errors
/// If the bytes do not walk (`thrift.rs` refuses them first, so this is a backstop).
pub(crate) fn without_mistyped_fields(footer: &[u8]) -> Result<Option<Vec<u8>>, String> {
    let mut finding = Copy {
        bytes: footer,
        at: 0,
        out: None,
        dropped: 0,
    };
    finding.structure(FILE_META_DATA)?;
    if finding.dropped == 0 {
        return Ok(None);
    }
    let mut copying = Copy {
        bytes: footer,
        at: 0,
        out: Some(Vec::with_capacity(footer.len())),
        dropped: 0,
    };
    copying.structure(FILE_META_DATA)?;
    Ok(copying.out)
}

/// A walk that copies what it keeps into `out` (when there is one) and counts what it
/// drops.
struct Copy<'a> {
    bytes: &'a [u8],
    at: usize,
    out: Option<Vec<u8>>,
    dropped: usize,
}

impl Copy<'_> {
    fn byte(&mut self) -> Result<u8, String> {
        let byte = *self
            .bytes
            .get(self.at)
            .ok_or("the footer ends inside a value")?;
        self.at += 1;
        Ok(byte)
    }

    fn varint(&mut self) -> Result<u64, String> {
        let (value, next) = thrift::varint_at(self.bytes, self.at)?;
        self.at = next;
        Ok(value)
    }

    /// Writes `bytes` to the copy.
    fn emit(&mut self, bytes: &[u8]) {
        if let Some(out) = &mut self.out {
            out.extend_from_slice(bytes);
        }
    }

    /// Copies the bytes from `start` to the walk's position.
    fn emit_from(&mut self, start: usize) {
        if let Some(out) = &mut self.out {
            out.extend_from_slice(&self.bytes[start..self.at]);
        }
    }

    /// Steps over a value of wire type `code`, `in_collection` as in `thrift.rs`.
    fn skip(&mut self, code: u8, in_collection: bool) -> Result<(), String> {
        self.at = thrift::value_end(self.bytes, self.at, code, in_collection)?;
        Ok(())
    }

    fn list_header(&mut self) -> Result<(u64, u8), String> {
        let header = self.byte()?;
        let count = match header >> 4 {
            15 => self.varint()?,
            short => u64::from(short),
        };
        Ok((count, header & 0x0f))
    }

    /// Copies a struct of `fields`, dropping the fields of another type.
    fn structure(&mut self, fields: Fields) -> Result<(), String> {
        let (mut read_id, mut written_id) = (0i16, 0i16);
        loop {
            let header = self.byte()?;
            if header == 0 {
                self.emit(&[0]);
                return Ok(());
            }
            let code = header & 0x0f;
            let id = match header >> 4 {
                0 => {
                    let zigzag = self.varint()?;
                    let id = ((zigzag >> 1) as i64) ^ -((zigzag & 1) as i64);
                    i16::try_from(id).map_err(|_| format!("a field id of {id}"))?
                }
                delta => read_id.saturating_add(i16::from(delta)),
            };
            read_id = id;
            let declared = fields.iter().find(|known| known.id == id);
            if declared.is_some_and(|known| !same_type(code, known.wire)) {
                self.dropped += 1;
                self.skip(code, false)?;
                continue;
            }
            self.field_header(id, code, written_id);
            written_id = id;
            match declared.map(|known| (known.wire, known.inner)) {
                Some((kind::STRUCT, Some(inner))) => self.structure(inner)?,
                Some((kind::LIST, Some(inner))) => {
                    let start = self.at;
                    let (count, element) = self.list_header()?;
                    self.emit_from(start);
                    for _ in 0..count {
                        match element {
                            kind::STRUCT => self.structure(inner)?,
                            other => {
                                let start = self.at;
                                self.skip(other, true)?;
                                self.emit_from(start);
                            }
                        }
                    }
                }
                _ => {
                    let start = self.at;
                    self.skip(code, false)?;
                    self.emit_from(start);
                }
            }
        }
    }

    /// Writes the header of field `id` of wire type `code`, after field `last`.
    fn field_header(&mut self, id: i16, code: u8, last: i16) {
        let delta = i32::from(id) - i32::from(last);
        if (1..=15).contains(&delta) {
            self.emit(&[(delta as u8) << 4 | code]);
            return;
        }
        let zigzag = ((i32::from(id) << 1) ^ (i32::from(id) >> 31)) as u32;
        let mut header = vec![code];
        let mut rest = zigzag;
        loop {
            let byte = (rest & 0x7f) as u8;
            rest >>= 7;
            if rest == 0 {
                header.push(byte);
                break;
            }
            header.push(byte | 0x80);
        }
        self.emit(&header);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FileMetaData { 1: version, 4: [RowGroup { 1: [ColumnChunk { 2: file_offset,
    /// 3: ColumnMetaData { 9: data_page_offset, 15: `list`, 16: struct {} } }] }], 6:
    /// created_by }: field 15 is a list where an i32 belongs.
    fn footer(mistyped: bool) -> Vec<u8> {
        let mut column = vec![0x96, 0x08]; // 9: i64 4 (delta 9, zigzag 8)
        if mistyped {
            column.extend([0x69, 0x15, 0x02]); // 15: list of one i32
        } else {
            column.extend([0x65, 0x02]); // 15: i32 1
        }
        column.extend([0x1c, 0x00, 0x00]); // 16: struct {}, stop
        let mut chunk = vec![0x26, 0x08, 0x1c]; // 2: i64 4; 3: struct
        chunk.extend(&column);
        chunk.push(0x00);
        let mut group = vec![0x19, 0x1c]; // 1: list of one struct
        group.extend(&chunk);
        group.push(0x00);
        let mut file = vec![0x15, 0x04, 0x39, 0x1c]; // 1: i32 2; 4: list of one struct
        file.extend(&group);
        file.extend([0x28, 0x02, b'm', b'r', 0x00]); // 6: binary "mr"; stop
        file
    }

    #[test]
    fn a_field_of_another_type_is_left_out_and_the_ids_after_it_kept() {
        assert_eq!(without_mistyped_fields(&footer(false)), Ok(None));
        let fixed = without_mistyped_fields(&footer(true)).unwrap().unwrap();
        // As if written without field 15: field 16 follows 9 as a delta of 7.
        let mut expected = footer(false);
        let at = expected.windows(2).position(|w| w == [0x65, 0x02]).unwrap();
        expected.splice(at..at + 3, [0x7c]);
        assert_eq!(fixed, expected);
        assert!(thrift::check_struct(&fixed).is_ok());
    }

    #[test]
    fn a_long_field_id_is_written_in_full() {
        let mut header = Copy {
            bytes: &[],
            at: 0,
            out: Some(Vec::new()),
            dropped: 0,
        };
        header.field_header(40, kind::I32, 3);
        header.field_header(4, kind::I64, 40);
        assert_eq!(header.out.unwrap(), [0x05, 0x50, 0x06, 0x08]);
    }
}
