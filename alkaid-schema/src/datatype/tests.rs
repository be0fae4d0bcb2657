//! Unit tests of data types: every constructor error, the notation, the physical mapping and
//! the classification queries.

use std::sync::Arc;

use super::*;
use crate::{Field, Fields, Metadata};

fn parse(text: &str) -> DataType {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn parse_error(text: &str) -> String {
    text.parse::<DataType>().unwrap_err().to_string()
}

#[test]
fn decimal_precision_is_bounded_per_width() {
    for (bits, max) in [(32, 9), (64, 18), (128, 38), (256, 76)] {
        assert!(DataType::decimal(bits, max, 0).is_ok());
        assert!(DataType::decimal(bits, max + 1, 0).is_err());
        assert!(DataType::decimal(bits, 0, 0).is_err());
    }
    assert_eq!(
        DataType::decimal(32, 10, 2).unwrap_err().to_string(),
        "invalid Decimal32 type: expected a precision from 1 to 9, found 10"
    );
    assert!(DataType::decimal(48, 5, 0).is_err());
    assert!(
        DataType::decimal(128, 5, -3).is_ok(),
        "negative scales are allowed"
    );
}

#[test]
fn time_units_are_checked_per_width() {
    assert!(DataType::time32(TimeUnit::Second).is_ok());
    assert!(DataType::time32(TimeUnit::Millisecond).is_ok());
    assert_eq!(
        DataType::time32(TimeUnit::Nanosecond)
            .unwrap_err()
            .to_string(),
        "invalid Time32 type: expected s or ms, found ns"
    );
    assert!(DataType::time64(TimeUnit::Microsecond).is_ok());
    assert!(DataType::time64(TimeUnit::Second).is_err());
    assert_eq!(
        parse_error("Time32(us)"),
        "invalid Time32 type: expected s or ms, found us"
    );
}

#[test]
fn map_entries_must_be_two_fields_with_a_non_nullable_key() {
    let pair = |nullable_key| {
        DataType::Struct(Fields::from(vec![
            Field::new("key", DataType::Utf8, nullable_key),
            Field::new("value", DataType::Int32, true),
        ]))
    };
    assert!(MapType::try_new(Field::new("entries", pair(false), false), false).is_ok());
    assert!(MapType::try_new(Field::new("entries", pair(true), false), false).is_err());
    let three = DataType::Struct(Fields::from(vec![
        Field::new("k", DataType::Utf8, false),
        Field::new("v", DataType::Utf8, true),
        Field::new("w", DataType::Utf8, true),
    ]));
    assert_eq!(
        MapType::try_new(Field::new("entries", three, false), false)
            .unwrap_err()
            .to_string(),
        "invalid Map type: expected 2 entry fields (key and value), found 3"
    );
    assert_eq!(
        MapType::try_new(Field::new("entries", DataType::Int32, false), true)
            .unwrap_err()
            .to_string(),
        "invalid Map type: expected a struct of key and value as entries, found Int32"
    );
}

#[test]
fn union_type_ids_are_unique_counted_and_in_range() {
    let fields = || {
        vec![
            Field::new("a", DataType::Int8, true),
            Field::new("b", DataType::Utf8, true),
        ]
    };
    assert!(UnionType::try_new(fields(), [0, 127], UnionMode::Sparse).is_ok());
    assert_eq!(
        UnionType::try_new(fields(), [3, 3], UnionMode::Dense)
            .unwrap_err()
            .to_string(),
        "invalid Union type: type id 3 appears twice"
    );
    assert!(UnionType::try_new(fields(), [0, 128], UnionMode::Dense).is_err());
    assert!(UnionType::try_new(fields(), [-1, 2], UnionMode::Dense).is_err());
    assert!(UnionType::try_new(fields(), [0], UnionMode::Dense).is_err());
    let many: Vec<Field> = (0..129)
        .map(|i| Field::new(format!("f{i}"), DataType::Int8, true))
        .collect();
    assert!(UnionType::with_default_ids(many, UnionMode::Sparse).is_err());
    let union = UnionType::with_default_ids(fields(), UnionMode::Sparse).unwrap();
    assert_eq!(union.type_ids(), &[0, 1]);
    assert_eq!(union.child_index(1), Some(1));
    assert_eq!(union.field_for_type_id(2), None);
}

#[test]
fn run_ends_must_be_non_nullable_16_32_or_64_bit() {
    let values = Field::new("values", DataType::Utf8, true);
    for (data_type, ok) in [
        (DataType::Int8, false),
        (DataType::Int16, true),
        (DataType::Int32, true),
        (DataType::Int64, true),
        (DataType::UInt32, false),
    ] {
        let run_ends = Field::new("run_ends", data_type, false);
        assert_eq!(
            RunEndEncodedType::try_new(run_ends, values.clone()).is_ok(),
            ok
        );
    }
    assert_eq!(
        RunEndEncodedType::try_new(Field::new("run_ends", DataType::Int32, true), values)
            .unwrap_err()
            .to_string(),
        "invalid RunEndEncoded type: expected a non-nullable run ends field, found a nullable one"
    );
}

#[test]
fn dictionary_keys_must_be_integers_in_text_too() {
    assert_eq!(
        parse_error("Dictionary(Float32, Utf8)"),
        "at byte 11: expected an integer key type, found \"Float32, Utf\""
    );
    assert_eq!(
        parse("Dictionary(UInt64, Utf8, ordered)"),
        DataType::Dictionary {
            key: IntegerType::UInt64,
            value: Box::new(DataType::Utf8),
            ordered: true
        }
    );
}

#[test]
fn negative_fixed_sizes_are_rejected() {
    assert!(DataType::FixedSizeBinary(-1).validate().is_err());
    assert!(DataType::fixed_size_list(DataType::Int8, -2).is_err());
    let nested = DataType::list(DataType::Struct(Fields::from(vec![Field::new(
        "bad",
        DataType::FixedSizeBinary(-4),
        true,
    )])));
    assert_eq!(
        nested.validate().unwrap_err().to_string(),
        "invalid FixedSizeBinary type: expected a non-negative width, found -4"
    );
    assert!(
        DataType::dictionary(IntegerType::Int8, DataType::FixedSizeBinary(-1))
            .validate()
            .is_err()
    );
    assert!(parse_error("FixedSizeBinary(-3)").contains("non-negative width"));
    // The shallow check looks at the outer type only.
    assert!(nested.validate_shallow().is_ok());
    assert!(DataType::FixedSizeBinary(-1).validate_shallow().is_err());
    assert!(
        DataType::dictionary(IntegerType::Int8, DataType::FixedSizeBinary(-1))
            .validate_shallow()
            .is_ok()
    );
}

#[test]
fn notation_of_every_kind_of_type() {
    let cases = [
        (DataType::Null, "Null"),
        (
            DataType::decimal(256, 76, -5).unwrap(),
            "Decimal256(76, -5)",
        ),
        (DataType::Time(TimeUnit::Nanosecond), "Time64(ns)"),
        (DataType::Timestamp(TimeUnit::Second, None), "Timestamp(s)"),
        (
            DataType::Timestamp(TimeUnit::Nanosecond, Some("+05:30".into())),
            "Timestamp(ns, \"+05:30\")",
        ),
        (DataType::Duration(TimeUnit::Microsecond), "Duration(us)"),
        (
            DataType::Interval(IntervalUnit::MonthDayNano),
            "Interval(MonthDayNano)",
        ),
        (DataType::FixedSizeBinary(16), "FixedSizeBinary(16)"),
        (
            DataType::fixed_size_list(DataType::Float32, 3).unwrap(),
            "FixedSizeList(3, item: Float32)",
        ),
        (
            DataType::LargeListView(Arc::new(Field::new("x", DataType::Utf8View, false))),
            "LargeListView(x: Utf8View not null)",
        ),
        (DataType::Struct(Fields::empty()), "Struct()"),
        (
            DataType::map(DataType::Utf8, DataType::Int32, true),
            "Map(entries: Struct(key: Utf8 not null, value: Int32) not null, sorted)",
        ),
        (
            DataType::RunEndEncoded(RunEndEncodedType::new(
                RunEndType::Int16,
                Field::new("values", DataType::Boolean, true),
            )),
            "RunEndEncoded(run_ends: Int16 not null, values: Boolean)",
        ),
    ];
    for (data_type, text) in cases {
        assert_eq!(data_type.to_string(), text);
        assert_eq!(parse(text), data_type, "{text}");
    }
    let union = DataType::Union(
        UnionType::try_new(
            vec![
                Field::new("a", DataType::Int32, true),
                Field::new("b c", DataType::Utf8, true),
            ],
            [0, 5],
            UnionMode::Dense,
        )
        .unwrap(),
    );
    assert_eq!(
        union.to_string(),
        "Union(Dense, 0 => a: Int32, 5 => \"b c\": Utf8)"
    );
    assert_eq!(
        parse("Union(Sparse)"),
        DataType::Union(UnionType::try_new(Vec::<Field>::new(), [], UnionMode::Sparse).unwrap())
    );
}

#[test]
fn odd_names_and_metadata_are_quoted_and_escaped() {
    let field = Field::new("a \"quoted\"\tname\u{1}", DataType::Int8, true).with_metadata(
        Metadata::from_iter([("k\\", "line\nbreak"), ("emoji", "🦀")]),
    );
    let data_type = DataType::Struct(Fields::from(vec![field]));
    let text = data_type.to_string();
    assert_eq!(
        text,
        r#"Struct("a \"quoted\"\tname\u{1}": Int8 {"k\\": "line\nbreak", "emoji": "🦀"})"#
    );
    assert_eq!(parse(&text), data_type);
    assert_eq!(
        parse(" Struct ( \"\" : Int8 not  null , _x9: Null { } ) "),
        parse("Struct(\"\": Int8 not null, _x9: Null)")
    );
}

#[test]
fn parse_errors_name_the_position() {
    assert_eq!(
        parse_error("Int33"),
        "at byte 0: expected a data type, found \"Int33\""
    );
    assert_eq!(
        parse_error("List(item Int8)"),
        "at byte 10: expected \":\", found \"Int8)\""
    );
    assert_eq!(
        parse_error("Int8 x"),
        "at byte 5: expected the end of the type, found \"x\""
    );
    assert_eq!(
        parse_error("Timestamp(hours)"),
        "at byte 10: expected a time unit: s, ms, us or ns, found \"hours)\""
    );
    assert_eq!(
        parse_error("Decimal128(10, 300)"),
        "at byte 15: expected a scale from -128 to 127, found \"300)\""
    );
    assert_eq!(
        parse_error("Struct(a: Int8 not nul)"),
        "at byte 19: expected \"null\" after \"not\", found \"nul)\""
    );
    assert_eq!(
        parse_error(r#"Struct(a: Int8 {"k": "v", "k": "w"})"#),
        "at byte 34: expected each key once, but \"k\" repeats, found \"})\""
    );
    assert_eq!(
        parse_error(r#"Struct("a\q": Int8)"#),
        "at byte 9: expected an escape: \\\" \\\\ \\n \\r \\t \\u{…}, found \"\\\\q\\\": Int8)\""
    );
    assert_eq!(
        parse_error(r#"Struct("a\u{110000}": Int8)"#),
        "at byte 9: expected a unicode escape \\u{hex}, found \"\\\\u{110000}\\\":\""
    );
    assert_eq!(
        parse_error("Struct(\"open"),
        "at byte 7: expected a closing '\"', found \"\\\"open\""
    );
    assert_eq!(
        parse_error(""),
        "at byte 0: expected a name, found the end of the text"
    );
    assert_eq!(
        parse_error("Map(entries: Struct(key: Utf8, value: Int8) not null)"),
        "invalid Map type: expected a non-nullable key field, found nullable field \"key\""
    );
    assert_eq!(
        parse_error("Union(Dense, 1 => a: Int8, 1 => b: Int8)"),
        "invalid Union type: type id 1 appears twice"
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let depth = MAX_PARSE_DEPTH - 1;
    let ok = format!("{}Int8{}", "List(item: ".repeat(depth), ")".repeat(depth));
    assert_eq!(parse(&ok).nesting_depth(), depth);
    let too_deep = format!(
        "{}Int8{}",
        "List(item: ".repeat(100_000),
        ")".repeat(100_000)
    );
    assert!(parse_error(&too_deep).contains("expected at most 64 levels of nesting"));
}

#[test]
fn physical_types_collapse_logical_ones() {
    use NativeKind as P;
    let cases = [
        ("Date64", PhysicalType::Primitive(P::Int64)),
        ("Timestamp(ns, \"UTC\")", PhysicalType::Primitive(P::Int64)),
        ("Interval(YearMonth)", PhysicalType::Primitive(P::Int32)),
        ("Interval(DayTime)", PhysicalType::Primitive(P::DayTime)),
        ("Decimal32(9, 2)", PhysicalType::Primitive(P::Int32)),
        ("Decimal256(40, 2)", PhysicalType::Primitive(P::Int256)),
        ("LargeUtf8", PhysicalType::LargeBinary),
        ("Utf8View", PhysicalType::BinaryView),
        (
            "Map(e: Struct(k: Int8 not null, v: Int8) not null)",
            PhysicalType::List,
        ),
        ("Union(Dense)", PhysicalType::DenseUnion),
        (
            "Dictionary(UInt16, Utf8)",
            PhysicalType::Dictionary(IntegerType::UInt16),
        ),
        (
            "RunEndEncoded(r: Int64 not null, v: Int8)",
            PhysicalType::RunEndEncoded(RunEndType::Int64),
        ),
    ];
    for (text, physical) in cases {
        assert_eq!(parse(text).to_physical(), physical, "{text}");
    }
    assert_eq!(
        parse("Interval(MonthDayNano)").primitive_byte_width(),
        Some(16)
    );
    assert_eq!(parse("Decimal256(40, 2)").primitive_byte_width(), Some(32));
    assert_eq!(DataType::Boolean.primitive_byte_width(), None);
    assert_eq!(DataType::Utf8.primitive_byte_width(), None);
}

#[test]
fn classification_queries() {
    assert!(DataType::UInt8.is_integer() && !DataType::UInt8.is_signed_integer());
    assert!(DataType::Int64.is_signed_integer() && DataType::Int64.is_numeric());
    assert!(DataType::Float16.is_floating() && !DataType::Float16.is_integer());
    assert!(parse("Decimal64(10, 2)").is_numeric() && !DataType::Date32.is_numeric());
    assert!(DataType::Interval(IntervalUnit::DayTime).is_temporal());
    assert!(DataType::Utf8View.is_string() && DataType::BinaryView.is_binary_like());
    assert!(!DataType::FixedSizeBinary(3).is_binary_like());
    assert!(parse("Map(e: Struct(k: Int8 not null, v: Int8) not null)").is_list_like());
    assert!(DataType::Struct(Fields::empty()).is_nested() && !DataType::Utf8.is_nested());
    assert!(!parse("Dictionary(Int8, List(item: Int8))").is_nested());
    assert!(parse("Dictionary(Int8, Utf8)").is_dictionary());
    assert_eq!(
        parse("Dictionary(Int8, List(item: Int8))").nesting_depth(),
        1
    );
    assert_eq!(
        parse("Dictionary(Int8, Utf8)").dictionary_value_type(),
        Some(&DataType::Utf8)
    );
    assert_eq!(
        parse("RunEndEncoded(r: Int32 not null, v: Utf8)")
            .children()
            .len(),
        2
    );
}

#[test]
fn equality_can_ignore_child_metadata() {
    let with = parse(r#"List(item: Struct(a: Int8 {"k": "v"}))"#);
    let without = parse("List(item: Struct(a: Int8))");
    assert_ne!(with, without);
    assert!(with.eq_ignoring_metadata(&without));
    assert!(!with.eq_ignoring_metadata(&parse("List(item: Struct(a: Int16))")));
    assert!(!with.eq_ignoring_metadata(&parse("LargeList(item: Struct(a: Int8))")));
    assert!(
        !parse("FixedSizeList(2, item: Int8)")
            .eq_ignoring_metadata(&parse("FixedSizeList(3, item: Int8)"))
    );
    assert!(
        parse(r#"Dictionary(Int8, Struct(a: Int8 {"x": "y"}))"#)
            .eq_ignoring_metadata(&parse("Dictionary(Int8, Struct(a: Int8))"))
    );
    assert!(
        !parse("Union(Dense, 0 => a: Int8)")
            .eq_ignoring_metadata(&parse("Union(Sparse, 0 => a: Int8)"))
    );
    assert!(
        !parse("Map(e: Struct(k: Int8 not null, v: Int8) not null)").eq_ignoring_metadata(&parse(
            "Map(e: Struct(k: Int8 not null, v: Int8) not null, sorted)"
        ))
    );
}

#[test]
fn a_data_type_stays_three_words() {
    // Every array holds its type and is moved around by value; a variant with wide inline
    // parameters would grow them all. Unions and run-end encoded types keep theirs behind
    // one pointer for this reason.
    assert!(size_of::<DataType>() <= 3 * size_of::<usize>());
}

#[test]
fn names_can_be_ignored_but_not_types_or_nullability() {
    let ours = parse("List(item: Struct(a: Int32, b: Utf8))");
    let renamed = parse("List(element: Struct(x: Int32, y: Utf8))");
    assert!(ours.eq_ignoring_names(&renamed));
    assert!(!ours.eq_ignoring_metadata(&renamed), "names count there");
    let retyped = parse("List(item: Struct(a: Int64, b: Utf8))");
    assert!(!ours.eq_ignoring_names(&retyped));
    let stricter = parse("List(item: Struct(a: Int32 not null, b: Utf8))");
    assert!(!ours.eq_ignoring_names(&stricter));
    let fewer = parse("List(item: Struct(a: Int32))");
    assert!(!ours.eq_ignoring_names(&fewer));
    let dictionary = parse("Dictionary(Int8, List(item: Int32))");
    assert!(dictionary.eq_ignoring_names(&parse("Dictionary(Int8, List(v: Int32))")));
    assert!(!dictionary.eq_ignoring_names(&parse("Dictionary(Int16, List(v: Int32))")));
    assert!(!DataType::Utf8.eq_ignoring_names(&DataType::LargeUtf8));
}
