//! The protobuf messages the Alkaid codecs write, and the write options in and out of them.
//! Field numbers are the wire format: a new field takes a new number, none is reused.

use alkaid_ipc::{Compression, Magic, WriteOptions};
use alkaid_schema::extension::Namespace;
use datafusion::common::{Result, plan_err};
use datafusion_proto::protobuf::{FileScanExecConf, PhysicalExprNode};

/// An [`AlkaidTable`](crate::AlkaidTable): where its files are and how it lists, reads
/// and writes them. Its schema travels beside it, in the plan.
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct TableMessage {
    /// The table's locations, as URLs.
    #[prost(string, repeated, tag = "1")]
    pub paths: Vec<String>,
    /// The extension a listed file must have (empty: any).
    #[prost(string, tag = "2")]
    pub file_extension: String,
    /// Each path's glob pattern (empty: none), one per path.
    #[prost(string, repeated, tag = "3")]
    pub globs: Vec<String>,
    /// How `INSERT INTO` writes files.
    #[prost(message, optional, tag = "4")]
    pub write: Option<WriteMessage>,
    /// The `CREATE EXTERNAL TABLE` statement the table came from, if any.
    #[prost(string, optional, tag = "5")]
    pub definition: Option<String>,
}

/// A scan of Alkaid files: DataFusion's own description of a file scan, and the filters
/// the scan evaluates with Alkaid's kernels.
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct ScanMessage {
    /// Files, partitions, schema, projection, limit and statistics.
    #[prost(message, optional, tag = "1")]
    pub config: Option<FileScanExecConf>,
    /// The filters, over the table's schema.
    #[prost(message, repeated, tag = "2")]
    pub filters: Vec<PhysicalExprNode>,
}

/// The [`WriteOptions`] of a format (`COPY … TO`, `INSERT INTO`).
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct WriteMessage {
    /// 0: none, 1: LZ4 frames, 2: zstd.
    #[prost(uint32, tag = "1")]
    pub compression: u32,
    /// The zstd level, when `compression` is 2.
    #[prost(int32, tag = "2")]
    pub zstd_level: i32,
    /// 0: `ALKAID1`, 1: `ARROW1`.
    #[prost(uint32, tag = "3")]
    pub magic: u32,
    /// 0: `ALKAID:` metadata keys, 1: `ARROW:` keys.
    #[prost(uint32, tag = "4")]
    pub namespace: u32,
    /// 8 or 64.
    #[prost(uint64, tag = "5")]
    pub alignment: u64,
    /// Threads that compress one message's buffers (at least 1).
    #[prost(uint64, tag = "6")]
    pub compression_threads: u64,
    /// Whether a stream may send dictionary deltas.
    #[prost(bool, tag = "7")]
    pub dictionary_deltas: bool,
}

impl From<&WriteOptions> for WriteMessage {
    fn from(options: &WriteOptions) -> Self {
        let (compression, zstd_level) = match options.compression() {
            Compression::None => (0, 0),
            Compression::Lz4Frame => (1, 0),
            Compression::Zstd { level } => (2, level),
        };
        Self {
            compression,
            zstd_level,
            magic: match options.magic() {
                Magic::Alkaid => 0,
                Magic::Arrow => 1,
            },
            namespace: match options.namespace() {
                Namespace::Alkaid => 0,
                Namespace::Arrow => 1,
            },
            alignment: options.alignment() as u64,
            compression_threads: options.compression_threads() as u64,
            dictionary_deltas: options.dictionary_deltas(),
        }
    }
}

impl WriteMessage {
    /// The options this message describes.
    ///
    /// # Errors
    /// If a field holds a value no [`WriteOptions`] has, naming the field.
    pub fn to_options(&self) -> Result<WriteOptions> {
        let compression = match self.compression {
            0 => Compression::None,
            1 => Compression::Lz4Frame,
            2 => Compression::Zstd {
                level: self.zstd_level,
            },
            other => return plan_err!("serialized Alkaid write options: compression {other}"),
        };
        let magic = match self.magic {
            0 => Magic::Alkaid,
            1 => Magic::Arrow,
            other => return plan_err!("serialized Alkaid write options: magic {other}"),
        };
        let namespace = match self.namespace {
            0 => Namespace::Alkaid,
            1 => Namespace::Arrow,
            other => return plan_err!("serialized Alkaid write options: namespace {other}"),
        };
        if self.alignment != 8 && self.alignment != 64 {
            return plan_err!(
                "serialized Alkaid write options: alignment {} (8 or 64)",
                self.alignment
            );
        }
        // More threads than this machine could ever run is a corrupt message.
        let threads = usize::try_from(self.compression_threads)
            .ok()
            .filter(|&threads| threads <= 4096);
        let Some(threads) = threads else {
            return plan_err!(
                "serialized Alkaid write options: {} compression threads",
                self.compression_threads
            );
        };
        Ok(WriteOptions::default()
            .with_compression(compression)
            .with_magic(magic)
            .with_namespace(namespace)
            .with_alignment(self.alignment as usize)
            .with_compression_threads(threads)
            .with_dictionary_deltas(self.dictionary_deltas))
    }
}
