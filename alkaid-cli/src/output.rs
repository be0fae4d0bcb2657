//! Where a command writes batches: an IPC file or stream, with the Arrow or the Alkaid
//! magic, chosen from the output's extension unless the options say otherwise, so that
//! `out.arrow` opens in every Arrow reader.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use alkaid_array::RecordBatch;
use alkaid_ipc::{FileDictionaries, FileWriter, IpcError, Magic, StreamWriter, WriteOptions};
use alkaid_schema::{Metadata, SchemaRef};
use clap::ValueEnum;

use crate::failure::Failure;

/// Whether to write a stream or a file (`--to`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Form {
    /// An IPC stream.
    Stream,
    /// An IPC file.
    File,
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
pub struct Output {
    /// A file (random access) rather than a stream.
    pub file: bool,
    /// The file magic (a stream has none; it decides the metadata's key names).
    pub magic: Magic,
}

impl Output {
    /// The output for `path`, from its extension: `.arrow`, `.feather` and `.ipc` are
    /// Arrow files, `.arrows` an Arrow stream, `.alkaid` an Alkaid file, and anything else
    /// (standard output, `-`, among them) an Alkaid file. `form` and `magic` override.
    pub fn for_path(path: &str, form: Option<Form>, magic: Option<FileMagic>) -> Self {
        let extension = Path::new(path)
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        let (by_extension, arrow) = match extension.as_deref() {
            Some("arrow" | "feather" | "ipc") => (Form::File, true),
            Some("arrows") => (Form::Stream, true),
            _ => (Form::File, false),
        };
        let magic = match magic {
            Some(FileMagic::Arrow) => Magic::Arrow,
            Some(FileMagic::Alkaid) => Magic::Alkaid,
            None if arrow => Magic::Arrow,
            None => Magic::Alkaid,
        };
        Self {
            file: form.unwrap_or(by_extension) == Form::File,
            magic,
        }
    }

    /// "file" or "stream", and the magic, for messages.
    pub fn describe(&self) -> String {
        let magic = match self.magic {
            Magic::Arrow => "ARROW1",
            Magic::Alkaid => "ALKAID1",
        };
        match self.file {
            true => format!("{magic} file"),
            false => "stream".to_string(),
        }
    }
}

/// Batches being written to a path (`-` for standard output) as [`Output`] says.
pub struct Sink {
    path: String,
    writer: Writer,
}

enum Writer {
    File(FileWriter<Box<dyn Write>>),
    Stream(StreamWriter<Box<dyn Write>>),
}

impl Sink {
    /// Creates `path` and writes the schema; `options` gives the compression, `output`
    /// the form and magic.
    pub fn create(
        path: &str,
        schema: SchemaRef,
        output: Output,
        options: WriteOptions,
    ) -> Result<Self, Failure> {
        let sink: Box<dyn Write> = if path == "-" {
            Box::new(BufWriter::new(std::io::stdout().lock()))
        } else {
            let file = File::create(path).map_err(|e| Failure::new(format!("{path}: {e}")))?;
            Box::new(BufWriter::new(file))
        };
        // A stream may replace its dictionaries; a file takes each batch, unified onto the
        // dictionary it holds.
        let options = options
            .with_magic(output.magic)
            .with_file_dictionaries(FileDictionaries::Unify);
        let failed = |e: IpcError| Failure::new(format!("{path}: {e}"));
        let writer = match output.file {
            true => Writer::File(FileWriter::try_new(sink, schema, options).map_err(failed)?),
            false => Writer::Stream(StreamWriter::try_new(sink, schema, options).map_err(failed)?),
        };
        Ok(Self {
            path: path.to_string(),
            writer,
        })
    }

    /// Writes `batch` with its message's custom metadata.
    pub fn write(&mut self, batch: &RecordBatch, metadata: &Metadata) -> Result<(), Failure> {
        let written = match &mut self.writer {
            Writer::File(writer) => writer.write_with_metadata(batch, metadata),
            Writer::Stream(writer) => writer.write_with_metadata(batch, metadata),
        };
        written.map_err(|e| self.failed(e))
    }

    /// Ends the file (with `footer` as its footer's metadata; a stream has none) or
    /// stream, and flushes it.
    pub fn finish(self, footer: Option<Metadata>) -> Result<(), Failure> {
        let path = self.path;
        let failed = |e: IpcError| Failure::new(format!("{path}: {e}"));
        let mut sink = match self.writer {
            Writer::File(mut writer) => {
                if let Some(footer) = footer {
                    writer.set_footer_metadata(footer);
                }
                writer.finish().map_err(failed)?;
                writer.into_inner().map_err(failed)?
            }
            Writer::Stream(mut writer) => {
                writer.finish().map_err(failed)?;
                writer.into_inner().map_err(failed)?
            }
        };
        sink.flush()
            .map_err(|e| Failure::new(format!("{path}: {e}")))
    }

    fn failed(&self, e: IpcError) -> Failure {
        Failure::new(format!("{}: {e}", self.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_chooses_form_and_magic_unless_told() {
        let arrow_file = Output {
            file: true,
            magic: Magic::Arrow,
        };
        let alkaid_file = Output {
            file: true,
            magic: Magic::Alkaid,
        };
        for path in ["out.arrow", "dir.d/OUT.ARROW", "t.feather", "t.ipc"] {
            assert_eq!(Output::for_path(path, None, None), arrow_file, "{path}");
        }
        for path in ["out.alkaid", "-", "out", "out.bin", "arrow"] {
            assert_eq!(Output::for_path(path, None, None), alkaid_file, "{path}");
        }
        let arrow_stream = Output::for_path("s.arrows", None, None);
        assert!(!arrow_stream.file);
        assert_eq!(arrow_stream.magic, Magic::Arrow);
        assert_eq!(
            Output::for_path("out.arrow", None, Some(FileMagic::Alkaid)),
            alkaid_file
        );
        assert_eq!(
            Output::for_path("out.alkaid", None, Some(FileMagic::Arrow)),
            arrow_file
        );
        assert!(!Output::for_path("out.arrow", Some(Form::Stream), None).file);
        assert!(Output::for_path("s.arrows", Some(Form::File), None).file);
    }
}
