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

fn field(name: &str, data_type: DataType) -> FieldRef {
    Arc::new(alkaid_schema::Field::new(name, data_type, true))
}

fn int_list(lengths: &[usize], items: Vec<Option<i32>>, valid: Vec<bool>) -> ArrayRef {
    Arc::new(
        alkaid_array::ListArray::try_new(
            field("item", DataType::Int32),
            alkaid_buffer::OffsetBuffer::from_lengths(lengths.iter().copied()),
            Arc::new(Int32Array::from(items)),
            Some(valid.into()),
        )
        .unwrap(),
    )
}

/// Nested columns of every kind, with rows that tie, prefixes, nulls at each level and
/// null rows whose children hold values (which must not count).
fn nested_columns() -> Vec<ArrayRef> {
    // [1, 2], [], null (over [9]), [1], [1, 2, null], [1, 2]
    let lists = int_list(
        &[2, 0, 1, 1, 3, 2],
        vec![
            Some(1),
            Some(2),
            Some(9),
            Some(1),
            Some(1),
            Some(2),
            None,
            Some(1),
            Some(2),
        ],
        vec![true, true, false, true, true, true],
    );
    let struct_fields = vec![
        alkaid_schema::Field::new("a", DataType::Int32, true),
        alkaid_schema::Field::new("b", DataType::Utf8, true),
    ];
    let structs: ArrayRef = Arc::new(
        alkaid_array::StructArray::try_new(
            struct_fields.clone().into(),
            vec![
                Arc::new(Int32Array::from(vec![
                    Some(1),
                    Some(1),
                    Some(5),
                    None,
                    Some(1),
                    Some(7),
                ])) as ArrayRef,
                Arc::new(StringArray::from(vec![
                    Some("x"),
                    Some("x"),
                    Some("hidden"),
                    Some("y"),
                    Some(""),
                    Some("other hidden"),
                ])),
            ],
            Some(vec![true, true, false, true, true, false].into()),
        )
        .unwrap(),
    );
    let pairs: ArrayRef = Arc::new(
        alkaid_array::FixedSizeListArray::try_new(
            field("item", DataType::Utf8),
            2,
            Arc::new(StringArray::from(vec![
                Some("a"),
                Some("b"),
                Some("a"),
                None,
                Some("z"),
                Some("z"),
                Some("a"),
                Some("b"),
                Some(""),
                Some("b"),
                Some("a"),
                Some(""),
            ])),
            Some(vec![true, true, false, true, true, true].into()),
        )
        .unwrap(),
    );
    // Views out of order over [3, 1, 2, 3]: [1, 2], [3], [], [1, 2, 3], [3, 1], [3]
    let views: ArrayRef = Arc::new(
        alkaid_array::ListViewArray::try_new(
            field("item", DataType::Int32),
            vec![1, 3, 0, 1, 0, 0].into(),
            vec![2, 1, 0, 3, 2, 1].into(),
            Arc::new(Int32Array::from(vec![3, 1, 2, 3])),
            None,
        )
        .unwrap(),
    );
    // Three deep: a list of structs of (a list of integers, a dictionary of text).
    let inner_lists = int_list(
        &[1, 0, 2, 1, 1, 2],
        vec![
            Some(4),
            Some(4),
            Some(5),
            Some(4),
            Some(6),
            Some(4),
            Some(5),
        ],
        vec![true, true, true, true, false, true],
    );
    let keys = Int8Array::from(vec![Some(0), Some(1), None, Some(0), Some(1), Some(0)]);
    let words: ArrayRef = Arc::new(
        DictionaryArray::<Int8Type>::try_new(keys, Arc::new(StringArray::from(vec!["p", "q"])))
            .unwrap(),
    );
    let inner_fields = vec![
        alkaid_schema::Field::new("l", inner_lists.data_type().clone(), true),
        alkaid_schema::Field::new("d", words.data_type().clone(), true),
    ];
    let inner: ArrayRef = Arc::new(
        alkaid_array::StructArray::try_new(
            inner_fields.clone().into(),
            vec![inner_lists, words],
            None,
        )
        .unwrap(),
    );
    let deep: ArrayRef = Arc::new(
        alkaid_array::ListArray::try_new(
            field("item", DataType::Struct(inner_fields.into())),
            alkaid_buffer::OffsetBuffer::from_lengths([1, 1, 2, 0, 1, 1]),
            inner,
            Some(vec![true, true, true, true, true, false].into()),
        )
        .unwrap(),
    );
    // A map of text to integers: {a: 1}, {}, {a: 1, b: null}, null, {a: 2}, {a: 1}
    let map_type = MapType::new_entries(
        alkaid_schema::Field::new("key", DataType::Utf8, false),
        alkaid_schema::Field::new("value", DataType::Int32, true),
        false,
    )
    .unwrap();
    let alkaid_schema::DataType::Struct(entry_fields) = map_type.entries().data_type().clone()
    else {
        unreachable!()
    };
    let entries = alkaid_array::StructArray::try_new(
        entry_fields,
        vec![
            Arc::new(StringArray::from(vec!["a", "a", "b", "a", "a"])) as ArrayRef,
            Arc::new(Int32Array::from(vec![
                Some(1),
                Some(1),
                None,
                Some(2),
                Some(1),
            ])),
        ],
        None,
    )
    .unwrap();
    let map = alkaid_data::ArrayData::builder(DataType::Map(map_type))
        .len(6)
        .nulls(Some(vec![true, true, true, false, true, true].into()))
        .buffers(vec![
            alkaid_buffer::ScalarBuffer::from(vec![0i32, 1, 1, 3, 3, 4, 5]).into_inner(),
        ])
        .children(vec![entries.to_data()])
        .build()
        .unwrap();
    vec![lists, structs, pairs, views, deep, make_array(map)]
}

#[test]
fn nested_rows_order_as_lexsort_and_decode_back() {
    let columns = nested_columns();
    for options in ALL_OPTIONS {
        for column in &columns {
            check_order(std::slice::from_ref(column), &[options]);
            check_order(&[column.slice(1, 4)], &[options]);
        }
        // Together, so that a nested value's end is where the next column begins.
        let every = vec![options; columns.len()];
        check_order(&columns, &every);
    }
    // Two null structs are the same bytes, whatever their fields hold.
    let converter = RowConverter::new(vec![SortField::new(
        columns[1].data_type().clone(),
        SortOptions::ASCENDING,
    )])
    .unwrap();
    let rows = converter.convert_columns(&[columns[1].as_ref()]).unwrap();
    assert_eq!(rows.row(2), rows.row(5));
}

#[test]
fn malformed_nested_rows_are_errors() {
    let columns = nested_columns();
    for column in &columns {
        let converter = RowConverter::new(vec![SortField::new(
            column.data_type().clone(),
            SortOptions::DESCENDING,
        )])
        .unwrap();
        let rows = converter.convert_columns(&[column.as_ref()]).unwrap();
        // Every row cut short, and every byte of it changed, is an error or decodes to
        // something (never a panic).
        for row in 0..rows.len() {
            let bytes = rows.row(row);
            for cut in 0..bytes.len() {
                let short = Rows {
                    data: bytes[..cut].to_vec(),
                    offsets: vec![0, cut],
                };
                assert!(
                    converter.convert_rows(&short).is_err(),
                    "{} row {row} cut at {cut}",
                    column.data_type()
                );
            }
            for at in 0..bytes.len() {
                for byte in [0u8, 1, 2, 3, 0xFE, 0xFF] {
                    let mut changed = bytes.to_vec();
                    changed[at] = byte;
                    let rows = Rows {
                        offsets: vec![0, changed.len()],
                        data: changed,
                    };
                    let _ = converter.convert_rows(&rows);
                }
            }
        }
    }
    let union = DataType::Union(
        alkaid_schema::UnionType::try_new(
            vec![alkaid_schema::Field::new("i", DataType::Int32, true)],
            [0],
            alkaid_schema::UnionMode::Sparse,
        )
        .unwrap(),
    );
    assert!(matches!(
        RowConverter::new(vec![SortField::new(
            DataType::List(field("item", union)),
            SortOptions::ASCENDING
        )]),
        Err(ComputeError::Unsupported { .. })
    ));
}
