//! Reading: IPC streams and files back to record batches.

mod batch;
mod decoder;
pub(crate) mod delta;
mod file;
mod framing;
mod options;
mod state;
mod stream;

pub use decoder::Decoder;
pub use file::{ByteSource, FileReader, Seekable};
pub use options::ReadOptions;
pub use state::Decoded;
pub use stream::StreamReader;
