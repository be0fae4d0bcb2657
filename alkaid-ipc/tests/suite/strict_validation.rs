//! Reading at the strict level (`ReadOptions::with_strict_validation`): a batch is refused
//! exactly when `RecordBatch::validate(ValidationLevel::Strict)` refuses it, with the same
//! words, and read as usual otherwise.

use crate::batches;
use crate::common;
use crate::support;

use std::sync::Arc;

use alkaid_array::{ArrayRef, RecordBatch, Time32SecondArray};
use alkaid_buffer::Buffer;
use alkaid_data::{ValidationLevel, equal};
use alkaid_ipc::{
    BufferStreamReader, FileReader, FileWriter, IpcErrorKind, ReadOptions, WriteOptions,
};
use alkaid_schema::{DataType, Field, Schema, arbitrary};
use batches::random_batches;
use common::{Rng, dictionary_of_dictionary, generatable};
use proptest::prelude::*;
use support::stream;

fn strict() -> ReadOptions {
    ReadOptions::default().with_strict_validation(true)
}

#[test]
fn a_time_past_one_day_is_refused_only_when_strict() {
    let schema = Arc::new(Schema::new(vec![Field::new(
        "t",
        DataType::Time(alkaid_schema::TimeUnit::Second),
        true,
    )]));
    let column: ArrayRef = Arc::new(Time32SecondArray::from(vec![0, 90_000]));
    let batch = RecordBatch::try_new(schema.clone(), vec![column]).unwrap();
    let expected = batch
        .validate(ValidationLevel::Strict)
        .unwrap_err()
        .to_string();
    assert!(expected.contains("outside one day"), "{expected}");

    let bytes = stream(
        schema.clone(),
        std::slice::from_ref(&batch),
        WriteOptions::default(),
    );
    let read = |options| {
        BufferStreamReader::with_options(Buffer::from_slice_ref(&bytes), options)
            .unwrap()
            .next()
            .unwrap()
    };
    assert!(read(ReadOptions::default()).is_ok());
    let error = read(strict()).unwrap_err();
    assert_eq!(error.kind(), IpcErrorKind::InvalidData);
    assert_eq!(error.to_string(), expected);

    // A file's reader too.
    let mut writer = FileWriter::try_new(Vec::new(), schema, WriteOptions::default()).unwrap();
    writer.write(&batch).unwrap();
    let file = Buffer::from(writer.into_inner().unwrap());
    assert!(
        FileReader::open(file.clone(), ReadOptions::default())
            .unwrap()
            .batch(0)
            .is_ok()
    );
    let error = FileReader::open(file, strict())
        .unwrap()
        .batch(0)
        .unwrap_err();
    assert!(error.to_string().contains(&expected), "{error}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Random batches (nested up to three deep; random bytes make times past a day,
    /// decimals past their precision, nulls under non-nullable children): the strict
    /// reader gives each batch that strict validation accepts, equal to the usual read,
    /// and stops at the first it refuses with the same message.
    #[test]
    fn the_strict_reader_refuses_what_strict_validation_refuses(
        types in prop::collection::vec(arbitrary::data_type_with_depth(3), 1..5),
        seed in any::<u64>(),
        lens in prop::collection::vec(0usize..12, 1..4),
    ) {
        prop_assume!(types.iter().all(|t| generatable(t) && !dictionary_of_dictionary(t)));
        let mut rng = Rng::new(seed);
        let (schema, batches) = random_batches(&types, &lens, &mut rng);
        let bytes = stream(schema, &batches, WriteOptions::default());
        let read: Vec<RecordBatch> =
            BufferStreamReader::with_options(Buffer::from_slice_ref(&bytes), ReadOptions::default())
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
        let mut strict_read = BufferStreamReader::with_options(Buffer::from_slice_ref(&bytes), strict()).unwrap();
        for batch in &read {
            let got = strict_read.next().unwrap();
            match batch.validate(ValidationLevel::Strict) {
                Ok(()) => {
                    let got = got.unwrap();
                    for (a, b) in got.columns().iter().zip(batch.columns()) {
                        prop_assert!(equal(&a.to_data(), &b.to_data()));
                    }
                }
                Err(e) => {
                    prop_assert_eq!(got.unwrap_err().to_string(), e.to_string());
                    break;
                }
            }
        }
    }
}
