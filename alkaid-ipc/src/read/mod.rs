//! Reading: IPC streams and files back to record batches.

mod batch;
mod body;
mod body_parts;
mod buffer_stream;
mod decoder;
mod file;
mod file_batch;
mod file_decoder;
mod file_open;
mod file_prelude;
mod file_select;
mod framing;
mod options;
mod projection;
mod state;
mod stream;
mod stream_schema;

#[cfg(test)]
mod tests;

pub(crate) use body::fill;
pub use buffer_stream::BufferStreamReader;
pub use decoder::{Decoder, MessageInfo};
pub use file::{ByteSource, FileReader, Seekable};
pub use file_batch::{BatchPlan, RowPart};
pub use file_decoder::{Fetch, FileDecoder, Step};
pub use file_open::{FileOpening, Opened};
pub(crate) use framing::{Prefix, body_length, parse_prefix};
pub use options::ReadOptions;
pub use state::Decoded;
pub(crate) use state::parse_message;
pub use stream::StreamReader;
