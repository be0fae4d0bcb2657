//! Display of every type: nulls, nested values, timestamps in their timezone, decimals with
//! their scale, and values outside the calendar (which print raw, never panic).

use std::sync::Arc;

use alkaid_array::display::{format_value, pretty_format_batches};
use alkaid_array::types::*;
use alkaid_array::*;
use alkaid_buffer::native::{IntervalDayTime, IntervalMonthDayNano};
use alkaid_schema::{DataType, Field, Schema, TimeUnit, UnionMode, UnionType};

fn shown(array: &dyn Array) -> String {
    array.to_string()
}

#[test]
fn scalars() {
    assert_eq!(shown(&Int8Array::from(vec![Some(-1), None])), "[-1, null]");
    assert_eq!(
        shown(&Float64Array::from(vec![1.5, f64::NAN, f64::INFINITY])),
        "[1.5, NaN, inf]"
    );
    assert_eq!(
        shown(&Float16Array::from(vec![half::f16::from_f32(0.5)])),
        "[0.5]"
    );
    assert_eq!(
        shown(&BooleanArray::from(vec![Some(true), None])),
        "[true, null]"
    );
    assert_eq!(shown(&NullArray::new(2)), "[null, null]");
    assert_eq!(shown(&StringArray::from(vec!["a b", "ü"])), "[a b, ü]");
    assert_eq!(
        shown(&LargeBinaryArray::from(vec![&[0u8, 255][..]])),
        "[00ff]"
    );
    assert_eq!(
        shown(&FixedSizeBinaryArray::try_from_iter(2, vec![Some([1u8, 2])]).unwrap()),
        "[0102]"
    );
    assert_eq!(
        shown(&StringViewArray::from_iter_values([
            "x",
            "a longer string value here"
        ])),
        "[x, a longer string value here]"
    );
    let decimal = Decimal256Array::from(vec![alkaid_buffer::native::i256::from_i128(-5)])
        .with_data_type(DataType::decimal(256, 40, 3).unwrap())
        .unwrap();
    assert_eq!(shown(&decimal), "[-0.005]");
    let negative_scale = Decimal32Array::from(vec![12])
        .with_data_type(DataType::decimal(32, 5, -2).unwrap())
        .unwrap();
    assert_eq!(shown(&negative_scale), "[1200]");
}

#[test]
fn dates_times_and_timestamps() {
    assert_eq!(
        shown(&Date32Array::from(vec![0, 19_782, -1])),
        "[1970-01-01, 2024-02-29, 1969-12-31]"
    );
    assert_eq!(shown(&Date64Array::from(vec![86_400_000])), "[1970-01-02]");
    assert_eq!(
        shown(&Time32MillisecondArray::from(vec![49_500_500])),
        "[13:45:00.5]"
    );
    assert_eq!(
        shown(&Time64NanosecondArray::from(vec![1])),
        "[00:00:00.000000001]"
    );
    let naive = TimestampMillisecondArray::from(vec![1_709_214_300_000]);
    assert_eq!(shown(&naive), "[2024-02-29T13:45:00]");
    let utc = naive
        .clone()
        .with_data_type(DataType::Timestamp(
            TimeUnit::Millisecond,
            Some("UTC".into()),
        ))
        .unwrap();
    assert_eq!(shown(&utc), "[2024-02-29T13:45:00+00:00]");
    let offset = naive
        .clone()
        .with_data_type(DataType::Timestamp(
            TimeUnit::Millisecond,
            Some("+05:30".into()),
        ))
        .unwrap();
    assert_eq!(shown(&offset), "[2024-02-29T19:15:00+05:30]");
    let summer = TimestampSecondArray::from(vec![1_719_835_200])
        .with_data_type(DataType::Timestamp(
            TimeUnit::Second,
            Some("America/New_York".into()),
        ))
        .unwrap();
    assert_eq!(shown(&summer), "[2024-07-01T08:00:00-04:00]");
    let unknown = naive
        .with_data_type(DataType::Timestamp(
            TimeUnit::Millisecond,
            Some("Mars/Olympus".into()),
        ))
        .unwrap();
    assert_eq!(shown(&unknown), "[2024-02-29T13:45:00Z [Mars/Olympus]]");
    assert_eq!(
        shown(&DurationMillisecondArray::from(vec![1500, -60_000])),
        "[PT1.5S, -PT1M]"
    );
    assert_eq!(
        shown(&IntervalYearMonthArray::from(vec![14])),
        "[14 months]"
    );
    assert_eq!(
        shown(&IntervalDayTimeArray::from(vec![IntervalDayTime::new(
            1, 2
        )])),
        "[1 days 2 ms]"
    );
    assert_eq!(
        shown(&IntervalMonthDayNanoArray::from(vec![
            IntervalMonthDayNano::new(1, 2, 3)
        ])),
        "[1 months 2 days 3 ns]"
    );
}

#[test]
fn values_outside_the_calendar_print_raw() {
    assert_eq!(
        shown(&TimestampSecondArray::from(vec![i64::MAX])),
        format!("[{}s]", i64::MAX)
    );
    assert_eq!(
        shown(&Time32SecondArray::from(vec![-1, 86_400])),
        "[-1s, 86400s]"
    );
    assert_eq!(
        shown(&Date32Array::from(vec![i32::MAX])),
        format!("[{}s (days)]", i64::from(i32::MAX) * 86_400)
    );
    assert_eq!(
        shown(&DurationNanosecondArray::from(vec![i64::MIN])),
        "[-PT2562047H47M16.854775808S]"
    );
}

#[test]
fn nested_values() {
    let mut lists = GenericListBuilder::<i32, _>::new(Int32Array::builder(0));
    lists.values().append_slice(&[1, 2]);
    lists.append(true);
    lists.append(false);
    lists.values().append_null();
    lists.append(true);
    assert_eq!(shown(&lists.finish().unwrap()), "[[1, 2], null, [null]]");

    let fields = vec![
        Field::new("a", DataType::Int32, true),
        Field::new("b", DataType::Utf8, true),
    ];
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(vec![1, 2])),
        Arc::new(StringArray::from(vec![Some("x"), None])),
    ];
    let structs =
        StructArray::try_new(fields.into(), columns, Some(vec![true, false].into())).unwrap();
    assert_eq!(shown(&structs), "[{a: 1, b: x}, null]");

    let mut maps = MapBuilder::new(StringArray::builder(0, 0), Int32Array::builder(0));
    maps.keys().append_value("k");
    maps.values().append_value(7);
    maps.append(true).unwrap();
    assert_eq!(shown(&maps.finish().unwrap()), "[{k: 7}]");

    let union_type = UnionType::try_new(
        vec![
            Field::new("i", DataType::Int32, true),
            Field::new("s", DataType::Utf8, true),
        ],
        [0, 1],
        UnionMode::Dense,
    )
    .unwrap();
    let children: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(vec![Some(5), None])),
        Arc::new(StringArray::from(vec!["x"])),
    ];
    let union = UnionArray::try_new(
        union_type,
        vec![0, 1, 0].into(),
        Some(vec![0, 0, 1].into()),
        children,
    )
    .unwrap();
    assert_eq!(shown(&union), "[{i=5}, {s=x}, {i=null}]");

    let mut dictionary = GenericByteDictionaryBuilder::<Int8Type, GenericStringType<i32>>::new();
    dictionary.append("red").unwrap();
    dictionary.append_null();
    dictionary.append("red").unwrap();
    assert_eq!(shown(&dictionary.finish()), "[red, null, red]");

    let mut runs = StringRunBuilder::<Int16Type, i32>::new();
    for v in [Some("a"), Some("a"), None, Some("b")] {
        runs.append_option(v);
    }
    let runs = runs.finish();
    assert_eq!(shown(&runs), "[a, a, null, b]");
    assert_eq!(shown(&runs.slice_typed(1, 2)), "[a, null]");

    let mut fixed = FixedSizeListBuilder::new(Int8Array::builder(0), 2);
    fixed.values().append_slice(&[1, 2]);
    fixed.append(true).unwrap();
    assert_eq!(shown(&fixed.finish().unwrap()), "[[1, 2]]");

    let field = Arc::new(Field::new("item", DataType::Int32, true));
    let views = ListViewArray::try_new(
        field,
        vec![1, 0].into(),
        vec![1, 2].into(),
        Arc::new(Int32Array::from(vec![8, 9])),
        None,
    )
    .unwrap();
    assert_eq!(shown(&views), "[[9], [8, 9]]");
}

#[test]
fn long_arrays_are_cut_and_single_values_formatted() {
    let long = Int32Array::from((0..150).collect::<Vec<i32>>());
    assert!(shown(&long).ends_with(", 99, … and 50 more]"));
    assert_eq!(format_value(&long, 149), "149");
}

#[test]
fn tables_escape_line_breaks_and_count_what_is_left_out() {
    let schema = Arc::new(Schema::new(vec![
        Field::new("text", DataType::Utf8, true),
        Field::new("n", DataType::Int64, true),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(StringArray::from(vec![Some("two\nlines"), None])),
            Arc::new(Int64Array::from(vec![10, 200])),
        ],
    )
    .unwrap();
    let table = pretty_format_batches(&[batch.clone(), batch], None);
    assert_eq!(
        table,
        "+------------+-----+\n\
         | text       | n   |\n\
         +------------+-----+\n\
         | two\\nlines | 10  |\n\
         | null       | 200 |\n\
         | two\\nlines | 10  |\n\
         | null       | 200 |\n\
         +------------+-----+"
    );
    assert_eq!(pretty_format_batches(&[], None), "");
    let empty = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(StringArray::from(Vec::<&str>::new())),
            Arc::new(Int64Array::from(Vec::<i64>::new())),
        ],
    )
    .unwrap();
    assert_eq!(
        pretty_format_batches(&[empty], Some(5)),
        "+------+---+\n| text | n |\n+------+---+\n+------+---+"
    );
}
