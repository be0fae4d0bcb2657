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
fn streams_declare_the_features_they_may_use() {
    let words = dictionary_batch(&["a"]);
    let plain = plain_batch();
    assert_eq!(written_features(&plain, WriteOptions::default()), vec![]);
    assert_eq!(
        written_features(&words, WriteOptions::default()),
        vec![fb::Feature::DICTIONARY_REPLACEMENT]
    );
    assert_eq!(
        written_features(
            &plain,
            WriteOptions::default().with_compression(Compression::ZSTD)
        ),
        vec![fb::Feature::COMPRESSED_BODY]
    );
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
        inner: b"ALKAID1\0".to_vec(),
        position: 8,
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
            "dictionary block 1 replaces dictionary id 0, which the file already defines"
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
