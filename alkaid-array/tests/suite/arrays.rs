//! Typed arrays, built three ways (builder, `from`, `ArrayData`), at offset zero and not,
//! empty and all-null; builders against random `Vec<Option<T>>`; record batch checks.

use std::sync::Arc;

use alkaid_array::*;
use alkaid_buffer::native::{IntervalMonthDayNano, i256};
use alkaid_buffer::{Buffer, NullBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, Field, Schema, TimeUnit, UnionMode, UnionType};
use proptest::prelude::*;

/// Converts through ArrayData and `make_array`, and checks the round trip and a slice.
fn round_trip(array: &dyn Array) {
    let data = array.to_data();
    assert!(data.validate(alkaid_data::ValidationLevel::Full).is_ok());
    let back = make_array(data.clone());
    assert!(alkaid_data::equal(&back.to_data(), &data));
    assert_eq!(back.data_type(), array.data_type());
    if array.len() >= 2 {
        let slice = back.slice(1, array.len() - 1);
        assert!(alkaid_data::equal(
            &slice.to_data(),
            &data.slice(1, array.len() - 1)
        ));
        assert_eq!(
            slice.null_count(),
            (1..array.len()).filter(|&i| array.is_null(i)).count()
        );
    }
}

#[test]
fn primitive_arrays_of_every_fixed_width_type() {
    round_trip(&Int8Array::from(vec![Some(-1), None, Some(127)]));
    round_trip(&UInt64Array::from(vec![u64::MAX, 0]));
    round_trip(&Float16Array::from(vec![half::f16::from_f32(1.5)]));
    round_trip(&Float64Array::from(vec![Some(f64::NAN), None]));
    round_trip(&Date64Array::from(vec![86_400_000]));
    round_trip(&Time32MillisecondArray::from(vec![Some(1), None]));
    round_trip(&Time64NanosecondArray::from(vec![5]));
    round_trip(&DurationMicrosecondArray::from(vec![-5, 5]));
    round_trip(&IntervalYearMonthArray::from(vec![12]));
    round_trip(&IntervalMonthDayNanoArray::from(vec![
        Some(IntervalMonthDayNano::new(1, 2, 3)),
        None,
    ]));
    round_trip(&Decimal32Array::from(vec![12345]));
    round_trip(&Decimal128Array::from(vec![Some(i128::MAX), None]));
    round_trip(&Decimal256Array::from(vec![i256::MIN, i256::MAX]));
    let tz = DataType::Timestamp(TimeUnit::Millisecond, Some("Europe/Paris".into()));
    let stamps = TimestampMillisecondArray::from(vec![0, 1])
        .with_data_type(tz.clone())
        .unwrap();
    assert_eq!(stamps.data_type(), &tz);
    round_trip(&stamps);
    let decimal = DataType::decimal(128, 10, 2).unwrap();
    assert!(
        Decimal128Array::from(vec![1])
            .with_data_type(decimal)
            .is_ok()
    );
    let wrong = Int32Array::from(vec![1]).with_data_type(DataType::Date32);
    assert_eq!(
        wrong.unwrap_err().to_string(),
        "expected Int32Type data, found Date32"
    );
}

#[test]
fn primitive_from_array_data_at_an_offset() {
    let data = ArrayData::builder(DataType::Int32)
        .len(3)
        .offset(2)
        .nulls(Some(NullBuffer::from(vec![true, false, true])))
        .buffers(vec![Buffer::from_slice_ref(&[9i32, 9, 1, 2, 3])])
        .build()
        .unwrap();
    let array = Int32Array::try_from(data).unwrap();
    assert_eq!(array.iter().collect::<Vec<_>>(), [Some(1), None, Some(3)]);
    assert_eq!(array.value(2), 3);
    // SAFETY: 2 < len 3.
    assert_eq!(unsafe { array.value_unchecked(2) }, 3);
    assert!(Int64Array::try_from(array.to_data()).is_err());
}

#[test]
fn empty_and_all_null_arrays() {
    let empty = Int32Array::from(Vec::<i32>::new());
    assert!(empty.is_empty());
    round_trip(&empty);
    let nulls = Float32Array::new_null(4);
    assert_eq!(nulls.null_count(), 4);
    round_trip(&nulls);
    let no_strings = StringArray::from(Vec::<&str>::new());
    assert_eq!(no_strings.len(), 0);
    round_trip(&no_strings);
    let null_strings = LargeStringArray::from(vec![None::<&str>, None]);
    assert_eq!(null_strings.null_count(), 2);
    round_trip(&null_strings);
    round_trip(&NullArray::new(3));
    round_trip(&BooleanArray::from(vec![None, None]));
}

#[test]
fn byte_arrays_three_ways() {
    let built = {
        let mut builder = StringArray::builder(3, 8);
        builder.append_value("a");
        builder.append_null();
        builder.append_value("ünï");
        builder.finish()
    };
    let from = StringArray::from(vec![Some("a"), None, Some("ünï")]);
    assert_eq!(built, from);
    let data = ArrayData::builder(DataType::Utf8)
        .len(3)
        .offset(1)
        .nulls(Some(NullBuffer::from(vec![true, false, true])))
        .buffers(vec![
            Buffer::from_slice_ref(&[0i32, 3, 4, 4, 9]),
            Buffer::from(&b"xyza\xc3\xbcn\xc3\xaf"[..]),
        ])
        .build()
        .unwrap();
    let from_data = StringArray::try_from(data).unwrap();
    assert_eq!(from_data, from);
    round_trip(&from_data);
    let binary = LargeBinaryArray::from(vec![&b"\xff\x00"[..], b""]);
    assert_eq!(binary.value(0), b"\xff\x00");
    round_trip(&binary);
    let owned = BinaryArray::from(vec![Some(vec![1u8, 2]), None]);
    assert_eq!(
        owned.iter().collect::<Vec<_>>(),
        [Some(&[1u8, 2][..]), None]
    );
    // Invalid parts are an error, not a panic.
    let bad = StringArray::try_new(
        alkaid_buffer::OffsetBuffer::from_lengths([2]),
        Buffer::from(vec![0xffu8, 0xfe]),
        None,
    );
    assert!(bad.unwrap_err().to_string().contains("invalid UTF-8"));
}

#[test]
fn boolean_arrays_three_ways() {
    let mut builder = BooleanArray::builder(4);
    builder.append_value(true);
    builder.append_null();
    builder.append_n(2, false);
    let built = builder.finish();
    let from = BooleanArray::from(vec![Some(true), None, Some(false), Some(false)]);
    assert_eq!(built, from);
    assert_eq!(built.true_count(), 1);
    let data = ArrayData::builder(DataType::Boolean)
        .len(4)
        .offset(3)
        .nulls(Some(NullBuffer::from(vec![true, false, true, true])))
        .buffers(vec![Buffer::from_slice_ref(&[0b0000_1000u8])])
        .build()
        .unwrap();
    assert_eq!(BooleanArray::try_from(data).unwrap(), from);
    round_trip(&from);
}

#[test]
fn array_data_is_an_array_too() {
    let data = Int32Array::from(vec![Some(1), None]).to_data();
    let array: ArrayRef = Arc::new(data.clone());
    assert_eq!((array.len(), array.null_count()), (2, 1));
    assert!(array.as_any().downcast_ref::<ArrayData>().is_some());
    assert!(
        make_array(data)
            .as_any()
            .downcast_ref::<Int32Array>()
            .is_some()
    );
    round_trip(array.as_ref());
}

#[test]
fn maps_list_views_and_unions_three_ways() {
    // Maps: built, checked for null keys, read back.
    let mut builder = MapBuilder::new(StringArray::builder(0, 0), Int64Array::builder(0));
    builder.keys().append_value("a");
    builder.values().append_value(1);
    builder.keys().append_value("b");
    builder.values().append_null();
    builder.append(true).unwrap();
    builder.append(false).unwrap();
    let maps = builder.finish().unwrap();
    assert_eq!(maps.value(0).len(), 2);
    assert_eq!(maps.keys().as_string::<i32>().value(1), "b");
    round_trip(&maps);
    round_trip(&MapArray::try_from(maps.to_data().slice(1, 1)).unwrap());
    let mut null_key = MapBuilder::new(StringArray::builder(0, 0), Int64Array::builder(0));
    null_key.keys().append_null();
    null_key.values().append_value(1);
    null_key.append(true).unwrap();
    assert!(null_key.finish().is_err(), "a null key is an error");
    let mut uneven = MapBuilder::new(StringArray::builder(0, 0), Int64Array::builder(0));
    uneven.keys().append_value("k");
    assert!(uneven.append(true).is_err());

    // List views: built in order, and overlapping out of order from parts.
    let mut views = GenericListViewBuilder::<i64, _>::new(Int32Array::builder(0));
    views.values().append_slice(&[1, 2]);
    views.append(true);
    views.append(false);
    views.values().append_value(3);
    views.append(true);
    let views = views.finish().unwrap();
    assert_eq!(
        views.value(2).as_primitive::<types::Int32Type>().value(0),
        3
    );
    round_trip(&views);
    let field = Arc::new(Field::new("item", DataType::Int32, true));
    let overlapping = ListViewArray::try_new(
        field.clone(),
        vec![1, 0].into(),
        vec![2, 3].into(),
        Arc::new(Int32Array::from(vec![1, 2, 3])),
        None,
    )
    .unwrap();
    round_trip(&overlapping.slice_typed(1, 1));
    let outside = ListViewArray::try_new(
        field,
        vec![2].into(),
        vec![2].into(),
        Arc::new(Int32Array::from(vec![1, 2, 3])),
        None,
    );
    assert!(outside.is_err());

    // Unions, sparse and dense, built and from parts.
    for mode in [UnionMode::Sparse, UnionMode::Dense] {
        let union_type = UnionType::try_new(
            vec![
                Field::new("i", DataType::Int32, true),
                Field::new("s", DataType::Utf8, true),
            ],
            [5, 2],
            mode,
        )
        .unwrap();
        let mut builder = UnionBuilder::new(
            union_type.clone(),
            vec![
                Box::new(Int32Array::builder(0)),
                Box::new(StringArray::builder(0, 0)),
            ],
        )
        .unwrap();
        builder
            .child::<PrimitiveBuilder<types::Int32Type>>(5)
            .unwrap()
            .append_value(1);
        builder.append(5).unwrap();
        builder
            .child::<GenericByteBuilder<GenericStringType<i32>>>(2)
            .unwrap()
            .append_value("two");
        builder.append(2).unwrap();
        builder
            .child::<PrimitiveBuilder<types::Int32Type>>(5)
            .unwrap()
            .append_null();
        builder.append(5).unwrap();
        assert!(builder.append(7).is_err(), "undeclared type id");
        assert!(builder.append(2).is_err(), "no new value for the child");
        let union = builder.finish().unwrap();
        assert_eq!(union.len(), 3);
        assert_eq!(union.value(1).as_string::<i32>().value(0), "two");
        assert!(union.value(2).is_null(0));
        round_trip(&union);
        round_trip(&union.slice_typed(1, 2));
        let from_data = UnionArray::try_from(union.to_data().slice(1, 2)).unwrap();
        assert_eq!(from_data.type_id(0), 2);
    }
}

#[test]
fn lists_of_structs_of_strings_from_nested_builders() {
    let fields: alkaid_schema::Fields = vec![
        Field::new("name", DataType::Utf8, true),
        Field::new("n", DataType::Int32, true),
    ]
    .into();
    let structs = StructBuilder::new(
        fields.clone(),
        vec![
            Box::new(StringArray::builder(0, 0)),
            Box::new(Int32Array::builder(0)),
        ],
    );
    let mut lists = GenericListBuilder::<i32, _>::new(structs);
    // [{a, 1}, null], null, [], [{null, 3}]
    {
        let s = lists.values();
        s.field_builder::<GenericByteBuilder<GenericStringType<i32>>>(0)
            .unwrap()
            .append_value("a");
        s.field_builder::<PrimitiveBuilder<types::Int32Type>>(1)
            .unwrap()
            .append_value(1);
        s.append(true);
        s.append(false);
    }
    lists.append(true);
    lists.append(false);
    lists.append(true);
    {
        let s = lists.values();
        s.field_builder::<GenericByteBuilder<GenericStringType<i32>>>(0)
            .unwrap()
            .append_null();
        s.field_builder::<PrimitiveBuilder<types::Int32Type>>(1)
            .unwrap()
            .append_value(3);
        s.append(true);
    }
    lists.append(true);
    let array = lists.finish().unwrap();
    assert_eq!(
        array.data_type().to_string(),
        "List(item: Struct(name: Utf8, n: Int32))"
    );
    assert_eq!((array.len(), array.null_count()), (4, 1));
    let first = array.value(0);
    let first = first.as_any().downcast_ref::<StructArray>().unwrap();
    assert_eq!(first.len(), 2);
    assert!(first.is_null(1));
    assert_eq!(first.column(0).as_string::<i32>().value(0), "a");
    assert!(array.value(2).is_empty());
    let last = array.value(3);
    let last = last.as_any().downcast_ref::<StructArray>().unwrap();
    assert!(last.column(0).is_null(0));
    assert_eq!(
        last.column(1).as_primitive::<types::Int32Type>().value(0),
        3
    );
    round_trip(&array);
    round_trip(&array.slice_typed(1, 3));
}

#[test]
fn lists_and_structs_from_array_data_at_an_offset() {
    let items = Int32Array::from(vec![1, 2, 3, 4]).to_data();
    let data = ArrayData::builder("LargeList(item: Int32)".parse().unwrap())
        .len(2)
        .offset(1)
        .buffers(vec![Buffer::from_slice_ref(&[0i64, 1, 1, 4])])
        .children(vec![items])
        .build()
        .unwrap();
    let lists = LargeListArray::try_from(data).unwrap();
    assert!(lists.value(0).is_empty());
    assert_eq!(lists.value(1).len(), 3);
    assert!(ListArray::try_from(lists.to_data()).is_err());
    round_trip(&lists);

    let struct_type: DataType = "Struct(a: Int32, b: Boolean)".parse().unwrap();
    let data = ArrayData::builder(struct_type)
        .len(2)
        .offset(1)
        .nulls(Some(NullBuffer::from(vec![false, true])))
        .children(vec![
            Int32Array::from(vec![7, 8, 9]).to_data(),
            BooleanArray::from(vec![true, false, true]).to_data(),
        ])
        .build()
        .unwrap();
    let structs = StructArray::try_from(data).unwrap();
    assert_eq!(
        structs
            .column(0)
            .as_primitive::<types::Int32Type>()
            .value(1),
        9
    );
    assert!(!structs.column_by_name("b").unwrap().as_boolean().value(0));
    assert!(structs.is_null(0));
    round_trip(&structs);
    let empty =
        StructArray::try_new_with_len(alkaid_schema::Fields::empty(), vec![], None, 3).unwrap();
    assert_eq!(empty.len(), 3);
    round_trip(&empty);
    let mismatched = StructArray::try_new(
        vec![Field::new("a", DataType::Int32, true)].into(),
        vec![Arc::new(Int64Array::from(vec![1]))],
        None,
    );
    assert!(mismatched.is_err());
}

#[test]
fn fixed_width_arrays_three_ways() {
    let mut builder = FixedSizeBinaryBuilder::try_new(3).unwrap();
    builder.append_value(b"abc").unwrap();
    builder.append_null();
    assert!(builder.append_value(b"ab").is_err());
    builder.append_value(b"xyz").unwrap();
    let built = builder.finish();
    let from =
        FixedSizeBinaryArray::try_from_iter(3, vec![Some(b"abc"), None, Some(b"xyz")]).unwrap();
    assert_eq!(
        built.iter().collect::<Vec<_>>(),
        from.iter().collect::<Vec<_>>()
    );
    let data = ArrayData::builder(DataType::FixedSizeBinary(3))
        .len(2)
        .offset(1)
        .buffers(vec![Buffer::from(b"---abcxyz".to_vec())])
        .build()
        .unwrap();
    let from_data = FixedSizeBinaryArray::try_from(data).unwrap();
    assert_eq!(
        from_data.iter().collect::<Vec<_>>(),
        [Some(&b"abc"[..]), Some(b"xyz")]
    );
    round_trip(&built);
    round_trip(&from_data);
    let empty_width = FixedSizeBinaryArray::try_from_iter(0, vec![Some(b""), None]).unwrap();
    assert_eq!(empty_width.len(), 2);
    round_trip(&empty_width);

    let mut lists = FixedSizeListBuilder::new(Int32Array::builder(0), 2);
    lists.values().append_slice(&[1, 2]);
    lists.append(true).unwrap();
    lists.append(false).unwrap(); // the missing items become nulls
    lists.values().append_value(5);
    assert!(lists.append(true).is_err(), "one item short");
    lists.values().append_value(6);
    lists.append(true).unwrap();
    let array = lists.finish().unwrap();
    assert_eq!((array.len(), array.null_count()), (3, 1));
    assert_eq!(
        array
            .value(2)
            .as_primitive::<types::Int32Type>()
            .values()
            .as_slice(),
        &[5, 6]
    );
    round_trip(&array);
    round_trip(&array.slice_typed(1, 2));
    let from_data = FixedSizeListArray::try_from(array.to_data().slice(1, 2)).unwrap();
    assert_eq!(
        from_data
            .value(1)
            .as_primitive::<types::Int32Type>()
            .value(0),
        5
    );
}

#[test]
fn dictionary_arrays_three_ways() {
    let mut builder =
        GenericByteDictionaryBuilder::<types::Int16Type, GenericStringType<i32>>::new();
    for value in [Some("b"), Some("a"), None, Some("b")] {
        match value {
            Some(v) => {
                builder.append(v).unwrap();
            }
            None => builder.append_null(),
        }
    }
    let built = builder.finish();
    assert_eq!(built.values().len(), 2);
    assert_eq!(
        (built.key(0), built.key(2), built.key(3)),
        (Some(0), None, Some(0))
    );
    let from = DictionaryArray::<types::Int16Type>::try_new(
        Int16Array::from(vec![Some(1), Some(0), None, Some(1)]),
        Arc::new(StringArray::from(vec!["a", "b"])),
    )
    .unwrap();
    // Different dictionaries, the same logical values.
    assert!(alkaid_data::equal(&built.to_data(), &from.to_data()));
    round_trip(&built);
    round_trip(&from.slice_typed(1, 3));
    let from_data =
        DictionaryArray::<types::Int16Type>::try_from(from.to_data().slice(2, 2)).unwrap();
    assert_eq!(from_data.key(1), Some(1));
    assert!(from_data.value(0).is_none());
    assert!(DictionaryArray::<types::Int32Type>::try_from(from.to_data()).is_err());

    // Keys that cannot index another value are an error, not a panic.
    let mut small = GenericByteDictionaryBuilder::<types::Int8Type, GenericBinaryType<i32>>::new();
    for i in 0..128u8 {
        small.append([i]).unwrap();
    }
    assert!(small.append([200u8]).is_err());
    assert_eq!(
        small.append([5u8]).unwrap(),
        5,
        "known values still get their key"
    );
    assert_eq!(small.finish().len(), 129);

    for key in alkaid_schema::IntegerType::ALL {
        let data_type = DataType::Dictionary {
            key,
            value: Box::new(DataType::Utf8),
            ordered: false,
        };
        let keys = ArrayData::builder(key.to_data_type())
            .len(1)
            .buffers(vec![Buffer::from_slice_ref(&vec![0u8; key.byte_width()])])
            .build()
            .unwrap();
        let data = ArrayData::builder(data_type)
            .len(1)
            .buffers(keys.buffers().to_vec())
            .dictionary(StringArray::from(vec!["only"]).to_data())
            .build()
            .unwrap();
        let array = make_array(data);
        assert!(
            array.as_any().downcast_ref::<ArrayData>().is_none(),
            "{key:?} has a typed array"
        );
        round_trip(array.as_ref());
    }
}

/// The logical values of a run array of i64s.
fn run_values(runs: &RunArray<types::Int32Type>) -> Vec<Option<i64>> {
    let values = runs.values().as_primitive::<types::Int64Type>();
    (0..runs.len())
        .map(|i| values.iter().nth(runs.physical_index(i)).unwrap())
        .collect()
}

#[test]
fn run_arrays_three_ways() {
    let mut builder = PrimitiveRunBuilder::<types::Int32Type, types::Int64Type>::new();
    for v in [Some(1), Some(1), None, None, Some(2), Some(1)] {
        builder.append_option(v);
    }
    let built = builder.finish();
    assert_eq!(built.run_ends().values().as_slice(), &[2, 4, 5, 6]);
    assert_eq!(
        run_values(&built),
        [Some(1), Some(1), None, None, Some(2), Some(1)]
    );
    let from = RunArray::<types::Int32Type>::try_new(
        Int32Array::from(vec![1, 2, 4, 5, 6]),
        Arc::new(Int64Array::from(vec![
            Some(1),
            Some(1),
            None,
            Some(2),
            Some(1),
        ])),
    )
    .unwrap();
    // Runs split differently, the same logical values.
    assert!(alkaid_data::equal(&built.to_data(), &from.to_data()));
    let slice = built.slice_typed(1, 4);
    assert_eq!(run_values(&slice), [Some(1), None, None, Some(2)]);
    round_trip(&built);
    round_trip(&slice);
    let from_data = RunArray::<types::Int32Type>::try_from(built.to_data().slice(3, 2)).unwrap();
    assert_eq!(run_values(&from_data), [None, Some(2)]);
    assert!(RunArray::<types::Int16Type>::try_from(built.to_data()).is_err());
    // Invalid run ends are an error.
    let bad = RunArray::<types::Int32Type>::try_new(
        Int32Array::from(vec![2, 2]),
        Arc::new(Int64Array::from(vec![1, 2])),
    );
    assert!(bad.is_err());
    let negative = RunArray::<types::Int32Type>::try_new(
        Int32Array::from(vec![-1]),
        Arc::new(Int64Array::from(vec![1])),
    );
    assert!(negative.is_err());
    let empty = PrimitiveRunBuilder::<types::Int64Type, types::Int8Type>::new().finish();
    assert!(empty.is_empty());
    round_trip(&empty);

    let mut strings = StringRunBuilder::<types::Int16Type, i64>::new();
    for v in [Some("a"), Some("a"), None, Some("b")] {
        strings.append_option(v);
    }
    let strings = strings.finish();
    assert_eq!(strings.run_ends().len(), 3);
    assert_eq!(strings.value(3).as_string::<i64>().value(0), "b");
    round_trip(&strings);
}

#[test]
fn view_arrays_three_ways() {
    let long = "a value that is longer than twelve bytes";
    let built = {
        let mut builder = GenericByteViewBuilder::<StringViewType>::new();
        builder.append_value("short");
        builder.append_null();
        builder.append_value(long);
        builder.finish()
    };
    let from: StringViewArray = vec![Some("short"), None, Some(long)].into_iter().collect();
    assert_eq!(
        built.iter().collect::<Vec<_>>(),
        from.iter().collect::<Vec<_>>()
    );
    assert_eq!(built.value(2), long);
    round_trip(&built);
    round_trip(&built.slice_typed(1, 2));
    let from_data = StringViewArray::try_from(built.to_data().slice(2, 1)).unwrap();
    assert_eq!(from_data.value(0), long);
    // append_n stores a long value once and views it n times.
    let mut repeated = GenericByteViewBuilder::<StringViewType>::new();
    repeated.append_n(3, long);
    let repeated = repeated.finish();
    assert_eq!(repeated.iter().collect::<Vec<_>>(), [Some(long); 3]);
    assert_eq!(
        repeated
            .data_buffers()
            .iter()
            .map(|b| b.len())
            .sum::<usize>(),
        long.len()
    );
    let mut strings = StringArray::builder(0, 0);
    strings.append_n(2, "ab");
    assert_eq!(
        strings.finish().iter().collect::<Vec<_>>(),
        [Some("ab"), Some("ab")]
    );
    // A thousand long values spill over several data blocks, each value intact.
    let values: Vec<String> = (0..1000)
        .map(|i| format!("{i:04} {}", "x".repeat(i % 300)))
        .collect();
    let many = BinaryViewArray::from_iter_values(values.iter().map(|v| v.as_bytes()));
    assert!(many.data_buffers().len() > 1);
    assert!(
        values
            .iter()
            .enumerate()
            .all(|(i, v)| many.value(i) == v.as_bytes())
    );
    round_trip(&many);
    // Bad views are an error, not a panic.
    let views =
        alkaid_buffer::ScalarBuffer::from(vec![alkaid_buffer::native::ByteView::new_reference(
            long.as_bytes(),
            3,
            0,
        )]);
    assert!(StringViewArray::try_new(views, vec![], None).is_err());
}

#[test]
fn record_batches_check_every_column() {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("name", DataType::Utf8, true),
    ]));
    let ids: ArrayRef = Arc::new(Int64Array::from(vec![1, 2]));
    let names: ArrayRef = Arc::new(StringArray::from(vec![Some("a"), None]));
    let batch = RecordBatch::try_new(schema.clone(), vec![ids.clone(), names.clone()]).unwrap();
    assert_eq!((batch.num_rows(), batch.num_columns()), (2, 2));
    assert_eq!(
        batch.project(&[1]).unwrap().schema().fields()[0].name(),
        "name"
    );
    assert_eq!(batch.slice(1, 1).column(1).null_count(), 1);
    assert!(batch.column_by_name("nope").is_err());

    let short: ArrayRef = Arc::new(StringArray::from(vec!["a"]));
    assert_eq!(
        RecordBatch::try_new(schema.clone(), vec![ids.clone(), short])
            .unwrap_err()
            .to_string(),
        "expected column 1 (\"name\") of length 2, found 1"
    );
    let wrong_type: ArrayRef = Arc::new(Int32Array::from(vec![1, 2]));
    assert_eq!(
        RecordBatch::try_new(schema.clone(), vec![wrong_type, names.clone()])
            .unwrap_err()
            .to_string(),
        "column 0 (\"id\"): expected type Int64, found Int32"
    );
    let null_ids: ArrayRef = Arc::new(Int64Array::from(vec![Some(1), None]));
    assert_eq!(
        RecordBatch::try_new(schema.clone(), vec![null_ids, names])
            .unwrap_err()
            .to_string(),
        "column 0 (\"id\"): field is not nullable, found 1 nulls"
    );
    assert!(RecordBatch::try_new(schema, vec![ids]).is_err());
    let empty = RecordBatch::try_new_with_rows(Arc::new(Schema::empty()), vec![], 5).unwrap();
    assert_eq!(empty.num_rows(), 5);
    assert!(RecordBatch::try_new(Arc::new(Schema::empty()), vec![]).is_err());
}

#[test]
fn unchecked_batches_are_the_checked_ones_and_debug_builds_still_check() {
    let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)]));
    let ids: ArrayRef = Arc::new(Int64Array::from(vec![1, 2]));
    let checked = RecordBatch::try_new(schema.clone(), vec![ids.clone()]).unwrap();
    // SAFETY: the same parts the checked constructor accepted just above.
    let unchecked = unsafe { RecordBatch::new_unchecked(schema.clone(), vec![ids], 2) };
    assert_eq!(unchecked.num_rows(), 2);
    assert_eq!(unchecked.schema(), checked.schema());
    assert!(Arc::ptr_eq(unchecked.column(0), checked.column(0)));
    if cfg!(debug_assertions) {
        let wrong: ArrayRef = Arc::new(Int32Array::from(vec![1, 2]));
        // SAFETY: not upheld on purpose; the debug check panics before the batch exists.
        let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe {
            RecordBatch::new_unchecked(schema, vec![wrong], 2)
        }));
        assert!(made.is_err());
    }
}

proptest! {
    #[test]
    fn primitive_builders_read_back(values in proptest::collection::vec(proptest::option::of(any::<i64>()), 0..200)) {
        let array = Int64Array::from(values.clone());
        prop_assert_eq!(array.iter().collect::<Vec<_>>(), values.clone());
        let mut builder = Int64Array::builder(0);
        for v in &values {
            builder.append_option(*v);
        }
        prop_assert_eq!(builder.finish(), array.clone());
        round_trip(&array);
    }

    #[test]
    fn float_and_decimal_builders_read_back(values in proptest::collection::vec(proptest::option::of(any::<i128>()), 0..100)) {
        let array = Decimal128Array::from(values.clone());
        prop_assert_eq!(array.iter().collect::<Vec<_>>(), values);
    }

    #[test]
    fn run_builders_read_back(values in proptest::collection::vec(proptest::option::of(0i64..3), 0..100)) {
        let mut builder = PrimitiveRunBuilder::<types::Int32Type, types::Int64Type>::new();
        for v in &values {
            builder.append_option(*v);
        }
        let runs = builder.finish();
        prop_assert_eq!(run_values(&runs), values.clone());
        let distinct_neighbours = values.windows(2).filter(|w| w[0] != w[1]).count() + usize::from(!values.is_empty());
        prop_assert_eq!(runs.run_ends().len(), distinct_neighbours);
        round_trip(&runs);
    }

    #[test]
    fn list_builders_read_back(values in proptest::collection::vec(proptest::option::of(proptest::collection::vec(proptest::option::of(any::<i64>()), 0..5)), 0..40)) {
        let mut builder = GenericListBuilder::<i32, _>::new(Int64Array::builder(0));
        for list in &values {
            match list {
                Some(items) => {
                    for item in items {
                        builder.values().append_option(*item);
                    }
                    builder.append(true);
                }
                None => builder.append(false),
            }
        }
        let array = builder.finish().unwrap();
        let read: Vec<Option<Vec<Option<i64>>>> = array
            .iter()
            .map(|list| list.map(|l| l.as_primitive::<types::Int64Type>().iter().collect()))
            .collect();
        prop_assert_eq!(read, values);
        round_trip(&array);
    }

    #[test]
    fn struct_builders_read_back(values in proptest::collection::vec(proptest::option::of((proptest::option::of(any::<i32>()), proptest::option::of(".{0,8}"))), 0..40)) {
        let fields = vec![Field::new("a", DataType::Int32, true), Field::new("b", DataType::Utf8, true)];
        let mut builder = StructBuilder::new(fields.into(), vec![Box::new(Int32Array::builder(0)), Box::new(StringArray::builder(0, 0))]);
        for value in &values {
            if let Some((a, b)) = value {
                builder.field_builder::<PrimitiveBuilder<types::Int32Type>>(0).unwrap().append_option(*a);
                builder.field_builder::<GenericByteBuilder<GenericStringType<i32>>>(1).unwrap().append_option(b.as_deref());
            }
            builder.append(value.is_some());
        }
        let array = builder.finish().unwrap();
        let (a, b) = (array.column(0).as_primitive::<types::Int32Type>(), array.column(1).as_string::<i32>());
        let read: Vec<Option<(Option<i32>, Option<String>)>> = (0..array.len())
            .map(|i| array.is_valid(i).then(|| (a.iter().nth(i).unwrap(), b.iter().nth(i).unwrap().map(str::to_string))))
            .collect();
        prop_assert_eq!(read, values);
        round_trip(&array);
    }

    #[test]
    fn map_builders_read_back(values in proptest::collection::vec(proptest::option::of(proptest::collection::vec(("[a-z]{1,3}", proptest::option::of(any::<i64>())), 0..4)), 0..30)) {
        let mut builder = MapBuilder::new(StringArray::builder(0, 0), Int64Array::builder(0));
        for map in &values {
            if let Some(entries) = map {
                for (key, value) in entries {
                    builder.keys().append_value(key);
                    builder.values().append_option(*value);
                }
            }
            builder.append(map.is_some()).unwrap();
        }
        let array = builder.finish().unwrap();
        type Maps = Vec<Option<Vec<(String, Option<i64>)>>>;
        let read: Maps = array
            .iter()
            .map(|entries| entries.map(|e| {
                let (k, v) = (e.column(0).as_string::<i32>(), e.column(1).as_primitive::<types::Int64Type>());
                (0..e.len()).map(|j| (k.value(j).to_string(), v.iter().nth(j).unwrap())).collect()
            }))
            .collect();
        prop_assert_eq!(read, values);
        round_trip(&array);
    }

    #[test]
    fn dictionary_builders_read_back(values in proptest::collection::vec(proptest::option::of("[a-c]{0,2}"), 0..80)) {
        let mut builder = GenericByteDictionaryBuilder::<types::Int16Type, GenericStringType<i32>>::new();
        for value in &values {
            match value {
                Some(v) => { builder.append(v).unwrap(); }
                None => builder.append_null(),
            }
        }
        let array = builder.finish();
        let dictionary = array.values().as_string::<i32>();
        let read: Vec<Option<String>> = array.iter_keys().map(|k| k.map(|k| dictionary.value(k).to_string())).collect();
        prop_assert_eq!(read, values.clone());
        let distinct: std::collections::HashSet<_> = values.iter().flatten().collect();
        prop_assert_eq!(dictionary.len(), distinct.len());
        round_trip(&array);
    }

    #[test]
    fn fixed_width_builders_read_back(values in proptest::collection::vec(proptest::option::of(proptest::array::uniform3(any::<u8>())), 0..50)) {
        let mut binary = FixedSizeBinaryBuilder::try_new(3).unwrap();
        let mut lists = FixedSizeListBuilder::new(UInt8Array::builder(0), 3);
        for value in &values {
            match value {
                Some(bytes) => {
                    binary.append_value(bytes).unwrap();
                    lists.values().append_slice(bytes);
                    lists.append(true).unwrap();
                }
                None => {
                    binary.append_null();
                    lists.append(false).unwrap();
                }
            }
        }
        let (binary, lists) = (binary.finish(), lists.finish().unwrap());
        let read: Vec<Option<[u8; 3]>> = binary.iter().map(|v| v.map(|b| b.try_into().unwrap())).collect();
        prop_assert_eq!(&read, &values);
        let read: Vec<Option<[u8; 3]>> = lists
            .iter()
            .map(|l| l.map(|l| l.as_primitive::<types::UInt8Type>().values().as_slice().try_into().unwrap()))
            .collect();
        prop_assert_eq!(&read, &values);
        round_trip(&binary);
        round_trip(&lists);
    }

    #[test]
    fn list_view_builders_read_back(values in proptest::collection::vec(proptest::option::of(proptest::collection::vec(any::<i16>(), 0..4)), 0..40)) {
        let mut builder = GenericListViewBuilder::<i32, _>::new(Int16Array::builder(0));
        for value in &values {
            if let Some(items) = value {
                builder.values().append_slice(items);
            }
            builder.append(value.is_some());
        }
        let array = builder.finish().unwrap();
        let read: Vec<Option<Vec<i16>>> =
            array.iter().map(|l| l.map(|l| l.as_primitive::<types::Int16Type>().values().to_vec())).collect();
        prop_assert_eq!(read, values);
        round_trip(&array);
    }

    #[test]
    fn union_builders_read_back(values in proptest::collection::vec(prop_oneof![any::<i32>().prop_map(Ok), ".{0,6}".prop_map(Err)], 0..40), dense in any::<bool>()) {
        let mode = if dense { UnionMode::Dense } else { UnionMode::Sparse };
        let union_type = UnionType::try_new(
            vec![Field::new("i", DataType::Int32, true), Field::new("s", DataType::Utf8, true)],
            [4, 9],
            mode,
        )
        .unwrap();
        let mut builder = UnionBuilder::new(union_type, vec![Box::new(Int32Array::builder(0)), Box::new(StringArray::builder(0, 0))]).unwrap();
        for value in &values {
            match value {
                Ok(i) => {
                    builder.child::<PrimitiveBuilder<types::Int32Type>>(4).unwrap().append_value(*i);
                    builder.append(4).unwrap();
                }
                Err(s) => {
                    builder.child::<GenericByteBuilder<GenericStringType<i32>>>(9).unwrap().append_value(s);
                    builder.append(9).unwrap();
                }
            }
        }
        let array = builder.finish().unwrap();
        let read: Vec<Result<i32, String>> = array
            .iter()
            .map(|v| match v.as_primitive_opt::<types::Int32Type>() {
                Some(i) => Ok(i.value(0)),
                None => Err(v.as_string::<i32>().value(0).to_string()),
            })
            .collect();
        prop_assert_eq!(read, values);
        round_trip(&array);
    }

    #[test]
    fn boolean_builders_read_back(values in proptest::collection::vec(proptest::option::of(any::<bool>()), 0..300)) {
        let array = BooleanArray::from(values.clone());
        prop_assert_eq!(array.iter().collect::<Vec<_>>(), values);
        round_trip(&array);
    }

    #[test]
    fn string_builders_read_back(values in proptest::collection::vec(proptest::option::of(any::<String>()), 0..60)) {
        let array = StringArray::from(values.clone());
        let read: Vec<Option<String>> = array.iter().map(|v| v.map(str::to_string)).collect();
        prop_assert_eq!(read, values.clone());
        let large = LargeStringArray::from(values);
        prop_assert_eq!(large.len(), array.len());
        round_trip(&array);
        round_trip(&large);
    }

    #[test]
    fn view_builders_read_back(values in proptest::collection::vec(proptest::option::of(any::<String>()), 0..60)) {
        let array: StringViewArray = values.iter().map(|v| v.as_deref()).collect();
        let read: Vec<Option<String>> = array.iter().map(|v| v.map(str::to_string)).collect();
        prop_assert_eq!(read, values);
        round_trip(&array);
    }

    #[test]
    fn binary_builders_read_back(values in proptest::collection::vec(proptest::option::of(proptest::collection::vec(any::<u8>(), 0..20)), 0..60)) {
        let array = BinaryArray::from(values.clone());
        let read: Vec<Option<Vec<u8>>> = array.iter().map(|v| v.map(<[u8]>::to_vec)).collect();
        prop_assert_eq!(read, values);
        round_trip(&array);
    }
}

#[test]
fn a_struct_becomes_a_batch_sliced_and_without_null_rows() {
    let fields = vec![Field::new("n", DataType::Int32, true)];
    let column: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3, 4]));
    let whole = StructArray::try_new(fields.clone().into(), vec![column.clone()], None).unwrap();
    let schema = Arc::new(Schema::new(fields.clone()));
    let sliced = whole.to_data().slice(1, 2);
    let batch = RecordBatch::try_from_struct(schema.clone(), &sliced).unwrap();
    assert_eq!(batch.num_rows(), 2);
    let values = batch
        .column(0)
        .as_any()
        .downcast_ref::<Int32Array>()
        .unwrap();
    assert_eq!((values.value(0), values.value(1)), (2, 3));
    let with_nulls = StructArray::try_new(
        fields.into(),
        vec![column],
        Some(vec![true, false, true, true].into()),
    )
    .unwrap();
    let error = RecordBatch::try_from_struct(schema, &with_nulls.to_data()).unwrap_err();
    assert!(error.to_string().contains("1 null rows"), "{error}");
}
