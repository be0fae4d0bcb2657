//! The dynamic builder: for every data type, a builder whose arrays have exactly that type.

use alkaid_array::{ArrayBuilder, make_builder};
use alkaid_schema::DataType;
use proptest::prelude::*;

/// Whether the type contains a union without children: such a union holds no slot at all, so
/// its builder can only make empty arrays (appending panics, as documented).
fn has_empty_union(data_type: &DataType) -> bool {
    matches!(data_type, DataType::Union(u) if u.fields().is_empty())
        || data_type
            .dictionary_value_type()
            .is_some_and(has_empty_union)
        || data_type
            .children()
            .iter()
            .any(|f| has_empty_union(f.data_type()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn builders_from_any_type_make_arrays_of_exactly_that_type(
        data_type in alkaid_schema::arbitrary::data_type_with_depth(2),
        nulls in 0usize..5,
    ) {
        match make_builder(&data_type, nulls) {
            Err(error) => prop_assert!(false, "{data_type}: {error}"),
            Ok(mut builder) => {
                let nulls = if has_empty_union(&data_type) { 0 } else { nulls };
                for _ in 0..nulls {
                    builder.append_null();
                }
                prop_assert_eq!(builder.len(), nulls);
                let array = builder.try_finish().map_err(|e| TestCaseError::fail(format!("{data_type}: {e}")))?;
                prop_assert_eq!(array.data_type(), &data_type);
                prop_assert_eq!(array.len(), nulls);
                prop_assert!(array.to_data().validate(alkaid_data::ValidationLevel::Full).is_ok());
                // The builder is empty again and can be reused.
                prop_assert_eq!(builder.try_finish().map_err(|e| TestCaseError::fail(e.to_string()))?.len(), 0);
            }
        }
    }
}

#[test]
fn typed_methods_are_reached_through_any() {
    use alkaid_array::types::TimestampMillisecondType;
    use alkaid_array::{PrimitiveBuilder, StructBuilder};
    let data_type: DataType = r#"Struct(t: Timestamp(ms, "UTC") not null {"k": "v"})"#
        .parse()
        .unwrap();
    let mut builder = make_builder(&data_type, 1).unwrap();
    let structs = builder
        .as_any_mut()
        .downcast_mut::<StructBuilder>()
        .unwrap();
    structs
        .field_builder::<PrimitiveBuilder<TimestampMillisecondType>>(0)
        .unwrap()
        .append_value(1);
    structs.append(true);
    let array = builder.try_finish().unwrap();
    assert_eq!(array.data_type(), &data_type);
    assert_eq!(array.to_string(), "[{t: 1970-01-01T00:00:00.001+00:00}]");
}
