//! Types, fields and schemas through the bridge.

use alkaid_schema::{DataType, Field, Schema, arbitrary};
use proptest::prelude::*;

use super::arrow_schema;
use super::bridge::{
    data_type_from_arrow, data_type_to_arrow, field_from_arrow, field_to_arrow, schema_from_arrow,
    schema_to_arrow,
};
use super::common::dictionary_of_dictionary;

fn parse(text: &str) -> DataType {
    text.parse().expect("a type")
}

#[test]
fn named_types_map_to_their_arrow_rs_twins() {
    use arrow_schema::{DataType as A, TimeUnit as U};
    let cases = [
        ("Time32(s)", A::Time32(U::Second)),
        ("Time32(ms)", A::Time32(U::Millisecond)),
        ("Time64(us)", A::Time64(U::Microsecond)),
        ("Time64(ns)", A::Time64(U::Nanosecond)),
        ("Decimal32(9, 2)", A::Decimal32(9, 2)),
        ("Decimal256(76, -3)", A::Decimal256(76, -3)),
        (
            "Timestamp(us, \"Europe/Paris\")",
            A::Timestamp(U::Microsecond, Some("Europe/Paris".into())),
        ),
        (
            "Dictionary(Int8, Utf8View)",
            A::Dictionary(Box::new(A::Int8), Box::new(A::Utf8View)),
        ),
    ];
    for (text, theirs) in cases {
        let ours = parse(text);
        assert_eq!(data_type_to_arrow(&ours), theirs, "{text}");
        assert_eq!(data_type_from_arrow(&theirs).unwrap(), ours, "{text}");
    }
}

#[test]
fn what_the_format_forbids_is_an_error_naming_it() {
    use arrow_schema::{DataType as A, Field as F, TimeUnit as U};
    use std::sync::Arc;
    let cases = [
        (A::Time32(U::Microsecond), "Time32(µs)"),
        (A::Time64(U::Second), "Time64(s)"),
        (A::Decimal32(10, 0), "Decimal32"),
        (A::Decimal128(0, 0), "Decimal128"),
        (
            A::Dictionary(Box::new(A::Utf8), Box::new(A::Utf8)),
            "integer key",
        ),
        (
            A::RunEndEncoded(
                Arc::new(F::new("r", A::UInt32, false)),
                Arc::new(F::new("v", A::Utf8, true)),
            ),
            "run ends",
        ),
        (A::Map(Arc::new(F::new("e", A::Int32, false)), false), "Map"),
    ];
    for (theirs, named) in cases {
        let error = data_type_from_arrow(&theirs).unwrap_err().to_string();
        assert!(error.contains(named), "{theirs}: {error}");
    }
}

#[test]
fn ordered_dictionaries_keep_the_flag_on_their_field() {
    let field = Field::new(
        "d",
        DataType::Dictionary {
            key: alkaid_schema::IntegerType::UInt16,
            value: Box::new(DataType::Utf8),
            ordered: true,
        },
        false,
    );
    let theirs = field_to_arrow(&field);
    assert_eq!(theirs.dict_is_ordered(), Some(true));
    assert_eq!(field_from_arrow(&theirs).unwrap(), field);
    // A bare type has no place for the flag.
    assert!(matches!(
        data_type_from_arrow(theirs.data_type()).unwrap(),
        DataType::Dictionary { ordered: false, .. }
    ));
}

#[test]
fn metadata_crosses_on_fields_and_schemas() {
    let field = Field::new("x", DataType::Int32, true)
        .with_metadata_entry("ARROW:extension:name", "myorg.thing")
        .with_metadata_entry("unit", "m");
    let schema =
        Schema::new(vec![field]).with_metadata([("origin", "alkaid")].into_iter().collect());
    let theirs = schema_to_arrow(&schema);
    assert_eq!(
        theirs.metadata().get("origin").map(String::as_str),
        Some("alkaid")
    );
    assert_eq!(
        theirs
            .field(0)
            .metadata()
            .get("ARROW:extension:name")
            .map(String::as_str),
        Some("myorg.thing")
    );
    assert_eq!(schema_from_arrow(&theirs).unwrap(), schema);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn fields_travel_both_ways_unchanged(field in arbitrary::field()) {
        // The ordered flag of a dictionary whose values are a dictionary has no field to
        // ride on in arrow-rs.
        prop_assume!(!dictionary_of_dictionary(field.data_type()));
        let theirs = field_to_arrow(&field);
        prop_assert_eq!(field_from_arrow(&theirs).unwrap(), field.clone());
        // And arrow-rs's type of the way back is the one it was given.
        prop_assert_eq!(data_type_to_arrow(&data_type_from_arrow(theirs.data_type()).unwrap()), theirs.data_type().clone());
    }

    #[test]
    fn schemas_travel_both_ways_unchanged(schema in arbitrary::schema(6)) {
        prop_assume!(!schema.fields().iter().any(|f| dictionary_of_dictionary(f.data_type())));
        prop_assert_eq!(schema_from_arrow(&schema_to_arrow(&schema)).unwrap(), schema);
    }
}
