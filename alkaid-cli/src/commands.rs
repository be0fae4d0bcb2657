//! `schema`, `cat`, `validate` and `convert`: each reads its input through [`Input`].

use alkaid_array::RecordBatch;
use alkaid_array::display::pretty_format_batches;
use alkaid_data::ValidationLevel;
use alkaid_ipc::{Compression, WriteOptions};
use alkaid_schema::Field;

use crate::failure::Failure;
use crate::input::{Input, Selection};
use crate::output::{Output, Sink};
use crate::progress;

/// Prints the schema: one field per line with its type, nullability and metadata.
pub fn schema(path: &str, selection: &Selection) -> Result<(), Failure> {
    let input = Input::open(path, selection)?;
    let schema = input.schema();
    let mut out = String::new();
    for field in schema.fields().iter() {
        out.push_str(&describe(field, 0));
    }
    for (key, value) in schema.metadata().iter() {
        out.push_str(&format!("metadata {key:?}: {value:?}\n"));
    }
    print!("{out}");
    Ok(())
}

fn describe(field: &Field, depth: usize) -> String {
    let mut line = format!(
        "{:indent$}{}: {}{}\n",
        "",
        field.name(),
        field.data_type(),
        if field.is_nullable() { "" } else { " not null" },
        indent = depth * 2
    );
    for (key, value) in field.metadata().iter() {
        line.push_str(&format!(
            "{:indent$}  metadata {key:?}: {value:?}\n",
            "",
            indent = depth * 2
        ));
    }
    line
}

/// Prints batches as a table: all of them, or batch `batch` alone, at most `limit` rows.
pub fn cat(
    path: &str,
    selection: &Selection,
    limit: Option<usize>,
    batch: Option<usize>,
) -> Result<(), Failure> {
    let mut input = Input::open(path, selection)?;
    let batches: Vec<RecordBatch> = match (&mut input, batch) {
        (Input::File { reader: file, .. }, Some(i)) => {
            if i >= file.num_batches() {
                return Err(Failure::new(format!(
                    "{path}: batch {i} asked for, the file has {}",
                    file.num_batches()
                )));
            }
            vec![
                file.batch_with_metadata(i)
                    .map(|(batch, _)| batch)
                    .map_err(|e| Failure::new(format!("batch {i}: {e}")))?,
            ]
        }
        (_, Some(i)) => {
            let kind = input.kind();
            match input.batches().nth(i) {
                Some(batch) => vec![batch?.0],
                None => return Err(Failure::new(format!("{path}: the {kind} has no batch {i}"))),
            }
        }
        (_, None) => {
            let mut kept = Vec::new();
            let mut rows = 0;
            for batch in input.batches() {
                let (batch, _) = batch?;
                rows += batch.num_rows();
                kept.push(batch);
                if limit.is_some_and(|limit| rows >= limit) {
                    break;
                }
            }
            kept
        }
    };
    let table = pretty_format_batches(&batches, Some(limit.unwrap_or(usize::MAX)));
    println!("{table}");
    Ok(())
}

/// Validates every batch at `level` (decoding already checks [`ValidationLevel::Full`];
/// [`ValidationLevel::Strict`] adds the data layer's strict checks and the field-level
/// ones) and says how many rows and batches passed.
pub fn validate(path: &str, selection: &Selection, level: ValidationLevel) -> Result<(), Failure> {
    // The strict checks are made in the reader's pass over the values, unless batches are
    // selected: a stream's batches before the selection are read too, and are not to be
    // held to checks asked of the selection.
    let strict_at_read = level == ValidationLevel::Strict && selection.batches.is_none();
    let mut input = match strict_at_read {
        true => Input::open_strict(path, selection)?,
        false => Input::open(path, selection)?,
    };
    let kind = input.kind();
    // An IPC reader has then validated each batch at `level` as it read it: a second pass
    // would read every value again.
    let validated = input.validated_at_read() && (level == ValidationLevel::Full || strict_at_read);
    let (mut batches, mut rows) = (0usize, 0usize);
    let mut report = progress::Report::new("validating");
    for (i, batch) in input.batches().enumerate() {
        let (batch, _) = batch?;
        if !validated {
            batch
                .validate(level)
                .map_err(|e| Failure::new(format!("batch {i}: {e}")))?;
        }
        batches += 1;
        rows += batch.num_rows();
        report.batch(&batch);
    }
    let checked = match level {
        ValidationLevel::Strict => "every value valid, strict checks included",
        _ => "every value valid",
    };
    println!("ok: {kind} of {batches} batches, {rows} rows, {checked}");
    Ok(())
}

/// How `convert` writes.
pub struct ConvertOptions {
    /// The form and magic.
    pub output: Output,
    /// The buffer compression.
    pub compression: Compression,
    /// What to read of the input.
    pub selection: Selection,
}

/// Reads `input` in any form and writes it to `output` (`-` for standard output), batch by
/// batch with each batch's metadata, the schema's and fields' metadata, dictionaries
/// (still encoded) and, for files, the footer metadata.
pub fn convert(input: &str, output: &str, options: ConvertOptions) -> Result<(), Failure> {
    let mut source = Input::open(input, &options.selection)?;
    let footer = match &source {
        Input::File { reader, .. } => Some(reader.metadata().clone()),
        Input::Stream { .. } | Input::Rows { .. } => None,
    };
    // Every core compresses a batch's buffers (a batch has one per column and more).
    let write_options = WriteOptions::default()
        .with_compression(options.compression)
        .with_compression_threads(crate::input::cores());
    let mut sink = Sink::create(output, source.schema(), options.output, write_options)?;
    let mut report = progress::Report::new("converting");
    let mut failed = None;
    for batch in source.batches() {
        let (batch, metadata) = batch?;
        if let Err(e) = sink.write(&batch, &metadata) {
            failed = Some(e);
            break;
        }
        report.batch(&batch);
    }
    if let Some(e) = failed {
        // A write from the input's map fails if the file shrank: say that first.
        source.check()?;
        return Err(e);
    }
    // The last batch's bytes went out from the input's map (the output is written one
    // message behind: wait for it): nothing is committed from a file that shrank meanwhile.
    let written = sink.drain();
    source.check()?;
    written?;
    sink.finish(footer)
}
