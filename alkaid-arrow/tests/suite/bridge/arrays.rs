//! Arrays and batches through the bridge: values equal on both sides, the same memory
//! under both, arrow-rs's validation satisfied.

use std::sync::Arc;

use alkaid_array::{Array, ArrayRef, RecordBatch};
use alkaid_data::{ArrayData, ValidationLevel, equal};
use alkaid_schema::{DataType, Field, Schema, arbitrary};
use proptest::prelude::*;

use super::bridge::{
    array_from_arrow, array_to_arrow, batch_from_arrow, batch_to_arrow, data_from_arrow,
    data_from_arrow_with, data_to_arrow,
};
use super::common::decode::decode;
use super::common::encode::encode;
use super::common::{Rng, Value, dictionary_of_dictionary, generatable, value};
use super::{arrow_array, arrow_buffer, arrow_data, arrow_schema};

/// Every non-empty buffer and validity bitmap of `b` lies inside its counterpart in `a`, at
/// every depth: nothing was copied. (Inside, not at: arrow-rs's typed arrays fold a
/// child's offset into the buffer's start when they give their data back.)
fn same_memory(a: &ArrayData, b: &ArrayData, path: &str) -> Result<(), String> {
    let inside = |x: &alkaid_buffer::Buffer, y: &alkaid_buffer::Buffer| {
        let (start, end) = (x.as_ptr() as usize, x.as_ptr() as usize + x.len());
        let (from, to) = (y.as_ptr() as usize, y.as_ptr() as usize + y.len());
        y.is_empty() || (start <= from && to <= end)
    };
    let (ours, theirs) = (a.buffers(), b.buffers());
    if ours.len() != theirs.len() || !ours.iter().zip(theirs).all(|(x, y)| inside(x, y)) {
        return Err(format!("{path}: buffers copied"));
    }
    if let (Some(x), Some(y)) = (a.nulls(), b.nulls())
        && !inside(x.validity().inner(), y.validity().inner())
    {
        return Err(format!("{path}: validity copied"));
    }
    if let (Some(x), Some(y)) = (a.dictionary(), b.dictionary()) {
        same_memory(x, y, &format!("{path}.dictionary"))?;
    }
    for (i, (x, y)) in a.children().iter().zip(b.children()).enumerate() {
        same_memory(x, y, &format!("{path}.{i}"))?;
    }
    Ok(())
}

/// arrow-rs's full validation of what the bridge handed it. Two rules of arrow-rs's are
/// stricter than Alkaid's. First, it refuses nulls anywhere in a non-nullable child of a map,
/// list or struct, even in slots no valid parent slot reaches (the random encoder leaves
/// such slots), where the format and Alkaid only count the slots that are reached.
fn arrow_rs_accepts(theirs: &arrow_data::ArrayData) -> Result<(), String> {
    match theirs.validate_full() {
        Ok(()) => Ok(()),
        Err(e) if e.to_string().contains("non-nullable child") => Ok(()),
        // And a map's entries field must be non-nullable in arrow-rs; the format says so
        // too, but Alkaid (like Arrow C++) reads nullable ones and flags them only at its
        // strict level, and the bridge keeps the type as it is.
        Err(e) if e.to_string().contains("map entries field") => Ok(()),
        Err(e) => Err(format!("arrow-rs refuses what Alkaid accepts: {e}")),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn arrays_cross_both_ways_sharing_memory(
        data_type in arbitrary::data_type_with_depth(3),
        seed in any::<u64>(),
        len in 0usize..12,
    ) {
        prop_assume!(generatable(&data_type));
        let mut rng = Rng::new(seed);
        let values: Vec<Value> = (0..len).map(|_| value(&data_type, &mut rng, 0.3)).collect();
        let ours = encode(&data_type, &values, &mut rng);

        let theirs = data_to_arrow(&ours);
        prop_assert_eq!(theirs.len(), len);
        arrow_rs_accepts(&theirs).map_err(TestCaseError::fail)?;
        // arrow-rs's typed arrays take it (their constructors assert on what they rely on).
        let typed = arrow_array::make_array(theirs.clone());
        // arrow-rs counts a `Null` array's slots as logical nulls only.
        let physical_nulls = if data_type == DataType::Null { 0 } else { ours.null_count() };
        prop_assert_eq!(typed.null_count(), physical_nulls);

        let back = data_from_arrow(&theirs).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(decode(&back), values);
        same_memory(&ours, &back, "a").map_err(TestCaseError::fail)?;
        // A dictionary's `ordered` flag has no place in an arrow-rs type (it rides on the
        // field: see the batch test), so only unordered types come back identical.
        if back.data_type() == ours.data_type() {
            prop_assert!(equal(&back, &ours));
        }
        // Full validation of the way back finds nothing either.
        back.validate(ValidationLevel::Full).map_err(|e| TestCaseError::fail(e.to_string()))?;
    }

    #[test]
    fn batches_cross_both_ways_with_their_fields(
        data_type in arbitrary::data_type_with_depth(3),
        seed in any::<u64>(),
        len in 0usize..10,
    ) {
        prop_assume!(generatable(&data_type) && !dictionary_of_dictionary(&data_type));
        let mut rng = Rng::new(seed);
        let values: Vec<Value> = (0..len).map(|_| value(&data_type, &mut rng, 0.3)).collect();
        let column = alkaid_array::make_array(encode(&data_type, &values, &mut rng));
        let schema = Arc::new(
            Schema::new(vec![Field::new("c", data_type.clone(), true), Field::new("n", DataType::Int32, false)])
                .with_metadata([("k", "v")].into_iter().collect()),
        );
        let numbers: ArrayRef = Arc::new(alkaid_array::Int32Array::from((0..len as i32).collect::<Vec<_>>()));
        let ours = RecordBatch::try_new(schema.clone(), vec![column, numbers])
            .map_err(|e| TestCaseError::fail(e.to_string()))?;

        let theirs = batch_to_arrow(&ours);
        prop_assert_eq!(theirs.num_rows(), len);
        prop_assert_eq!(theirs.schema_ref().metadata().get("k").map(String::as_str), Some("v"));
        let back = batch_from_arrow(&theirs).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(back.schema().as_ref(), schema.as_ref());
        for (a, b) in ours.columns().iter().zip(back.columns()) {
            prop_assert!(equal(&a.to_data(), &b.to_data()));
            same_memory(&a.to_data(), &b.to_data(), "column").map_err(TestCaseError::fail)?;
        }
    }
}

#[test]
fn arrow_rs_arrays_read_as_built_and_come_back_equal() {
    use arrow_array::builder::{ListBuilder, StringBuilder, StringDictionaryBuilder};
    use arrow_array::types::{Int16Type, Int32Type};
    use arrow_array::{
        Array as _, ArrayRef as TheirRef, Int64Array, RunArray, StringViewArray, StructArray,
        UnionArray,
    };

    let mut lists = ListBuilder::new(StringBuilder::new());
    lists.append_value([Some("a"), None]);
    lists.append_null();
    lists.append_value([Some("bcd")]);
    let lists = lists.finish();

    let mut dictionary = StringDictionaryBuilder::<Int16Type>::new();
    dictionary.append_value("x");
    dictionary.append_null();
    dictionary.append_value("x");
    let dictionary = dictionary.finish();

    let views = StringViewArray::from(vec![
        Some("short"),
        None,
        Some("a string longer than twelve"),
    ]);
    let runs = RunArray::<Int32Type>::try_new(
        &arrow_array::Int32Array::from(vec![2, 3]),
        &Int64Array::from(vec![Some(7), None]),
    )
    .unwrap();
    let union = UnionArray::try_new(
        [
            (
                0,
                Arc::new(arrow_schema::Field::new(
                    "i",
                    arrow_schema::DataType::Int64,
                    true,
                )),
            ),
            (
                5,
                Arc::new(arrow_schema::Field::new(
                    "s",
                    arrow_schema::DataType::Utf8View,
                    true,
                )),
            ),
        ]
        .into_iter()
        .collect(),
        vec![0i8, 5, 0].into(),
        None,
        vec![
            Arc::new(Int64Array::from(vec![1, 2, 3])) as TheirRef,
            Arc::new(views.clone()),
        ],
    )
    .unwrap();
    let structs = StructArray::from(vec![
        (
            Arc::new(arrow_schema::Field::new(
                "l",
                lists.data_type().clone(),
                true,
            )),
            Arc::new(lists) as TheirRef,
        ),
        (
            Arc::new(arrow_schema::Field::new(
                "d",
                dictionary.data_type().clone(),
                true,
            )),
            Arc::new(dictionary),
        ),
        (
            Arc::new(arrow_schema::Field::new(
                "r",
                runs.data_type().clone(),
                true,
            )),
            Arc::new(runs),
        ),
        (
            Arc::new(arrow_schema::Field::new(
                "u",
                union.data_type().clone(),
                true,
            )),
            Arc::new(union),
        ),
    ]);
    // Sliced at a non-zero offset, at the top.
    let theirs = structs.slice(1, 2);
    let ours = array_from_arrow(&theirs).unwrap();
    assert_eq!(ours.len(), 2);
    let expected = concat!(
        "Struct(l: List(item: Utf8), d: Dictionary(Int16, Utf8), ",
        "r: RunEndEncoded(run_ends: Int32 not null, values: Int64), ",
        "u: Union(Sparse, 0 => i: Int64, 5 => s: Utf8View))"
    );
    assert_eq!(ours.data_type().to_string(), expected);
    let text: String = (0..ours.len())
        .map(|i| alkaid_array::display::format_value(ours.as_ref(), i))
        .collect();
    assert_eq!(
        text,
        "{l: null, d: null, r: 7, u: {s=null}}{l: [bcd], d: x, r: null, u: {i=3}}"
    );

    let again = array_to_arrow(ours.as_ref());
    again.to_data().validate_full().unwrap();
    assert_eq!(again.as_ref(), &theirs as &dyn arrow_array::Array);
}

#[test]
fn an_empty_array_without_offsets_gets_one_zero_offset_for_arrow_rs() {
    let ours = ArrayData::builder(DataType::Utf8)
        .len(0)
        .buffers(vec![
            alkaid_buffer::Buffer::empty(),
            alkaid_buffer::Buffer::empty(),
        ])
        .build()
        .unwrap();
    let theirs = data_to_arrow(&ours);
    theirs.validate_full().unwrap();
    assert_eq!(theirs.buffers()[0].len(), 8);
    let strings = arrow_array::StringArray::from(theirs);
    assert!(arrow_array::Array::is_empty(&strings));
    // Sliced to nothing at a non-zero offset: arrow-rs sees offset 0.
    let tail = alkaid_array::StringArray::from(vec!["ab", "c"])
        .to_data()
        .slice(2, 0);
    let theirs = data_to_arrow(&tail);
    assert_eq!((theirs.offset(), theirs.len()), (0, 0));
    theirs.validate_full().unwrap();
}

#[test]
fn misaligned_views_are_copied_for_arrow_rs_and_nothing_else_is() {
    // Views 4 bytes past a 16-byte boundary: the format allows it, arrow-rs does not.
    let mut owner = vec![0u8; 16 + 4 + 32];
    let at = owner.as_ptr().align_offset(16) + 4;
    for (i, s) in ["ab", "cde"].iter().enumerate() {
        let view = &mut owner[at + 16 * i..at + 16 * (i + 1)];
        view[..4].copy_from_slice(&(s.len() as u32).to_le_bytes());
        view[4..4 + s.len()].copy_from_slice(s.as_bytes());
    }
    // A `Vec` becomes a buffer where it lies.
    let views = alkaid_buffer::Buffer::from(owner).slice(at, 32);
    assert_eq!(views.as_ptr() as usize % 16, 4);
    let ours = ArrayData::builder(DataType::Utf8View)
        .len(2)
        .buffers(vec![views.clone()])
        .build()
        .unwrap();
    let theirs = data_to_arrow(&ours);
    let moved = theirs.buffers()[0].as_ptr() as usize;
    assert_ne!(moved, views.as_ptr() as usize);
    assert!(moved.is_multiple_of(16));
    let strings = arrow_array::StringViewArray::from(theirs);
    assert_eq!(strings.value(0), "ab");
    assert_eq!(strings.value(1), "cde");
    // An aligned buffer is shared.
    let ints = alkaid_array::Int64Array::from(vec![1, 2, 3]).to_data();
    assert_eq!(
        data_to_arrow(&ints).buffers()[0].as_ptr(),
        ints.buffers()[0].as_ptr()
    );
}

#[test]
fn arrow_rs_arrays_built_unchecked_are_caught_by_the_validation_asked_for() {
    // Offsets past the end of the data: only arrow-rs's unsafe constructors make this.
    let offsets = arrow_buffer::Buffer::from_vec(vec![0i32, 2, 9]);
    let data = arrow_buffer::Buffer::from_vec(b"abc".to_vec());
    let builder = arrow_data::ArrayDataBuilder::new(arrow_schema::DataType::Utf8)
        .len(2)
        .buffers(vec![offsets, data]);
    // SAFETY: deliberately invalid values; the test reads them only through Alkaid's full
    // validation, which must refuse them, and never through arrow-rs.
    let bad = unsafe { builder.build_unchecked() };
    let error = data_from_arrow_with(&bad, ValidationLevel::Full)
        .unwrap_err()
        .to_string();
    assert!(error.contains("past the end of the data"), "{error}");

    // Too few buffers is structural: caught by default.
    let builder = arrow_data::ArrayDataBuilder::new(arrow_schema::DataType::Utf8)
        .len(0)
        .buffers(vec![arrow_buffer::Buffer::from_vec(vec![0i32])]);
    // SAFETY: as above, read only by Alkaid's structural check.
    let short = unsafe { builder.build_unchecked() };
    let error = data_from_arrow(&short).unwrap_err().to_string();
    assert!(error.contains("buffer"), "{error}");
}

#[test]
fn a_batch_column_that_is_not_its_fields_type_is_an_error() {
    let column: arrow_array::ArrayRef = Arc::new(arrow_array::Int32Array::from(vec![1]));
    let schema = Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
        "x",
        arrow_schema::DataType::Int64,
        false,
    )]));
    // SAFETY: deliberately mismatched; the batch is read only by the bridge, which must
    // refuse it, never by arrow-rs.
    let batch = unsafe { arrow_array::RecordBatch::new_unchecked(schema, vec![column], 1) };
    let error = batch_from_arrow(&batch).unwrap_err().to_string();
    assert!(
        error.contains("Int64") && error.contains("Int32"),
        "{error}"
    );
}
