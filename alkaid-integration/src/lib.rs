//! Arrow's JSON integration-test format: how Arrow implementations prove they agree.
//!
//! Each implementation reads and writes a JSON description of a schema, its dictionaries
//! and its record batches, and checks that IPC files and JSON files describe the same data
//! (Arrow's "Integration Testing" document). This crate reads and writes that JSON for every
//! type the format documents, and compares it with batches read from IPC; the `alkaid
//! integration` command wraps it in the modes Arrow's integration runner calls.
//!
//! | item | what it does |
//! | --- | --- |
//! | [`read_json`] | JSON text to a [`JsonFile`]: schema, dictionary ids, batches (fully validated) |
//! | [`write_json`] | a schema and batches to JSON text |
//! | [`compare`] | checks that batches read elsewhere (an IPC file) equal a [`JsonFile`]'s, naming the first difference |
//!
//! Depends on the Alkaid layers up to `alkaid-ipc` (for dictionary ids) and nothing else:
//! JSON is read with `alkaid_schema::json`.
//!
//! # Example
//! ```
//! use std::sync::Arc;
//! use alkaid_array::{ArrayRef, Int64Array, RecordBatch};
//! use alkaid_integration::{compare, read_json, write_json};
//! use alkaid_schema::{DataType, Field, Schema};
//!
//! let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, true)]));
//! let column: ArrayRef = Arc::new(Int64Array::from(vec![Some(1), None, Some(3)]));
//! let batch = RecordBatch::try_new(schema.clone(), vec![column])?;
//! let text = write_json(&schema, std::slice::from_ref(&batch))?;
//! assert!(text.contains(r#""DATA":["1","0","3"]"#)); // 64-bit integers are strings
//! let file = read_json(&text)?;
//! compare(&file, &schema, &[batch])?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![doc(test(attr(deny(warnings))))]

mod error;
mod json;
mod read;
mod schema;
mod write;

use std::collections::BTreeMap;
use std::sync::Arc;

use alkaid_array::{RecordBatch, RecordBatchOptions, make_array};
use alkaid_data::equal;
use alkaid_ipc::DictionaryIds;
use alkaid_schema::json::{JsonValue, parse_json};
use alkaid_schema::{Schema, SchemaRef};

pub use error::{IntegrationError, Result};

use crate::json::{Get, array, object};
use crate::read::ColumnReader;
use crate::write::ColumnWriter;

/// What a JSON file holds.
#[derive(Debug, Clone)]
pub struct JsonFile {
    /// The schema.
    pub schema: SchemaRef,
    /// The dictionary ids of the schema's dictionary fields, in walk order (to write an IPC
    /// file that keeps them).
    pub dictionary_ids: DictionaryIds,
    /// The batches, dictionaries attached.
    pub batches: Vec<RecordBatch>,
}

/// Reads a JSON integration file.
///
/// # Errors
/// If the text is not JSON, or does not describe valid data; the error names the batch,
/// column and buffer.
pub fn read_json(text: &str) -> Result<JsonFile> {
    let root = parse_json(text)?;
    let (schema, ids) =
        schema::schema_from_json(root.member("schema")?).map_err(|e| e.context("schema"))?;
    let schema = Arc::new(schema);
    let dictionary_ids = DictionaryIds::try_new(&schema, ids)?;
    let mut dictionaries = BTreeMap::new();
    for (i, dictionary) in root
        .get("dictionaries")
        .and_then(JsonValue::as_array)
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        let id = dictionary
            .int_member("id")
            .map_err(|e| e.context(format!("dictionary {i}")))?;
        dictionaries.insert(
            id,
            dictionary
                .member("data")
                .map_err(|e| e.context(format!("dictionary {i}")))?,
        );
    }
    let mut reader = ColumnReader::new(dictionaries);
    let json_fields = root.member("schema")?.array_member("fields")?;
    let mut batches = Vec::new();
    for (b, batch) in root.array_member("batches")?.iter().enumerate() {
        let place = |e: IntegrationError| e.context(format!("batch {b}"));
        let rows = usize::try_from(batch.int_member("count").map_err(place)?)
            .map_err(|_| place(IntegrationError::new("a negative count")))?;
        let columns = batch.array_member("columns").map_err(place)?;
        if columns.len() != schema.fields().len() {
            return Err(place(IntegrationError::new(format!(
                "{} columns for {} fields",
                columns.len(),
                schema.fields().len()
            ))));
        }
        let arrays = schema
            .fields()
            .iter()
            .zip(json_fields)
            .zip(columns)
            .map(|((field, json_field), column)| {
                reader.column(field, json_field, column).map(make_array)
            })
            .collect::<Result<Vec<_>>>()
            .map_err(place)?;
        // Nullability is metadata: what the JSON holds is read, as from IPC.
        let options = RecordBatchOptions {
            num_rows: Some(rows),
            check_nullability: false,
        };
        let batch = RecordBatch::try_new_with_options(schema.clone(), arrays, &options);
        batches.push(batch.map_err(|e| place(e.into()))?);
    }
    Ok(JsonFile {
        schema,
        dictionary_ids,
        batches,
    })
}

/// Writes `batches` of `schema` as a JSON integration file. Dictionaries are numbered in
/// walk order from 0; a dictionary that changes between batches cannot be written (the
/// format holds one per id).
///
/// # Errors
/// If a batch's dictionaries change, or the schema holds a dictionary of dictionaries.
pub fn write_json(schema: &Schema, batches: &[RecordBatch]) -> Result<String> {
    let ids = DictionaryIds::sequential(schema);
    let mut writer = ColumnWriter {
        ids: &ids,
        dictionaries: BTreeMap::new(),
    };
    let mut json_batches = Vec::with_capacity(batches.len());
    for (b, batch) in batches.iter().enumerate() {
        let mut cursor = 0;
        let columns = schema
            .fields()
            .iter()
            .zip(batch.columns())
            .map(|(field, column)| writer.column(field, &column.to_data(), &mut cursor))
            .collect::<Result<Vec<_>>>()
            .map_err(|e| e.context(format!("batch {b}")))?;
        json_batches.push(object([
            ("count", JsonValue::Number(batch.num_rows().to_string())),
            ("columns", JsonValue::Array(columns)),
        ]));
    }
    let mut members = vec![
        ("schema", schema::schema_to_json(schema, &ids)?),
        ("batches", JsonValue::Array(json_batches)),
    ];
    if !writer.dictionaries.is_empty() {
        let dictionaries = writer
            .dictionaries
            .into_iter()
            .map(|(id, data)| object([("id", JsonValue::Number(id.to_string())), ("data", data)]));
        members.push(("dictionaries", array(dictionaries)));
    }
    Ok(object(members).to_string())
}

/// Checks that `batches` of `schema` (read from an IPC file, say) are what `json` holds:
/// the same schema (names, types, nullability, metadata at every level) and the same
/// values batch by batch. Dictionary ids are not data and are not compared.
///
/// # Errors
/// The first difference, naming the batch and column.
pub fn compare(json: &JsonFile, schema: &Schema, batches: &[RecordBatch]) -> Result<()> {
    if json.schema.as_ref() != schema {
        return Err(IntegrationError::new(format!(
            "the schemas differ:\nJSON: {}\nIPC:  {schema}",
            json.schema
        )));
    }
    if json.batches.len() != batches.len() {
        return Err(IntegrationError::new(format!(
            "the JSON holds {} batches, the IPC data {}",
            json.batches.len(),
            batches.len()
        )));
    }
    for (b, (expected, found)) in json.batches.iter().zip(batches).enumerate() {
        if expected.num_rows() != found.num_rows() {
            return Err(IntegrationError::new(format!(
                "batch {b}: {} rows in the JSON, {} in the IPC data",
                expected.num_rows(),
                found.num_rows()
            )));
        }
        for (c, (left, right)) in expected.columns().iter().zip(found.columns()).enumerate() {
            if !equal(&left.to_data(), &right.to_data()) {
                return Err(IntegrationError::new(format!(
                    "batch {b}: column {:?} differs",
                    schema.fields()[c].name()
                )));
            }
        }
    }
    Ok(())
}
