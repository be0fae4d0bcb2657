//! Corners of the specification that other writers produce and every reader must read as
//! the spec says: empty arrays whose one offset is not 0, V4 placeholders, dictionaries sent
//! after an all-null batch, file magic padding, a footer that disagrees with its stream,
//! reserved metadata keys under Arrow's names.

use crate::support;

use std::path::PathBuf;
use std::sync::Arc;

use alkaid_array::types::Int32Type;
use alkaid_array::{
    Array, ArrayRef, AsArray, DictionaryArray, Int32Array, Int64Array, ListArray, RecordBatch,
    StringArray,
};
use alkaid_buffer::Buffer;
use alkaid_data::ValidationLevel;
use alkaid_ipc::{
    FileReader, FileWriter, IpcErrorKind, Magic, StreamReader, StreamWriter, WriteOptions,
};
use alkaid_schema::extension::Namespace;
use alkaid_schema::{DataType, Field, Schema};
use support::{concat_stream, messages};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pyarrow")
        .join(name)
}

fn read_all(bytes: &[u8]) -> Vec<RecordBatch> {
    StreamReader::try_new(bytes)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// The first offset of an offsets-based array (list, map, string, binary).
fn first_offset(column: &dyn Array) -> i64 {
    let data = column.to_data();
    let offsets = &data.buffers()[0];
    match offsets.len() {
        4 => i64::from(offsets.typed::<i32>().unwrap()[0]),
        _ => offsets.typed::<i64>().unwrap()[0],
    }
}

#[test]
fn pyarrow_empty_arrays_whose_offset_is_not_zero_read_as_plain_empty_arrays() {
    let stream = read_all(&std::fs::read(fixture("empty_offsets.stream")).unwrap());
    let file = FileReader::from_buffer(Buffer::from(
        std::fs::read(fixture("empty_offsets.arrow")).unwrap(),
    ))
    .unwrap()
    .collect::<Result<Vec<_>, _>>()
    .unwrap();
    for batch in stream.iter().chain(&file) {
        assert_eq!(batch.num_rows(), 0);
        for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
            column.to_data().validate(ValidationLevel::Strict).unwrap();
            let data = column.to_data();
            let offsets_of: ArrayRef = match field.data_type() {
                DataType::Dictionary { .. } => {
                    let values = data.dictionary().expect("a dictionary").clone();
                    assert_eq!(values.len(), 0, "{}", field.name());
                    alkaid_array::make_array(values)
                }
                _ => column.clone(),
            };
            assert_eq!(first_offset(offsets_of.as_ref()), 0, "{}", field.name());
        }
    }
}

#[test]
fn an_empty_list_whose_offset_points_past_an_empty_child_reads() {
    let item = Arc::new(Field::new("item", DataType::Int32, true));
    let list: ArrayRef = Arc::new(
        ListArray::try_new(
            item,
            alkaid_buffer::OffsetBuffer::try_new(vec![0i32].into()).unwrap(),
            Arc::new(Int32Array::from(Vec::<i32>::new())),
            None,
        )
        .unwrap(),
    );
    let schema = Arc::new(Schema::new(vec![Field::new(
        "l",
        list.data_type().clone(),
        true,
    )]));
    let batch = RecordBatch::try_new(schema.clone(), vec![list]).unwrap();
    let mut bytes = support::stream(schema, &[batch], WriteOptions::default());
    // The body is the offsets buffer alone (padded to 8), right before the end marker.
    let at = bytes.len() - 16;
    assert_eq!(bytes[at..at + 8], [0; 8]);
    bytes[at..at + 4].copy_from_slice(&5i32.to_le_bytes());
    let read = read_all(&bytes);
    assert_eq!(read[0].column(0).len(), 0);
    assert_eq!(first_offset(read[0].column(0).as_ref()), 0);
}

#[test]
fn v4_run_end_encoded_and_union_columns_skip_their_placeholder_validity() {
    let batches = read_all(&std::fs::read(fixture("ree_v4.stream")).unwrap());
    let batch = &batches[0];
    let ree = batch.column(0).to_data();
    let run_ends = alkaid_array::make_array(ree.children()[0].clone());
    assert_eq!(
        run_ends.as_primitive::<Int32Type>().values().as_ref(),
        &[2, 5]
    );
    let values = alkaid_array::make_array(ree.children()[1].clone());
    assert_eq!(values.as_string::<i32>().value(1), "b");
    let after = batch
        .column(2)
        .as_primitive::<alkaid_array::types::Int64Type>();
    assert_eq!(after.values().as_ref(), &[10, 20, 30, 40, 50]);
}

fn dictionary_column(keys: Vec<Option<i32>>) -> ArrayRef {
    let values: ArrayRef = Arc::new(StringArray::from(vec!["x", "y"]));
    Arc::new(DictionaryArray::<Int32Type>::try_new(Int32Array::from(keys), values).unwrap())
}

#[test]
fn an_all_null_dictionary_column_may_come_before_its_dictionary() {
    let all_null = dictionary_column(vec![None, None]);
    let valid = dictionary_column(vec![Some(1), Some(0)]);
    let schema = Arc::new(Schema::new(vec![Field::new(
        "d",
        all_null.data_type().clone(),
        true,
    )]));
    let batches = [
        RecordBatch::try_new(schema.clone(), vec![all_null]).unwrap(),
        RecordBatch::try_new(schema.clone(), vec![valid]).unwrap(),
    ];
    let bytes = support::stream(schema, &batches, WriteOptions::default());
    let parts = messages(&bytes);
    assert_eq!(parts.len(), 4, "schema, dictionary, two batches");
    let (schema_message, dictionary, first, second) = (&parts[0], &parts[1], &parts[2], &parts[3]);

    let late = concat_stream(&[schema_message, first, dictionary, second]);
    let read = read_all(&late);
    assert_eq!(read[0].column(0).null_count(), 2);
    assert_eq!(read[0].column(0).to_data().dictionary().unwrap().len(), 0);
    let keys_then_values = read[1].column(0).to_data();
    assert_eq!(keys_then_values.dictionary().unwrap().len(), 2);
    assert!(alkaid_data::equal(
        &keys_then_values,
        &batches[1].column(0).to_data()
    ));

    // Non-null keys before any dictionary stay an error.
    let early = concat_stream(&[schema_message, second, dictionary]);
    let err = support::first_batch_error(&early);
    assert_eq!(err.kind(), IpcErrorKind::Malformed);
    assert!(err.to_string().contains("used by non-null keys"), "{err}");
}

fn small_file(magic: Magic, name: &str) -> Vec<u8> {
    let schema = Arc::new(Schema::new(vec![Field::new(name, DataType::Int64, true)]));
    let column: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 3]));
    let batch = RecordBatch::try_new(schema.clone(), vec![column]).unwrap();
    let mut writer = FileWriter::try_new(
        Vec::new(),
        schema,
        WriteOptions::default().with_magic(magic),
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.into_inner().unwrap()
}

fn open(bytes: Vec<u8>) -> alkaid_ipc::Result<FileReader<Buffer>> {
    FileReader::from_buffer(Buffer::from(bytes))
}

#[test]
fn padding_after_the_leading_magic_is_not_read() {
    for magic in [Magic::Arrow, Magic::Alkaid] {
        let mut bytes = small_file(magic, "x");
        bytes[7] = b'!';
        if magic == Magic::Arrow {
            bytes[6] = b'?';
        }
        let mut reader = open(bytes).unwrap();
        assert_eq!(reader.batch(0).unwrap().num_rows(), 3);
    }
    let mut bytes = small_file(Magic::Arrow, "x");
    bytes[..6].copy_from_slice(b"ARROW2");
    let err = open(bytes).err().unwrap();
    assert!(
        err.to_string()
            .contains("does not start with ALKAID1 or ARROW1 (its first bytes are \"ARROW2\\0\")"),
        "{err}"
    );
}

#[test]
fn a_footer_that_disagrees_with_the_stream_schema_is_refused() {
    let bytes = small_file(Magic::Alkaid, "original_name");
    // The last occurrence of the name is the footer's copy.
    let at = bytes
        .windows(13)
        .rposition(|w| w == b"original_name")
        .unwrap();
    let mut renamed = bytes.clone();
    renamed[at..at + 13].copy_from_slice(b"footered_name");
    let err = open(renamed).err().unwrap();
    assert_eq!(err.kind(), IpcErrorKind::Malformed);
    assert!(
        err.to_string().contains(
            "the footer's schema (footered_name: Int64) differs from the schema message at \
             the start of the file (original_name: Int64)"
        ),
        "{err}"
    );
    // A framed message that runs past the first block is no schema message: refused.
    let mut overlong = bytes.clone();
    overlong[12..16].copy_from_slice(&4096i32.to_le_bytes());
    let err = open(overlong).err().unwrap();
    assert!(
        err.to_string()
            .contains("the file's schema message at byte 8 (4104 bytes) runs past its first block"),
        "{err}"
    );
    // Bytes that are no message at all are not read (Arrow C++ reads only the footer):
    // the file reads by its footer.
    let mut headless = bytes;
    headless[8..12].copy_from_slice(&[0, 0, 0, 0]);
    let mut reader = open(headless).unwrap();
    assert_eq!(reader.batch(0).unwrap().num_rows(), 3);
}

fn annotated_schema() -> Arc<Schema> {
    let uuid = Field::new("id", DataType::FixedSizeBinary(16), true)
        .with_metadata_entry("ALKAID:extension:name", "arrow.uuid");
    let json = Field::new("doc", DataType::Utf8, true)
        .with_metadata_entry("ALKAID:extension:name", "arrow.json")
        .with_metadata_entry("ARROW:extension:name", "shadowed.by.alkaid");
    let list = DataType::list(DataType::Int8);
    let nested = Field::new("flags", list, true).with_metadata_entry("unrelated", "kept");
    Arc::new(
        Schema::new(vec![uuid, json, nested]).with_metadata(
            [("ALKAID:origin".to_string(), "test".to_string())]
                .into_iter()
                .collect(),
        ),
    )
}

#[test]
fn reserved_keys_are_written_under_arrow_names_when_asked() {
    let schema = annotated_schema();
    let written = |options: WriteOptions| {
        let writer = StreamWriter::try_new(Vec::new(), schema.clone(), options).unwrap();
        let bytes = writer.into_inner().unwrap();
        StreamReader::try_new(&bytes[..]).unwrap().schema()
    };
    let arrow = written(WriteOptions::default().with_namespace(Namespace::Arrow));
    let id = arrow.fields()[0].metadata();
    assert_eq!(id.get("ARROW:extension:name"), Some("arrow.uuid"));
    assert!(!id.contains_key("ALKAID:extension:name"));
    let doc = arrow.fields()[1].metadata();
    assert_eq!(doc.get("ARROW:extension:name"), Some("arrow.json"));
    assert_eq!(doc.len(), 1);
    assert_eq!(arrow.metadata().get("ARROW:origin"), Some("test"));
    assert_eq!(arrow.fields()[2].metadata().get("unrelated"), Some("kept"));
    // The magic switch implies it; the default keeps Alkaid's names.
    let by_magic = written(WriteOptions::default().with_magic(Magic::Arrow));
    assert_eq!(by_magic, arrow);
    let alkaid = written(WriteOptions::default());
    assert_eq!(alkaid, schema);
    let kept = written(
        WriteOptions::default()
            .with_magic(Magic::Arrow)
            .with_namespace(Namespace::Alkaid),
    );
    assert_eq!(kept, schema);
}

/// A stream with canonical extension types annotated in Alkaid's namespace, written under
/// Arrow's names, for `check_alkaid_files.py` to read with pyarrow (which must see the
/// extension types, not their storage).
#[test]
fn writes_extension_types_for_pyarrow() {
    use alkaid_array::{FixedSizeBinaryArray, Int8Array};
    use alkaid_schema::extension::{Bool8, FixedShapeTensor, Json, Opaque, Uuid};

    let tensor = FixedShapeTensor::try_new(DataType::Float32, vec![2, 2], None, None).unwrap();
    let annotate = |field: Field, extension: &dyn alkaid_schema::extension::ExtensionType| {
        field
            .with_extension_type(extension, Namespace::Alkaid)
            .unwrap()
    };
    let fields = vec![
        annotate(
            Field::new("uuid", DataType::FixedSizeBinary(16), true),
            &Uuid,
        ),
        annotate(Field::new("json", DataType::Utf8, true), &Json),
        annotate(Field::new("bool8", DataType::Int8, true), &Bool8),
        annotate(Field::new("tensor", tensor.storage_type(), true), &tensor),
        annotate(
            Field::new("opaque", DataType::Binary, true),
            &Opaque::new("geometry", "postgis"),
        ),
    ];
    let schema = Arc::new(Schema::new(fields));
    let tensors = alkaid_array::FixedSizeListArray::try_new(
        Arc::new(Field::new("item", DataType::Float32, true)),
        4,
        Arc::new(alkaid_array::Float32Array::from(vec![1.0, 2.0, 3.0, 4.0])),
        None,
    )
    .unwrap();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(FixedSizeBinaryArray::try_from_iter(16, [Some([7u8; 16])]).unwrap()),
        Arc::new(StringArray::from(vec![r#"{"a": 1}"#])),
        Arc::new(Int8Array::from(vec![1])),
        Arc::new(tensors),
        Arc::new(alkaid_array::BinaryArray::from(vec![&b"\x01\x02"[..]])),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    batch.validate(ValidationLevel::Strict).unwrap();
    let bytes = support::stream(
        schema,
        &[batch],
        WriteOptions::default().with_namespace(Namespace::Arrow),
    );
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("interop");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("extensions.stream"), bytes).unwrap();
}

/// Dense tensors for `check_alkaid_files.py` to read with `pa.ipc.read_tensor`.
#[test]
fn writes_tensors_for_pyarrow() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("interop");
    std::fs::create_dir_all(&dir).unwrap();
    let cells = Buffer::from_slice_ref(&(0..24).map(|v| v as f32 * 0.5).collect::<Vec<_>>());
    let tensor = alkaid_ipc::Tensor::try_new(
        DataType::Float32,
        cells,
        vec![2, 3, 4],
        None,
        vec!["a".into(), "b".into(), "c".into()],
    )
    .unwrap();
    let mut bytes = Vec::new();
    alkaid_ipc::write_tensor(&mut bytes, &tensor).unwrap();
    std::fs::write(dir.join("tensor_f32.bin"), bytes).unwrap();
    // Column-major cells of a 2 x 3 i64 matrix: [[0, 1, 2], [3, 4, 5]].
    let cells = Buffer::from_slice_ref(&[0i64, 3, 1, 4, 2, 5]);
    let tensor = alkaid_ipc::Tensor::try_new(
        DataType::Int64,
        cells,
        vec![2, 3],
        Some(vec![8, 16]),
        vec![],
    )
    .unwrap();
    let mut bytes = Vec::new();
    alkaid_ipc::write_tensor(&mut bytes, &tensor).unwrap();
    std::fs::write(dir.join("tensor_i64_fortran.bin"), bytes).unwrap();
}
