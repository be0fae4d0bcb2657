//! Property tests of the string kernels: against plain references written with `str`'s
//! methods (and a backtracking `LIKE` matcher), and against arrow-string's kernels on the
//! same inputs, handed over by alkaid-arrow, on random text of every layout, sliced and
//! dictionary-encoded at random, with patterns cut from the values themselves so that
//! matches are common.

use crate::common;

use alkaid_array::types::Int16Type;
use alkaid_array::{Array, ArrayRef, AsArray, BooleanArray, DictionaryArray, make_array};
use alkaid_arrow::arrow60::array_from_arrow;
use alkaid_compute::string;
use alkaid_schema::{DataType, IntegerType};
use common::encode::encode;
use common::{Rng, Value};
use proptest::prelude::*;

/// `len` random text values (multi-byte characters included), about a fifth null.
fn values(len: usize, rng: &mut Rng) -> Vec<Option<String>> {
    (0..len)
        .map(|_| match common::value(&DataType::Utf8, rng, 0.2) {
            Value::Bytes(b) => Some(String::from_utf8(b).expect("text")),
            _ => None,
        })
        .collect()
}

/// The values as an array of a random text layout, dictionary-encoded a third of the time.
fn array(values: &[Option<String>], rng: &mut Rng) -> ArrayRef {
    let layout = [DataType::Utf8, DataType::LargeUtf8, DataType::Utf8View][rng.below(3)].clone();
    let data_type = match rng.below(3) {
        0 => DataType::dictionary(IntegerType::Int16, layout),
        _ => layout,
    };
    let cells: Vec<Value> = values
        .iter()
        .map(|v| {
            v.as_ref()
                .map_or(Value::Null, |s| Value::Bytes(s.clone().into_bytes()))
        })
        .collect();
    make_array(encode(&data_type, &cells, rng))
}

/// A piece of one of the values (whole characters), or an arbitrary short word.
fn piece(values: &[Option<String>], rng: &mut Rng) -> String {
    let present: Vec<&String> = values.iter().flatten().collect();
    if present.is_empty() || rng.chance(0.2) {
        return ["a", "é", "", "xyz"][rng.below(4)].to_string();
    }
    let chars: Vec<char> = present[rng.below(present.len())].chars().collect();
    let start = rng.below(chars.len() + 1);
    let end = start + rng.below(chars.len() - start + 1);
    chars[start..end].iter().collect()
}

/// A `LIKE` pattern: pieces of values with wildcards between, some characters escaped.
fn pattern(values: &[Option<String>], rng: &mut Rng) -> String {
    let mut out = String::new();
    for _ in 0..1 + rng.below(3) {
        match rng.below(4) {
            0 => out.push('%'),
            1 => out.push('_'),
            _ => {
                for c in piece(values, rng).chars() {
                    if matches!(c, '%' | '_' | '\\') {
                        out.push('\\');
                    }
                    out.push(c);
                }
            }
        }
    }
    out
}

/// `LIKE` written out: backtracking over characters.
fn like_reference(value: &[char], pattern: &[char]) -> bool {
    match pattern.split_first() {
        None => value.is_empty(),
        Some(('%', rest)) => (0..=value.len()).any(|skip| like_reference(&value[skip..], rest)),
        Some(('_', rest)) => !value.is_empty() && like_reference(&value[1..], rest),
        Some(('\\', rest)) if !rest.is_empty() => {
            value.first() == Some(&rest[0]) && like_reference(&value[1..], &rest[1..])
        }
        Some((c, rest)) => value.first() == Some(c) && like_reference(&value[1..], rest),
    }
}

fn bools(array: &BooleanArray) -> Vec<Option<bool>> {
    array.iter().collect()
}

/// The text values of any text layout, or of a dictionary of text (decoded by a take).
fn texts(array: &dyn Array) -> Vec<Option<String>> {
    let plain = match array.as_typed::<DictionaryArray<Int16Type>>() {
        Some(dictionary) => {
            alkaid_select::take(dictionary.values().as_ref(), dictionary.keys()).unwrap()
        }
        None => make_array(array.to_data()),
    };
    match plain.data_type() {
        DataType::Utf8 => plain
            .as_string::<i32>()
            .iter()
            .map(|v| v.map(String::from))
            .collect(),
        DataType::LargeUtf8 => plain
            .as_string::<i64>()
            .iter()
            .map(|v| v.map(String::from))
            .collect(),
        _ => plain
            .as_typed::<alkaid_array::StringViewArray>()
            .expect("text")
            .iter()
            .map(|v| v.map(String::from))
            .collect(),
    }
}

/// `window` of `count` characters as `substring` documents it.
fn window(count: usize, start: i64, length: Option<u64>) -> (usize, usize) {
    let count = count as i64;
    let begin = if start < 0 {
        (count + start).max(0)
    } else {
        start.min(count)
    };
    let end = length.map_or(count, |n| (begin + n.min(count as u64) as i64).min(count));
    (begin as usize, end as usize)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn tests_match_the_reference(seed in any::<u64>(), len in 0usize..40) {
        let mut rng = Rng::new(seed);
        let values = values(len, &mut rng);
        let input = array(&values, &mut rng);
        let expect = |test: &dyn Fn(&str) -> bool| -> Vec<Option<bool>> {
            values.iter().map(|v| v.as_deref().map(test)).collect()
        };
        let like_pattern = pattern(&values, &mut rng);
        let chars: Vec<char> = like_pattern.chars().collect();
        prop_assert_eq!(
            bools(&string::like(input.as_ref(), &like_pattern).unwrap()),
            expect(&|v| like_reference(&v.chars().collect::<Vec<_>>(), &chars)),
            "{:?}", like_pattern
        );
        let lowered: Vec<char> = like_pattern.to_lowercase().chars().collect();
        prop_assert_eq!(
            bools(&string::ilike(input.as_ref(), &like_pattern).unwrap()),
            expect(&|v| like_reference(&v.to_lowercase().chars().collect::<Vec<_>>(), &lowered)),
            "{:?}", like_pattern
        );
        let p = piece(&values, &mut rng);
        prop_assert_eq!(bools(&string::starts_with(input.as_ref(), &p).unwrap()), expect(&|v| v.starts_with(p.as_str())));
        prop_assert_eq!(bools(&string::ends_with(input.as_ref(), &p).unwrap()), expect(&|v| v.ends_with(p.as_str())));
        prop_assert_eq!(bools(&string::contains(input.as_ref(), &p).unwrap()), expect(&|v| v.contains(p.as_str())));
    }

    #[test]
    fn transforms_match_the_reference(seed in any::<u64>(), len in 0usize..40, start in -8i64..8, length in proptest::option::of(0u64..6)) {
        let mut rng = Rng::new(seed);
        let values = values(len, &mut rng);
        let input = array(&values, &mut rng);
        let expect = |f: &dyn Fn(&str) -> String| -> Vec<Option<String>> {
            values.iter().map(|v| v.as_deref().map(f)).collect()
        };
        prop_assert_eq!(texts(string::lower(input.as_ref()).unwrap().as_ref()), expect(&|v| v.to_lowercase()));
        prop_assert_eq!(texts(string::upper(input.as_ref()).unwrap().as_ref()), expect(&|v| v.to_uppercase()));
        prop_assert_eq!(texts(string::trim(input.as_ref(), " aé").unwrap().as_ref()), expect(&|v| v.trim_matches([' ', 'a', 'é']).to_string()));
        prop_assert_eq!(
            texts(string::substring(input.as_ref(), start, length).unwrap().as_ref()),
            expect(&|v| {
                let chars: Vec<char> = v.chars().collect();
                let (begin, end) = window(chars.len(), start, length);
                chars[begin..end].iter().collect()
            })
        );
        let counts = string::length(input.as_ref()).unwrap();
        let counts: Vec<Option<i64>> = (0..len).map(|i| {
            counts.is_valid(i).then(|| match counts.data_type() {
                DataType::Int64 => counts.as_primitive::<alkaid_array::types::Int64Type>().value(i),
                _ => i64::from(counts.as_primitive::<alkaid_array::types::Int32Type>().value(i)),
            })
        }).collect();
        prop_assert_eq!(counts, values.iter().map(|v| v.as_ref().map(|s| s.chars().count() as i64)).collect::<Vec<_>>());
    }

    #[test]
    fn edits_match_the_reference(seed in any::<u64>(), len in 0usize..40, width in 0usize..12, field in -4i64..5) {
        let mut rng = Rng::new(seed);
        let values = values(len, &mut rng);
        let input = array(&values, &mut rng);
        let expect = |f: &dyn Fn(&str) -> String| -> Vec<Option<String>> {
            values.iter().map(|v| v.as_deref().map(f)).collect()
        };
        let (from, to) = (piece(&values, &mut rng), piece(&values, &mut rng));
        prop_assert_eq!(
            texts(string::replace(input.as_ref(), &from, &to).unwrap().as_ref()),
            expect(&|v| if from.is_empty() { v.to_string() } else { v.replace(from.as_str(), &to) })
        );
        prop_assert_eq!(texts(string::reverse(input.as_ref()).unwrap().as_ref()), expect(&|v| v.chars().rev().collect()));
        prop_assert_eq!(texts(string::repeat(input.as_ref(), width % 4).unwrap().as_ref()), expect(&|v| v.repeat(width % 4)));
        let fill = ["", "é", "ab"][rng.below(3)];
        let padded = |v: &str, left: bool| -> String {
            let n = v.chars().count();
            if n >= width {
                return v.chars().take(width).collect();
            }
            let pad: String = fill.chars().cycle().take(width - n).collect();
            if left { format!("{pad}{v}") } else { format!("{v}{pad}") }
        };
        prop_assert_eq!(texts(string::lpad(input.as_ref(), width, fill).unwrap().as_ref()), expect(&|v| padded(v, true)));
        prop_assert_eq!(texts(string::rpad(input.as_ref(), width, fill).unwrap().as_ref()), expect(&|v| padded(v, false)));
        let delimiter = piece(&values, &mut rng);
        if field != 0 {
            prop_assert_eq!(
                texts(string::split_part(input.as_ref(), &delimiter, field).unwrap().as_ref()),
                expect(&|v| {
                    let fields: Vec<&str> = if delimiter.is_empty() { vec![v] } else { v.split(delimiter.as_str()).collect() };
                    let index = if field > 0 { Some(field as usize - 1) } else { fields.len().checked_sub(field.unsigned_abs() as usize) };
                    index.and_then(|i| fields.get(i)).copied().unwrap_or("").to_string()
                })
            );
        }
        let found = string::strpos(input.as_ref(), &from).unwrap();
        let found: Vec<Option<i64>> = (0..len).map(|i| found.is_valid(i).then(|| match found.data_type() {
            DataType::Int64 => found.as_primitive::<alkaid_array::types::Int64Type>().value(i),
            _ => i64::from(found.as_primitive::<alkaid_array::types::Int32Type>().value(i)),
        })).collect();
        let expected: Vec<Option<i64>> = values.iter().map(|v| v.as_deref().map(|v| {
            v.find(from.as_str()).map_or(0, |at| v[..at].chars().count() as i64 + 1)
        })).collect();
        prop_assert_eq!(found, expected);
    }

    #[test]
    fn joins_match_the_reference(seed in any::<u64>(), len in 0usize..40, scalar_at in proptest::option::of(0usize..3)) {
        let mut rng = Rng::new(seed);
        let mut columns: Vec<Vec<Option<String>>> = (0..3).map(|_| values(len, &mut rng)).collect();
        let arrays: Vec<ArrayRef> = columns.iter().map(|c| array(c, &mut rng)).collect();
        let plain: Vec<&dyn Array> = arrays.iter().map(|a| a.as_ref()).collect();
        let joined: Vec<Option<String>> = (0..len)
            .map(|row| columns.iter().map(|c| c[row].clone()).collect::<Option<Vec<String>>>().map(|v| v.concat()))
            .collect();
        // The joins build their results with structural checks only: each must pass full
        // validation.
        let full = |array: &ArrayRef| array.to_data().validate(alkaid_data::ValidationLevel::Full).unwrap();
        let strict = string::concat_elements(&plain).unwrap();
        full(&strict);
        prop_assert_eq!(texts(strict.as_ref()), joined);
        // One argument a scalar (null a quarter of the time) standing for every row.
        let mut arguments: Vec<Box<dyn alkaid_array::Datum>> = arrays.iter().map(|a| Box::new(a.clone()) as Box<dyn alkaid_array::Datum>).collect();
        if let Some(k) = scalar_at {
            let value = (!rng.chance(0.25)).then(|| piece(&columns[k], &mut rng));
            arguments[k] = Box::new(match &value {
                Some(v) => alkaid_array::Scalar::from(v.as_str()),
                None => alkaid_array::Scalar::new_null(&DataType::Utf8).unwrap(),
            });
            columns[k] = vec![value; len];
        }
        let arguments: Vec<&dyn alkaid_array::Datum> = arguments.iter().map(|a| a.as_ref()).collect();
        let separator = piece(&columns[0], &mut rng);
        let present = |row: usize| -> Vec<String> { columns.iter().filter_map(|c| c[row].clone()).collect() };
        // With three arguments of which at most one is a scalar, the result has `len` rows.
        let concat: Vec<Option<String>> = (0..len).map(|row| Some(present(row).concat())).collect();
        let joined = string::concat(&arguments).unwrap();
        full(&joined);
        prop_assert_eq!(texts(joined.as_ref()), concat);
        let with_separator: Vec<Option<String>> = (0..len).map(|row| Some(present(row).join(&separator))).collect();
        let joined = string::concat_ws(&separator, &arguments).unwrap();
        full(&joined);
        prop_assert_eq!(texts(joined.as_ref()), with_separator);
    }

    #[test]
    fn kernels_agree_with_arrow_string(seed in any::<u64>(), len in 0usize..40) {
        let mut rng = Rng::new(seed);
        let values = values(len, &mut rng);
        let plain: Vec<Option<&str>> = values.iter().map(|v| v.as_deref()).collect();
        let ours = alkaid_array::StringArray::from(plain.clone());
        let theirs = arrow_array::StringArray::from(plain);
        let like_pattern = pattern(&values, &mut rng);
        let scalar = arrow_array::Scalar::new(arrow_array::StringArray::from(vec![like_pattern.as_str()]));
        type Theirs = fn(&dyn arrow_array::Datum, &dyn arrow_array::Datum) -> Result<arrow_array::BooleanArray, arrow_schema::ArrowError>;
        type Ours = fn(&dyn Array, &str) -> Result<BooleanArray, alkaid_compute::ComputeError>;
        let kernels: [(Ours, Theirs); 2] = [
            (string::like, arrow_string::like::like),
            (string::ilike, arrow_string::like::ilike),
        ];
        for (mine, other) in kernels {
            let expected: Vec<Option<bool>> = other(&theirs, &scalar).unwrap().iter().collect();
            prop_assert_eq!(bools(&mine(&ours, &like_pattern).unwrap()), expected, "{:?}", like_pattern);
        }
        let p = piece(&values, &mut rng);
        let scalar = arrow_array::Scalar::new(arrow_array::StringArray::from(vec![p.as_str()]));
        let expected: Vec<Option<bool>> = arrow_string::like::contains(&theirs, &scalar).unwrap().iter().collect();
        prop_assert_eq!(bools(&string::contains(&ours, &p).unwrap()), expected);
        let expected: Vec<Option<bool>> = arrow_string::like::starts_with(&theirs, &scalar).unwrap().iter().collect();
        prop_assert_eq!(bools(&string::starts_with(&ours, &p).unwrap()), expected);
        let (start, length) = (rng.below(10) as i64 - 5, rng.chance(0.5).then(|| rng.below(5) as u64));
        let expected = arrow_string::substring::substring_by_char(&theirs, start, length).unwrap();
        let found = string::substring(&ours, start, length).unwrap();
        prop_assert_eq!(texts(found.as_ref()), texts(array_from_arrow(&expected).unwrap().as_ref()));
        // arrow-rs's `length` counts bytes: Alkaid's `octet_length`.
        let expected = array_from_arrow(arrow_string::length::length(&theirs).unwrap().as_ref()).unwrap();
        let found = string::octet_length(&ours).unwrap();
        prop_assert_eq!(
            found.as_primitive::<alkaid_array::types::Int32Type>().iter().collect::<Vec<_>>(),
            expected.as_primitive::<alkaid_array::types::Int32Type>().iter().collect::<Vec<_>>()
        );
        let expression = regex_of(&p);
        let expected: Vec<Option<bool>> = arrow_string::regexp::regexp_is_match_scalar(&theirs, &expression, None).unwrap().iter().collect();
        prop_assert_eq!(bools(&string::regexp_is_match(&ours, &expression).unwrap()), expected);
    }
}

/// A regular expression that finds `piece` followed by anything.
fn regex_of(piece: &str) -> String {
    format!("{}.*", regex_escape(piece))
}

fn regex_escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$#&-~".contains(c);
            special.then_some('\\').into_iter().chain([c])
        })
        .collect()
}
