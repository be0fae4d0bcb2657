//! Full validation of a Variant value: every nested value, to the last byte.

use super::value::{MAX_DEPTH, encoded_len};
use super::{Variant, VariantError, VariantMetadata};

impl<'m, 'v> Variant<'m, 'v> {
    /// Reads `value` and checks it whole: every nested value's bytes, strings' UTF-8,
    /// decimals' scale and digits, objects' field ids (inside the metadata, names sorted
    /// and unique), and that the value takes exactly the bytes given.
    ///
    /// # Errors
    /// The first problem, with the path to it (`.name`, `[index]`) and its byte offset.
    pub fn try_new(metadata: VariantMetadata<'m>, value: &'v [u8]) -> Result<Self, VariantError> {
        validate_value(metadata, value)?;
        Self::parse(metadata, value)
    }
}

/// Checks `value` whole against `metadata`; see [`Variant::try_new`].
pub(super) fn validate_value(
    metadata: VariantMetadata<'_>,
    value: &[u8],
) -> Result<(), VariantError> {
    let mut path = String::from("$");
    let len = check(metadata, value, 0, &mut path)?;
    if len != value.len() {
        return Err(VariantError::value(format!(
            "{} bytes after the value's end",
            value.len() - len
        )));
    }
    Ok(())
}

/// Checks the value at the start of `bytes`, `path` naming where it is; returns its length.
fn check(
    metadata: VariantMetadata<'_>,
    bytes: &[u8],
    depth: usize,
    path: &mut String,
) -> Result<usize, VariantError> {
    let here = |e: VariantError, path: &str| e.at(path);
    if depth > MAX_DEPTH {
        return Err(here(
            VariantError::value(format!("nested more than {MAX_DEPTH} deep")),
            path,
        ));
    }
    let value = Variant::parse(metadata, bytes).map_err(|e| here(e, path))?;
    let digits = |unscaled: i128, max: u32, what: &str| {
        if unscaled.unsigned_abs() >= 10u128.pow(max) {
            Err(here(
                VariantError::value(format!("{what} {unscaled} has more than {max} digits")),
                path,
            ))
        } else {
            Ok(())
        }
    };
    match value {
        Variant::Decimal4(v, _) => digits(v.into(), 9, "decimal4")?,
        Variant::Decimal8(v, _) => digits(v.into(), 18, "decimal8")?,
        Variant::Decimal16(v, _) => digits(v, 38, "decimal16")?,
        Variant::Object(object) => {
            let layout = *object.layout();
            let mut previous: Option<&str> = None;
            for i in 0..object.len() {
                let name = object.field_name(i).map_err(|e| here(e, path))?;
                if previous.is_some_and(|p| p >= name) {
                    let reason = if previous == Some(name) {
                        format!("field {name:?} appears twice")
                    } else {
                        format!(
                            "field {name:?} follows {:?}: names must be sorted",
                            previous.unwrap_or_default()
                        )
                    };
                    return Err(here(VariantError::value(reason), path));
                }
                previous = Some(name);
                let start = layout.values_start + layout.offset(bytes, i);
                let child = bytes.get(start..layout.end).ok_or_else(|| {
                    here(
                        VariantError::value(format!("field {name:?} starts past the values' end")),
                        path,
                    )
                })?;
                let mark = path.len();
                path.push('.');
                path.push_str(name);
                check(metadata, child, depth + 1, path)?;
                path.truncate(mark);
            }
        }
        Variant::List(list) => {
            let layout = *list.layout();
            for i in 0..list.len() {
                let (start, end) = (layout.offset(bytes, i), layout.offset(bytes, i + 1));
                if end < start {
                    return Err(here(
                        VariantError::value(format!(
                            "element {i}'s offsets go backwards ({start} then {end})"
                        )),
                        path,
                    ));
                }
                let child = bytes
                    .get(layout.values_start + start..layout.values_start + end)
                    .filter(|_| layout.values_start + end <= layout.end)
                    .ok_or_else(|| {
                        here(
                            VariantError::value(format!(
                                "element {i} spans {start}..{end}, past the values' end"
                            )),
                            path,
                        )
                    })?;
                let mark = path.len();
                path.push_str(&format!("[{i}]"));
                let len = check(metadata, child, depth + 1, path)?;
                if len != child.len() {
                    return Err(here(
                        VariantError::value(format!(
                            "{} bytes after the element's end",
                            child.len() - len
                        )),
                        path,
                    ));
                }
                path.truncate(mark);
            }
        }
        _ => {}
    }
    encoded_len(bytes).map_err(|e| here(e, path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::EMPTY_METADATA;

    fn error(metadata: &[u8], value: &[u8]) -> String {
        let metadata = VariantMetadata::try_new(metadata).unwrap();
        Variant::try_new(metadata, value).unwrap_err().to_string()
    }

    #[test]
    fn broken_values_are_named_with_their_path() {
        let ab = [0x11, 2, 0, 1, 2, b'a', b'b'];
        for (value, expected) in [
            (&[][..], "empty value"),
            (&[0x14, 1, 2][..], "int32 runs past the end"),
            (&[0x0c, 1, 2][..], "1 bytes after the value's end"),
            (&[0x54][..], "unknown primitive type 21"),
            (&[0x20, 39, 0, 0, 0, 0][..], "decimal4 scale 39 is over 38"),
            (
                &[0x20, 2, 0x00, 0xca, 0x9a, 0x3b][..],
                "decimal4 1000000000 has more than 9 digits",
            ),
            (&[0x09, 0xff, 0xfe][..], "string is not UTF-8"),
            (
                &[0x02, 2, 1, 0, 0, 1, 2, 0, 0][..],
                "field \"a\" follows \"b\"",
            ),
            (
                &[0x02, 2, 0, 0, 0, 1, 2, 0, 0][..],
                "field \"a\" appears twice",
            ),
            (&[0x02, 1, 5, 0, 1, 0][..], "field id 5 is outside"),
            (
                &[0x03, 2, 1, 0, 2, 0x0c, 7][..],
                "element 0's offsets go backwards",
            ),
            (
                &[0x03, 2, 0, 2, 1, 0x0c, 7][..],
                "element 0 spans 0..2, past the values' end",
            ),
            (
                &[0x03, 1, 0, 3, 0x0c, 7, 0][..],
                "at $[0]: 1 bytes after the element's end",
            ),
            (&[0x03, 200, 0][..], "array of 200 elements does not fit"),
        ] {
            let found = error(&ab, value);
            assert!(found.contains(expected), "{value:?}: {found}");
        }
    }

    #[test]
    fn nesting_past_the_limit_is_refused() {
        // [[[…null…]]], MAX_DEPTH + 2 arrays deep, each with 4-byte offsets.
        let mut value = vec![0x00];
        for _ in 0..MAX_DEPTH + 2 {
            let mut framed = vec![0x0f, 1];
            framed.extend(0u32.to_le_bytes());
            framed.extend(u32::try_from(value.len()).unwrap().to_le_bytes());
            framed.extend(&value);
            value = framed;
        }
        let found = error(&EMPTY_METADATA, &value);
        assert!(found.contains("nested more than 128 deep"), "{found}");
    }
}
