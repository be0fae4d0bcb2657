//! Arrays through the C data interface between Alkaid and arrow-rs in one process, both
//! ways: random arrays of every type arrow-rs takes, nested three deep, sliced, with nulls.

use crate::common;

use alkaid_data::ffi::{ArrowArray, import_array_with};
use alkaid_data::{ArrayData, ValidationLevel, equal};
use alkaid_schema::ffi::{ArrowSchema, import_field};
use alkaid_schema::{DataType, Field, arbitrary};
use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema, from_ffi, to_ffi};
use arrow_array_60 as arrow_array;
use arrow_data_60 as arrow_data;
use arrow_schema_60 as arrow_schema;
use common::decode::decode;
use common::encode::encode;
use common::{Rng, Value, generatable, value};
use proptest::prelude::*;

/// Alkaid's export of `data`, imported by arrow-rs.
fn to_arrow(data: &ArrayData) -> Result<arrow_data::ArrayData, String> {
    let field = Field::new("a", data.data_type().clone(), true);
    let schema = ArrowSchema::try_export(&field).map_err(|e| e.to_string())?;
    let array = ArrowArray::export(data);
    // SAFETY: both pairs are the C structs, laid out the same (`repr(C)`, same fields);
    // each moves into arrow-rs's type, whose drop calls our release once.
    let (their_schema, their_array): (FFI_ArrowSchema, FFI_ArrowArray) = unsafe {
        (
            std::ptr::read((&raw const schema).cast()),
            std::ptr::read((&raw const array).cast()),
        )
    };
    std::mem::forget(schema);
    std::mem::forget(array);
    // SAFETY: a valid array and schema from Alkaid's exports.
    let theirs = unsafe { from_ffi(their_array, &their_schema) }.map_err(|e| e.to_string())?;
    // Values are compared after the way back; arrow-rs's own full validation is not run:
    // it refuses nulls in unreferenced child slots of a non-nullable child, which the
    // format allows and the random encoder makes.
    Ok(theirs)
}

/// arrow-rs's export of `data`, imported by Alkaid (fully validated).
fn from_arrow(data: &arrow_data::ArrayData) -> ArrayData {
    let (mut array, mut schema) = to_ffi(data).expect("arrow-rs exports its array");
    // SAFETY: a valid schema arrow-rs exported; the import releases it.
    let field = unsafe { import_field((&raw mut schema).cast()) }.expect("Alkaid reads the schema");
    // SAFETY: a valid array of that type arrow-rs exported; the import moves it out and
    // releases it when the last buffer goes.
    unsafe {
        import_array_with(
            (&raw mut array).cast(),
            field.data_type(),
            ValidationLevel::Full,
        )
    }
    .expect("Alkaid imports arrow-rs's array")
}

/// Whether arrow-rs 60 takes the type through the C data interface unchanged: it declines
/// unions without children, and keeps a dictionary's `ordered` flag on fields, which its
/// `to_ffi` of an array does not see (so it comes back unordered).
fn arrow_takes(data_type: &DataType) -> bool {
    let here = match data_type {
        DataType::Union(union) => !union.fields().is_empty(),
        DataType::Dictionary { value, ordered, .. } => !ordered && arrow_takes(value),
        // An empty time zone travels as none (the format spells both "ts<unit>:").
        DataType::Timestamp(_, Some(zone)) => !zone.is_empty(),
        _ => true,
    };
    here && data_type
        .children()
        .iter()
        .all(|f| arrow_takes(f.data_type()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arrays_cross_to_arrow_rs_and_back(
        data_type in arbitrary::data_type_with_depth(3),
        seed in any::<u64>(),
        len in 0usize..12,
    ) {
        prop_assume!(generatable(&data_type) && arrow_takes(&data_type));
        let mut rng = Rng::new(seed);
        let values: Vec<Value> = (0..len).map(|_| value(&data_type, &mut rng, 0.3)).collect();
        let ours = encode(&data_type, &values, &mut rng);
        let theirs = to_arrow(&ours).map_err(|e| TestCaseError::fail(format!("{data_type}: {e}")))?;
        prop_assert_eq!(theirs.len(), len);
        let back = from_arrow(&theirs);
        prop_assert_eq!(decode(&back), values);
        prop_assert!(equal(&back, &ours));
    }
}

#[test]
fn arrow_rs_values_read_as_written() {
    use arrow_array::{Array, Int32Array, StringArray, StructArray};
    use std::sync::Arc;
    let strings = StringArray::from(vec![Some("a"), None, Some("ccc")]);
    let ints = Int32Array::from(vec![Some(1), Some(2), None]);
    let structs = StructArray::from(vec![
        (
            Arc::new(arrow_schema::Field::new(
                "s",
                arrow_schema::DataType::Utf8,
                true,
            )),
            Arc::new(strings) as arrow_array::ArrayRef,
        ),
        (
            Arc::new(arrow_schema::Field::new(
                "i",
                arrow_schema::DataType::Int32,
                true,
            )),
            Arc::new(ints) as arrow_array::ArrayRef,
        ),
    ]);
    let sliced = structs.slice(1, 2).to_data();
    let ours = from_arrow(&sliced);
    assert_eq!(
        ours.data_type(),
        &"Struct(s: Utf8, i: Int32)".parse().unwrap()
    );
    let expected = [
        Value::Struct(vec![Value::Null, Value::Bytes(2i32.to_le_bytes().to_vec())]),
        Value::Struct(vec![Value::Bytes(b"ccc".to_vec()), Value::Null]),
    ];
    assert_eq!(decode(&ours), expected);
    // And back: arrow-rs sees the same slice.
    let again = to_arrow(&ours).unwrap();
    assert_eq!(
        arrow_array::make_array(again).as_ref(),
        &structs.slice(1, 2) as &dyn Array
    );
}

#[test]
fn streams_cross_to_arrow_rs_and_back() {
    use alkaid_array::ffi_stream::{ArrowArrayStream, StreamReader};
    use alkaid_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
    use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
    use std::sync::Arc;

    let schema = Arc::new(
        alkaid_schema::Schema::new(vec![
            Field::new("n", DataType::Int32, false),
            Field::new("s", DataType::Utf8, true),
        ])
        .with_metadata(
            [("origin".to_string(), "alkaid".to_string())]
                .into_iter()
                .collect(),
        ),
    );
    let batch = |start: i32| {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(vec![start, start + 1])),
            Arc::new(StringArray::from(vec![Some("x"), None])),
        ];
        RecordBatch::try_new(schema.clone(), columns).unwrap()
    };
    let batches = vec![
        Ok(batch(0)),
        Ok(batch(2)),
        Err("the source broke".to_string()),
    ];
    // Alkaid's stream, read by arrow-rs: two batches, then the producer's message.
    let ours = ArrowArrayStream::export(schema.clone(), batches);
    // SAFETY: the same C struct on both sides; arrow-rs's reader takes it over.
    let theirs: FFI_ArrowArrayStream = unsafe { std::ptr::read((&raw const ours).cast()) };
    std::mem::forget(ours);
    let mut reader = RecordBatchStreamReader::try_new(theirs).unwrap();
    assert_eq!(
        arrow_array::RecordBatchReader::schema(&reader).metadata()["origin"],
        "alkaid"
    );
    let first = reader.next().unwrap().unwrap();
    assert_eq!(first.num_rows(), 2);
    assert!(reader.next().unwrap().is_ok());
    let error = reader.next().unwrap().unwrap_err().to_string();
    assert!(error.contains("the source broke"), "{error}");
    drop(reader);

    // arrow-rs's stream, read by Alkaid.
    let their_batches: Vec<_> = (0..3)
        .map(|i| {
            let columns: Vec<arrow_array::ArrayRef> =
                vec![Arc::new(arrow_array::Int64Array::from(vec![i, i * 10]))];
            arrow_array::RecordBatch::try_from_iter([("v", columns[0].clone())]).unwrap()
        })
        .collect();
    let their_schema = their_batches[0].schema();
    let source =
        arrow_array::RecordBatchIterator::new(their_batches.into_iter().map(Ok), their_schema);
    let mut stream = FFI_ArrowArrayStream::new(Box::new(source));
    // SAFETY: a valid stream arrow-rs exported; the reader takes it over.
    let reader = unsafe { StreamReader::try_new((&raw mut stream).cast()) }.unwrap();
    assert_eq!(
        reader.schema().field(0).unwrap().data_type(),
        &DataType::Int64
    );
    let totals: Vec<usize> = reader.map(|b| b.unwrap().num_rows()).collect();
    assert_eq!(totals, [2, 2, 2]);
}
