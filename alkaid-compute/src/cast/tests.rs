//! Cast edge cases, named: every number width at its extremes, NaN and infinities, text
//! that is not a number, decimal rounding and precision, dates around the epoch and leap
//! days, zones, encodings in and out, nested lists and structs, empty and all-null input.

use std::sync::Arc;

use alkaid_array::types::{Float64Type, Int8Type, Int32Type, Int64Type, UInt8Type};
use alkaid_array::{
    Array, ArrayRef, AsArray, BinaryArray, BooleanArray, Date32Array, Decimal128Array,
    DictionaryArray, Float32Array, Float64Array, Int8Array, Int32Array, Int64Array,
    LargeStringArray, ListArray, NullArray, RunArray, StringArray, StringViewArray, StructArray,
    TimestampSecondArray, UInt8Array, UInt64Array,
};
use alkaid_buffer::OffsetBuffer;
use alkaid_schema::{DataType, Field, IntegerType, RunEndEncodedType, RunEndType, TimeUnit};

use super::*;

const STRICT: CastOptions = CastOptions::STRICT;
const SAFE: CastOptions = CastOptions::SAFE;

fn texts(array: &ArrayRef) -> Vec<Option<String>> {
    let plain = cast(array.as_ref(), &DataType::Utf8, STRICT).unwrap();
    plain
        .as_string::<i32>()
        .iter()
        .map(|v| v.map(String::from))
        .collect()
}

fn some(values: &[&str]) -> Vec<Option<String>> {
    values.iter().map(|v| Some(v.to_string())).collect()
}

#[test]
fn integers_convert_exactly_or_fail_naming_the_row() {
    let values = Int64Array::from(vec![Some(-1), None, Some(255), Some(256)]);
    let safe = cast(&values, &DataType::UInt8, SAFE).unwrap();
    assert_eq!(
        safe.as_primitive::<UInt8Type>().iter().collect::<Vec<_>>(),
        [None, None, Some(255), None]
    );
    let error = cast(&values, &DataType::UInt8, STRICT).unwrap_err();
    assert!(
        matches!(error, ComputeError::Cast { row: 0, .. }),
        "{error}"
    );
    assert!(error.to_string().contains("-1"), "{error}");
    let extremes = UInt64Array::from(vec![u64::MAX]);
    assert!(cast(&extremes, &DataType::Int64, STRICT).is_err());
    let wide = cast(
        &Int8Array::from(vec![i8::MIN, i8::MAX]),
        &DataType::Int64,
        STRICT,
    )
    .unwrap();
    assert_eq!(
        wide.as_primitive::<Int64Type>().values().to_vec(),
        [-128, 127]
    );
}

#[test]
fn floats_truncate_into_integers_and_fail_on_nan() {
    let values = Float64Array::from(vec![
        2.9,
        -2.9,
        f64::NAN,
        f64::INFINITY,
        9.3e18,
        -(2f64.powi(63)),
    ]);
    let safe = cast(&values, &DataType::Int64, SAFE).unwrap();
    assert_eq!(
        safe.as_primitive::<Int64Type>().iter().collect::<Vec<_>>(),
        [Some(2), Some(-2), None, None, None, Some(i64::MIN)]
    );
    let bytes = cast(
        &Float32Array::from(vec![255.99, 256.0, -0.5]),
        &DataType::UInt8,
        SAFE,
    )
    .unwrap();
    assert_eq!(
        bytes.as_primitive::<UInt8Type>().iter().collect::<Vec<_>>(),
        [Some(255), None, Some(0)]
    );
    let floats = cast(
        &Int64Array::from(vec![i64::MAX]),
        &DataType::Float64,
        STRICT,
    )
    .unwrap();
    assert_eq!(floats.as_primitive::<Float64Type>().value(0), 2f64.powi(63));
}

#[test]
fn booleans_are_one_and_zero() {
    let flags = BooleanArray::from(vec![Some(true), None, Some(false)]);
    let numbers = cast(&flags, &DataType::Int32, STRICT).unwrap();
    assert_eq!(
        numbers
            .as_primitive::<Int32Type>()
            .iter()
            .collect::<Vec<_>>(),
        [Some(1), None, Some(0)]
    );
    let back = cast(
        &Float64Array::from(vec![0.0, -0.0, f64::NAN, 2.0]),
        &DataType::Boolean,
        STRICT,
    )
    .unwrap();
    assert_eq!(
        back.as_boolean().iter().collect::<Vec<_>>(),
        [Some(false), Some(false), Some(true), Some(true)]
    );
}

#[test]
fn text_parses_into_every_kind() {
    let text = StringArray::from(vec![Some(" 42 "), Some("-7"), None, Some("4x"), Some("")]);
    let ints = cast(&text, &DataType::Int16, SAFE).unwrap();
    assert_eq!(
        ints.as_primitive::<alkaid_array::types::Int16Type>()
            .iter()
            .collect::<Vec<_>>(),
        [Some(42), Some(-7), None, None, None]
    );
    let error = cast(&text, &DataType::Int16, STRICT).unwrap_err();
    assert!(matches!(error, ComputeError::Cast { row: 3, .. }));
    assert!(error.to_string().contains("\"4x\""), "{error}");
    let floats = cast(
        &StringArray::from(vec!["1e3", "-inf", "NaN", ".5"]),
        &DataType::Float64,
        STRICT,
    )
    .unwrap();
    let floats = floats.as_primitive::<Float64Type>();
    assert_eq!(
        (floats.value(0), floats.value(1), floats.value(3)),
        (1000.0, f64::NEG_INFINITY, 0.5)
    );
    assert!(floats.value(2).is_nan());
    let flags = cast(
        &LargeStringArray::from(vec!["TRUE", "off", "maybe"]),
        &DataType::Boolean,
        SAFE,
    )
    .unwrap();
    assert_eq!(
        flags.as_boolean().iter().collect::<Vec<_>>(),
        [Some(true), Some(false), None]
    );
    let dates = cast(
        &StringViewArray::from_iter_values(["2024-02-29", "1969-12-31", "2023-02-29"]),
        &DataType::Date32,
        SAFE,
    )
    .unwrap();
    assert_eq!(
        dates
            .as_primitive::<alkaid_array::types::Date32Type>()
            .iter()
            .collect::<Vec<_>>(),
        [Some(19782), Some(-1), None]
    );
    let utc = DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()));
    let stamps = cast(
        &StringArray::from(vec!["2024-01-01T00:00:00.5+01:00", "2024-01-01 00:00"]),
        &utc,
        STRICT,
    )
    .unwrap();
    let stamps = stamps.as_primitive::<alkaid_array::types::TimestampMillisecondType>();
    assert_eq!(stamps.value(0), 1_704_063_600_500);
    assert_eq!(stamps.value(1), 1_704_067_200_000);
    let time = cast(
        &StringArray::from(vec!["12:30:15.25"]),
        &DataType::Time(TimeUnit::Millisecond),
        STRICT,
    )
    .unwrap();
    assert_eq!(
        time.as_primitive::<alkaid_array::types::Time32MillisecondType>()
            .value(0),
        45_015_250
    );
    let coarse = cast(
        &StringArray::from(vec!["12:30:15.25"]),
        &DataType::Time(TimeUnit::Second),
        SAFE,
    )
    .unwrap();
    assert!(
        coarse.is_null(0),
        "a fraction a second cannot hold is not dropped silently"
    );
}

#[test]
fn decimals_round_half_away_from_zero_and_check_precision() {
    let values = Decimal128Array::from(vec![125, -125, 99_999])
        .with_data_type(DataType::decimal(128, 5, 2).unwrap())
        .unwrap();
    let fewer = cast(&values, &DataType::decimal(128, 4, 1).unwrap(), SAFE).unwrap();
    assert_eq!(
        texts(&fewer),
        vec![Some("1.3".into()), Some("-1.3".into()), None]
    );
    let error = cast(&values, &DataType::decimal(128, 4, 1).unwrap(), STRICT).unwrap_err();
    assert!(error.to_string().contains("999.99"), "{error}");
    let ints = cast(&values, &DataType::Int32, STRICT).unwrap();
    assert_eq!(
        ints.as_primitive::<Int32Type>().values().to_vec(),
        [1, -1, 1000]
    );
    let wide = cast(&values, &DataType::decimal(256, 40, 10).unwrap(), STRICT).unwrap();
    assert_eq!(texts(&wide)[0].as_deref(), Some("1.2500000000"));
    let parsed = cast(
        &StringArray::from(vec!["1.005", "-0.004", "1e2", "x"]),
        &DataType::decimal(32, 5, 2).unwrap(),
        SAFE,
    )
    .unwrap();
    assert_eq!(
        texts(&parsed),
        vec![
            Some("1.01".into()),
            Some("0.00".into()),
            Some("100.00".into()),
            None
        ]
    );
    let from_float = cast(
        &Float64Array::from(vec![0.125, f64::NAN]),
        &DataType::decimal(64, 10, 2).unwrap(),
        SAFE,
    )
    .unwrap();
    assert_eq!(texts(&from_float), vec![Some("0.13".into()), None]);
    let to_float = cast(&values, &DataType::Float64, STRICT).unwrap();
    assert_eq!(to_float.as_primitive::<Float64Type>().value(2), 999.99);
}

#[test]
fn values_format_as_text_in_every_layout() {
    let numbers = Int32Array::from(vec![Some(-5), None, Some(i32::MAX)]);
    assert_eq!(
        texts(&(Arc::new(numbers.clone()) as ArrayRef)),
        vec![Some("-5".into()), None, Some("2147483647".into())]
    );
    for layout in [DataType::LargeUtf8, DataType::Utf8View, DataType::Binary] {
        let out = cast(&numbers, &layout, STRICT).unwrap();
        assert_eq!(out.data_type(), &layout);
        assert!(out.is_null(1));
    }
    let dates = Date32Array::from(vec![0, 19782]);
    assert_eq!(
        texts(&(Arc::new(dates) as ArrayRef)),
        some(&["1970-01-01", "2024-02-29"])
    );
    let flags = BooleanArray::from(vec![true, false]);
    assert_eq!(
        texts(&(Arc::new(flags) as ArrayRef)),
        some(&["true", "false"])
    );
    // Round trip through text.
    let back = cast(
        cast(&numbers, &DataType::Utf8, STRICT).unwrap().as_ref(),
        &DataType::Int32,
        STRICT,
    )
    .unwrap();
    assert_eq!(
        back.as_primitive::<Int32Type>().iter().collect::<Vec<_>>(),
        numbers.iter().collect::<Vec<_>>()
    );
}

#[test]
fn bytes_become_text_only_when_utf8() {
    let bytes = BinaryArray::from_iter([Some(&b"ok"[..]), Some(&[0xff, 0xfe][..]), None]);
    let safe = cast(&bytes, &DataType::Utf8View, SAFE).unwrap();
    assert_eq!(texts(&safe), vec![Some("ok".into()), None, None]);
    assert!(matches!(
        cast(&bytes, &DataType::Utf8, STRICT),
        Err(ComputeError::Cast { row: 1, .. })
    ));
    let large = cast(&bytes, &DataType::LargeBinary, STRICT).unwrap();
    assert_eq!(large.len(), 3);
}

#[test]
fn temporal_units_zones_and_dates() {
    let paris = DataType::Timestamp(TimeUnit::Second, Some("Europe/Paris".into()));
    // 1970-01-01T23:30:00Z is already the 2nd of January in Paris.
    let stamps = TimestampSecondArray::from(vec![84_600, -1])
        .with_data_type(paris)
        .unwrap();
    let dates = cast(&stamps, &DataType::Date32, STRICT).unwrap();
    assert_eq!(
        dates
            .as_primitive::<alkaid_array::types::Date32Type>()
            .values()
            .to_vec(),
        [1, 0]
    );
    let utc_dates = cast(
        &TimestampSecondArray::from(vec![84_600, -1]),
        &DataType::Date32,
        STRICT,
    )
    .unwrap();
    assert_eq!(
        utc_dates
            .as_primitive::<alkaid_array::types::Date32Type>()
            .values()
            .to_vec(),
        [0, -1]
    );
    let millis = cast(
        &stamps,
        &DataType::Timestamp(TimeUnit::Millisecond, None),
        STRICT,
    )
    .unwrap();
    assert_eq!(
        millis
            .as_primitive::<alkaid_array::types::TimestampMillisecondType>()
            .values()
            .to_vec(),
        [84_600_000, -1000]
    );
    let seconds = cast(
        millis.as_ref(),
        &DataType::Timestamp(TimeUnit::Second, None),
        STRICT,
    )
    .unwrap();
    assert_eq!(
        seconds
            .as_primitive::<alkaid_array::types::TimestampSecondType>()
            .value(1),
        -1
    );
    let midnight = cast(
        &Date32Array::from(vec![1]),
        &DataType::Timestamp(TimeUnit::Second, Some("Europe/Paris".into())),
        STRICT,
    )
    .unwrap();
    assert_eq!(
        midnight
            .as_primitive::<alkaid_array::types::TimestampSecondType>()
            .value(0),
        86_400 - 3600
    );
    let too_far = cast(
        &TimestampSecondArray::from(vec![i64::MAX / 10]),
        &DataType::Timestamp(TimeUnit::Nanosecond, None),
        SAFE,
    )
    .unwrap();
    assert!(too_far.is_null(0));
}

#[test]
fn dictionaries_and_runs_in_and_out() {
    let values: ArrayRef = Arc::new(StringArray::from(vec![Some("1"), Some("x"), None]));
    let keyed = DictionaryArray::<Int8Type>::try_new(
        Int8Array::from(vec![Some(0), Some(2), None, Some(1), Some(0)]),
        values,
    )
    .unwrap();
    let plain = cast(&keyed, &DataType::Int64, SAFE).unwrap();
    assert_eq!(
        plain.as_primitive::<Int64Type>().iter().collect::<Vec<_>>(),
        [Some(1), None, None, None, Some(1)]
    );
    // A strict cast names the row whose entry fails ("x" is row 3's), and an entry no
    // row uses does not fail it.
    let error = cast(&keyed, &DataType::Int64, STRICT).unwrap_err();
    assert!(
        matches!(error, ComputeError::Cast { row: 3, .. }),
        "{error}"
    );
    let unused = cast(keyed.slice(0, 3).as_ref(), &DataType::Int64, STRICT).unwrap();
    assert_eq!(
        unused
            .as_primitive::<Int64Type>()
            .iter()
            .collect::<Vec<_>>(),
        [Some(1), None, None]
    );
    let encoded_type = DataType::dictionary(IntegerType::UInt8, DataType::Utf8);
    let encoded = cast(
        &Int32Array::from(vec![Some(3), Some(3), None, Some(4)]),
        &encoded_type,
        STRICT,
    )
    .unwrap();
    assert_eq!(encoded.data_type(), &encoded_type);
    let dictionary = encoded.to_data();
    assert_eq!(dictionary.dictionary().unwrap().len(), 2);
    assert_eq!(
        texts(&encoded),
        vec![Some("3".into()), Some("3".into()), None, Some("4".into())]
    );
    let too_many = cast(
        &Int32Array::from((0..300).collect::<Vec<_>>()),
        &DataType::dictionary(IntegerType::Int8, DataType::Int32),
        STRICT,
    );
    assert!(too_many.is_err());
    let ree = DataType::RunEndEncoded(RunEndEncodedType::new(
        RunEndType::Int16,
        Field::new("values", DataType::Utf8, true),
    ));
    let runs = cast(
        &Int32Array::from(vec![Some(1), Some(1), None, None, Some(2)]),
        &ree,
        STRICT,
    )
    .unwrap();
    assert_eq!(runs.to_data().children()[0].len(), 3);
    assert_eq!(
        texts(&runs),
        vec![
            Some("1".into()),
            Some("1".into()),
            None,
            None,
            Some("2".into())
        ]
    );
    let values: ArrayRef = Arc::new(Int32Array::from(vec![7, 8]));
    let run_array = RunArray::<Int32Type>::try_new(Int32Array::from(vec![2, 3]), values).unwrap();
    let floats = cast(run_array.slice(1, 2).as_ref(), &DataType::Float64, STRICT).unwrap();
    assert_eq!(
        floats.as_primitive::<Float64Type>().values().to_vec(),
        [7.0, 8.0]
    );
}

#[test]
fn lists_and_structs_cast_their_children() {
    let lists = ListArray::try_new(
        Arc::new(Field::new("item", DataType::Int32, true)),
        OffsetBuffer::from_lengths([2, 0, 1]),
        Arc::new(Int32Array::from(vec![Some(1), None, Some(300)])),
        Some(vec![true, false, true].into()),
    )
    .unwrap();
    let target = DataType::LargeList(Arc::new(Field::new("item", DataType::Utf8, true)));
    let large = cast(lists.slice(1, 2).as_ref(), &target, STRICT).unwrap();
    assert_eq!(large.data_type(), &target);
    assert!(large.is_null(0));
    let narrow = DataType::List(Arc::new(Field::new("item", DataType::Int8, true)));
    assert!(matches!(
        cast(&lists, &narrow, STRICT),
        Err(ComputeError::Cast { row: 2, .. })
    ));
    let structs = StructArray::try_new(
        vec![
            Field::new("a", DataType::Int32, true),
            Field::new("b", DataType::Utf8, true),
        ]
        .into(),
        vec![
            Arc::new(Int32Array::from(vec![1, 2])) as ArrayRef,
            Arc::new(StringArray::from(vec!["3", "4"])),
        ],
        None,
    )
    .unwrap();
    let reordered = DataType::Struct(
        vec![
            Field::new("b", DataType::Int64, true),
            Field::new("a", DataType::Utf8, true),
        ]
        .into(),
    );
    let out = cast(&structs, &reordered, STRICT).unwrap();
    let out = out.as_typed::<StructArray>().unwrap();
    assert_eq!(
        out.column(0).as_primitive::<Int64Type>().values().to_vec(),
        [3, 4]
    );
    let missing = DataType::Struct(vec![Field::new("c", DataType::Int64, true)].into());
    assert!(!can_cast(structs.data_type(), &missing));
}

#[test]
fn null_type_and_empty_inputs() {
    let nulls = cast(&NullArray::new(3), &DataType::Utf8, STRICT).unwrap();
    assert_eq!((nulls.len(), nulls.null_count()), (3, 3));
    assert!(matches!(
        cast(
            &Int32Array::from(vec![None, Some(1)]),
            &DataType::Null,
            STRICT
        ),
        Err(ComputeError::Cast { row: 1, .. })
    ));
    assert_eq!(
        cast(
            &Int32Array::from(vec![None, Some(1)]),
            &DataType::Null,
            SAFE
        )
        .unwrap()
        .len(),
        2
    );
    let empty = cast(
        &StringArray::from(Vec::<&str>::new()),
        &DataType::Int64,
        STRICT,
    )
    .unwrap();
    assert_eq!(empty.len(), 0);
    let all_null = cast(
        &StringArray::from(vec![None::<&str>; 4]),
        &DataType::Date32,
        STRICT,
    )
    .unwrap();
    assert_eq!(all_null.null_count(), 4);
    assert!(!can_cast(&DataType::Boolean, &DataType::Date32));
    assert!(matches!(
        cast(&BooleanArray::from(vec![true]), &DataType::Date32, STRICT),
        Err(ComputeError::Unsupported { .. })
    ));
    let sliced = cast(
        UInt8Array::from(vec![1, 2, 3]).slice(1, 2).as_ref(),
        &DataType::Utf8,
        STRICT,
    )
    .unwrap();
    assert_eq!(texts(&sliced), some(&["2", "3"]));
}

/// Each row of a list (any kind) of integers, as plain values (read without a cast).
fn list_rows(array: &dyn Array) -> Vec<Option<Vec<Option<i64>>>> {
    let data = array.to_data();
    let items = cast(
        make_array(data.children()[0].clone()).as_ref(),
        &DataType::Int64,
        STRICT,
    )
    .unwrap();
    let items = items.as_primitive::<Int64Type>();
    crate::access::list_ranges(&data)
        .unwrap()
        .into_iter()
        .enumerate()
        .map(|(row, (start, len))| {
            data.is_valid(row).then(|| {
                (start..start + len)
                    .map(|i| items.is_valid(i).then(|| items.value(i)))
                    .collect()
            })
        })
        .collect()
}

fn item(data_type: DataType) -> Arc<Field> {
    Arc::new(Field::new("item", data_type, true))
}

#[test]
fn list_views_with_rows_out_of_order_cast_to_every_list_kind() {
    // Rows [4, 5], [1, 2, 3], [2, 3], null, [] over one child, overlapping and jumping.
    let views = alkaid_array::ListViewArray::try_new(
        item(DataType::Int32),
        vec![3, 0, 1, 4, 0].into(),
        vec![2, 3, 2, 1, 0].into(),
        Arc::new(Int32Array::from(vec![1, 2, 3, 4, 5])),
        Some(vec![true, true, true, false, true].into()),
    )
    .unwrap();
    let expected = list_rows(&views);
    assert_eq!(expected[0], Some(vec![Some(4), Some(5)]));
    for target in [
        DataType::List(item(DataType::Int64)),
        DataType::LargeList(item(DataType::Utf8)),
        DataType::ListView(item(DataType::Int8)),
        DataType::LargeListView(item(DataType::Int32)),
    ] {
        let out = cast(&views, &target, STRICT).unwrap();
        assert_eq!(out.data_type(), &target);
        assert_eq!(list_rows(out.as_ref()), expected, "as {target}");
        // Sliced at a non-zero offset too.
        let sliced = cast(views.slice(1, 3).as_ref(), &target, STRICT).unwrap();
        assert_eq!(
            list_rows(sliced.as_ref()),
            expected[1..4],
            "sliced as {target}"
        );
    }
    // Into fixed-size lists of 2: the row of 3 (and the empty one) do not fit.
    let pairs = DataType::FixedSizeList(item(DataType::Int64), 2);
    let error = cast(&views, &pairs, STRICT).unwrap_err();
    assert!(
        matches!(error, ComputeError::Cast { row: 1, .. }),
        "{error}"
    );
    let safe = cast(&views, &pairs, SAFE).unwrap();
    assert_eq!(
        list_rows(safe.as_ref()),
        [expected[0].clone(), None, expected[2].clone(), None, None]
    );
}

#[test]
fn fixed_size_lists_round_trip_through_the_other_kinds() {
    // Rows [1, 2], null (no items in a list), [3, null], sliced from one row in.
    let lists = ListArray::try_new(
        item(DataType::Int32),
        OffsetBuffer::from_lengths([1, 2, 0, 2]),
        Arc::new(Int32Array::from(vec![
            Some(9),
            Some(1),
            Some(2),
            Some(3),
            None,
        ])),
        Some(vec![true, true, false, true].into()),
    )
    .unwrap()
    .slice(1, 3);
    let expected = list_rows(lists.as_ref());
    let pairs = DataType::FixedSizeList(item(DataType::Int16), 2);
    let fixed = cast(lists.as_ref(), &pairs, STRICT).unwrap();
    assert_eq!(fixed.data_type(), &pairs);
    assert_eq!(list_rows(fixed.as_ref()), expected);
    assert_eq!(
        fixed.to_data().children()[0].len(),
        6,
        "two items for the null row too"
    );
    for target in [
        DataType::ListView(item(DataType::Int64)),
        DataType::List(item(DataType::Int64)),
        DataType::FixedSizeList(item(DataType::Int64), 2),
    ] {
        let out = cast(fixed.slice(1, 2).as_ref(), &target, STRICT).unwrap();
        assert_eq!(list_rows(out.as_ref()), expected[1..], "as {target}");
    }
    assert!(can_cast(
        &pairs,
        &DataType::LargeListView(item(DataType::Utf8))
    ));
    // Empty inputs of every kind.
    let empty = cast(lists.slice(0, 0).as_ref(), &pairs, STRICT).unwrap();
    assert_eq!(empty.len(), 0);
}
