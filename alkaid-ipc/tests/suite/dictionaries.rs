//! Dictionaries: deltas and replacements in streams, deltas only in files, fields sharing a
//! dictionary, dictionaries nested in dictionaries, and batches naming undefined ids.

use std::sync::Arc;

use alkaid_array::types::{Int8Type, Int32Type};
use alkaid_array::{
    ArrayRef, AsArray, DictionaryArray, Int8Array, Int32Array, RecordBatch, StringArray,
    StructArray,
};
use alkaid_buffer::Buffer;
use alkaid_ipc::{
    DictionaryIds, FileReader, FileWriter, IpcErrorKind, StreamReader, StreamWriter, WriteOptions,
};
use alkaid_schema::{Field, Fields, Schema};

pub(crate) fn words(keys: Vec<i32>, values: &ArrayRef) -> ArrayRef {
    Arc::new(DictionaryArray::<Int32Type>::try_new(Int32Array::from(keys), values.clone()).unwrap())
}

pub(crate) fn strings(values: &[&str]) -> ArrayRef {
    Arc::new(StringArray::from(values.to_vec()))
}

pub(crate) fn decoded(column: &ArrayRef) -> Vec<String> {
    let dictionary = column
        .as_any()
        .downcast_ref::<DictionaryArray<Int32Type>>()
        .unwrap();
    let values = dictionary.values().as_string::<i32>();
    dictionary
        .keys()
        .iter()
        .map(|k| values.value(k.unwrap() as usize).to_string())
        .collect()
}

pub(crate) fn schema_of(columns: &[&ArrayRef]) -> Arc<Schema> {
    Arc::new(Schema::new(
        columns
            .iter()
            .enumerate()
            .map(|(i, c)| Field::new(format!("w{i}"), c.data_type().clone(), false))
            .collect::<Vec<_>>(),
    ))
}

/// The number of dictionary batch messages in a stream.
pub(crate) fn dictionary_messages(bytes: &[u8]) -> usize {
    let mut decoder = alkaid_ipc::Decoder::new();
    decoder.push(bytes);
    let mut count = 0;
    while let Some(message) = decoder.next_message().unwrap() {
        if let alkaid_ipc::Decoded::Dictionary { .. } = message {
            count += 1;
        }
    }
    count
}

#[test]
fn streams_send_deltas_and_replacements() {
    let first = strings(&["a", "b"]);
    let grown = strings(&["a", "b", "c"]);
    let other = strings(&["x", "y"]);
    let batches: Vec<ArrayRef> = vec![
        words(vec![0, 1], &first),
        words(vec![0, 1], &first), // unchanged: nothing sent
        words(vec![2, 0], &grown), // a delta
        words(vec![1, 0], &other), // a replacement
    ];
    let schema = schema_of(&[&batches[0]]);
    for deltas in [true, false] {
        let options = WriteOptions::default().with_dictionary_deltas(deltas);
        let mut writer = StreamWriter::try_new(Vec::new(), schema.clone(), options).unwrap();
        for column in &batches {
            writer
                .write(&RecordBatch::try_new(schema.clone(), vec![column.clone()]).unwrap())
                .unwrap();
        }
        let bytes = writer.into_inner().unwrap();
        assert_eq!(dictionary_messages(&bytes), 3);
        let read: Vec<Vec<String>> = StreamReader::try_new(&bytes[..])
            .unwrap()
            .map(|b| decoded(b.unwrap().column(0)))
            .collect();
        assert_eq!(
            read,
            [
                vec!["a", "b"],
                vec!["a", "b"],
                vec!["c", "a"],
                vec!["y", "x"]
            ]
        );
    }
}

#[test]
fn files_take_deltas_and_refuse_replacements() {
    let first = strings(&["a", "b"]);
    let grown = strings(&["a", "b", "c"]);
    let schema = schema_of(&[&words(vec![0], &first)]);
    let mut writer =
        FileWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
    for column in [words(vec![1], &first), words(vec![2], &grown)] {
        writer
            .write(&RecordBatch::try_new(schema.clone(), vec![column]).unwrap())
            .unwrap();
    }
    let replacement = words(vec![0], &strings(&["z"]));
    let err = writer
        .write(&RecordBatch::try_new(schema.clone(), vec![replacement]).unwrap())
        .unwrap_err();
    assert_eq!(err.kind(), IpcErrorKind::InvalidArgument);
    assert!(err.to_string().contains("dictionary 0 changed"), "{err}");
    let bytes = writer.into_inner().unwrap();
    let mut reader = FileReader::from_buffer(Buffer::from(bytes)).unwrap();
    // The file's dictionary is the final one, so the first batch reads it too.
    assert_eq!(decoded(reader.batch(1).unwrap().column(0)), ["c"]);
    assert_eq!(decoded(reader.batch(0).unwrap().column(0)), ["b"]);
}

#[test]
fn fields_can_share_one_dictionary() {
    let shared = strings(&["red", "green", "blue"]);
    let a = words(vec![0, 1, 2], &shared);
    let b = words(vec![2, 2, 0], &shared);
    let schema = schema_of(&[&a, &b]);
    let ids = DictionaryIds::try_new(&schema, vec![9, 9]).unwrap();
    let batch = RecordBatch::try_new(schema.clone(), vec![a, b]).unwrap();
    let mut writer = StreamWriter::try_new_with_dictionary_ids(
        Vec::new(),
        schema.clone(),
        ids.clone(),
        WriteOptions::default(),
    )
    .unwrap();
    writer.write(&batch).unwrap();
    let bytes = writer.into_inner().unwrap();
    assert_eq!(dictionary_messages(&bytes), 1);
    let read = StreamReader::try_new(&bytes[..])
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(decoded(read.column(0)), ["red", "green", "blue"]);
    assert_eq!(decoded(read.column(1)), ["blue", "blue", "red"]);
    // One dictionary in memory, shared by both columns.
    let dict = |c: usize| read.column(c).to_data().dictionary().unwrap().buffers()[1].as_ptr();
    assert_eq!(dict(0), dict(1));

    // Different dictionaries under one id in one batch are refused.
    let c = words(vec![0], &strings(&["other"]));
    let d = words(vec![0], &shared);
    let mut writer = StreamWriter::try_new_with_dictionary_ids(
        Vec::new(),
        schema.clone(),
        ids,
        WriteOptions::default(),
    )
    .unwrap();
    let err = writer
        .write(&RecordBatch::try_new(schema.clone(), vec![c, d]).unwrap())
        .unwrap_err();
    assert!(err.to_string().contains("sharing dictionary id 9"), "{err}");
    // Ids that do not fit the schema are refused.
    assert!(DictionaryIds::try_new(&schema, vec![1]).is_err());
}

#[test]
fn dictionaries_nested_in_lists_structs_and_dictionaries() {
    // A dictionary whose values are structs holding a dictionary.
    let inner = Arc::new(
        DictionaryArray::<Int8Type>::try_new(
            Int8Array::from(vec![1, 0, 1]),
            strings(&["low", "high"]),
        )
        .unwrap(),
    ) as ArrayRef;
    let fields = Fields::from(vec![Field::new("level", inner.data_type().clone(), false)]);
    let values = Arc::new(StructArray::try_new(fields, vec![inner], None).unwrap()) as ArrayRef;
    let outer = Arc::new(
        DictionaryArray::<Int32Type>::try_new(Int32Array::from(vec![2, 2, 0, 1]), values).unwrap(),
    ) as ArrayRef;
    let schema = schema_of(&[&outer]);
    let batch = RecordBatch::try_new(schema.clone(), vec![outer.clone()]).unwrap();
    for file in [false, true] {
        let bytes = if file {
            let mut w =
                FileWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
            w.write(&batch).unwrap();
            w.into_inner().unwrap()
        } else {
            let mut w =
                StreamWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
            w.write(&batch).unwrap();
            w.into_inner().unwrap()
        };
        let read = if file {
            FileReader::from_buffer(Buffer::from(bytes))
                .unwrap()
                .batch(0)
                .unwrap()
        } else {
            StreamReader::try_new(&bytes[..])
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
        };
        assert!(alkaid_data::equal(
            &read.column(0).to_data(),
            &outer.to_data()
        ));
        assert_eq!(
            read.schema().field(0).unwrap().data_type(),
            outer.data_type()
        );
    }
}

#[test]
fn a_batch_using_an_undefined_dictionary_is_an_error() {
    let values = strings(&["a"]);
    let column = words(vec![0], &values);
    let schema = schema_of(&[&column]);
    let mut writer =
        StreamWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
    writer
        .write(&RecordBatch::try_new(schema, vec![column]).unwrap())
        .unwrap();
    let bytes = writer.into_inner().unwrap();
    // Drop the dictionary message: schema message, then skip one framed message.
    let framed = |at: usize| {
        let meta = i32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        let message = &bytes[at + 8..at + 8 + meta];
        // bodyLength is not needed: the dictionary body is the 8-byte-padded "a" plus
        // offsets, found by scanning for the next marker.
        let _ = message;
        (at + 8 + meta..bytes.len())
            .step_by(8)
            .find(|&p| bytes[p..p + 4] == [0xFF; 4])
            .unwrap()
    };
    let dictionary_start = framed(0);
    let batch_start = framed(dictionary_start);
    let mut without = bytes[..dictionary_start].to_vec();
    without.extend_from_slice(&bytes[batch_start..]);
    let err = StreamReader::try_new(&without[..])
        .unwrap()
        .next()
        .unwrap()
        .unwrap_err();
    assert_eq!(err.kind(), IpcErrorKind::Malformed);
    assert!(
        err.to_string()
            .contains("dictionary id 0 is used by non-null keys before"),
        "{err}"
    );
}

#[test]
fn deltas_of_nested_dictionary_values() {
    // Struct-valued dictionaries that grow between batches go out as deltas and are read
    // back by appending (alkaid-data's concat), for any value type.
    let structs = |names: &[&str]| -> ArrayRef {
        let fields = Fields::from(vec![Field::new(
            "name",
            alkaid_schema::DataType::Utf8,
            false,
        )]);
        Arc::new(StructArray::try_new(fields, vec![strings(names)], None).unwrap())
    };
    let small = structs(&["a", "b"]);
    let large = structs(&["a", "b", "c"]);
    let dict = |keys: Vec<i32>, values: &ArrayRef| -> ArrayRef {
        Arc::new(
            DictionaryArray::<Int32Type>::try_new(Int32Array::from(keys), values.clone()).unwrap(),
        )
    };
    let first = dict(vec![1, 0], &small);
    let second = dict(vec![2, 2, 1], &large);
    let schema = schema_of(&[&first]);
    let mut writer =
        StreamWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
    for column in [&first, &second] {
        writer
            .write(&RecordBatch::try_new(schema.clone(), vec![column.clone()]).unwrap())
            .unwrap();
    }
    let bytes = writer.into_inner().unwrap();
    let mut decoder = alkaid_ipc::Decoder::new();
    decoder.push(&bytes);
    let mut deltas = Vec::new();
    let mut read = Vec::new();
    while let Some(message) = decoder.next_message().unwrap() {
        match message {
            alkaid_ipc::Decoded::Dictionary { is_delta, .. } => deltas.push(is_delta),
            alkaid_ipc::Decoded::Batch(batch, _) => read.push(batch),
            alkaid_ipc::Decoded::Schema(_) => {}
        }
    }
    assert_eq!(deltas, [false, true]);
    assert!(alkaid_data::equal(
        &read[0].column(0).to_data(),
        &first.to_data()
    ));
    assert!(alkaid_data::equal(
        &read[1].column(0).to_data(),
        &second.to_data()
    ));
}

#[test]
fn batches_of_a_stream_share_its_dictionary_and_writing_them_again_sends_it_once() {
    let values = strings(&["red", "green", "blue"]);
    let first = words(vec![0, 1, 2], &values);
    let second = words(vec![2, 2, 0, 1], &values);
    let schema = schema_of(&[&first]);
    let mut writer =
        StreamWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
    for column in [first, second] {
        writer
            .write(&RecordBatch::try_new(schema.clone(), vec![column]).unwrap())
            .unwrap();
    }
    let bytes = writer.into_inner().unwrap();
    let batches: Vec<RecordBatch> = StreamReader::try_new(&bytes[..])
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    // Both batches point at the one dictionary the reader decoded: O(1) per batch, not a
    // copy of its tree, and a slice of a batch points there too.
    let shared = |batch: &RecordBatch| {
        batch
            .column(0)
            .to_data()
            .shared_dictionary()
            .cloned()
            .unwrap()
    };
    assert!(Arc::ptr_eq(&shared(&batches[0]), &shared(&batches[1])));
    assert!(Arc::ptr_eq(
        &shared(&batches[0]),
        &shared(&batches[1].slice(1, 2))
    ));
    assert_eq!(
        decoded(batches[1].column(0)),
        ["blue", "blue", "red", "green"]
    );
    // Written again, the shared dictionary is recognised by its pointer and sent once.
    let mut writer =
        StreamWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
    for batch in &batches {
        writer.write(batch).unwrap();
    }
    assert_eq!(dictionary_messages(&writer.into_inner().unwrap()), 1);
}
