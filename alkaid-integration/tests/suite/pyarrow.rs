//! JSON files written by an independent Python encoder of the format (tests/data/
//! make_json.py) against pyarrow's IPC files of the same data, for every group of types:
//! Alkaid must read the JSON as pyarrow wrote the data, and carry both ways without loss.

use std::path::PathBuf;

use alkaid_array::RecordBatch;
use alkaid_buffer::Buffer;
use alkaid_integration::{compare, read_json, write_json};
use alkaid_ipc::{FileReader, FileWriter, WriteOptions};

const GROUPS: [&str; 10] = [
    "primitive",
    "decimal",
    "temporal",
    "binary",
    "nested",
    "union",
    "dictionary",
    "run_end_encoded",
    "extension",
    "empty",
];

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn read_file(bytes: Vec<u8>) -> (alkaid_schema::SchemaRef, Vec<RecordBatch>) {
    let mut reader = FileReader::from_buffer(Buffer::from(bytes)).unwrap();
    let batches = (&mut reader).collect::<Result<Vec<_>, _>>().unwrap();
    (reader.schema(), batches)
}

#[test]
fn json_from_python_describes_pyarrows_ipc_files() {
    for group in GROUPS {
        let json = read_json(&std::fs::read_to_string(data(&format!("{group}.json"))).unwrap())
            .unwrap_or_else(|e| panic!("{group}.json: {e}"));
        let (schema, batches) =
            read_file(std::fs::read(data(&format!("{group}.arrow_file"))).unwrap());
        compare(&json, &schema, &batches).unwrap_or_else(|e| panic!("{group}: {e}"));
    }
}

#[test]
fn json_to_ipc_and_ipc_to_json_lose_nothing() {
    for group in GROUPS {
        let json =
            read_json(&std::fs::read_to_string(data(&format!("{group}.json"))).unwrap()).unwrap();
        let mut writer = FileWriter::try_new_with_dictionary_ids(
            Vec::new(),
            json.schema.clone(),
            json.dictionary_ids.clone(),
            WriteOptions::default(),
        )
        .unwrap();
        for batch in &json.batches {
            writer.write(batch).unwrap();
        }
        let (schema, batches) = read_file(writer.into_inner().unwrap());
        compare(&json, &schema, &batches).unwrap_or_else(|e| panic!("{group}: {e}"));

        let (schema, batches) =
            read_file(std::fs::read(data(&format!("{group}.arrow_file"))).unwrap());
        let text = write_json(&schema, &batches).unwrap();
        let again = read_json(&text).unwrap();
        compare(&again, &schema, &batches).unwrap_or_else(|e| panic!("{group}: {e}"));
    }
}

#[test]
fn json_that_disagrees_with_itself_is_an_error_naming_the_place() {
    let text = std::fs::read_to_string(data("binary.json")).unwrap();
    for (from, to, expected) in [
        (
            "\"count\": 7",
            "\"count\": 8",
            "expected column 0 (\"utf8\") of length 8, found 7",
        ),
        (
            "\"name\": \"large_utf8\",\n     \"count\": 7",
            "\"name\": \"large_utf8\",\n     \"count\": 6",
            "\"large_utf8\" > VALIDITY has 7 entries, expected 6",
        ),
        (
            "\"name\": \"utf8\"\n",
            "\"name\": \"utf9\"\n",
            "unknown type \"utf9\"",
        ),
        (
            "\"OFFSET\": [\n      0,\n      0,",
            "\"OFFSET\": [\n      0,\n      1,",
            "OFFSET gives slot 0 1 bytes, but DATA holds 0",
        ),
        (
            // 64-bit offsets whose difference overflows an i64.
            "\"OFFSET\": [\n      \"0\",\n      \"0\",",
            "\"OFFSET\": [\n      \"-9223372036854775808\",\n      \"9223372036854775807\",",
            "OFFSET gives slot 0 18446744073709551615 bytes, but DATA holds 0",
        ),
    ] {
        assert!(text.contains(from), "{from:?} is in the file");
        let broken = text.replacen(from, to, 1);
        let error = read_json(&broken).unwrap_err().to_string();
        assert!(error.contains(expected), "{expected:?} in {error}");
    }
    assert!(read_json("{\"schema\": {\"fields\": []}").is_err());
    let error = read_json(
        "{\"schema\": {\"fields\": []}, \"batches\": [{\"count\": 1, \"columns\": [{}]}]}",
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("batch 0 > 1 columns for 0 fields"),
        "{error}"
    );
}
