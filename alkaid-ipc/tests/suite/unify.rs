//! Files that unify dictionaries (`FileDictionaries::Unify`): a batch whose dictionary the
//! file cannot take as it is gets its dictionary appended as a delta and its keys moved,
//! at any depth; the same replacement again costs nothing; what cannot be unified is
//! refused, and the file written so far stays whole.

use std::sync::Arc;

use alkaid_array::types::Int8Type;
use alkaid_array::{ArrayRef, DictionaryArray, Int8Array, RecordBatch, StructArray};
use alkaid_buffer::Buffer;
use alkaid_ipc::{FileDictionaries, FileReader, FileWriter, WriteOptions};
use alkaid_schema::{DataType, Field, Fields, IntegerType, Schema};

use super::dictionaries::{decoded, dictionary_messages, schema_of, strings, words};

fn unifying() -> WriteOptions {
    WriteOptions::default().with_file_dictionaries(FileDictionaries::Unify)
}

/// The file of `columns`, one batch each, as read back, and how many dictionary messages
/// it holds.
fn file_of(columns: &[ArrayRef], options: WriteOptions) -> (Vec<Vec<String>>, usize) {
    let schema = schema_of(&[&columns[0]]);
    let mut writer = FileWriter::try_new(Vec::new(), schema.clone(), options).unwrap();
    for column in columns {
        let batch = RecordBatch::try_new(schema.clone(), vec![column.clone()]).unwrap();
        writer.write(&batch).unwrap();
    }
    let bytes = Buffer::from(writer.into_inner().unwrap());
    // The file's stream starts after its 8 bytes of magic.
    let messages = dictionary_messages(&bytes[8..]);
    let reader = FileReader::from_buffer(bytes).unwrap();
    (
        reader.map(|b| decoded(b.unwrap().column(0))).collect(),
        messages,
    )
}

#[test]
fn replaced_dictionaries_are_appended_and_their_keys_moved() {
    let ab = strings(&["a", "b"]);
    let xy = strings(&["x", "y"]);
    let columns = vec![
        words(vec![0, 1], &ab),
        words(vec![1, 0, 1], &xy), // a replacement: appended
        words(vec![0], &xy),       // the same again: nothing appended
        words(vec![1], &ab),       // the first again: a prefix, nothing appended
        // Sliced: the keys' offset is kept.
        words(vec![0, 1, 1, 0], &strings(&["p", "q"])).slice(1, 2),
    ];
    let (read, messages) = file_of(&columns, unifying());
    assert_eq!(
        read,
        [
            vec!["a", "b"],
            vec!["y", "x", "y"],
            vec!["x"],
            vec!["b"],
            vec!["q", "q"],
        ]
    );
    // The first dictionary, then a delta for `x, y` and one for `p, q`: the repeats
    // appended nothing.
    assert_eq!(messages, 3);
    // Without unification the second batch is refused, as before.
    let schema = schema_of(&[&columns[0]]);
    let mut writer =
        FileWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
    writer
        .write(&RecordBatch::try_new(schema.clone(), vec![columns[0].clone()]).unwrap())
        .unwrap();
    let err = writer
        .write(&RecordBatch::try_new(schema, vec![columns[1].clone()]).unwrap())
        .unwrap_err();
    assert!(err.to_string().contains("FileDictionaries::Unify"), "{err}");
}

#[test]
fn dictionaries_inside_structs_are_unified_too() {
    let nested = |values: &[&str], keys: Vec<i32>| -> ArrayRef {
        let inner = words(keys, &strings(values));
        let fields = Fields::from(vec![Field::new("w", inner.data_type().clone(), true)]);
        Arc::new(StructArray::try_new(fields, vec![inner], None).unwrap())
    };
    let columns = [nested(&["a"], vec![0, 0]), nested(&["b", "c"], vec![1, 0])];
    let schema = schema_of(&[&columns[0]]);
    let mut writer = FileWriter::try_new(Vec::new(), schema.clone(), unifying()).unwrap();
    for column in &columns {
        writer
            .write(&RecordBatch::try_new(schema.clone(), vec![column.clone()]).unwrap())
            .unwrap();
    }
    let bytes = Buffer::from(writer.into_inner().unwrap());
    let read: Vec<Vec<String>> = FileReader::from_buffer(bytes)
        .unwrap()
        .map(|b| {
            let batch = b.unwrap();
            let inner = batch
                .column(0)
                .as_any()
                .downcast_ref::<StructArray>()
                .unwrap();
            decoded(inner.column(0))
        })
        .collect();
    assert_eq!(read, [vec!["a", "a"], vec!["c", "b"]]);
}

#[test]
fn what_cannot_be_unified_is_refused_and_the_file_so_far_kept() {
    // Int8 keys cannot reach past 127: the second dictionary would end at 200.
    let narrow = |values: Vec<String>| -> ArrayRef {
        let values: ArrayRef = Arc::new(alkaid_array::StringArray::from(values));
        let keys = Int8Array::from(vec![0i8, 1]);
        Arc::new(DictionaryArray::<Int8Type>::try_new(keys, values).unwrap())
    };
    let first = narrow((0..100).map(|i| format!("a{i}")).collect());
    let second = narrow((0..100).map(|i| format!("b{i}")).collect());
    let schema = schema_of(&[&first]);
    let mut writer = FileWriter::try_new(Vec::new(), schema.clone(), unifying()).unwrap();
    writer
        .write(&RecordBatch::try_new(schema.clone(), vec![first]).unwrap())
        .unwrap();
    let err = writer
        .write(&RecordBatch::try_new(schema.clone(), vec![second]).unwrap())
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("a unified dictionary of 200 values needs keys wider than Int8"),
        "{err}"
    );
    let mut reader = FileReader::from_buffer(Buffer::from(writer.into_inner().unwrap())).unwrap();
    assert_eq!(reader.num_batches(), 1);
    assert_eq!(reader.batch(0).unwrap().num_rows(), 2);

    // An ordered dictionary: appending would break its order.
    let ordered = DataType::Dictionary {
        key: IntegerType::Int32,
        value: Box::new(DataType::Utf8),
        ordered: true,
    };
    let make = |values: &[&str]| -> ArrayRef {
        let data = words(vec![0], &strings(values)).to_data();
        let data = alkaid_data::ArrayData::builder(ordered.clone())
            .len(1)
            .buffers(data.buffers().to_vec())
            .dictionary(data.shared_dictionary().unwrap().clone())
            .build()
            .unwrap();
        alkaid_array::make_array(data)
    };
    let schema = Arc::new(Schema::new(vec![Field::new("o", ordered.clone(), false)]));
    let mut writer = FileWriter::try_new(Vec::new(), schema.clone(), unifying()).unwrap();
    writer
        .write(&RecordBatch::try_new(schema.clone(), vec![make(&["a"])]).unwrap())
        .unwrap();
    let err = writer
        .write(&RecordBatch::try_new(schema, vec![make(&["b"])]).unwrap())
        .unwrap_err();
    assert!(err.to_string().contains("is ordered"), "{err}");
}
