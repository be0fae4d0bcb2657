//! String kernel edge cases, named: empty strings and arrays, all-null, sliced inputs,
//! every layout, multi-byte characters at cut edges, case changes that change lengths,
//! invalid patterns, dictionaries and runs.

use std::sync::Arc;

use alkaid_array::types::{Int8Type, Int32Type};
use alkaid_array::{
    Array, ArrayRef, AsArray, BinaryArray, BooleanArray, DictionaryArray, Int8Array, Int32Array,
    LargeStringArray, ListArray, RunArray, StringArray, StringViewArray,
};
use alkaid_schema::DataType;

use super::*;

fn bools(array: BooleanArray) -> Vec<Option<bool>> {
    array.iter().collect()
}

/// The text values of any text layout, as owned strings.
fn texts(array: &ArrayRef) -> Vec<Option<String>> {
    let plain = crate::encoding::decoded(&array.to_data()).unwrap();
    let array = make_array(plain);
    match array.data_type() {
        DataType::Utf8 => array
            .as_string::<i32>()
            .iter()
            .map(|v| v.map(String::from))
            .collect(),
        DataType::LargeUtf8 => array
            .as_string::<i64>()
            .iter()
            .map(|v| v.map(String::from))
            .collect(),
        DataType::Utf8View => array
            .as_typed::<StringViewArray>()
            .unwrap()
            .iter()
            .map(|v| v.map(String::from))
            .collect(),
        other => panic!("not text: {other}"),
    }
}

fn some(values: &[&str]) -> Vec<Option<String>> {
    values.iter().map(|v| Some(v.to_string())).collect()
}

/// The same values in all three text layouts.
fn layouts(values: Vec<Option<&str>>) -> Vec<ArrayRef> {
    vec![
        Arc::new(StringArray::from(values.clone())),
        Arc::new(LargeStringArray::from(values.clone())),
        Arc::new(StringViewArray::from_iter(values)),
    ]
}

#[test]
fn every_layout_answers_alike_and_keeps_its_layout() {
    let values = vec![
        Some("Héllo wörld"),
        None,
        Some(""),
        Some("a fairly long value here"),
    ];
    for array in layouts(values) {
        let kind = array.data_type().clone();
        let lowered = lower(array.as_ref()).unwrap();
        assert_eq!(lowered.data_type(), &kind);
        assert_eq!(texts(&lowered)[0].as_deref(), Some("héllo wörld"));
        assert_eq!(texts(&lowered)[1], None);
        assert_eq!(
            bools(starts_with(array.as_ref(), "Hé").unwrap()),
            [Some(true), None, Some(false), Some(false)]
        );
        assert_eq!(
            bools(ends_with(array.as_ref(), "here").unwrap()),
            [Some(false), None, Some(false), Some(true)]
        );
        assert_eq!(
            bools(contains(array.as_ref(), "").unwrap()),
            [Some(true), None, Some(true), Some(true)]
        );
        assert_eq!(
            bools(like(array.as_ref(), "%long%").unwrap()),
            [Some(false), None, Some(false), Some(true)]
        );
        let lengths = length(array.as_ref()).unwrap();
        let expected_type = if kind == DataType::LargeUtf8 {
            DataType::Int64
        } else {
            DataType::Int32
        };
        assert_eq!(lengths.data_type(), &expected_type);
        let octets = octet_length(array.as_ref()).unwrap();
        assert!(octets.is_null(1));
        if kind == DataType::Utf8 {
            let (chars, bytes) = (
                lengths.as_primitive::<Int32Type>(),
                octets.as_primitive::<Int32Type>(),
            );
            assert_eq!((chars.value(0), bytes.value(0)), (11, 13));
            assert_eq!(chars.value(2), 0);
        }
    }
}

#[test]
fn empty_and_all_null_inputs() {
    let empty = StringArray::from(Vec::<&str>::new());
    assert_eq!(upper(&empty).unwrap().len(), 0);
    assert_eq!(like(&empty, "%").unwrap().len(), 0);
    assert_eq!(split(&empty, ",").unwrap().len(), 0);
    let nulls = StringArray::from(vec![None::<&str>, None]);
    assert_eq!(bools(ilike(&nulls, "a%").unwrap()), [None, None]);
    assert_eq!(texts(&trim(&nulls, " ").unwrap()), [None, None]);
    assert_eq!(regexp_match(&nulls, "a").unwrap().null_count(), 2);
}

#[test]
fn sliced_inputs_use_their_own_rows() {
    let all = StringArray::from(vec!["skip", "ab", "abc", "x"]);
    let window = all.slice(1, 2);
    assert_eq!(
        bools(like(window.as_ref(), "ab_").unwrap()),
        [Some(false), Some(true)]
    );
    assert_eq!(
        texts(&upper(window.as_ref()).unwrap()),
        some(&["AB", "ABC"])
    );
    let views =
        StringViewArray::from_iter_values(["skip", "a much longer view value", "b"]).slice(1, 2);
    assert_eq!(
        texts(&substring(views.as_ref(), 2, Some(4)).unwrap()),
        some(&["much", ""])
    );
}

#[test]
fn substrings_cut_between_characters() {
    let words = StringArray::from(vec!["日本語テキスト", "é", "", "abc"]);
    assert_eq!(
        texts(&substring(&words, 2, Some(3)).unwrap()),
        some(&["語テキ", "", "", "c"])
    );
    assert_eq!(
        texts(&substring(&words, -1, None).unwrap()),
        some(&["ト", "é", "", "c"])
    );
    assert_eq!(
        texts(&substring(&words, -10, Some(1)).unwrap()),
        some(&["日", "é", "", "a"])
    );
    assert_eq!(
        texts(&substring(&words, 0, Some(0)).unwrap()),
        some(&["", "", "", ""])
    );
    assert_eq!(
        texts(&substring(&words, i64::MAX, Some(u64::MAX)).unwrap()),
        some(&["", "", "", ""])
    );
    assert_eq!(
        texts(&substring_bytes(&words, 0, Some(3)).unwrap())[0].as_deref(),
        Some("日")
    );
    let error = substring_bytes(&words, 0, Some(1)).unwrap_err();
    assert!(error.to_string().contains("row 0"), "{error}");
    let bytes = BinaryArray::from_iter([Some(&[0xffu8, 0, 7][..])]);
    let cut = substring(&bytes, 1, None).unwrap();
    assert_eq!(cut.as_typed::<BinaryArray>().unwrap().value(0), &[0, 7]);
}

#[test]
fn case_changes_may_change_lengths() {
    let words = StringArray::from(vec!["straße", "İ", "ǅ", "MiXeD"]);
    assert_eq!(
        texts(&upper(&words).unwrap()),
        some(&["STRASSE", "İ", "Ǆ", "MIXED"])
    );
    assert_eq!(
        texts(&lower(&words).unwrap()),
        some(&["straße", "i̇", "ǆ", "mixed"])
    );
}

#[test]
fn trims_take_any_characters() {
    let words = StringArray::from(vec!["  a  ", "--x--", "ää-bä", ""]);
    assert_eq!(
        texts(&trim(&words, " -").unwrap()),
        some(&["a", "x", "ää-bä", ""])
    );
    assert_eq!(
        texts(&ltrim(&words, "ä").unwrap()),
        some(&["  a  ", "--x--", "-bä", ""])
    );
    assert_eq!(
        texts(&rtrim(&words, "äb").unwrap()),
        some(&["  a  ", "--x--", "ää-", ""])
    );
    assert_eq!(
        texts(&trim(&words, "").unwrap()),
        some(&["  a  ", "--x--", "ää-bä", ""])
    );
}

#[test]
fn invalid_patterns_are_errors() {
    let words = StringArray::from(vec!["a"]);
    assert!(matches!(
        like(&words, "a\\"),
        Err(ComputeError::InvalidArgument(_))
    ));
    assert!(matches!(
        regexp_is_match(&words, "(unclosed"),
        Err(ComputeError::InvalidArgument(_))
    ));
    assert!(matches!(
        like(&Int32Array::from(vec![1]), "a"),
        Err(ComputeError::Unsupported { .. })
    ));
    let bytes = BinaryArray::from_iter([Some(b"a")]);
    assert!(matches!(
        lower(&bytes),
        Err(ComputeError::Unsupported { .. })
    ));
    assert_eq!(bools(starts_with(&bytes, b"a").unwrap()), [Some(true)]);
}

#[test]
fn regular_expressions_find_groups() {
    let lines = StringArray::from(vec![Some("key=value"), Some("key="), Some("nothing"), None]);
    assert_eq!(
        bools(regexp_is_match(&lines, "=").unwrap()),
        [Some(true), Some(true), Some(false), None]
    );
    let found = regexp_match(&lines, r"(\w+)=(\w+)?").unwrap();
    let lists = found.as_typed::<ListArray>().unwrap();
    let row = |i: usize| -> Vec<Option<String>> { texts(&lists.value(i)) };
    assert_eq!(row(0), some(&["key", "value"]));
    assert_eq!(row(1), vec![Some("key".to_string()), None]);
    assert!(lists.is_null(2) && lists.is_null(3));
    let whole = regexp_match(&lines, "e.").unwrap();
    assert_eq!(
        texts(&whole.as_typed::<ListArray>().unwrap().value(0)),
        some(&["ey"])
    );
}

#[test]
fn splits_keep_empty_pieces() {
    let lines = StringArray::from(vec![Some("a,b,,c"), Some(""), Some(",")]);
    let parts = split(&lines, ",").unwrap();
    let lists = parts.as_typed::<ListArray>().unwrap();
    assert_eq!(texts(&lists.value(0)), some(&["a", "b", "", "c"]));
    assert_eq!(texts(&lists.value(1)), some(&[""]));
    assert_eq!(texts(&lists.value(2)), some(&["", ""]));
    let whole = split(&lines, "").unwrap();
    assert_eq!(
        texts(&whole.as_typed::<ListArray>().unwrap().value(0)),
        some(&["a,b,,c"])
    );
}

#[test]
fn concatenation_is_null_where_any_part_is() {
    let a = StringArray::from(vec![Some("x"), None, Some("")]);
    let b = LargeStringArray::from(vec![Some("1"), Some("2"), Some("")]);
    let joined = concat_elements(&[&a, &b, &a]).unwrap();
    assert_eq!(joined.data_type(), &DataType::LargeUtf8);
    assert_eq!(
        texts(&joined),
        vec![Some("x1x".to_string()), None, Some(String::new())]
    );
    let short = StringArray::from(vec!["a"]);
    assert!(matches!(
        concat_elements(&[&a, &short]),
        Err(ComputeError::LengthMismatch { .. })
    ));
    let bytes = BinaryArray::from_iter([Some(b"a"), Some(b"b"), Some(b"c")]);
    assert!(matches!(
        concat_elements(&[&a, &bytes]),
        Err(ComputeError::Unsupported { .. })
    ));
    assert!(concat_elements(&[]).is_err());
}

#[test]
fn dictionaries_are_evaluated_on_their_values_and_stay_dictionaries() {
    let values: ArrayRef = Arc::new(StringArray::from(vec![Some("Apple"), Some("pear"), None]));
    let keyed = DictionaryArray::<Int8Type>::try_new(
        Int8Array::from(vec![Some(1), Some(0), None, Some(2), Some(1)]),
        values,
    )
    .unwrap();
    let lowered = lower(&keyed).unwrap();
    assert!(matches!(lowered.data_type(), DataType::Dictionary { .. }));
    assert_eq!(
        texts(&lowered),
        vec![
            Some("pear".into()),
            Some("apple".into()),
            None,
            None,
            Some("pear".into())
        ]
    );
    assert_eq!(
        bools(like(&keyed, "p%").unwrap()),
        [Some(true), Some(false), None, None, Some(true)]
    );
    let lengths = length(keyed.slice(1, 2).as_ref()).unwrap();
    assert_eq!(
        lengths
            .as_primitive::<Int32Type>()
            .iter()
            .collect::<Vec<_>>(),
        [Some(5), None]
    );
    let runs_values: ArrayRef = Arc::new(StringArray::from(vec!["ab", "CD"]));
    let runs = RunArray::<Int32Type>::try_new(Int32Array::from(vec![2, 5]), runs_values).unwrap();
    assert_eq!(
        texts(&lower(&runs).unwrap()),
        some(&["ab", "ab", "cd", "cd", "cd"])
    );
    assert_eq!(
        bools(ends_with(runs.slice(1, 2).as_ref(), "D").unwrap()),
        [Some(false), Some(true)]
    );
}

#[test]
fn case_of_all_ascii_arrays_is_mapped_at_once_and_sliced_arrays_keep_their_rows() {
    let words = vec![Some("Ab"), None, Some("cD e"), Some(""), Some("XYZ")];
    let expected_lower: Vec<Option<String>> =
        words.iter().map(|w| w.map(str::to_lowercase)).collect();
    let expected_upper: Vec<Option<String>> =
        words.iter().map(|w| w.map(str::to_uppercase)).collect();
    let small: ArrayRef = Arc::new(StringArray::from(words.clone()));
    let large: ArrayRef = Arc::new(LargeStringArray::from(words.clone()));
    for array in [small, large] {
        assert_eq!(texts(&lower(array.as_ref()).unwrap()), expected_lower);
        assert_eq!(texts(&upper(array.as_ref()).unwrap()), expected_upper);
        // Sliced: the first offset is not 0, and the slice's bytes only are mapped.
        let sliced = array.slice(2, 3);
        assert_eq!(texts(&upper(sliced.as_ref()).unwrap()), expected_upper[2..]);
        assert_eq!(
            texts(&lower(array.slice(5, 0).as_ref()).unwrap()),
            Vec::<Option<String>>::new()
        );
    }
    // One value outside ASCII: value by value, by Unicode's rules.
    let mixed = StringArray::from(vec![Some("Ab"), Some("straße")]);
    let upper_mixed: ArrayRef = upper(&mixed).unwrap();
    assert_eq!(
        texts(&upper_mixed),
        [Some("AB".to_string()), Some("STRASSE".to_string())]
    );
}

#[test]
fn starts_with_on_views_agrees_with_the_bytes_at_every_length() {
    // Values of 0 to 19 bytes (inline up to 12, in a buffer beyond), prefixes of 0 to 16
    // bytes that match, differ in the first four bytes, or differ only further in.
    let values: Vec<String> = (0..20)
        .map(|n| "abcdefghijklmnopqrst"[..n].to_string())
        .collect();
    let views = StringViewArray::from_iter_values(values.iter().map(String::as_str));
    for n in 0..=16 {
        let matching = &"abcdefghijklmnopqrst"[..n];
        let early = format!("x{}", &matching[1.min(n)..]);
        let late = format!("{}x", &matching[..n.saturating_sub(1)]);
        for prefix in [matching.to_string(), early, late] {
            let found = starts_with(&views, &prefix).unwrap();
            let expected: Vec<Option<bool>> = values
                .iter()
                .map(|v| Some(v.starts_with(prefix.as_str())))
                .collect();
            assert_eq!(bools(found), expected, "prefix {prefix:?}");
        }
    }
}
