//! Streams: the push-based decoder at their core (`decoder.rs`), and the readers around it,
//! over any `std::io::Read` (`reader.rs`) and over bytes in memory (`buffer.rs`).

pub(crate) mod buffer;
pub(crate) mod decoder;
pub(crate) mod reader;
