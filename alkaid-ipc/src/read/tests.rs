//! Reader decisions that need the crate's insides to set up: the byte-order rule, schema
//! features, and a file whose footer replaces a dictionary (no public writer makes one).

use std::sync::Arc;

use alkaid_array::types::Int32Type;
use alkaid_array::{ArrayRef, DictionaryArray, Int32Array, RecordBatch, StringArray};
use alkaid_buffer::Buffer;
use alkaid_schema::{Field, Metadata, Schema};
use flatbuffers::FlatBufferBuilder;

use crate::dictionary::DictionaryIds;
use crate::schema::{SchemaEncoding, decode_schema, encode_schema, needs_swap};
use crate::write::file::finish_file;
use crate::write::writer::{Counting, WriterCore};
use crate::{Compression, FileReader, IpcErrorKind, StreamWriter, WriteOptions, fb};

#[test]
fn values_are_swapped_exactly_when_the_declared_order_is_not_the_hosts() {
    let (big, little) = (fb::Endianness::Big, fb::Endianness::Little);
    // Both hosts, whichever this one is.
    assert!(!needs_swap(little, little));
    assert!(needs_swap(big, little));
    assert!(needs_swap(little, big));
    assert!(!needs_swap(big, big));
    assert_eq!(
        crate::schema::HOST_ENDIANNESS == big,
        cfg!(target_endian = "big")
    );
}

fn dictionary_batch(words: &[&str]) -> RecordBatch {
    let values: ArrayRef = Arc::new(StringArray::from(words.to_vec()));
    let keys = Int32Array::from((0..words.len() as i32).collect::<Vec<_>>());
    let column: ArrayRef = Arc::new(DictionaryArray::<Int32Type>::try_new(keys, values).unwrap());
    let schema = Schema::new(vec![Field::new("w", column.data_type().clone(), true)]);
    RecordBatch::try_new(Arc::new(schema), vec![column]).unwrap()
}

/// The schema message's flatbuffer of a stream written with `options`, decoded.
fn written_features(batch: &RecordBatch, options: WriteOptions) -> Vec<fb::Feature> {
    let writer = StreamWriter::try_new(Vec::new(), batch.schema().clone(), options).unwrap();
    let bytes = writer.into_inner().unwrap();
    let len = i32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    let message = flatbuffers::root::<fb::Message>(&bytes[8..8 + len]).unwrap();
    let schema = message.header_as_schema().unwrap();
    schema.features().iter().flatten().collect()
}

#[test]
fn streams_declare_only_the_features_they_will_use() {
    let words = dictionary_batch(&["a"]);
    let plain = plain_batch();
    assert_eq!(written_features(&plain, WriteOptions::default()), vec![]);
    // A stream with dictionaries may replace them, but need not: declaring it would shut
    // out readers without replacement (nanoarrow) for streams that never replace.
    assert_eq!(written_features(&words, WriteOptions::default()), vec![]);
    if Compression::ZSTD.is_available() {
        assert_eq!(
            written_features(
                &plain,
                WriteOptions::default().with_compression(Compression::ZSTD)
            ),
            vec![fb::Feature::COMPRESSED_BODY]
        );
    }
}

fn plain_batch() -> RecordBatch {
    let column: ArrayRef = Arc::new(Int32Array::from(vec![1]));
    let schema = Schema::new(vec![Field::new("x", column.data_type().clone(), true)]);
    RecordBatch::try_new(Arc::new(schema), vec![column]).unwrap()
}

#[test]
fn an_unknown_feature_is_refused_and_the_known_ones_read() {
    let schema_with = |features: &[fb::Feature]| {
        let mut fbb = FlatBufferBuilder::new();
        let features = fbb.create_vector(features);
        let fields = fbb.create_vector::<flatbuffers::WIPOffset<fb::Field>>(&[]);
        let schema = fb::Schema::create(
            &mut fbb,
            &fb::SchemaArgs {
                endianness: fb::Endianness::Little,
                fields: Some(fields),
                custom_metadata: None,
                features: Some(features),
            },
        );
        fbb.finish(schema, None);
        fbb.finished_data().to_vec()
    };
    let known = schema_with(&[
        fb::Feature::UNUSED,
        fb::Feature::DICTIONARY_REPLACEMENT,
        fb::Feature::COMPRESSED_BODY,
    ]);
    decode_schema(flatbuffers::root::<fb::Schema>(&known).unwrap()).unwrap();
    let unknown = schema_with(&[fb::Feature::COMPRESSED_BODY, fb::Feature(3)]);
    let err = decode_schema(flatbuffers::root::<fb::Schema>(&unknown).unwrap()).unwrap_err();
    assert_eq!(err.kind(), IpcErrorKind::Unsupported);
    assert!(
        err.to_string()
            .contains("the schema declares feature 3, which this reader does not know"),
        "{err}"
    );
}

/// A file whose blocks are what a stream writer wrote: with `words` changing between
/// batches, a dictionary replacement, which a file may not hold.
fn file_with_stream_dictionaries(batches: &[RecordBatch]) -> Vec<u8> {
    let schema = batches[0].schema().clone();
    let out = Counting {
        position: 8,
        ..Counting::new(b"ALKAID1\0".to_vec())
    };
    let mut core = WriterCore::new(out, schema, None, WriteOptions::default(), false).unwrap();
    for batch in batches {
        core.write(batch, &Metadata::new()).unwrap();
    }
    finish_file(&mut core, &Metadata::new()).unwrap();
    core.out.inner
}

#[test]
fn a_file_that_replaces_a_dictionary_is_refused_naming_the_id() {
    let first = dictionary_batch(&["a", "b"]);
    let replaced = dictionary_batch(&["x", "y"]);
    let bytes = file_with_stream_dictionaries(&[first.clone(), replaced]);
    let err = FileReader::from_buffer(Buffer::from(bytes)).err().unwrap();
    assert_eq!(err.kind(), IpcErrorKind::Malformed);
    assert!(
        err.to_string().contains(
            "dictionary block 1: a replacement of dictionary id 0, which the file already defines"
        ),
        "{err}"
    );
    // Deltas are how a file's dictionary grows, and read.
    let grown = dictionary_batch(&["a", "b", "c"]);
    let bytes = file_with_stream_dictionaries(&[first, grown]);
    let mut reader = FileReader::from_buffer(Buffer::from(bytes)).unwrap();
    assert_eq!(reader.batch(1).unwrap().num_rows(), 3);
}

#[test]
fn the_schema_is_written_alike_in_the_stream_and_the_footer() {
    let batch = dictionary_batch(&["a"]);
    let ids = DictionaryIds::sequential(batch.schema());
    let mut fbb = FlatBufferBuilder::new();
    let encoding = SchemaEncoding {
        dictionary_replacement: true,
        ..SchemaEncoding::default()
    };
    let schema = encode_schema(&mut fbb, batch.schema(), &ids, encoding);
    fbb.finish(schema, None);
    let (decoded, _) =
        decode_schema(flatbuffers::root::<fb::Schema>(fbb.finished_data()).unwrap()).unwrap();
    assert_eq!(&decoded, batch.schema().as_ref());
}

mod corrupted {
    //! Valid streams and files, then one corruption the spec forbids or allows, with the
    //! outcome the spec gives for each.

    use std::sync::Arc;

    use alkaid_array::types::Int32Type;
    use alkaid_array::{
        Array, ArrayRef, DictionaryArray, Int32Array, RecordBatch, StringArray, make_array,
    };
    use alkaid_buffer::Buffer;
    use alkaid_data::{ArrayData, equal};
    use alkaid_schema::{DataType, Field, Schema};
    use proptest::prelude::*;

    use super::file_with_stream_dictionaries;
    use crate::{BufferStreamReader, FileReader, StreamWriter, WriteOptions};

    /// A batch of one dictionary column: `keys` into `words`.
    fn words_batch(words: &[&str], keys: &[Option<i32>]) -> RecordBatch {
        let values: ArrayRef = Arc::new(StringArray::from(words.to_vec()));
        let column: ArrayRef = Arc::new(
            DictionaryArray::<Int32Type>::try_new(Int32Array::from(keys.to_vec()), values).unwrap(),
        );
        let schema = Schema::new(vec![Field::new("w", column.data_type().clone(), true)]);
        RecordBatch::try_new(Arc::new(schema), vec![column]).unwrap()
    }

    fn messages(bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut decoder = crate::Decoder::new();
        decoder.push(bytes);
        let mut out = Vec::new();
        while decoder.next_message().unwrap().is_some() {
            let info = decoder.last_message().unwrap();
            let end = info.offset + info.prefix_bytes + info.metadata_bytes + info.body_bytes;
            out.push(bytes[info.offset..end].to_vec());
        }
        out
    }

    fn read_stream(bytes: Vec<u8>) -> crate::Result<Vec<RecordBatch>> {
        BufferStreamReader::try_new(Buffer::from(bytes))?.collect()
    }

    fn keys(max: i32) -> impl Strategy<Value = Vec<Option<i32>>> {
        prop::collection::vec(prop::option::weighted(0.6, 0..max), 0..6)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(100))]

        /// A dictionary sent after the first batch that uses it: read when that batch's
        /// keys are all null, refused naming the id otherwise.
        #[test]
        fn a_dictionary_moved_after_its_first_batch(first in keys(3), second in keys(3)) {
            let words = ["p", "q", "r"];
            let batches = [words_batch(&words, &first), words_batch(&words, &second)];
            let mut writer = StreamWriter::try_new(Vec::new(), batches[0].schema().clone(), WriteOptions::default()).unwrap();
            for batch in &batches {
                writer.write(batch).unwrap();
            }
            let parts = messages(&writer.into_inner().unwrap());
            prop_assert_eq!(parts.len(), 4);
            let mut moved = [&parts[0], &parts[2], &parts[1], &parts[3]].map(|m| m.as_slice()).concat();
            moved.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]);
            let all_null = first.iter().all(Option::is_none);
            match read_stream(moved) {
                Ok(read) => {
                    prop_assert!(all_null);
                    prop_assert_eq!(read[0].column(0).null_count(), first.len());
                    prop_assert!(equal(&read[1].column(0).to_data(), &batches[1].column(0).to_data()));
                }
                Err(e) => {
                    prop_assert!(!all_null);
                    prop_assert!(e.to_string().contains("dictionary id 0 is used by non-null keys"), "{}", e);
                }
            }
        }

        /// A file whose footer lists a second, different dictionary for one id: refused;
        /// one that only grows (a delta) reads.
        #[test]
        fn a_dictionary_replaced_in_a_file(first in keys(2), second in keys(2), grow in any::<bool>()) {
            let later: &[&str] = if grow { &["p", "q", "x"] } else { &["x", "y"] };
            let batches = [words_batch(&["p", "q"], &first), words_batch(later, &second)];
            let bytes = file_with_stream_dictionaries(&batches);
            match FileReader::from_buffer(Buffer::from(bytes)) {
                Ok(mut reader) => {
                    prop_assert!(grow);
                    for (i, batch) in batches.iter().enumerate() {
                        let read = reader.batch(i).unwrap();
                        prop_assert!(equal(&read.column(0).to_data(), &batch.column(0).to_data()));
                    }
                }
                Err(e) => {
                    prop_assert!(!grow);
                    prop_assert!(e.to_string().contains("a replacement of dictionary id 0"), "{}", e);
                }
            }
        }

        /// A dense union whose offsets into one child decrease: refused naming the slot.
        #[test]
        fn a_dense_union_offset_decreased(ids in prop::collection::vec(0i8..2, 2..8), pick in any::<prop::sample::Index>()) {
            // Offsets counting up per child, then one pair of the same child swapped.
            let mut next = [0i32; 2];
            let offsets: Vec<i32> = ids.iter().map(|&id| { next[id as usize] += 1; next[id as usize] - 1 }).collect();
            let pairs: Vec<(usize, usize)> = (0..ids.len())
                .flat_map(|i| (i + 1..ids.len()).map(move |j| (i, j)))
                .filter(|&(i, j)| ids[i] == ids[j])
                .collect();
            prop_assume!(!pairs.is_empty());
            let (i, j) = pairs[pick.index(pairs.len())];
            let union_type: DataType = "Union(Dense, 0 => a: Int32, 1 => b: Utf8)".parse().unwrap();
            let a = Int32Array::from((0..next[0]).collect::<Vec<_>>()).to_data();
            let b = StringArray::from((0..next[1]).map(|v| v.to_string()).collect::<Vec<_>>()).to_data();
            let data = ArrayData::builder(union_type.clone())
                .len(ids.len())
                .buffers(vec![Buffer::from_slice_ref(&ids), Buffer::from_slice_ref(&offsets)])
                .children(vec![a, b])
                .build()
                .unwrap();
            let schema = Arc::new(Schema::new(vec![Field::new("u", union_type, true)]));
            let batch = RecordBatch::try_new(schema.clone(), vec![make_array(data)]).unwrap();
            let mut writer = StreamWriter::try_new(Vec::new(), schema, WriteOptions::default()).unwrap();
            writer.write(&batch).unwrap();
            let mut bytes = writer.into_inner().unwrap();
            prop_assert!(read_stream(bytes.clone()).is_ok());
            // The batch's body: type ids (padded to 8 bytes), then the offsets; swap two.
            let mut decoder = crate::Decoder::new();
            decoder.push(&bytes);
            while decoder.next_message().unwrap().is_some() {}
            let info = decoder.last_message().unwrap().clone();
            let at = info.offset + info.prefix_bytes + info.metadata_bytes + ids.len().next_multiple_of(8);
            let slot = |k: usize| at + 4 * k..at + 4 * k + 4;
            let (x, y) = (bytes[slot(i)].to_vec(), bytes[slot(j)].to_vec());
            bytes[slot(i)].copy_from_slice(&y);
            bytes[slot(j)].copy_from_slice(&x);
            let err = read_stream(bytes).unwrap_err();
            // The first slot whose offset is below the last one of its child.
            let mut swapped = offsets.clone();
            swapped.swap(i, j);
            let mut last = [-1i32; 2];
            let first_bad = (0..ids.len())
                .find(|&k| std::mem::replace(&mut last[ids[k] as usize], swapped[k]) > swapped[k])
                .unwrap();
            prop_assert!(err.to_string().contains(&format!("at slot {first_bad} of Union(Dense")), "{}", err);
            prop_assert!(err.to_string().contains("is less than offset"), "{}", err);
        }
    }
}

/// Large bodies arriving through `room` (straight into their memory), through `push`, or
/// both in turns of any size, decode to the same batches; a stream cut inside such a body
/// is an error naming where.
#[test]
fn bodies_received_into_room_or_pushed_read_alike() {
    use crate::{Decoded, Decoder, StreamReader};
    use alkaid_array::Int64Array;
    use alkaid_schema::DataType;

    let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
    let mut writer =
        StreamWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
    for seed in 0..3i64 {
        // 5 MiB and 8 MiB bodies, past the size that gets memory of its own.
        let rows = [655_360, 1 << 20, 3][seed as usize];
        let values: Vec<i64> = (0..rows).map(|i| i * 31 + seed).collect();
        let column: ArrayRef = Arc::new(Int64Array::from(values));
        writer
            .write(&RecordBatch::try_new(schema.clone(), vec![column]).unwrap())
            .unwrap();
    }
    let stream = writer.into_inner().unwrap();
    let expected: Vec<RecordBatch> = StreamReader::try_new(&stream[..])
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    for (step, use_room) in [
        (1 << 16, true),
        (777_777, true),
        (4096, false),
        (12_345, true),
    ] {
        let (mut decoder, mut input, mut read, mut roomy) =
            (Decoder::new(), &stream[..], Vec::new(), false);
        loop {
            while let Some(message) = decoder.next_message().unwrap() {
                if let Decoded::Batch(batch, _) = message {
                    read.push(batch);
                }
            }
            if input.is_empty() {
                break;
            }
            let n = match decoder.room().filter(|_| use_room) {
                Some(room) => {
                    roomy = true;
                    let n = room.len().min(input.len()).min(step);
                    room[..n].copy_from_slice(&input[..n]);
                    decoder.filled(n);
                    n
                }
                None => {
                    let n = input.len().min(step);
                    decoder.push(&input[..n]);
                    n
                }
            };
            input = &input[n..];
        }
        decoder.finish().unwrap();
        assert_eq!(roomy, use_room, "step {step}");
        assert_eq!(read.len(), 3);
        for (a, b) in read.iter().zip(&expected) {
            let same = alkaid_data::equal(&a.column(0).to_data(), &b.column(0).to_data());
            assert!(same, "step {step}");
        }
    }
    // Cut inside the first large body, after some of it went into its room.
    let mut decoder = Decoder::new();
    decoder.push(&stream[..1000]);
    assert!(decoder.next_message().unwrap().is_some()); // the schema
    assert!(decoder.next_message().unwrap().is_none());
    let room = decoder.room().expect("a large body is arriving");
    room[..5000].copy_from_slice(&stream[1000..6000]);
    decoder.filled(5000);
    let err = decoder.finish().unwrap_err();
    assert!(err.to_string().contains("the stream ends"), "{err}");
}
