//! The `cast_text` target: text from the fuzzer cast to every type text parses into, in
//! both modes, and the results written back as text.

use alkaid_array::{ArrayRef, LargeStringArray, StringArray, StringViewArray};
use alkaid_compute::ComputeError;
use alkaid_compute::cast::{CastOptions, cast};
use alkaid_schema::{DataType, IntegerType, TimeUnit};

/// The types text is cast to.
fn targets() -> Vec<DataType> {
    vec![
        DataType::Int8,
        DataType::UInt16,
        DataType::Int64,
        DataType::UInt64,
        DataType::Float16,
        DataType::Float32,
        DataType::Float64,
        DataType::Boolean,
        DataType::decimal(32, 9, 2).unwrap(),
        DataType::decimal(128, 38, 10).unwrap(),
        DataType::decimal(256, 76, 0).unwrap(),
        DataType::decimal(64, 5, -3).unwrap(),
        DataType::Date32,
        DataType::Date64,
        DataType::Time(TimeUnit::Second),
        DataType::Time(TimeUnit::Nanosecond),
        DataType::Timestamp(TimeUnit::Nanosecond, None),
        DataType::Timestamp(TimeUnit::Second, Some("Europe/Paris".into())),
        DataType::Timestamp(TimeUnit::Millisecond, Some("+05:45".into())),
        DataType::Binary,
        DataType::dictionary(IntegerType::Int8, DataType::Int32),
    ]
}

/// The input as text values (one per line) in the layout the first byte picks.
fn text(data: &[u8]) -> ArrayRef {
    let (layout, rest) = data.split_first().map_or((0, data), |(b, r)| (*b, r));
    let values: Vec<Option<String>> = rest
        .split(|&b| b == b'\n')
        .map(|line| match line {
            b"\\N" => None,
            line => Some(String::from_utf8_lossy(line).into_owned()),
        })
        .collect();
    let values = values.iter().map(|v| v.as_deref());
    match layout % 3 {
        0 => std::sync::Arc::new(StringArray::from_iter(values)),
        1 => std::sync::Arc::new(LargeStringArray::from_iter(values)),
        _ => std::sync::Arc::new(StringViewArray::from_iter(values)),
    }
}

/// Casts the fuzzer's text to every target; neither mode may panic, a strict failure
/// names a row of the input, a safe cast never fails on a value, and whatever is made is
/// written back as text.
pub fn cast_text(data: &[u8]) {
    let input = text(data);
    for to in targets() {
        let safe = cast(input.as_ref(), &to, CastOptions::SAFE)
            .expect("a safe cast of text fails on no value");
        assert_eq!(safe.len(), input.len());
        match cast(input.as_ref(), &to, CastOptions::STRICT) {
            Ok(strict) => assert_eq!(strict.to_data().nulls(), safe.to_data().nulls(), "{to}"),
            Err(ComputeError::Cast { row, .. }) => {
                assert!(row < input.len() && safe.is_null(row), "{to}: row {row}")
            }
            Err(other) => panic!("{to}: {other}"),
        }
        let back = cast(safe.as_ref(), &DataType::Utf8, CastOptions::STRICT)
            .expect("every value writes as text");
        assert_eq!(back.null_count(), safe.null_count());
    }
}
