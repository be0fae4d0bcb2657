//! Where a command writes batches: an IPC file or stream (with the Arrow or the Alkaid
//! magic), Parquet, CSV or newline-delimited JSON, chosen from the output's extension
//! unless the options say otherwise, so that `out.arrow` opens in every Arrow reader and
//! `out.parquet` is Parquet.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use alkaid_array::RecordBatch;
use alkaid_formats::csv::CsvWriter;
use alkaid_formats::json::JsonWriter;
use alkaid_formats::parquet::ParquetWriter;
use alkaid_ipc::{
    Compression, FileDictionaries, FileOutput, FileWriter, Magic, SpoolWriter, StreamWriter,
    WriteOptions,
};
use alkaid_schema::{Metadata, SchemaRef};
use clap::ValueEnum;

use crate::failure::Failure;
use crate::spooled::Spooled;

/// What to write (`--to`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Form {
    /// An IPC stream.
    Stream,
    /// An IPC file.
    File,
    /// Parquet (zstd pages, page statistics).
    Parquet,
    /// CSV with a header line.
    Csv,
    /// Newline-delimited JSON.
    Json,
}

/// The magic a file is written with (`--magic`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FileMagic {
    /// `ALKAID1`.
    Alkaid,
    /// `ARROW1`, which Arrow readers open.
    Arrow,
}

/// How an output is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// IPC: a file (random access) or a stream, and the magic (a stream has none; it
    /// decides the metadata's key names).
    Ipc { file: bool, magic: Magic },
    /// Parquet.
    Parquet,
    /// CSV.
    Csv,
    /// Newline-delimited JSON.
    Json,
}

impl Output {
    /// The output for `path`, from its extension: `.arrow`, `.feather` and `.ipc` are
    /// Arrow files, `.arrows` an Arrow stream, `.alkaid` an Alkaid file, `.parquet`,
    /// `.csv`, `.json`, `.ndjson` and `.jsonl` those formats, and anything else (standard
    /// output, `-`, among them) an Alkaid file. `form` and `magic` override.
    pub fn for_path(path: &str, form: Option<Form>, magic: Option<FileMagic>) -> Self {
        let extension = Path::new(path)
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        let (by_extension, arrow) = match extension.as_deref() {
            Some("arrow" | "feather" | "ipc") => (Form::File, true),
            Some("arrows") => (Form::Stream, true),
            Some("parquet" | "pq") => (Form::Parquet, false),
            Some("csv") => (Form::Csv, false),
            Some("json" | "ndjson" | "jsonl") => (Form::Json, false),
            _ => (Form::File, false),
        };
        let magic = match magic {
            Some(FileMagic::Arrow) => Magic::Arrow,
            Some(FileMagic::Alkaid) => Magic::Alkaid,
            None if arrow => Magic::Arrow,
            None => Magic::Alkaid,
        };
        match form.unwrap_or(by_extension) {
            Form::File => Output::Ipc { file: true, magic },
            Form::Stream => Output::Ipc { file: false, magic },
            Form::Parquet => Output::Parquet,
            Form::Csv => Output::Csv,
            Form::Json => Output::Json,
        }
    }

    /// What is written, for messages.
    pub fn describe(&self) -> String {
        match self {
            Output::Ipc { file: true, magic } => match magic {
                Magic::Arrow => "ARROW1 file".to_string(),
                Magic::Alkaid => "ALKAID1 file".to_string(),
            },
            Output::Ipc { file: false, .. } => "stream".to_string(),
            Output::Parquet => "Parquet".to_string(),
            Output::Csv => "CSV".to_string(),
            Output::Json => "JSON lines".to_string(),
        }
    }
}

/// Batches being written to a path (`-` for standard output) as [`Output`] says.
pub struct Sink {
    path: String,
    writer: Writer,
}

enum Writer {
    /// A stream or file, written by a thread of its own one message behind.
    Ipc(Spooled),
    /// A compressed IPC file or stream into a file this command made: each large body
    /// written while it is compressed, on this thread, with a seek back for its header.
    IpcFile(FileWriter<BufWriter<FileOutput<File>>>),
    IpcStream(StreamWriter<BufWriter<FileOutput<File>>>),
    Parquet(ParquetWriter<Box<dyn Write + Send>>),
    Csv(CsvWriter<Box<dyn Write + Send>>),
    Json(JsonWriter<Box<dyn Write + Send>>),
}

impl Sink {
    /// Creates `path` and writes the schema; `options` gives an IPC output's compression,
    /// `output` the format.
    pub fn create(
        path: &str,
        schema: SchemaRef,
        output: Output,
        options: WriteOptions,
    ) -> Result<Self, Failure> {
        // The file this command creates, which a compressed IPC output seeks in. Not
        // standard output, even when it is a file: opened to append (`>>`), its writes
        // would all go to the end, wherever the seek went. A body written from a mapped
        // input may sit where the copy into the file's pages stalls (a stream converted
        // to a file): `FileOutput` steps around it.
        let file = match path {
            "-" => None,
            _ => Some(FileOutput::new(
                File::create(path).map_err(|e| Failure::new(format!("{path}: {e}")))?,
            )),
        };
        let failed = |e: &dyn std::fmt::Display| Failure::new(format!("{path}: {e}"));
        let compressed = options.compression() != Compression::None;
        let writer = match (output, file) {
            (
                Output::Ipc {
                    file: is_file,
                    magic,
                },
                Some(out),
            ) if compressed => {
                let options = ipc_options(options, magic);
                let out = BufWriter::new(out);
                match is_file {
                    true => FileWriter::try_new(out, schema, options)
                        .map(|w| Writer::IpcFile(w.write_while_compressing())),
                    false => StreamWriter::try_new(out, schema, options)
                        .map(|w| Writer::IpcStream(w.write_while_compressing())),
                }
                .map_err(|e| failed(&e))?
            }
            (output, file) => Self::into_sink(output, file, schema, options, path)?,
        };
        Ok(Self {
            path: path.to_string(),
            writer,
        })
    }

    /// A writer into `file` (or standard output, when there is none) through a sink of
    /// bytes.
    fn into_sink(
        output: Output,
        file: Option<FileOutput<File>>,
        schema: SchemaRef,
        options: WriteOptions,
        path: &str,
    ) -> Result<Writer, Failure> {
        let sink: Box<dyn Write + Send> = match file {
            Some(file) => Box::new(BufWriter::new(file)),
            None => standard_output(),
        };
        let failed = |e: &dyn std::fmt::Display| Failure::new(format!("{path}: {e}"));
        let formats = |e: alkaid_formats::FormatError| Failure::new(format!("{path}: {e}"));
        Ok(match output {
            Output::Ipc { file, magic } => {
                let options = ipc_options(options, magic);
                let spool = match file {
                    true => SpoolWriter::file(schema, options),
                    false => SpoolWriter::stream(schema, options),
                }
                .map_err(|e| failed(&e))?;
                Writer::Ipc(Spooled::new(sink, spool).map_err(|e| failed(&e))?)
            }
            Output::Parquet => {
                let options = alkaid_formats::parquet::WriteOptions::default();
                Writer::Parquet(ParquetWriter::try_new(sink, schema, &options).map_err(formats)?)
            }
            Output::Csv => Writer::Csv(CsvWriter::new(sink, &Default::default())),
            Output::Json => Writer::Json(JsonWriter::new(sink)),
        })
    }

    /// Writes `batch` with its message's custom metadata.
    pub fn write(&mut self, batch: &RecordBatch, metadata: &Metadata) -> Result<(), Failure> {
        let failed = |e: &dyn std::fmt::Display| Failure::new(format!("{}: {e}", self.path));
        match &mut self.writer {
            Writer::Ipc(writer) => writer.write(batch, metadata).map_err(|e| failed(&e)),
            Writer::IpcFile(writer) => writer
                .write_with_metadata(batch, metadata)
                .map_err(|e| failed(&e)),
            Writer::IpcStream(writer) => writer
                .write_with_metadata(batch, metadata)
                .map_err(|e| failed(&e)),
            Writer::Parquet(writer) => writer.write(batch).map_err(|e| failed(&e)),
            Writer::Csv(writer) => writer.write(batch).map_err(|e| failed(&e)),
            Writer::Json(writer) => writer.write(batch).map_err(|e| failed(&e)),
        }
    }

    /// Waits until every batch written so far is in the output (an IPC output is written
    /// by a thread of its own, one message behind).
    pub fn drain(&mut self) -> Result<(), Failure> {
        match &mut self.writer {
            Writer::Ipc(writer) => writer
                .drain()
                .map_err(|e| Failure::new(format!("{}: {e}", self.path))),
            _ => Ok(()),
        }
    }

    /// Ends the file (with `footer` as its footer's metadata; a stream has none) or
    /// stream, and flushes it.
    pub fn finish(self, footer: Option<Metadata>) -> Result<(), Failure> {
        let path = self.path;
        let mut sink: Box<dyn Write> = match self.writer {
            Writer::Ipc(writer) => writer
                .finish(footer)
                .map_err(|e| Failure::new(format!("{path}: {e}")))?,
            Writer::IpcFile(mut writer) => {
                writer.set_footer_metadata(footer.unwrap_or_default());
                Box::new(
                    writer
                        .into_inner()
                        .map_err(|e| Failure::new(format!("{path}: {e}")))?,
                )
            }
            Writer::IpcStream(writer) => Box::new(
                writer
                    .into_inner()
                    .map_err(|e| Failure::new(format!("{path}: {e}")))?,
            ),
            Writer::Parquet(writer) => writer
                .finish()
                .map_err(|e| Failure::new(format!("{path}: {e}")))?,
            Writer::Csv(writer) => writer.finish(),
            Writer::Json(writer) => writer
                .finish()
                .map_err(|e| Failure::new(format!("{path}: {e}")))?,
        };
        sink.flush()
            .map_err(|e| Failure::new(format!("{path}: {e}")))
    }
}

/// The IPC writers' options for `magic`: a file's dictionaries unified, so that batches
/// with different dictionaries still make a file.
fn ipc_options(options: WriteOptions, magic: Magic) -> WriteOptions {
    options
        .with_magic(magic)
        .with_file_dictionaries(FileDictionaries::Unify)
}

/// Standard output: when it is a file (`> out.arrow`), that file at its position through
/// [`FileOutput`], as a path would be; otherwise (a pipe, a terminal) as it is.
fn standard_output() -> Box<dyn Write + Send> {
    #[cfg(unix)]
    {
        use std::io::Seek;
        use std::os::fd::AsFd;
        let file = std::io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .map(File::from)
            .ok()
            .filter(|file| file.metadata().is_ok_and(|m| m.is_file()));
        if let Some(mut file) = file
            && let Ok(position) = file.stream_position()
        {
            return Box::new(BufWriter::new(FileOutput::starting_at(file, position)));
        }
    }
    Box::new(BufWriter::new(std::io::stdout()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_chooses_form_and_magic_unless_told() {
        let arrow_file = Output::Ipc {
            file: true,
            magic: Magic::Arrow,
        };
        let alkaid_file = Output::Ipc {
            file: true,
            magic: Magic::Alkaid,
        };
        for path in ["out.arrow", "dir.d/OUT.ARROW", "t.feather", "t.ipc"] {
            assert_eq!(Output::for_path(path, None, None), arrow_file, "{path}");
        }
        for path in ["out.alkaid", "-", "out", "out.bin", "arrow"] {
            assert_eq!(Output::for_path(path, None, None), alkaid_file, "{path}");
        }
        let arrow_stream = Output::Ipc {
            file: false,
            magic: Magic::Arrow,
        };
        assert_eq!(Output::for_path("s.arrows", None, None), arrow_stream);
        assert_eq!(
            Output::for_path("out.arrow", None, Some(FileMagic::Alkaid)),
            alkaid_file
        );
        assert_eq!(
            Output::for_path("out.alkaid", None, Some(FileMagic::Arrow)),
            arrow_file
        );
        assert_eq!(
            Output::for_path("out.arrow", Some(Form::Stream), None),
            arrow_stream
        );
        assert_eq!(
            Output::for_path("s.arrows", Some(Form::File), None),
            arrow_file
        );
        for (path, output) in [
            ("t.parquet", Output::Parquet),
            ("t.CSV", Output::Csv),
            ("t.ndjson", Output::Json),
            ("t.jsonl", Output::Json),
        ] {
            assert_eq!(Output::for_path(path, None, None), output, "{path}");
        }
        assert_eq!(
            Output::for_path("t.arrow", Some(Form::Parquet), None),
            Output::Parquet
        );
    }
}
