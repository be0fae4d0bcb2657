//! Variable-length bytes in a row: escaped so that a value's encoding is never a prefix of
//! another's, and memcmp still orders them as the bytes. Each `0x00` byte is written as
//! `0x00 0xFF`, and the value ends with `0x00 0x01`. A shorter value that is a prefix of a
//! longer one meets its end marker where the longer one has a byte: `0x00 0x01` sorts
//! before both `0x00 0xFF` and any byte above `0x00`, so the prefix comes first.

/// Writes the encoding of `value` at the start of `out` (at least
/// [`encoded_len`] long) and returns its length. A value without a zero byte, the common
/// case, is one copy; `may_escape` `false` says the caller knows it has none.
pub(super) fn encode_into(value: &[u8], may_escape: bool, out: &mut [u8]) -> usize {
    let mut n = value.len();
    if may_escape && value.contains(&0) {
        n = 0;
        for &byte in value {
            out[n] = byte;
            n += 1;
            if byte == 0 {
                out[n] = 0xFF;
                n += 1;
            }
        }
    } else {
        out[..n].copy_from_slice(value);
    }
    out[n..n + 2].copy_from_slice(&[0, 1]);
    n + 2
}

/// The encoded length of `value`.
pub(super) fn encoded_len(value: &[u8]) -> usize {
    value.len() + value.iter().filter(|&&b| b == 0).count() + 2
}

/// Reads one encoded value from the start of `row` (bytes inverted if `descending`) into
/// `out`; returns the number of row bytes it took, or `None` if the row ends first or holds
/// an escape that [`encode`] does not write.
pub(super) fn decode(row: &[u8], descending: bool, out: &mut Vec<u8>) -> Option<usize> {
    let flip = if descending { 0xFF } else { 0 };
    let mut i = 0;
    loop {
        let byte = *row.get(i)? ^ flip;
        if byte != 0 {
            out.push(byte);
            i += 1;
            continue;
        }
        match *row.get(i + 1)? ^ flip {
            0xFF => out.push(0),
            1 => return Some(i + 2),
            _ => return None,
        }
        i += 2;
    }
}

/// The length of the encoded value at the start of `row` (bytes inverted if `descending`),
/// as [`decode`] would take it, without copying it out.
pub(super) fn skip(row: &[u8], descending: bool) -> Option<usize> {
    // An encoded zero byte is the only byte equal to `flip`: jump from one to the next.
    let flip = if descending { 0xFF } else { 0 };
    let mut i = 0;
    loop {
        let at = i + memchr::memchr(flip, row.get(i..)?)?;
        match *row.get(at + 1)? ^ flip {
            0xFF => i = at + 2,
            1 => return Some(at + 2),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The encoding written out byte by byte, as the module docs say.
    fn encode(value: &[u8], out: &mut Vec<u8>) {
        for &byte in value {
            out.push(byte);
            if byte == 0 {
                out.push(0xFF);
            }
        }
        out.extend_from_slice(&[0, 1]);
    }

    fn encoded(value: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        encode(value, &mut out);
        assert_eq!(out.len(), encoded_len(value));
        let mut direct = vec![0; out.len()];
        assert_eq!(encode_into(value, true, &mut direct), out.len());
        if !value.contains(&0) {
            let mut unescaped = vec![0; out.len()];
            assert_eq!(encode_into(value, false, &mut unescaped), out.len());
            assert_eq!(unescaped, out);
        }
        assert_eq!(direct, out);
        out
    }

    #[test]
    fn encodings_order_as_the_bytes_and_decode_back() {
        let values: [&[u8]; 8] = [b"", b"\0", b"\0\0", b"\0\x01", b"a", b"a\0", b"ab", b"\xff"];
        for a in values {
            let mut back = Vec::new();
            assert_eq!(decode(&encoded(a), false, &mut back), Some(encoded_len(a)));
            let inverted: Vec<u8> = encoded(a).iter().map(|b| !b).collect();
            assert_eq!(skip(&encoded(a), false), Some(encoded_len(a)));
            assert_eq!(skip(&inverted, true), Some(encoded_len(a)));
            assert_eq!(back, a);
            for b in values {
                assert_eq!(encoded(a).cmp(&encoded(b)), a.cmp(b), "{a:?} against {b:?}");
            }
        }
        assert_eq!(decode(b"ab", false, &mut Vec::new()), None, "no end");
        assert_eq!(skip(b"ab", false), None, "no end");
        assert_eq!(skip(b"a\0", false), None, "no end after a zero");
        assert_eq!(skip(b"a\0\x07", false), None, "a bad escape");
        assert_eq!(
            decode(b"a\0\x07", false, &mut Vec::new()),
            None,
            "a bad escape"
        );
    }
}
