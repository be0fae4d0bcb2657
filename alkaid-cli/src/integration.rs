//! `alkaid integration`: the entry points Arrow's integration runner expects of an
//! implementation, over the JSON test format of `alkaid-integration`.

use std::fs::File;
use std::io::{BufWriter, Read, Write};

use alkaid_array::RecordBatch;
use alkaid_buffer::Buffer;
use alkaid_integration::{compare, read_json, write_json};
use alkaid_ipc::{BufferStreamReader, FileReader, FileWriter, Magic, StreamWriter, WriteOptions};

use crate::failure::Failure;
use crate::input::bytes;

/// What to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Check that the IPC file `--arrow` holds what the JSON file `--json` describes.
    Validate,
    /// Write the JSON file's data as the IPC file `--arrow`.
    JsonToArrow,
    /// Write the IPC file's data as the JSON file `--json`.
    ArrowToJson,
    /// Read a stream from standard input and write it as the IPC file `--arrow`.
    StreamToFile,
    /// Write the IPC file `--arrow` to standard output as a stream.
    FileToStream,
}

fn required<'a>(path: Option<&'a str>, flag: &str, mode: Mode) -> Result<&'a str, Failure> {
    path.ok_or_else(|| Failure::new(format!("{mode:?} needs --{flag}")))
}

fn read_file(path: &str) -> Result<(alkaid_schema::SchemaRef, Vec<RecordBatch>), Failure> {
    let place = |e: alkaid_ipc::IpcError| Failure::new(format!("{path}: {e}"));
    let source = bytes(path)?;
    let mut reader = FileReader::from_buffer(source.buffer().clone()).map_err(place)?;
    let batches = (&mut reader).collect::<Result<Vec<_>, _>>();
    source.check().map_err(place)?;
    let batches = batches.map_err(place)?;
    Ok((reader.schema(), batches))
}

fn write_file(
    path: &str,
    schema: alkaid_schema::SchemaRef,
    ids: Option<alkaid_ipc::DictionaryIds>,
    batches: &[RecordBatch],
) -> Result<(), Failure> {
    let out = File::create(path).map_err(|e| Failure::new(format!("{path}: {e}")))?;
    let options = WriteOptions::default().with_magic(Magic::Arrow);
    let mut writer = match ids {
        Some(ids) => {
            FileWriter::try_new_with_dictionary_ids(BufWriter::new(out), schema, ids, options)?
        }
        None => FileWriter::try_new(BufWriter::new(out), schema, options)?,
    };
    for batch in batches {
        writer.write(batch)?;
    }
    writer.finish()?;
    Ok(())
}

/// Runs `mode` on the JSON file `json` and the IPC file `arrow`.
pub fn run(mode: Mode, json: Option<&str>, arrow: Option<&str>) -> Result<(), Failure> {
    let json_text = |path: &str| {
        std::fs::read_to_string(path).map_err(|e| Failure::new(format!("{path}: {e}")))
    };
    let json_file =
        |path: &str| read_json(&json_text(path)?).map_err(|e| Failure::new(format!("{path}: {e}")));
    match mode {
        Mode::Validate => {
            let (json, arrow) = (
                required(json, "json", mode)?,
                required(arrow, "arrow", mode)?,
            );
            let expected = json_file(json)?;
            let (schema, batches) = read_file(arrow)?;
            compare(&expected, &schema, &batches)
                .map_err(|e| Failure::new(format!("{arrow} differs from {json}: {e}")))?;
            println!(
                "ok: {arrow} holds what {json} describes ({} batches)",
                batches.len()
            );
        }
        Mode::JsonToArrow => {
            let (json, arrow) = (
                required(json, "json", mode)?,
                required(arrow, "arrow", mode)?,
            );
            let file = json_file(json)?;
            write_file(arrow, file.schema, Some(file.dictionary_ids), &file.batches)?;
        }
        Mode::ArrowToJson => {
            let (json, arrow) = (
                required(json, "json", mode)?,
                required(arrow, "arrow", mode)?,
            );
            let (schema, batches) = read_file(arrow)?;
            let text =
                write_json(&schema, &batches).map_err(|e| Failure::new(format!("{arrow}: {e}")))?;
            std::fs::write(json, text).map_err(|e| Failure::new(format!("{json}: {e}")))?;
        }
        Mode::StreamToFile => {
            let arrow = required(arrow, "arrow", mode)?;
            let mut input = Vec::new();
            std::io::stdin()
                .read_to_end(&mut input)
                .map_err(|e| Failure::new(format!("reading standard input: {e}")))?;
            let mut reader = BufferStreamReader::try_new(Buffer::from(input))?;
            let batches = (&mut reader).collect::<Result<Vec<_>, _>>()?;
            write_file(arrow, reader.schema(), None, &batches)?;
        }
        Mode::FileToStream => {
            let arrow = required(arrow, "arrow", mode)?;
            let (schema, batches) = read_file(arrow)?;
            let out = BufWriter::new(std::io::stdout().lock());
            let mut writer = StreamWriter::try_new(out, schema, WriteOptions::default())?;
            for batch in &batches {
                writer.write(batch)?;
            }
            writer
                .into_inner()?
                .flush()
                .map_err(|e| Failure::new(format!("standard output: {e}")))?;
        }
    }
    Ok(())
}
