//! Message bodies: held whole or in the parts a projection needs (`parts.rs`), read from a
//! `std::io::Read` as their bytes arrive (`from_read.rs`), and walked back to arrays
//! (`decode.rs`).

pub(crate) mod decode;
pub(crate) mod from_read;
pub(crate) mod parts;
