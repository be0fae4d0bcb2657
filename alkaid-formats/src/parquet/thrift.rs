//! A walk over Thrift compact-protocol bytes that checks every size they declare against
//! the bytes that are there, before arrow-rs decodes them. A Parquet footer or page index
//! is a Thrift struct, and arrow-rs reserves room for a list as its header declares it: a
//! few bytes declaring 2^31 page locations make it reserve tens of gigabytes, an abort that
//! no panic guard catches. Every element of a list, set or map takes at least one byte
//! (two for a map's entry), so a count larger than the bytes left cannot be honest.
//!
//! The walk reads every field of every type without knowing the schema, nests at most
//! [`MAX_DEPTH`] levels, and takes time in the bytes, never in a declared count.

/// The deepest nesting of structs, lists and maps accepted (Parquet's own structs nest a
/// handful of levels).
pub(crate) const MAX_DEPTH: usize = 64;

/// Checks the struct at the start of `bytes`, returning how many bytes it takes.
///
/// # Errors
/// What is wrong, and at which byte: a size larger than the bytes left, bytes that end
/// inside the struct, an unknown type, nesting past [`MAX_DEPTH`].
pub(crate) fn check_struct(bytes: &[u8]) -> Result<usize, String> {
    walk_struct(bytes).map_err(|refused| refused.message)
}

/// Why a walk stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refused {
    pub message: String,
    /// Whether a size was declared that the bytes left cannot hold: certainly hostile,
    /// where bytes that merely end inside a value may be a window cut short.
    pub oversized: bool,
}

/// [`check_struct`], saying whether what it refused declared more than the bytes hold.
pub(crate) fn walk_struct(bytes: &[u8]) -> Result<usize, Refused> {
    let mut walk = Walk {
        bytes,
        at: 0,
        oversized: false,
    };
    match walk.structure(0) {
        Ok(()) => Ok(walk.at),
        Err(message) => Err(Refused {
            message,
            oversized: walk.oversized,
        }),
    }
}

/// The `i32` field `id` of the struct at the start of `bytes`, if it has one.
pub(crate) fn i32_field(bytes: &[u8], id: i16) -> Option<i32> {
    let mut walk = Walk {
        bytes,
        at: 0,
        oversized: false,
    };
    let mut last = 0i16;
    loop {
        let header = walk.byte().ok()?;
        if header == 0 {
            return None;
        }
        let field = match header >> 4 {
            0 => {
                let zigzag = walk.varint().ok()?;
                i16::try_from(((zigzag >> 1) as i64) ^ -((zigzag & 1) as i64)).ok()?
            }
            delta => last.checked_add(i16::from(delta))?,
        };
        last = field;
        if field == id && header & 0x0f == kind::I32 {
            let zigzag = walk.varint().ok()?;
            return i32::try_from(((zigzag >> 1) as i64) ^ -((zigzag & 1) as i64)).ok();
        }
        walk.value(header & 0x0f, 1, false).ok()?;
    }
}

/// Where the value of wire type `code` that starts at byte `at` of `bytes` ends, as the
/// walk above steps over it (`in_collection` as in [`Walk::value`]): for walks of their
/// own over bytes this module has checked (`mistyped.rs`'s copy).
pub(crate) fn value_end(
    bytes: &[u8],
    at: usize,
    code: u8,
    in_collection: bool,
) -> Result<usize, String> {
    let mut walk = Walk {
        bytes,
        at,
        oversized: false,
    };
    walk.value(code, 1, in_collection)?;
    Ok(walk.at)
}

/// The variable-length integer at byte `at` of `bytes`, and the byte after it.
pub(crate) fn varint_at(bytes: &[u8], at: usize) -> Result<(u64, usize), String> {
    let mut walk = Walk {
        bytes,
        at,
        oversized: false,
    };
    let value = walk.varint()?;
    Ok((value, walk.at))
}

struct Walk<'a> {
    bytes: &'a [u8],
    at: usize,
    oversized: bool,
}

/// The compact protocol's type codes.
pub(crate) mod kind {
    pub const TRUE: u8 = 1;
    pub const FALSE: u8 = 2;
    pub const BYTE: u8 = 3;
    pub const I16: u8 = 4;
    pub const I32: u8 = 5;
    pub const I64: u8 = 6;
    pub const DOUBLE: u8 = 7;
    pub const BINARY: u8 = 8;
    pub const LIST: u8 = 9;
    pub const SET: u8 = 10;
    pub const MAP: u8 = 11;
    pub const STRUCT: u8 = 12;
}

impl Walk<'_> {
    /// `message`, marking the walk as refused for a size the bytes cannot hold.
    fn too_much(&mut self, message: String) -> String {
        self.oversized = true;
        message
    }

    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn ended(&self) -> String {
        format!("the Thrift bytes end inside a value (at byte {})", self.at)
    }

    fn byte(&mut self) -> Result<u8, String> {
        let byte = *self.bytes.get(self.at).ok_or_else(|| self.ended())?;
        self.at += 1;
        Ok(byte)
    }

    /// Steps over `n` bytes: a length the value `declared` (else a fixed width, which
    /// bytes cut short merely end inside).
    fn skip(&mut self, n: u64, declared: bool) -> Result<(), String> {
        match usize::try_from(n).ok().filter(|&n| n <= self.left()) {
            Some(n) => {
                self.at += n;
                Ok(())
            }
            None if !declared => Err(self.ended()),
            None => {
                let message = format!(
                    "a value at byte {} declares {n} bytes, but {} are left",
                    self.at,
                    self.left()
                );
                Err(self.too_much(message))
            }
        }
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let byte = self.byte()?;
            value |= u64::from(byte & 0x7f).checked_shl(shift).unwrap_or(0);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(format!(
            "a variable-length integer at byte {} runs past 10 bytes",
            self.at
        ))
    }

    /// Checks that `count` elements of at least `each` bytes fit in what is left.
    fn fits(&mut self, count: u64, each: u64, what: &str) -> Result<(), String> {
        match count.checked_mul(each) {
            Some(bytes) if bytes <= self.left() as u64 => Ok(()),
            _ => {
                let message = format!(
                    "a {what} at byte {} declares {count} elements, but only {} bytes are left",
                    self.at,
                    self.left()
                );
                Err(self.too_much(message))
            }
        }
    }

    /// A value of type `code`; `in_collection` says whether it is an element of a list,
    /// set or map, where a boolean takes a byte of its own (in a struct's field header, it
    /// takes none).
    fn value(&mut self, code: u8, depth: usize, in_collection: bool) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "Thrift values nest deeper than {MAX_DEPTH} levels (at byte {})",
                self.at
            ));
        }
        match code {
            kind::TRUE | kind::FALSE if in_collection => self.skip(1, false),
            kind::TRUE | kind::FALSE => Ok(()),
            kind::BYTE => self.skip(1, false),
            kind::I16 | kind::I32 | kind::I64 => self.varint().map(drop),
            kind::DOUBLE => self.skip(8, false),
            kind::BINARY => {
                let len = self.varint()?;
                self.skip(len, true)
            }
            kind::LIST | kind::SET => self.list(depth),
            kind::MAP => self.map(depth),
            kind::STRUCT => self.structure(depth),
            other => Err(format!(
                "an unknown Thrift type {other} at byte {}",
                self.at.saturating_sub(1)
            )),
        }
    }

    fn list(&mut self, depth: usize) -> Result<(), String> {
        let header = self.byte()?;
        let element = header & 0x0f;
        let count = match header >> 4 {
            15 => self.varint()?,
            short => u64::from(short),
        };
        self.fits(count, 1, "list")?;
        for _ in 0..count {
            self.value(element, depth + 1, true)?;
        }
        Ok(())
    }

    fn map(&mut self, depth: usize) -> Result<(), String> {
        let count = self.varint()?;
        if count == 0 {
            return Ok(());
        }
        let kinds = self.byte()?;
        self.fits(count, 2, "map")?;
        for _ in 0..count {
            self.value(kinds >> 4, depth + 1, true)?;
            self.value(kinds & 0x0f, depth + 1, true)?;
        }
        Ok(())
    }

    fn structure(&mut self, depth: usize) -> Result<(), String> {
        loop {
            let header = self.byte()?;
            if header == 0 {
                return Ok(());
            }
            if header >> 4 == 0 {
                // A field id that is not a small step from the last one follows in full.
                self.varint()?;
            }
            self.value(header & 0x0f, depth + 1, false)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn honest_structs_are_measured_whole() {
        // struct { 1: i32 = 3, 2: list<i64> = [1, 2], 3: binary = "ab", 4: bool = true,
        //          5: struct { 1: double }, 6: map<i32, bool> = {1: true} }, then a byte
        // that is not the struct's.
        let bytes = [
            0x15, 0x06, // field 1, i32, zigzag 3
            0x19, 0x26, 0x02, 0x04, // field 2, list of two i64
            0x18, 0x02, b'a', b'b', // field 3, binary of 2
            0x11, // field 4, true
            0x1c, 0x17, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, // field 5, struct { double }
            0x1b, 0x01, 0x51, 0x02, 0x01, // field 6, map of one i32 -> bool
            0x00, // stop
            0xff,
        ];
        assert_eq!(check_struct(&bytes), Ok(bytes.len() - 1));
        // A field id written in full (delta 0).
        assert_eq!(check_struct(&[0x05, 0x20, 0x06, 0x00]), Ok(4));
    }

    #[test]
    fn a_count_past_the_bytes_left_is_refused_before_anything_is_reserved() {
        // field 1: a list of 2^31 structs, in eight bytes.
        let bytes = [0x19, 0xfc, 0x80, 0x80, 0x80, 0x80, 0x08, 0x00];
        let err = check_struct(&bytes).unwrap_err();
        assert!(err.contains("declares 2147483648 elements"), "{err}");
        let binary = check_struct(&[0x18, 0xff, 0xff, 0x03, b'x', 0x00]).unwrap_err();
        assert!(binary.contains("declares 65535 bytes"), "{binary}");
        let map = check_struct(&[0x1b, 0x80, 0x01, 0x55, 0x00]).unwrap_err();
        assert!(map.contains("map"), "{map}");
    }

    #[test]
    fn short_unknown_and_deep_input_is_refused() {
        assert!(check_struct(&[]).unwrap_err().contains("end inside"));
        assert!(check_struct(&[0x15]).unwrap_err().contains("end inside"));
        assert!(
            check_struct(&[0x1d, 0x00])
                .unwrap_err()
                .contains("unknown Thrift type 13")
        );
        let endless = [
            0x16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        ];
        assert!(check_struct(&endless).unwrap_err().contains("10 bytes"));
        // Structs inside structs, 100 deep.
        let mut deep = vec![0x1c; 100];
        deep.extend(vec![0x00; 101]);
        assert!(check_struct(&deep).unwrap_err().contains("nest deeper"));
    }
}
