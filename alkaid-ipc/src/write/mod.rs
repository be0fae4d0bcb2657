//! Writing: record batches to IPC streams and files.

pub(crate) mod encode;
pub(crate) mod file;
mod file_output;
pub(crate) mod message;
mod message_encoder;
mod options;
mod spool;
mod stream;
mod unify;
pub(crate) mod writer;

pub use file::FileWriter;
pub use file_output::FileOutput;
pub use message_encoder::{EncodedMessage, MessageEncoder, MessageKind};
pub use options::{FileDictionaries, Magic, WriteOptions};
pub use spool::SpoolWriter;
pub use stream::StreamWriter;
