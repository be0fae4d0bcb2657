//! Reading until a buffer is full: what a reader of message bodies and the LZ4 frame
//! decoder both need, kept below both (the codecs do not reach up into the readers).

use std::io::{ErrorKind, Read};

/// Reads into `out` until it is full or the input ends; the number of bytes read.
pub(crate) fn fill(input: &mut impl Read, out: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < out.len() {
        match input.read(&mut out[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}
