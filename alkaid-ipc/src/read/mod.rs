//! Reading: IPC streams and files back to record batches.
//!
//! What every reader shares is at this level: the length prefix (`framing.rs`), the state
//! kept between messages (`state.rs`), options and projection. Below it, `body/` turns a
//! message body into arrays, `stream/` reads streams and `file/` files.

mod body;
mod file;
mod framing;
mod options;
mod projection;
mod state;
mod stream;

#[cfg(test)]
mod tests;

pub use file::batch::{BatchPlan, RowPart};
pub use file::decoder::{Fetch, FileDecoder, Step};
pub use file::open::{FileOpening, Opened};
pub use file::reader::{ByteSource, FileReader, Seekable};
pub(crate) use framing::{Prefix, body_length, parse_prefix};
pub use options::ReadOptions;
pub use state::Decoded;
pub(crate) use state::parse_message;
pub use stream::buffer::BufferStreamReader;
pub use stream::decoder::{Decoder, MessageInfo};
pub use stream::reader::StreamReader;
