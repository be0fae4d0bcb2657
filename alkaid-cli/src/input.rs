//! Opening an input of any supported form: a file (`ALKAID1` or `ARROW1` magic, found by
//! looking) or a stream (with or without the continuation marker, any byte order), from a
//! path (memory-mapped, so file batches are read without copying), from standard input, or
//! from an object-store URL (`remote.rs`); or Parquet, CSV or JSON (`tabular.rs`).

use std::fs::File;
use std::io::Read;
use std::ops::Range;

use alkaid_array::RecordBatch;
use alkaid_buffer::Buffer;
use alkaid_ipc::{BufferStreamReader, FileMap, FileReader, ReadOptions};
use alkaid_schema::{Metadata, SchemaRef};

use crate::failure::Failure;
use crate::recognise::foreign_format;
use crate::rows::RowReader;
use crate::tabular::{self, InputFormat};

/// An opened input: its bytes and how to read them.
// One per command: the size of the larger variant costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub enum Input {
    /// A file: random access to its batches, of which `batches` are read.
    File {
        reader: Files,
        batches: Range<usize>,
        /// The file's bytes, checked after each batch (a local file that shrank under
        /// its memory map is an error).
        source: Source,
    },
    /// A stream: batches in order, of which those in `batches` that are there are kept.
    Stream {
        reader: BufferStreamReader,
        batches: Range<usize>,
        /// The stream's bytes, checked after each batch.
        source: Source,
    },
    /// Parquet, CSV or JSON: batches in order, of which those in `batches` are kept, each
    /// with only `columns` when the reader did not select them.
    Rows {
        format: InputFormat,
        reader: RowReader,
        schema: SchemaRef,
        columns: Option<Vec<String>>,
        batches: Range<usize>,
    },
}

/// What to read of an input: the command-line options of the commands that read batches.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Selection {
    /// Read only these top-level columns, by name, in this order (comma-separated: `a,b`);
    /// the others are neither decompressed nor validated.
    #[arg(long, value_delimiter = ',')]
    pub columns: Option<Vec<String>>,
    /// Read only these batches, counted from 0: `i..j` (j excluded), `i..` or `i`. A file's
    /// other batches are not read at all; a stream's earlier ones are decoded and dropped.
    #[arg(long, value_parser = batch_range)]
    pub batches: Option<Range<usize>>,
    /// The input's format (by default: Parquet, CSV or JSON by the extension, `.parquet`,
    /// `.csv`, `.json`/`.ndjson`, or Parquet's first bytes; IPC otherwise).
    #[arg(long, value_enum)]
    pub from: Option<InputFormat>,
    /// Read Parquet's INT96 timestamps (Impala's, Hive's, Spark's) in microseconds rather
    /// than nanoseconds: a value past 2262 (Spark's `9999-12-31`) is otherwise an error.
    #[arg(long)]
    pub int96_as_microseconds: bool,
}

impl Selection {
    /// How Parquet is read for this selection.
    fn parquet_options(&self) -> alkaid_formats::parquet::ParquetReadOptions {
        let mut options = alkaid_formats::parquet::ParquetReadOptions::default();
        if let Some(columns) = &self.columns {
            options = options.with_columns(columns.iter().cloned());
        }
        if self.int96_as_microseconds {
            options = options.with_int96_as_microseconds();
        }
        options
    }
}

/// `i..j`, `i..` (to `usize::MAX`) or `i` as a range of batch indices.
fn batch_range(text: &str) -> Result<Range<usize>, String> {
    let number = |s: &str| {
        s.trim()
            .parse::<usize>()
            .map_err(|_| format!("{s:?} is not a batch index"))
    };
    match text.split_once("..") {
        Some((start, "")) => Ok(number(start)?..usize::MAX),
        Some((start, end)) => {
            let (start, end) = (number(start)?, number(end)?);
            if start > end {
                return Err(format!("{text}: the range is reversed"));
            }
            Ok(start..end)
        }
        None => {
            let i = number(text)?;
            Ok(i..i + 1)
        }
    }
}

/// The bytes of `path` (`-` for standard input): a file through a guarded memory map
/// (alkaid-ipc's [`FileMap`]: a file that shrinks while mapped is an error from
/// [`FileMap::check`], not a crash).
pub fn bytes(path: &str) -> Result<FileMap, Failure> {
    if path == "-" {
        let mut all = Vec::new();
        std::io::stdin()
            .read_to_end(&mut all)
            .map_err(|e| Failure::new(format!("reading standard input: {e}")))?;
        return Ok(FileMap::from(Buffer::from(all)));
    }
    let file = File::open(path).map_err(|e| Failure::new(format!("{path}: {e}")))?;
    let metadata = file
        .metadata()
        .map_err(|e| Failure::new(format!("{path}: {e}")))?;
    if metadata.is_dir() {
        return Err(Failure::new(format!(
            "{path} is a directory, not an IPC file or stream (`alkaid sql --table \
             NAME={path}/` reads the files in it as one table)"
        )));
    }
    FileMap::of(&file).map_err(|e| Failure::new(format!("{path}: {e}")))
}

/// An input's bytes and its path, to say where it shrank.
pub struct Source {
    bytes: FileMap,
    path: String,
}

impl Source {
    /// `Ok` unless the file shrank since it was mapped (what was read since may be zeros).
    pub fn check(&self) -> Result<(), Failure> {
        self.bytes
            .check()
            .map_err(|e| Failure::new(format!("{}: {e}", self.path)))
    }
}

/// The cores this process may use (1 if the system does not say).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Whether `bytes` start with a file magic.
pub fn is_file(bytes: &[u8]) -> bool {
    bytes.starts_with(b"ALKAID1") || bytes.starts_with(b"ARROW1")
}

/// A file's batches: from memory (a memory-mapped file, standard input), or fetched by
/// range from an object store.
// One per command: the size of the larger variant costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub enum Files {
    /// In memory.
    Local(FileReader<Buffer>),
    /// In an object store.
    #[cfg(feature = "object-store")]
    Remote(crate::remote::RemoteFile),
}

impl Files {
    /// The schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        match self {
            Files::Local(reader) => reader.schema(),
            #[cfg(feature = "object-store")]
            Files::Remote(reader) => reader.schema(),
        }
    }

    /// The footer's custom metadata.
    pub fn metadata(&self) -> &Metadata {
        match self {
            Files::Local(reader) => reader.metadata(),
            #[cfg(feature = "object-store")]
            Files::Remote(reader) => reader.metadata(),
        }
    }

    /// Number of record batches.
    pub fn num_batches(&self) -> usize {
        match self {
            Files::Local(reader) => reader.num_batches(),
            #[cfg(feature = "object-store")]
            Files::Remote(reader) => reader.num_batches(),
        }
    }

    /// Batch `index` and its message's custom metadata.
    pub fn batch_with_metadata(
        &mut self,
        index: usize,
    ) -> alkaid_ipc::Result<(RecordBatch, Metadata)> {
        match self {
            Files::Local(reader) => reader.batch_with_metadata(index),
            #[cfg(feature = "object-store")]
            Files::Remote(reader) => reader.batch_with_metadata(index),
        }
    }
}

impl Input {
    /// Opens `path` (`-` for standard input, or an object-store URL) as a file or a
    /// stream, to read what `selection` selects.
    pub fn open(path: &str, selection: &Selection) -> Result<Self, Failure> {
        Self::open_with(path, selection, false)
    }

    /// As [`open`](Self::open), with an IPC input's reader adding the strict checks to its
    /// full validation of every batch ([`validated_at_read`](Self::validated_at_read)), so
    /// that a strict validation reads the values once.
    pub fn open_strict(path: &str, selection: &Selection) -> Result<Self, Failure> {
        Self::open_with(path, selection, true)
    }

    fn open_with(path: &str, selection: &Selection, strict: bool) -> Result<Self, Failure> {
        let place = |e: alkaid_ipc::IpcError| Failure::new(format!("{path}: {e}"));
        // Every core decompresses a batch's buffers.
        let options = ReadOptions::default()
            .with_decompression_threads(cores())
            .with_strict_validation(strict);
        let options = match &selection.columns {
            Some(names) => options.with_column_names(names),
            None => options,
        };
        let batches = selection.batches.clone();
        let format = match selection.from {
            Some(format) => Some(format),
            None if path == "-" => None,
            // A URL's format by its extension alone (its first bytes cost a request).
            None if path.contains("://") => InputFormat::by_extension(path),
            None => InputFormat::of(path),
        };
        if let Some(format) = format.filter(|&f| f != InputFormat::Ipc) {
            let reader = tabular::open(path, format, selection.parquet_options())?;
            let schema = reader.schema();
            // Parquet selected the columns as it read, in the file's order; every format's
            // are put in the order asked for.
            let columns = selection.columns.clone();
            let schema = match &columns {
                Some(names) => tabular::project_schema(&schema, names)?,
                None => schema,
            };
            return Ok(Input::Rows {
                format,
                reader,
                schema,
                columns,
                batches: batches.unwrap_or(0..usize::MAX),
            });
        }
        let (reader, stream) = Self::open_bytes(path, options.clone())?;
        let source = Source {
            bytes: stream,
            path: path.to_string(),
        };
        let reader = match reader {
            Some(reader) => reader,
            None => {
                let bytes = source.bytes.buffer().clone();
                return Ok(Input::Stream {
                    reader: BufferStreamReader::with_options(bytes, options).map_err(place)?,
                    batches: batches.unwrap_or(0..usize::MAX),
                    source,
                });
            }
        };
        let batches = match batches {
            // `i..`: to the last batch.
            Some(range) if range.end == usize::MAX => range.start..reader.num_batches(),
            Some(range) => range,
            None => 0..reader.num_batches(),
        };
        if batches.start > batches.end || batches.end > reader.num_batches() {
            return Err(Failure::new(format!(
                "{path}: batches {}..{} of a file with {} batches",
                batches.start,
                batches.end,
                reader.num_batches()
            )));
        }
        Ok(Input::File {
            reader,
            batches,
            source,
        })
    }

    /// The file at `path` and its bytes, or else the bytes of the stream there (the
    /// bytes of an object-store file are the reader's own, and empty here).
    fn open_bytes(path: &str, options: ReadOptions) -> Result<(Option<Files>, FileMap), Failure> {
        let place = |e: alkaid_ipc::IpcError| Failure::new(format!("{path}: {e}"));
        #[cfg(feature = "object-store")]
        if crate::location::is_url(path) {
            return Ok(match crate::remote::open(path, options)? {
                crate::remote::Remote::File(file) => {
                    (Some(Files::Remote(*file)), FileMap::from(Buffer::empty()))
                }
                crate::remote::Remote::Stream(bytes) => (None, FileMap::from(bytes)),
            });
        }
        let source = bytes(path)?;
        let bytes = source.buffer();
        if is_file(bytes) {
            let reader = FileReader::open(bytes.clone(), options).map_err(place)?;
            return Ok((Some(Files::Local(reader)), source));
        }
        if let Some(format) = foreign_format(bytes) {
            let hint = match format {
                "delimited text (CSV)" => " (--from csv reads it)",
                "JSON text" => " (--from json reads it, one object per line)",
                _ => "",
            };
            return Err(Failure::new(format!(
                "{path} is {format}, not an IPC file or stream{hint}"
            )));
        }
        Ok((None, source))
    }

    /// `Ok` unless a local input shrank under its memory map since it was opened: asked
    /// after the last batch has been used, before a result is committed.
    pub fn check(&self) -> Result<(), Failure> {
        match self {
            Input::File { source, .. } | Input::Stream { source, .. } => source.check(),
            Input::Rows { .. } => Ok(()),
        }
    }

    /// Whether the batches come fully validated by the reader (IPC: at the strict level when
    /// opened with [`open_strict`](Self::open_strict)); Parquet, CSV and JSON batches are
    /// built by their readers and validated by nobody until asked.
    pub fn validated_at_read(&self) -> bool {
        !matches!(self, Input::Rows { .. })
    }

    /// The schema.
    pub fn schema(&self) -> SchemaRef {
        match self {
            Input::File { reader, .. } => reader.schema(),
            Input::Stream { reader, .. } => reader.schema(),
            Input::Rows { schema, .. } => schema.clone(),
        }
    }

    /// "file", "stream", or the format.
    pub fn kind(&self) -> &'static str {
        match self {
            Input::File { .. } => "file",
            Input::Stream { .. } => "stream",
            Input::Rows { format, .. } => match format {
                InputFormat::Parquet => "Parquet file",
                InputFormat::Csv => "CSV file",
                InputFormat::Json => "JSON file",
                InputFormat::Ipc => "file",
            },
        }
    }

    /// Every batch in order, with its message's custom metadata; stops at the first error.
    pub fn batches(
        &mut self,
    ) -> Box<dyn Iterator<Item = Result<(RecordBatch, Metadata), Failure>> + '_> {
        match self {
            // The file reader's errors already say which batch.
            Input::File {
                reader,
                batches,
                source,
            } => Box::new(batches.clone().map(move |i| {
                // A file that shrank is the cause of whatever else went wrong.
                let batch = reader.batch_with_metadata(i);
                source.check()?;
                batch.map_err(|e| Failure::new(e.to_string()))
            })),
            Input::Rows {
                reader,
                columns,
                batches,
                ..
            } => {
                let (schema, columns) = (reader.schema(), columns.clone());
                let range = batches.clone();
                Box::new(
                    reader
                        .by_ref()
                        .take(range.end)
                        .skip(range.start)
                        .map(move |batch| {
                            let batch = batch?;
                            let batch = match &columns {
                                Some(names) => tabular::project(&batch, names, &schema)?,
                                None => batch,
                            };
                            Ok((batch, Metadata::new()))
                        }),
                )
            }
            Input::Stream {
                reader,
                batches,
                source,
            } => {
                let mut index = 0;
                Box::new(std::iter::from_fn(move || {
                    // Batches before the selection are decoded too (a stream may change its
                    // dictionaries in any of them), and their errors end the reading.
                    while index < batches.end {
                        let next = reader.next_with_metadata()?;
                        let i = index;
                        index += 1;
                        match next {
                            Err(e) => {
                                let failure = Failure::new(format!("batch {i}: {e}"));
                                return Some(source.check().and(Err(failure)));
                            }
                            Ok(_) if i < batches.start => {}
                            Ok(batch) => return Some(source.check().map(|()| batch)),
                        }
                    }
                    None
                }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alkaid_array::{ArrayRef, Int64Array};
    use alkaid_ipc::{FileWriter, StreamWriter, WriteOptions};
    use alkaid_schema::{DataType, Field, Schema};

    use super::*;

    /// An input file (or stream) truncated after its first batch was read: the next batch,
    /// or the check before a result is committed, is a failure naming the file and the
    /// shrinking, never a crash.
    #[cfg(target_os = "linux")]
    #[test]
    fn an_input_that_shrinks_while_read_is_a_failure() {
        let dir = std::env::temp_dir().join(format!("alkaid-cli-shrinks-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, false)]));
        let column: ArrayRef = Arc::new(Int64Array::from((0..100_000).collect::<Vec<i64>>()));
        let batch = RecordBatch::try_new(schema.clone(), vec![column]).unwrap();
        for kind in ["file", "stream"] {
            let path = dir.join(kind);
            let out = File::create(&path).unwrap();
            if kind == "file" {
                let mut writer =
                    FileWriter::try_new(out, schema.clone(), WriteOptions::default()).unwrap();
                (0..4).for_each(|_| writer.write(&batch).unwrap());
                writer.finish().unwrap();
            } else {
                let mut writer =
                    StreamWriter::try_new(out, schema.clone(), WriteOptions::default()).unwrap();
                (0..4).for_each(|_| writer.write(&batch).unwrap());
                writer.finish().unwrap();
            }
            let name = path.to_string_lossy().into_owned();
            let mut input = Input::open(&name, &Selection::default()).unwrap();
            assert_eq!(input.kind(), kind);
            let mut batches = input.batches();
            assert_eq!(
                batches.next().unwrap().unwrap().0.num_rows(),
                batch.num_rows()
            );
            let len = std::fs::metadata(&path).unwrap().len();
            File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_len(len / 3)
                .unwrap();
            let failure = batches
                .find_map(Result::err)
                .expect("a batch past the new end fails");
            let text = failure.to_string();
            assert!(text.contains(&name) && text.contains("shrank"), "{text}");
            drop(batches);
            assert!(input.check().is_err());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
