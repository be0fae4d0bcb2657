//! Proptest strategies for random data types, fields and schemas (feature `proptest`).
//!
//! Every data type of the format can come out, nested up to three levels, with awkward field
//! names (quotes, control characters, non-ASCII, empty) and metadata. Other crates' property
//! tests (IPC round trips, kernels) build on these.

use std::sync::Arc;

use proptest::prelude::*;

use crate::{
    DataType, DecimalType, DecimalWidth, Field, Fields, IntegerType, IntervalUnit, MapType,
    Metadata, RunEndEncodedType, RunEndType, Schema, TimeUnit, UnionMode, UnionType,
};

/// A field name: usually a plain identifier, sometimes any string at all.
pub fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z_][a-z0-9_]{0,8}",
        1 => any::<String>(),
    ]
}

/// Metadata of up to three pairs of arbitrary strings, mostly empty.
pub fn metadata() -> impl Strategy<Value = Metadata> {
    prop_oneof![
        3 => Just(Metadata::new()),
        1 => proptest::collection::vec((any::<String>(), any::<String>()), 1..3)
            .prop_map(Metadata::from_iter),
    ]
}

fn time_unit() -> impl Strategy<Value = TimeUnit> {
    proptest::sample::select(TimeUnit::ALL.to_vec())
}

fn integer_type() -> impl Strategy<Value = IntegerType> {
    proptest::sample::select(IntegerType::ALL.to_vec())
}

fn decimal() -> impl Strategy<Value = DataType> {
    let widths = [
        DecimalWidth::W32,
        DecimalWidth::W64,
        DecimalWidth::W128,
        DecimalWidth::W256,
    ];
    (proptest::sample::select(widths.to_vec()), any::<i8>()).prop_flat_map(|(width, scale)| {
        (1..=width.max_precision()).prop_map(move |precision| {
            let decimal = DecimalType::try_new(width, precision, scale);
            DataType::Decimal(decimal.expect("precision drawn within the width's bounds"))
        })
    })
}

/// Every data type without children.
pub fn leaf_type() -> impl Strategy<Value = DataType> {
    let timezone = prop_oneof![
        Just(None),
        Just(Some(Arc::<str>::from("UTC"))),
        Just(Some(Arc::<str>::from("Europe/Paris"))),
        Just(Some(Arc::<str>::from("-07:30"))),
        any::<String>().prop_map(|tz| Some(Arc::from(tz))),
    ];
    prop_oneof![
        Just(DataType::Null),
        Just(DataType::Boolean),
        integer_type().prop_map(IntegerType::to_data_type),
        Just(DataType::Float16),
        Just(DataType::Float32),
        Just(DataType::Float64),
        decimal(),
        Just(DataType::Date32),
        Just(DataType::Date64),
        time_unit().prop_map(DataType::Time),
        (time_unit(), timezone).prop_map(|(unit, tz)| DataType::Timestamp(unit, tz)),
        time_unit().prop_map(DataType::Duration),
        proptest::sample::select(vec![
            IntervalUnit::YearMonth,
            IntervalUnit::DayTime,
            IntervalUnit::MonthDayNano,
        ])
        .prop_map(DataType::Interval),
        (0..64i32).prop_map(DataType::FixedSizeBinary),
        Just(DataType::Binary),
        Just(DataType::Utf8),
        Just(DataType::LargeBinary),
        Just(DataType::LargeUtf8),
        Just(DataType::BinaryView),
        Just(DataType::Utf8View),
    ]
}

/// A field of a type drawn from `data_type`.
pub fn field_of(data_type: impl Strategy<Value = DataType>) -> impl Strategy<Value = Field> {
    (name(), data_type, any::<bool>(), metadata()).prop_map(
        |(name, data_type, nullable, metadata)| {
            Field::new(name, data_type, nullable).with_metadata(metadata)
        },
    )
}

/// Any data type, nested up to `depth` levels of children.
pub fn data_type_with_depth(depth: u32) -> impl Strategy<Value = DataType> {
    leaf_type().prop_recursive(depth, 64, 4, |inner| {
        let field = field_of(inner.clone()).boxed();
        let item = field.clone().prop_map(Arc::new);
        let fields = proptest::collection::vec(field.clone(), 0..4);
        prop_oneof![
            item.clone().prop_map(DataType::List),
            item.clone().prop_map(DataType::LargeList),
            item.clone().prop_map(DataType::ListView),
            item.clone().prop_map(DataType::LargeListView),
            (item.clone(), 0..5i32).prop_map(|(item, size)| DataType::FixedSizeList(item, size)),
            fields
                .clone()
                .prop_map(|fields| DataType::Struct(Fields::from(fields))),
            (
                field.clone(),
                field.clone(),
                name(),
                any::<bool>(),
                any::<bool>()
            )
                .prop_map(|(key, value, entries_name, entries_nullable, sorted)| {
                    let entries = Field::new(
                        entries_name,
                        DataType::Struct(Fields::from(vec![key.with_nullable(false), value])),
                        entries_nullable,
                    );
                    DataType::Map(MapType::try_new(entries, sorted).expect("a non-nullable key"))
                }),
            (
                fields,
                proptest::sample::subsequence((0..128).collect::<Vec<i32>>(), 4),
                any::<bool>()
            )
                .prop_flat_map(|(fields, ids, dense)| {
                    let count = fields.len();
                    let mode = if dense {
                        UnionMode::Dense
                    } else {
                        UnionMode::Sparse
                    };
                    Just(fields).prop_shuffle().prop_map(move |fields| {
                        let union = UnionType::try_new(fields, ids[..count].iter().copied(), mode);
                        DataType::Union(union.expect("distinct ids in range"))
                    })
                }),
            (integer_type(), inner.clone(), any::<bool>()).prop_map(|(key, value, ordered)| {
                DataType::Dictionary {
                    key,
                    value: Box::new(value),
                    ordered,
                }
            }),
            (
                proptest::sample::select(vec![
                    RunEndType::Int16,
                    RunEndType::Int32,
                    RunEndType::Int64
                ]),
                field
            )
                .prop_map(|(run_end_type, values)| {
                    DataType::RunEndEncoded(RunEndEncodedType::new(run_end_type, values))
                }),
        ]
    })
}

/// Any data type, nested up to three levels.
pub fn data_type() -> impl Strategy<Value = DataType> {
    data_type_with_depth(3)
}

/// A field of any data type.
pub fn field() -> impl Strategy<Value = Field> {
    field_of(data_type())
}

/// A schema of up to `max_fields` fields of any types, with metadata.
pub fn schema(max_fields: usize) -> impl Strategy<Value = Schema> {
    (
        proptest::collection::vec(field(), 0..=max_fields),
        metadata(),
    )
        .prop_map(|(fields, metadata)| Schema::new(fields).with_metadata(metadata))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        #[test]
        fn text_round_trips_for_every_type(data_type in data_type()) {
            let text = data_type.to_string();
            let parsed: DataType = text.parse().map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
            prop_assert_eq!(&parsed, &data_type, "{}", text);
            prop_assert!(data_type.validate().is_ok());
            // Three levels of recursion; a map spends two field levels (entries, key/value).
            prop_assert!(data_type.nesting_depth() <= 6);
            prop_assert!(data_type.eq_ignoring_metadata(&parsed));
        }

        #[test]
        fn fields_round_trip_with_names_and_metadata(field in field()) {
            let parsed: Field = field.to_string().parse().map_err(|e| TestCaseError::fail(format!("{field}: {e}")))?;
            prop_assert_eq!(parsed, field);
        }

        #[test]
        fn a_schema_merges_with_itself_and_its_projection(schema in schema(5)) {
            // Only meaningful for schemas whose names are unique.
            let names: std::collections::HashSet<_> = schema.fields().iter().map(|f| f.name()).collect();
            prop_assume!(names.len() == schema.fields().len());
            prop_assert_eq!(&schema.merge(&schema).unwrap(), &schema);
            let reversed: Vec<usize> = (0..schema.fields().len()).rev().collect();
            let merged = schema.merge(&schema.project(&reversed).unwrap()).unwrap();
            prop_assert_eq!(merged.fields(), schema.fields());
        }
    }
}
