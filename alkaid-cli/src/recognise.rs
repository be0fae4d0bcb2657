//! What an input is when it is not IPC: a Parquet file, text, a compressed file. Said in
//! the error instead of what the stream reader would make of its first bytes ("a message
//! declares 827474256 bytes of metadata" is `PAR1` read as a length).

/// Formats known by their first bytes, with what to call them.
const MAGICS: [(&[u8], &str); 6] = [
    (b"PAR1", "a Parquet file"),
    (b"ORC", "an ORC file"),
    (b"Obj\x01", "an Avro file"),
    (b"\x1f\x8b", "a gzip-compressed file"),
    (b"\x28\xb5\x2f\xfd", "a zstd-compressed file"),
    (b"PK\x03\x04", "a zip archive"),
];

/// How many leading bytes decide whether an input is text.
const TEXT_PROBE: usize = 4096;

/// What `bytes` are, if they are recognisably not an IPC stream (which starts with a
/// continuation marker or a little-endian length, so has zero bytes in its first eight).
pub fn foreign_format(bytes: &[u8]) -> Option<&'static str> {
    if let Some((_, name)) = MAGICS.iter().find(|(magic, _)| bytes.starts_with(magic)) {
        return Some(name);
    }
    let probe = &bytes[..bytes.len().min(TEXT_PROBE)];
    if probe.is_empty() || probe.contains(&0) {
        return None;
    }
    // A character cut by the probe's end is still text.
    let text = match std::str::from_utf8(probe) {
        Ok(text) => text,
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&probe[..e.valid_up_to()]).ok()?,
        Err(_) => return None,
    };
    Some(match text.trim_start().chars().next() {
        Some('{' | '[') => "JSON text",
        _ if text
            .lines()
            .next()
            .is_some_and(|l| l.contains([',', '\t', ';'])) =>
        {
            "delimited text (CSV)"
        }
        _ => "text",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_formats_are_named_and_ipc_is_not() {
        assert_eq!(foreign_format(b"PAR1\x15\x04"), Some("a Parquet file"));
        assert_eq!(
            foreign_format(b"\x1f\x8b\x08\x00"),
            Some("a gzip-compressed file")
        );
        assert_eq!(foreign_format(b"a,b\n1,2\n"), Some("delimited text (CSV)"));
        assert_eq!(foreign_format(b"  {\"a\": 1}\n"), Some("JSON text"));
        assert_eq!(foreign_format(b"hello\n"), Some("text"));
        // "é" cut in half by the probe.
        let mut long = vec![b'x'; TEXT_PROBE - 1];
        long.extend_from_slice("é".as_bytes());
        assert_eq!(foreign_format(&long), Some("text"));
        // IPC streams: with and without the continuation marker, and the end marker.
        assert_eq!(foreign_format(b"\xff\xff\xff\xff\x10\x01\x00\x00"), None);
        assert_eq!(foreign_format(b"\x10\x01\x00\x00\x0c\x00"), None);
        assert_eq!(foreign_format(b"\xff\xff\xff\xff\x00\x00\x00\x00"), None);
        assert_eq!(foreign_format(b""), None);
        assert_eq!(foreign_format(b"\xc3\x28 not utf-8"), None);
    }
}
