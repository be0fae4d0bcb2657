//! The sans-IO `MessageEncoder` and `Decoder::decode_message`, as a carrier that frames
//! messages its own way (Flight) uses them: every type round trips, dictionaries are sent
//! once and then as deltas or replacements, and a batch that fails half way changes
//! nothing, so the batches after it still read back.

use crate::batches;
use crate::common;

use std::sync::Arc;

use alkaid_array::types::Int32Type;
use alkaid_array::{ArrayRef, DictionaryArray, Int32Array, RecordBatch, StringArray};
use alkaid_buffer::Buffer;
use alkaid_data::equal;
use alkaid_ipc::{
    Compression, Decoded, Decoder, DictionaryIds, EncodedMessage, FileReader, FileWriter,
    MessageEncoder, MessageKind, StreamReader, StreamWriter, WriteOptions,
};
use alkaid_schema::{DataType, Field, IntegerType, Schema, arbitrary};
use batches::random_batches;
use common::{Rng, dictionary_of_dictionary, generatable};
use proptest::prelude::*;

/// The body of `message` in one buffer, as a carrier would receive it.
fn body(message: &EncodedMessage) -> Buffer {
    Buffer::from(message.body_slices().collect::<Vec<_>>().concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn encoded_messages_decode_to_the_batches(
        types in prop::collection::vec(arbitrary::data_type_with_depth(3), 1..5),
        seed in any::<u64>(),
        lens in prop::collection::vec(0usize..10, 1..4),
    ) {
        prop_assume!(types.iter().all(|t| generatable(t) && !dictionary_of_dictionary(t)));
        let mut rng = Rng::new(seed);
        let (schema, batches) = random_batches(&types, &lens, &mut rng);
        let codec = [Compression::None, Compression::Lz4Frame, Compression::Zstd { level: 1 }]
            [rng.below(3)];
        let options = WriteOptions::default()
            .with_compression(codec)
            .with_dictionary_deltas(rng.chance(0.5));
        let mut encoder = MessageEncoder::new(schema.clone(), options).unwrap();
        let mut decoder = Decoder::new();
        let schema_message = encoder.schema_message();
        prop_assert_eq!(schema_message.kind(), MessageKind::Schema);
        prop_assert_eq!(schema_message.body_len(), 0);
        let decoded = decoder
            .decode_message(schema_message.flatbuffer(), Buffer::empty())
            .unwrap();
        prop_assert!(matches!(decoded, Decoded::Schema(_)));
        for batch in &batches {
            let messages = encoder.encode(batch, &Default::default()).unwrap();
            // Dictionaries first, the batch last.
            let (last, dictionaries) = messages.split_last().unwrap();
            prop_assert_eq!(last.kind(), MessageKind::RecordBatch);
            prop_assert!(dictionaries.iter().all(|m| m.kind() == MessageKind::Dictionary));
            let mut read = None;
            for message in &messages {
                let len: usize = message.body_slices().map(<[u8]>::len).sum();
                prop_assert_eq!(len, message.body_len());
                if let Decoded::Batch(batch, _) =
                    decoder.decode_message(message.flatbuffer(), body(message)).unwrap()
                {
                    read = Some(batch);
                }
            }
            let read = read.unwrap();
            for (a, b) in read.columns().iter().zip(batch.columns()) {
                prop_assert!(equal(&a.to_data(), &b.to_data()));
            }
        }
    }
}

fn dictionary(words: &[&str], keys: &[i32]) -> ArrayRef {
    let values: ArrayRef = Arc::new(StringArray::from(words.to_vec()));
    Arc::new(
        DictionaryArray::<Int32Type>::try_new(Int32Array::from(keys.to_vec()), values).unwrap(),
    )
}

#[test]
fn dictionaries_go_once_then_as_deltas_or_replacements() {
    let field = Field::new(
        "d",
        DataType::dictionary(IntegerType::Int32, DataType::Utf8),
        false,
    );
    let schema = Arc::new(Schema::new(vec![field]));
    let batch = |words: &[&str]| {
        RecordBatch::try_new(schema.clone(), vec![dictionary(words, &[0, 1])]).unwrap()
    };
    let options = WriteOptions::default().with_dictionary_deltas(true);
    let mut encoder = MessageEncoder::new(schema.clone(), options).unwrap();
    let mut decoder = Decoder::new();
    let schema_message = encoder.schema_message();
    decoder
        .decode_message(schema_message.flatbuffer(), Buffer::empty())
        .unwrap();
    // What the messages of each batch decode to: `Some(is_delta)` per dictionary, `None`
    // for the batch.
    let mut send = |words: &[&str]| -> Vec<Option<bool>> {
        let messages = encoder.encode(&batch(words), &Default::default()).unwrap();
        messages
            .iter()
            .map(
                |m| match decoder.decode_message(m.flatbuffer(), body(m)).unwrap() {
                    Decoded::Dictionary { is_delta, .. } => Some(is_delta),
                    _ => None,
                },
            )
            .collect()
    };
    assert_eq!(send(&["a", "b"]), [Some(false), None]);
    // The same dictionary: not sent again.
    assert_eq!(send(&["a", "b"]), [None]);
    // Grown: a delta.
    assert_eq!(send(&["a", "b", "c"]), [Some(true), None]);
    // Changed: a replacement.
    assert_eq!(send(&["x", "y"]), [Some(false), None]);
}

/// Two dictionary columns sharing id 0, for batches that fail: the same id with two
/// different dictionaries in one batch.
#[test]
fn a_batch_that_fails_half_way_leaves_the_stream_and_the_file_readable() {
    let kind = DataType::dictionary(IntegerType::Int32, DataType::Utf8);
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", kind.clone(), false),
        Field::new("b", kind.clone(), false),
        Field::new("c", kind, false),
    ]));
    // Columns a and b share id 0; c has id 1.
    let ids = DictionaryIds::try_new(&schema, vec![0, 0, 1]).unwrap();
    let good = |a: &[&str], c: &[&str]| {
        RecordBatch::try_new(
            schema.clone(),
            vec![
                dictionary(a, &[0, 1]),
                dictionary(a, &[1, 0]),
                dictionary(c, &[1, 1]),
            ],
        )
        .unwrap()
    };
    // c's dictionary is new (encoded first), then a and b disagree: the batch fails.
    let bad = RecordBatch::try_new(
        schema.clone(),
        vec![
            dictionary(&["p", "q"], &[0, 1]),
            dictionary(&["r", "s"], &[0, 1]),
            dictionary(&["u", "v"], &[0, 1]),
        ],
    )
    .unwrap();
    let options = WriteOptions::default().with_dictionary_deltas(true);
    let batches = [
        good(&["a", "b"], &["m", "n"]),
        good(&["a", "b"], &["u", "v"]),
    ];

    let mut stream = StreamWriter::try_new_with_dictionary_ids(
        Vec::new(),
        schema.clone(),
        ids.clone(),
        options.clone(),
    )
    .unwrap();
    stream.write(&batches[0]).unwrap();
    let err = stream.write(&bad).unwrap_err();
    assert!(err.to_string().contains("dictionary id 0"), "{err}");
    // c's dictionary ["u", "v"] was not sent: the next batch must send it.
    stream.write(&batches[1]).unwrap();
    let bytes = stream.into_inner().unwrap();
    let read: Vec<RecordBatch> = StreamReader::try_new(&bytes[..])
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(read.len(), 2);
    for (a, b) in read.iter().zip(&batches) {
        for (x, y) in a.columns().iter().zip(b.columns()) {
            assert!(equal(&x.to_data(), &y.to_data()));
        }
    }

    let mut file =
        FileWriter::try_new_with_dictionary_ids(Vec::new(), schema.clone(), ids, options).unwrap();
    file.write(&batches[0]).unwrap();
    assert!(file.write(&bad).is_err());
    file.write(&batches[0]).unwrap();
    let bytes = file.into_inner().unwrap();
    let mut reader = FileReader::from_buffer(Buffer::from(bytes)).unwrap();
    assert_eq!(reader.num_batches(), 2);
    let second = reader.batch(1).unwrap();
    assert!(equal(
        &second.column(2).to_data(),
        &batches[0].column(2).to_data()
    ));
}
