//! Every validation check, through the public builder: the kind of error, its message, and
//! the path to the child it is in.

use alkaid_buffer::native::ByteView;
use alkaid_buffer::{Buffer, NativeType, NullBuffer};
use alkaid_data::{ArrayData, ArrayDataBuilder, DataError, DataErrorKind};
use alkaid_schema::DataType;

fn t(text: &str) -> DataType {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn buf<T: NativeType>(values: &[T]) -> Buffer {
    Buffer::from_slice_ref(values)
}

fn int32(values: &[i32]) -> ArrayData {
    ArrayData::builder(DataType::Int32)
        .len(values.len())
        .buffers(vec![buf(values)])
        .build()
        .unwrap()
}

fn utf8(offsets: &[i32], data: &[u8]) -> ArrayDataBuilder {
    ArrayData::builder(DataType::Utf8)
        .len(offsets.len().saturating_sub(1))
        .buffers(vec![buf(offsets), buf(data)])
}

fn error(builder: ArrayDataBuilder) -> DataError {
    builder.build().expect_err("the array is invalid")
}

fn check(builder: ArrayDataBuilder, kind: DataErrorKind, message: &str) {
    let error = error(builder);
    assert_eq!(error.kind(), kind, "{error}");
    assert_eq!(error.to_string(), message);
}

#[test]
fn structure_buffer_count_length_and_alignment() {
    check(
        ArrayData::builder(DataType::Utf8)
            .len(1)
            .buffers(vec![buf(&[0i32, 1])]),
        DataErrorKind::BufferCount,
        "expected 2 buffers for Utf8, found 1",
    );
    check(
        ArrayData::builder(DataType::Int32)
            .len(3)
            .buffers(vec![buf(&[1i32, 2])]),
        DataErrorKind::BufferTooShort,
        "expected buffer 0 of Int32 to hold at least 12 bytes for 3 slots, found 8",
    );
    // An offset counts: slots 2..4 need 16 bytes.
    check(
        ArrayData::builder(DataType::Int32)
            .len(2)
            .offset(2)
            .buffers(vec![buf(&[1i32, 2, 3])]),
        DataErrorKind::BufferTooShort,
        "expected buffer 0 of Int32 to hold at least 16 bytes for 4 slots, found 12",
    );
    let misaligned = buf(&[0u8; 17]).slice(1, 16);
    let error = error(
        ArrayData::builder(DataType::Int64)
            .len(2)
            .buffers(vec![misaligned]),
    );
    assert_eq!(error.kind(), DataErrorKind::Misaligned);
    assert!(
        error
            .to_string()
            .starts_with("expected buffer 0 of Int64 aligned to 8 bytes")
    );
    let huge = ArrayData::builder(DataType::Int64)
        .len(usize::MAX / 4)
        .buffers(vec![buf(&[0i64])]);
    assert_eq!(error_kind(huge), DataErrorKind::BufferTooShort);
    let overflow = ArrayData::builder(DataType::Int8)
        .len(2)
        .offset(usize::MAX)
        .buffers(vec![buf(&[0i8])]);
    assert_eq!(error_kind(overflow), DataErrorKind::OutOfBounds);
    check(
        ArrayData::builder(DataType::FixedSizeBinary(-2))
            .len(0)
            .buffers(vec![Buffer::empty()]),
        DataErrorKind::InvalidType,
        "invalid FixedSizeBinary type: expected a non-negative width, found -2",
    );
}

fn error_kind(builder: ArrayDataBuilder) -> DataErrorKind {
    error(builder).kind()
}

#[test]
fn structure_validity_and_null_count() {
    check(
        int32_builder(&[1, 2, 3]).nulls(Some(NullBuffer::from(vec![true, false]))),
        DataErrorKind::Validity,
        "expected a validity bitmap of 3 bits for Int32, found 2",
    );
    let union = ArrayData::builder(t("Union(Sparse, 0 => a: Int32)"))
        .len(1)
        .nulls(Some(NullBuffer::from(vec![true])))
        .buffers(vec![buf(&[0i8])])
        .children(vec![int32(&[5])]);
    check(
        union,
        DataErrorKind::Validity,
        "expected no validity bitmap for Union(Sparse, 0 => a: Int32), found one",
    );
    check(
        int32_builder(&[1, 2])
            .nulls(Some(NullBuffer::from(vec![true, false])))
            .declared_null_count(2),
        DataErrorKind::NullCount,
        "expected a null count of 1 from the validity of Int32, found 2 declared",
    );
    assert!(
        int32_builder(&[1, 2])
            .declared_null_count(0)
            .build()
            .is_ok()
    );
    let nulls = ArrayData::builder(DataType::Null)
        .len(4)
        .declared_null_count(4)
        .build()
        .unwrap();
    assert_eq!(nulls.null_count(), 4);
}

fn int32_builder(values: &[i32]) -> ArrayDataBuilder {
    ArrayData::builder(DataType::Int32)
        .len(values.len())
        .buffers(vec![buf(values)])
}

#[test]
fn structure_children_and_dictionaries() {
    let list = t("List(item: Int32)");
    check(
        ArrayData::builder(list.clone())
            .len(1)
            .buffers(vec![buf(&[0i32, 1])]),
        DataErrorKind::Children,
        "expected 1 children for List(item: Int32), found 0",
    );
    let error = error(
        ArrayData::builder(list)
            .len(1)
            .buffers(vec![buf(&[0i32, 0])])
            .children(vec![
                ArrayData::builder(DataType::Int8)
                    .buffers(vec![Buffer::empty()])
                    .build()
                    .unwrap(),
            ]),
    );
    assert_eq!(
        error.to_string(),
        "item: expected child \"item\" of type Int32, found Int8"
    );
    check(
        ArrayData::builder(t("Struct(a: Int32, b: Int32)"))
            .len(3)
            .children(vec![int32(&[1, 2, 3]), int32(&[1, 2])]),
        DataErrorKind::ChildTooShort,
        "expected child \"b\" of Struct(a: Int32, b: Int32) to have at least 3 slots, found 2",
    );
    check(
        ArrayData::builder(t("FixedSizeList(2, item: Int32)"))
            .len(2)
            .children(vec![int32(&[1, 2, 3])]),
        DataErrorKind::ChildTooShort,
        "expected child \"item\" of FixedSizeList(2, item: Int32) to have at least 4 slots, found 3",
    );
    let dictionary = t("Dictionary(Int8, Int32)");
    check(
        ArrayData::builder(dictionary.clone())
            .len(1)
            .buffers(vec![buf(&[0i8])]),
        DataErrorKind::Dictionary,
        "expected a dictionary for Dictionary(Int8, Int32), found none",
    );
    check(
        ArrayData::builder(dictionary)
            .len(1)
            .buffers(vec![buf(&[0i8])])
            .dictionary(utf8(&[0, 1], b"a").build().unwrap()),
        DataErrorKind::Dictionary,
        "expected a dictionary of Int32, found one of Utf8",
    );
    check(
        int32_builder(&[1]).dictionary(int32(&[1])),
        DataErrorKind::Dictionary,
        "expected no dictionary for Int32, found one",
    );
}

#[test]
fn offsets_are_checked_for_binary_and_lists() {
    check(
        utf8(&[-1, 2], b"ab"),
        DataErrorKind::Offsets,
        "offset -1 at slot 0 of Utf8 is negative",
    );
    check(
        utf8(&[0, 2, 1, 3], b"abc"),
        DataErrorKind::Offsets,
        "offset 1 at slot 2 of Utf8 is less than offset 2 before it",
    );
    check(
        utf8(&[0, 4], b"abc"),
        DataErrorKind::Offsets,
        "offset 4 at slot 1 of Utf8 is past the end of the data (3)",
    );
    // Offsets outside the array's slots are not looked at.
    assert!(utf8(&[0, 1, 99], b"a").len(1).build().is_ok());
    // An empty array may have an empty offsets buffer.
    assert!(
        ArrayData::builder(DataType::Utf8)
            .buffers(vec![Buffer::empty(), Buffer::empty()])
            .build()
            .is_ok()
    );
    check(
        ArrayData::builder(t("LargeList(item: Int32)"))
            .len(1)
            .buffers(vec![buf(&[0i64, 3])])
            .children(vec![int32(&[1, 2])]),
        DataErrorKind::Offsets,
        "offset 3 at slot 1 of LargeList(item: Int32) is past the end of the child (2)",
    );
}

#[test]
fn text_must_be_utf8_and_offsets_must_not_split_characters() {
    check(
        utf8(&[0, 2], &[b'a', 0xff]),
        DataErrorKind::Utf8,
        "invalid UTF-8 in Utf8 data at byte 1",
    );
    let e_acute = "é".as_bytes(); // two bytes
    check(
        utf8(&[0, 1, 2], e_acute),
        DataErrorKind::Utf8,
        "offset 1 at slot 1 of Utf8 splits a UTF-8 character",
    );
    assert!(utf8(&[0, 2], e_acute).build().is_ok());
    // Binary is not text.
    let binary = ArrayData::builder(DataType::Binary)
        .len(1)
        .buffers(vec![buf(&[0i32, 1]), buf(&[0xffu8])]);
    assert!(binary.build().is_ok());
}

fn views(data_type: DataType, views: &[ByteView], data: Vec<Buffer>) -> ArrayDataBuilder {
    let mut buffers = vec![buf(views)];
    buffers.extend(data);
    ArrayData::builder(data_type)
        .len(views.len())
        .buffers(buffers)
}

#[test]
fn views_are_checked_one_by_one() {
    let long = b"a value longer than twelve";
    let data = || vec![Buffer::from(long.to_vec())];
    assert!(
        views(
            DataType::Utf8View,
            &[ByteView::new(b"short", 0, 0), ByteView::new(long, 0, 0)],
            data()
        )
        .build()
        .is_ok()
    );
    let view_error = |v: ByteView| {
        error(views(
            DataType::Utf8View,
            &[ByteView::new(b"ok", 0, 0), v],
            data(),
        ))
        .to_string()
    };
    assert_eq!(
        view_error(ByteView::new(long, 1, 0)),
        "view at slot 1 of Utf8View: expected a data buffer index below 1, found 1"
    );
    assert_eq!(
        view_error(ByteView::new(long, 0, 5)),
        "view at slot 1 of Utf8View: 26 bytes at offset 5 leave data buffer 0 of 26 bytes"
    );
    assert_eq!(
        view_error(ByteView::new_reference(b"X value longer than twelve", 0, 0)),
        "view at slot 1 of Utf8View: expected the prefix to equal the first four bytes"
    );
    // Raw views: a negative length, and garbage after inline bytes.
    let raw = |bytes: [u8; 16]| buf(&bytes).typed::<ByteView>().unwrap()[0];
    let mut negative = [0u8; 16];
    negative[..4].copy_from_slice(&(-1i32).to_le_bytes());
    assert_eq!(
        view_error(raw(negative)),
        "view at slot 1 of Utf8View: expected a non-negative length, found -1"
    );
    let mut padded = [0u8; 16];
    padded[0] = 1;
    padded[4] = b'a';
    padded[9] = 7;
    assert_eq!(
        view_error(raw(padded)),
        "view at slot 1 of Utf8View: expected zero padding after the inline bytes"
    );
    let bad_text = views(DataType::Utf8View, &[ByteView::new(&[0xc3], 0, 0)], vec![]);
    assert_eq!(
        error(bad_text).to_string(),
        "invalid UTF-8 in slot 0 of Utf8View at byte 0"
    );
    assert!(
        views(
            DataType::BinaryView,
            &[ByteView::new(&[0xc3], 0, 0)],
            vec![]
        )
        .build()
        .is_ok()
    );
}

#[test]
fn list_views_stay_inside_the_child() {
    let list_view = |offsets: &[i32], sizes: &[i32]| {
        ArrayData::builder(t("ListView(item: Int32)"))
            .len(offsets.len())
            .buffers(vec![buf(offsets), buf(sizes)])
            .children(vec![int32(&[1, 2, 3])])
    };
    assert!(list_view(&[2, 0, 1], &[1, 3, 0]).build().is_ok());
    check(
        list_view(&[2, 1], &[1, 3]),
        DataErrorKind::ListView,
        "list view at slot 1 of ListView(item: Int32) (offset 1, size 3) leaves the child of 3 slots",
    );
    assert_eq!(error_kind(list_view(&[-1], &[1])), DataErrorKind::ListView);
    assert_eq!(error_kind(list_view(&[0], &[-1])), DataErrorKind::ListView);
}

#[test]
fn dictionary_keys_of_valid_slots_index_the_dictionary() {
    let dictionary = |keys: &[i16], valid: Option<Vec<bool>>| {
        ArrayData::builder(t("Dictionary(Int16, Int32)"))
            .len(keys.len())
            .nulls(valid.map(NullBuffer::from))
            .buffers(vec![buf(keys)])
            .dictionary(int32(&[10, 20]))
    };
    assert!(dictionary(&[0, 1, 1], None).build().is_ok());
    check(
        dictionary(&[0, 2], None),
        DataErrorKind::DictionaryKey,
        "key 2 at slot 1 of Dictionary(Int16, Int32) is outside the dictionary of 2 values",
    );
    assert_eq!(
        error_kind(dictionary(&[-1], None)),
        DataErrorKind::DictionaryKey
    );
    // A null slot may hold any key.
    assert!(
        dictionary(&[0, 999], Some(vec![true, false]))
            .build()
            .is_ok()
    );
}

#[test]
fn union_type_ids_and_offsets() {
    let sparse = |ids: &[i8]| {
        ArrayData::builder(t("Union(Sparse, 3 => a: Int32, 7 => b: Int32)"))
            .len(ids.len())
            .buffers(vec![buf(ids)])
            .children(vec![int32(&[1, 2]), int32(&[3, 4])])
    };
    assert!(sparse(&[3, 7]).build().is_ok());
    check(
        sparse(&[3, 4]),
        DataErrorKind::UnionTypeId,
        "type id 4 at slot 1 of Union(Sparse, 3 => a: Int32, 7 => b: Int32) is not one of [3, 7]",
    );
    assert_eq!(error_kind(sparse(&[-3, 3])), DataErrorKind::UnionTypeId);
    let dense = |ids: &[i8], offsets: &[i32]| {
        ArrayData::builder(t("Union(Dense, 0 => a: Int32, 1 => b: Utf8)"))
            .len(ids.len())
            .buffers(vec![buf(ids), buf(offsets)])
            .children(vec![int32(&[1, 2]), utf8(&[0, 1], b"x").build().unwrap()])
    };
    assert!(dense(&[0, 1, 0], &[0, 0, 1]).build().is_ok());
    assert!(
        dense(&[0, 1, 0], &[1, 0, 1]).build().is_ok(),
        "a child's offset may repeat"
    );
    check(
        dense(&[0, 1, 0], &[1, 0, 0]),
        DataErrorKind::UnionOffset,
        "offset 0 at slot 2 of Union(Dense, 0 => a: Int32, 1 => b: Utf8) is less than offset 1 before it for child \"a\"",
    );
    check(
        dense(&[0, 1], &[0, 1]),
        DataErrorKind::UnionOffset,
        "offset 1 at slot 1 of Union(Dense, 0 => a: Int32, 1 => b: Utf8) is outside child \"b\" of 1 slots",
    );
    assert_eq!(error_kind(dense(&[0], &[-1])), DataErrorKind::UnionOffset);
}

#[test]
fn run_ends_are_positive_increasing_and_cover_the_array() {
    let ree = |ends: &[i32], len: usize| {
        let values = int32(&vec![7; ends.len()]);
        ArrayData::builder(t("RunEndEncoded(run_ends: Int32 not null, values: Int32)"))
            .len(len)
            .children(vec![int32(ends), values])
    };
    assert!(ree(&[2, 5], 5).build().is_ok());
    assert!(
        ree(&[2, 5], 4).build().is_ok(),
        "run ends may reach past the array"
    );
    let ree_type = "RunEndEncoded(run_ends: Int32 not null, values: Int32)";
    assert_eq!(
        error(ree(&[0, 5], 5)).to_string(),
        format!("expected run end 0 to be positive, found 0 in {ree_type}")
    );
    assert_eq!(
        error(ree(&[3, 3], 5)).to_string(),
        format!("expected run end 1 to be greater than 3, found 3 in {ree_type}")
    );
    assert_eq!(
        error(ree(&[2, 5], 3).offset(3)).to_string(),
        format!(
            "expected the last run end to reach 6 (offset 3 + length 3), found 5 in {ree_type}"
        )
    );
    let mismatched = ArrayData::builder(t(ree_type))
        .len(1)
        .children(vec![int32(&[1]), int32(&[1, 2])]);
    assert_eq!(error_kind(mismatched), DataErrorKind::RunEnds);
    let null_ends = ArrayData::builder(DataType::Int32)
        .len(1)
        .nulls(Some(NullBuffer::from(vec![false])))
        .buffers(vec![buf(&[1i32])])
        .build()
        .unwrap();
    let with_null = ArrayData::builder(t(ree_type))
        .len(1)
        .children(vec![null_ends, int32(&[1])]);
    assert_eq!(
        error(with_null).to_string(),
        format!("expected no null run ends, found 1 in {ree_type}")
    );
}

#[test]
fn map_keys_must_not_be_null() {
    let map_type = t("Map(entries: Struct(key: Int32 not null, value: Int32) not null)");
    let keys = ArrayData::builder(DataType::Int32)
        .len(3)
        .nulls(Some(NullBuffer::from(vec![true, false, true])))
        .buffers(vec![buf(&[1i32, 2, 3])])
        .build()
        .unwrap();
    let entries = ArrayData::builder(map_type.children()[0].data_type().clone())
        .len(3)
        .children(vec![keys, int32(&[4, 5, 6])])
        .build()
        .unwrap();
    let map = |offsets: &[i32]| {
        ArrayData::builder(map_type.clone())
            .len(offsets.len() - 1)
            .buffers(vec![buf(offsets)])
            .children(vec![entries.clone()])
    };
    check(
        map(&[0, 2]),
        DataErrorKind::MapKey,
        "key at entry 1 of Map(entries: Struct(key: Int32 not null, value: Int32) not null) is null",
    );
    // The null key is outside what the map refers to.
    assert!(map(&[0, 1]).build().is_ok());
    assert!(map(&[2, 3]).build().is_ok());
}

#[test]
fn strict_level_checks_decimal_precision_and_whole_days() {
    let decimal = ArrayData::builder(t("Decimal32(2, 0)"))
        .len(3)
        .nulls(Some(NullBuffer::from(vec![true, false, true])))
        .buffers(vec![buf(&[99i32, 12345, -100])]);
    assert!(
        decimal.clone().build().is_ok(),
        "the spec does not demand precision"
    );
    let error = decimal.build_strict().unwrap_err();
    assert_eq!(error.kind(), DataErrorKind::DecimalPrecision);
    assert_eq!(
        error.to_string(),
        "value at slot 2 of Decimal32(2, 0) has more than 2 digits"
    );
    let wide = ArrayData::builder(t("Decimal256(76, 0)"))
        .len(1)
        .buffers(vec![buf(&[alkaid_buffer::native::i256::MAX])]);
    assert_eq!(
        wide.build_strict().unwrap_err().kind(),
        DataErrorKind::DecimalPrecision
    );
    let days = ArrayData::builder(DataType::Date64)
        .len(2)
        .buffers(vec![buf(&[86_400_000i64, 86_400_001])]);
    assert!(days.clone().build().is_ok());
    assert_eq!(
        days.build_strict().unwrap_err().kind(),
        DataErrorKind::Date64
    );
}

#[test]
fn errors_carry_the_path_to_the_child() {
    let bad_text = utf8(&[0, 1], &[0xff]);
    // Structural validation does not read the text; the parent's full validation does.
    // SAFETY: this broken child only reaches the parent's validation, which rejects it; it is
    // never read.
    let item = unsafe { bad_text.build_structural() }.unwrap();
    let list = ArrayData::builder(t("List(item: Utf8)"))
        .len(1)
        .buffers(vec![buf(&[0i32, 1])])
        .children(vec![item]);
    let structure = ArrayData::builder(t("Struct(a: Int32, b: List(item: Utf8))"))
        .len(1)
        .children(vec![
            int32(&[1]),
            // SAFETY: as above, only validated (and rejected), never read.
            unsafe { list.build_structural() }.unwrap(),
        ]);
    let error = error(structure);
    assert_eq!(error.path(), ["b", "item"]);
    assert_eq!(
        error.to_string(),
        "b.item: invalid UTF-8 in Utf8 data at byte 0"
    );
}

fn strict_error(builder: ArrayDataBuilder) -> DataError {
    builder
        .build()
        .expect("fully valid")
        .validate(alkaid_data::ValidationLevel::Strict)
        .expect_err("strict validation refuses it")
}

fn check_strict(builder: ArrayDataBuilder, kind: DataErrorKind, message: &str) {
    let error = strict_error(builder);
    assert_eq!(error.kind(), kind, "{error}");
    assert_eq!(error.to_string(), message);
}

#[test]
fn strict_checks_find_what_arrow_cpp_full_validation_finds() {
    let with_nulls = |data_type: &str, values: Buffer, valid: &[bool]| {
        ArrayData::builder(t(data_type))
            .len(valid.len())
            .nulls(Some(NullBuffer::from(valid.to_vec())))
            .buffers(vec![values])
    };
    check_strict(
        with_nulls("Decimal128(3, 1)", buf(&[999i128, 1000]), &[true, true]),
        DataErrorKind::DecimalPrecision,
        "value at slot 1 of Decimal128(3, 1) has more than 3 digits",
    );
    check_strict(
        with_nulls("Date64", buf(&[86_400_000i64, 1]), &[true, true]),
        DataErrorKind::Date64,
        "value at slot 1 of Date64 is not a whole number of days",
    );
    for (data_type, values, per_day) in [
        ("Time32(s)", buf(&[0i32, 86_400]), "86400 s"),
        ("Time32(ms)", buf(&[0i32, -1]), "86400000 ms"),
        ("Time64(us)", buf(&[0i64, 86_400_000_000]), "86400000000 us"),
        ("Time64(ns)", buf(&[0i64, i64::MAX]), "86400000000000 ns"),
    ] {
        check_strict(
            with_nulls(data_type, values.clone(), &[true, true]),
            DataErrorKind::TimeOfDay,
            &format!("value at slot 1 of {data_type} is outside one day (0 to {per_day})"),
        );
        // A null slot may hold anything, and full validation does not look at values.
        let null_slot = with_nulls(data_type, values, &[true, false])
            .build()
            .unwrap();
        null_slot
            .validate(alkaid_data::ValidationLevel::Strict)
            .unwrap();
    }
    let last_of_day = with_nulls("Time64(ns)", buf(&[86_399_999_999_999i64]), &[true]);
    last_of_day
        .build_strict()
        .expect("the last nanosecond of a day");

    let entries = |nullable| {
        let key = alkaid_schema::Field::new("key", DataType::Utf8, false);
        let value = alkaid_schema::Field::new("value", DataType::Int32, true);
        let entries = alkaid_schema::Field::new(
            "entries",
            DataType::Struct(vec![key, value].into()),
            nullable,
        );
        DataType::Map(alkaid_schema::MapType::try_new(entries, false).unwrap())
    };
    let empty_map = |data_type: DataType| {
        let DataType::Map(map) = &data_type else {
            unreachable!()
        };
        let child = ArrayData::new_empty(map.entries().data_type());
        ArrayData::builder(data_type.clone())
            .len(0)
            .buffers(vec![buf(&[0i32])])
            .children(vec![child])
    };
    empty_map(entries(false)).build_strict().unwrap();
    check_strict(
        empty_map(entries(true)),
        DataErrorKind::MapEntries,
        "the entries field \"entries\" of Map(entries: Struct(key: Utf8 not null, value: Int32)) is nullable",
    );
}
