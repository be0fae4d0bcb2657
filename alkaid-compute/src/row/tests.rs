//! Row format edge cases and properties: rows compare as a lexicographic sort orders the
//! columns, for every direction and null placement; every supported type decodes back;
//! malformed rows are errors.

use std::sync::Arc;

use alkaid_array::types::Int8Type;
use alkaid_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Decimal128Array, DictionaryArray, Float64Array,
    Int8Array, Int32Array, Int64Array, LargeStringArray, NullArray, StringArray, StringViewArray,
    UInt64Array,
};
use alkaid_schema::DataType;

use super::*;
use crate::sort::{SortColumn, lexsort_to_indices};

const ALL_OPTIONS: [SortOptions; 4] = [
    SortOptions::ASCENDING,
    SortOptions::DESCENDING,
    SortOptions::ASCENDING.with_nulls_first(true),
    SortOptions::DESCENDING.with_nulls_first(false),
];

/// The order of the rows sorted by their bytes (stable), and by lexsort: equal.
fn check_order(columns: &[ArrayRef], options: &[SortOptions]) {
    let fields = columns
        .iter()
        .zip(options)
        .map(|(c, o)| SortField::new(c.data_type().clone(), *o))
        .collect();
    let converter = RowConverter::new(fields).unwrap();
    let refs: Vec<&dyn Array> = columns.iter().map(|c| c.as_ref()).collect();
    let rows = converter.convert_columns(&refs).unwrap();
    let mut by_bytes: Vec<u32> = (0..rows.len() as u32).collect();
    by_bytes.sort_by(|&a, &b| rows.row(a as usize).cmp(rows.row(b as usize)));
    let sort_columns: Vec<SortColumn<'_>> = columns
        .iter()
        .zip(options)
        .map(|(c, o)| SortColumn {
            values: c.as_ref(),
            options: *o,
        })
        .collect();
    let expected = lexsort_to_indices(&sort_columns, None).unwrap();
    assert_eq!(by_bytes, expected.values().to_vec(), "{options:?}");
    // And back: the decoded columns equal the input (compared as sorted output).
    let back = converter.convert_rows(&rows).unwrap();
    for (original, decoded) in columns.iter().zip(&back) {
        let plain = crate::cast::cast(
            original.as_ref(),
            decoded.data_type(),
            crate::cast::CastOptions::STRICT,
        )
        .unwrap();
        assert_eq!(decoded.to_data().len(), plain.len());
        let same = crate::distinct(&plain, decoded).unwrap();
        assert_eq!(
            same.true_count(),
            0,
            "{} decodes back",
            original.data_type()
        );
    }
}

#[test]
fn rows_order_as_lexsort_for_every_type_and_option() {
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(vec![
            Some(3),
            None,
            Some(-1),
            Some(3),
            Some(i64::MIN),
            Some(0),
        ])),
        Arc::new(StringArray::from(vec![
            Some("b"),
            Some(""),
            None,
            Some("b\0"),
            Some("a"),
            Some("b"),
        ])),
        Arc::new(Float64Array::from(vec![
            Some(f64::NAN),
            Some(-0.0),
            Some(0.0),
            None,
            Some(-1.0),
            Some(f64::INFINITY),
        ])),
        Arc::new(BooleanArray::from(vec![
            Some(true),
            None,
            Some(false),
            Some(true),
            Some(false),
            None,
        ])),
        Arc::new(UInt64Array::from(vec![u64::MAX, 0, 1, u64::MAX, 5, 5])),
        Arc::new(
            Decimal128Array::from(vec![
                Some(i128::MAX),
                Some(-5),
                None,
                Some(0),
                Some(i128::MIN),
                Some(7),
            ])
            .with_data_type(DataType::decimal(128, 38, 4).unwrap())
            .unwrap(),
        ),
        Arc::new(BinaryArray::from_iter([
            Some(&b"\0"[..]),
            Some(b""),
            Some(b"\0\0"),
            None,
            Some(b"\xff"),
            Some(b"\0\x01"),
        ])),
        Arc::new(StringViewArray::from_iter([
            Some("a long value past twelve bytes"),
            Some("a long value past twelve"),
            None,
            Some("x"),
            Some(""),
            Some("a"),
        ])),
        Arc::new(LargeStringArray::from(vec![
            Some("é"),
            Some("e"),
            Some("f"),
            None,
            Some("é"),
            Some(""),
        ])),
        Arc::new(NullArray::new(6)),
    ];
    for column in &columns {
        for options in ALL_OPTIONS {
            check_order(std::slice::from_ref(column), &[options]);
        }
    }
    // Pairs: ties in the first column are broken by the second.
    for options in ALL_OPTIONS {
        check_order(
            &[columns[3].clone(), columns[1].clone()],
            &[options, SortOptions::ASCENDING],
        );
        check_order(
            &[columns[4].clone(), columns[0].clone(), columns[7].clone()],
            &[SortOptions::DESCENDING, options, options],
        );
    }
}

#[test]
fn dictionaries_encode_by_value_and_decode_as_values() {
    let values: ArrayRef = Arc::new(StringArray::from(vec![
        Some("b"),
        Some("a"),
        Some("b"),
        None,
    ]));
    let keyed = DictionaryArray::<Int8Type>::try_new(
        Int8Array::from(vec![Some(0), Some(1), Some(2), None, Some(3)]),
        values,
    )
    .unwrap();
    let converter = RowConverter::new(vec![SortField::new(
        keyed.data_type().clone(),
        SortOptions::ASCENDING,
    )])
    .unwrap();
    let rows = converter.convert_columns(&[&keyed]).unwrap();
    assert_eq!(rows.row(0), rows.row(2), "equal values, different entries");
    assert!(rows.row(1) < rows.row(0));
    assert_eq!(rows.row(3), rows.row(4), "both null");
    let back = converter.convert_rows(&rows).unwrap();
    assert_eq!(back[0].data_type(), &DataType::Utf8);
    assert_eq!(back[0].null_count(), 2);
}

#[test]
fn empty_inputs_and_mismatches() {
    let converter = RowConverter::new(vec![SortField::new(
        DataType::Int32,
        SortOptions::ASCENDING,
    )])
    .unwrap();
    let rows = converter
        .convert_columns(&[&Int32Array::from(Vec::<i32>::new())])
        .unwrap();
    assert!(rows.is_empty());
    assert_eq!(converter.convert_rows(&rows).unwrap()[0].len(), 0);
    assert!(
        converter
            .convert_columns(&[&Int64Array::from(vec![1])])
            .is_err()
    );
    assert!(converter.convert_columns(&[]).is_err());
    let nested = DataType::List(Arc::new(alkaid_schema::Field::new(
        "item",
        DataType::Int32,
        true,
    )));
    assert!(matches!(
        RowConverter::new(vec![SortField::new(nested, SortOptions::ASCENDING)]),
        Err(ComputeError::Unsupported { .. })
    ));
}

#[test]
fn malformed_rows_are_errors() {
    let converter = RowConverter::new(vec![
        SortField::new(DataType::Utf8, SortOptions::ASCENDING),
        SortField::new(DataType::Int32, SortOptions::ASCENDING),
    ])
    .unwrap();
    for bytes in [
        &b""[..],
        b"\x07",
        b"\x01ab",
        b"\x01a\0\x01\x01\0\0",
        b"\x01\xff\xfe\0\x01\x01\0\0\0\0",
    ] {
        let rows = Rows {
            data: bytes.to_vec(),
            offsets: vec![0, bytes.len()],
        };
        assert!(converter.convert_rows(&rows).is_err(), "{bytes:?}");
    }
}
