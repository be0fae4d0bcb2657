//! Differential test against pyarrow.compute, for the semantics arrow-rs has no kernel for
//! or that SQL engines take from Arrow C++: Unicode case, trimming, slicing by characters,
//! `LIKE`/`ILIKE`, splitting, and text parsed as numbers, booleans, dates and timestamps
//! and written back. The same inputs go to `pyarrow_compute.py` as JSON; its results come
//! back as JSON, row by row. Where the two differ by design, the test names the rule and
//! checks that every difference follows it.
//!
//! Needs Python with pyarrow (`$ALKAID_PYTHON`, else the CI virtualenv, else `python3`);
//! without it the test says so and passes, unless `ALKAID_REQUIRE_PYARROW` is set (CI).

use crate::common;
use crate::peer_python;

use std::path::PathBuf;
use std::process::Command;

use alkaid_array::types::{Int32Type, Int64Type};
use alkaid_array::{
    Array, ArrayRef, AsArray, BooleanArray, Date32Array, Float64Array, Int64Array, ListArray,
    StringArray,
};
use alkaid_compute::cast::{CastOptions, cast};
use alkaid_compute::string;
use alkaid_schema::{DataType, TimeUnit};
use common::Rng;
use serde_json::{Value, json};

/// Text that exercises the kernels: multi-byte characters, characters whose case changes
/// length, `LIKE`'s wildcards and escape, numbers, booleans, dates and timestamps in and
/// out of shape, surrounding spaces; then random strings over an alphabet of such pieces.
fn text() -> Vec<Option<String>> {
    let fixed = [
        "",
        " ",
        "word 1",
        "Word 2",
        "wo",
        "x",
        "xx x",
        " a b ",
        "héllo",
        "ÉCOLE",
        "日本語",
        "straße",
        "İstanbul",
        "ΣΑΣ",
        "ǅemal",
        "50%",
        "a_b",
        "a\\b",
        "a%b",
        "12",
        "-7",
        "+3",
        " 42 ",
        "1e3",
        "1.5",
        "-0.0",
        "NaN",
        "inf",
        "-inf",
        "9223372036854775807",
        "9223372036854775808",
        "0x1F",
        "true",
        "FALSE",
        "t",
        "yes",
        "off",
        "1",
        "0",
        "2026-11-26",
        "1999-02-29",
        "0001-01-01",
        "2026-11-26T10:20:30",
        "2026-11-26 10:20:30.125",
        "2026-11-26T10:20:30Z",
        "2026-11-26T10:20:30+05:30",
        "2026-11-26T10:20:30-0800",
        "2026-11-26T25:00:00",
        "10:20",
        "é",
    ];
    let pieces = [
        "a", "b", "w", "o", "x", " ", "é", "ß", "日", "%", "_", "\\", "1", "2", "-", ":", "T", "Σ",
        "İ", "wo", "rd",
    ];
    let mut rng = Rng::new(20261126);
    let mut out: Vec<Option<String>> = fixed.iter().map(|s| Some(s.to_string())).collect();
    out.push(None);
    for _ in 0..400 {
        if rng.chance(0.05) {
            out.push(None);
            continue;
        }
        let len = rng.below(7);
        out.push(Some(
            (0..len).map(|_| pieces[rng.below(pieces.len())]).collect(),
        ));
    }
    out
}

const LIKE: [&str; 9] = [
    "%o%", "w_rd%", "%é", "a\\%b", "a\\_b", "%", "_", "", "%\\\\%",
];
const SUBSTRINGS: [(i64, Option<u64>); 6] = [
    (0, Some(2)),
    (1, Some(3)),
    (2, None),
    (-2, None),
    (-5, None),
    (3, Some(0)),
];

/// One row of an Alkaid result as JSON, as Python's `to_pylist` writes it.
pub(crate) fn cells(array: &dyn Array) -> Vec<Value> {
    let row = |i: usize| -> Value {
        if array.is_null(i) {
            return Value::Null;
        }
        match array.data_type() {
            DataType::Boolean => json!(array.as_boolean().value(i)),
            DataType::Int32 => json!(array.as_primitive::<Int32Type>().value(i)),
            DataType::Int64 => json!(array.as_primitive::<Int64Type>().value(i)),
            DataType::Utf8 => json!(array.as_string::<i32>().value(i)),
            DataType::List(_) => {
                let list = array.as_typed::<ListArray>().unwrap().value(i);
                Value::Array(cells(list.as_ref()))
            }
            other => panic!("no JSON form for {other}"),
        }
    };
    (0..array.len()).map(row).collect()
}

fn utf8(array: ArrayRef) -> ArrayRef {
    cast(array.as_ref(), &DataType::Utf8, CastOptions::STRICT).unwrap()
}

/// Whether Rust's full case mapping of some character of `s` is more than one character
/// (`ß` uppers to `SS`), or depends on its neighbours (`Σ` lowers to `ς` at a word's end):
/// Arrow C++ maps character by character, one to one.
fn case_changes_length(s: &str, upper: bool) -> bool {
    s.chars().any(|c| {
        let mapped = if upper {
            c.to_uppercase().count()
        } else {
            c.to_lowercase().count()
        };
        mapped > 1 || (!upper && c == 'Σ')
    })
}

/// Whether Alkaid's parser takes `value` as `target` by a documented extension of what
/// pyarrow's takes: surrounding spaces; `t`/`f`, `yes`/`no`, `y`/`n`, `on`/`off`;
/// numbers with a `+` sign; text without an offset read in a zoned target's zone; text
/// with an offset read as an instant into a zone-less target.
fn extension(value: &str, target: &str) -> bool {
    let word = value.trim();
    let offset = word.ends_with('Z') || word.get(19..).is_some_and(|t| t.contains(['+', '-']));
    value != word
        || word.starts_with('+')
        || (target == "bool"
            && ["t", "f", "yes", "no", "y", "n", "on", "off"]
                .contains(&word.to_ascii_lowercase().as_str()))
        || (target == "timestamp_ms_utc" && !offset)
        || (target == "timestamp_s" && offset)
}

/// Whether pyarrow's parser takes `value` as `target` where Alkaid's, by design, does not:
/// integers in hexadecimal (`0x1F`; Alkaid reads decimal digits only, as SQL's `CAST`
/// does).
fn pyarrow_only(value: &str, target: &str) -> bool {
    target == "int64" && value.starts_with("0x")
}

/// Runs `tests/{script}.py` with Python `python` on `spec` (written as a JSON file under
/// `target/tmp/{script}/`) and returns the JSON object it prints: pyarrow's results by name.
pub(crate) fn pyarrow_results(
    python: &std::path::Path,
    script: &str,
    spec: &Value,
) -> serde_json::Map<String, Value> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = manifest.join("../target/tmp").join(script);
    std::fs::create_dir_all(&dir).unwrap();
    let spec_path = dir.join("spec.json");
    std::fs::write(&spec_path, spec.to_string()).unwrap();
    let output = Command::new(python)
        .arg(manifest.join(format!("tests/{script}.py")))
        .arg(&spec_path)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{script}.py failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn string_kernels_and_text_casts_agree_with_pyarrow_compute() {
    let Some(python) = peer_python::python_with("pyarrow.compute") else {
        return;
    };
    let values = text();
    let integers: Vec<Option<i64>> = vec![
        Some(0),
        Some(-1),
        Some(i64::MIN),
        Some(i64::MAX),
        None,
        Some(1_234_567),
    ];
    let floats: Vec<Option<f64>> = vec![
        Some(1.5),
        Some(-0.25),
        Some(1e20),
        Some(1e-7),
        Some(0.1),
        None,
        Some(-3.0),
        Some(123456.789),
    ];
    let days: Vec<Option<i32>> = vec![
        Some(0),
        Some(-1),
        Some(20_418),
        None,
        Some(-719_162),
        Some(2_932_896),
    ];
    let seconds: Vec<Option<i64>> =
        vec![Some(0), Some(86_400), Some(-1), None, Some(1_795_000_000)];
    let spec = json!({
        "text": values,
        "like": LIKE,
        "substring": SUBSTRINGS.iter().map(|(s, l)| json!([s, l])).collect::<Vec<_>>(),
        "integers": integers,
        "floats": floats,
        "days": days,
        "seconds": seconds,
    });
    let theirs = pyarrow_results(&python, "pyarrow_compute", &spec);

    let input = StringArray::from(values.clone());
    let mut ours: Vec<(String, Vec<Value>)> = vec![
        (
            "length".into(),
            cells(string::length(&input).unwrap().as_ref()),
        ),
        (
            "octet_length".into(),
            cells(string::octet_length(&input).unwrap().as_ref()),
        ),
        (
            "lower".into(),
            cells(string::lower(&input).unwrap().as_ref()),
        ),
        (
            "upper".into(),
            cells(string::upper(&input).unwrap().as_ref()),
        ),
        (
            "trim".into(),
            cells(string::trim(&input, " x").unwrap().as_ref()),
        ),
        (
            "ltrim".into(),
            cells(string::ltrim(&input, " x").unwrap().as_ref()),
        ),
        (
            "rtrim".into(),
            cells(string::rtrim(&input, " x").unwrap().as_ref()),
        ),
        (
            "starts_with".into(),
            cells(&string::starts_with(&input, "wo").unwrap()),
        ),
        (
            "ends_with".into(),
            cells(&string::ends_with(&input, "é").unwrap()),
        ),
        (
            "contains".into(),
            cells(&string::contains(&input, "o").unwrap()),
        ),
        (
            "split".into(),
            cells(string::split(&input, " ").unwrap().as_ref()),
        ),
        (
            "regexp_is_match".into(),
            cells(&string::regexp_is_match(&input, r"^[a-z]+ [0-9]$").unwrap()),
        ),
    ];
    let upper = string::upper(&input).unwrap();
    let bar = alkaid_array::Scalar::from("|");
    let edits: Vec<(&str, ArrayRef)> = vec![
        ("replace", string::replace(&input, "o", "0é").unwrap()),
        (
            "regexp_replace",
            string::regexp_replace(&input, "[0-9]+|é", "#").unwrap(),
        ),
        (
            "regexp_extract",
            string::regexp_extract(&input, "([a-zé]+) ([0-9])", 1).unwrap(),
        ),
        ("lpad", string::lpad(&input, 6, "·").unwrap()),
        ("rpad", string::rpad(&input, 6, "·").unwrap()),
        ("repeat", string::repeat(&input, 3).unwrap()),
        ("reverse", string::reverse(&input).unwrap()),
        ("strpos", string::strpos(&input, "o").unwrap()),
        ("concat", string::concat(&[&input, &upper]).unwrap()),
        (
            "concat_ws",
            string::concat_ws("/", &[&input, &bar, &input]).unwrap(),
        ),
    ];
    for (name, result) in edits {
        ours.push((name.into(), cells(result.as_ref())));
    }
    for (i, pattern) in LIKE.iter().enumerate() {
        ours.push((
            format!("like {i}"),
            cells(&string::like(&input, pattern).unwrap()),
        ));
        ours.push((
            format!("ilike {i}"),
            cells(&string::ilike(&input, pattern).unwrap()),
        ));
    }
    for (start, length) in SUBSTRINGS {
        let name = format!(
            "substring {start} {}",
            length.map_or("None".into(), |l| l.to_string())
        );
        ours.push((
            name,
            cells(string::substring(&input, start, length).unwrap().as_ref()),
        ));
    }

    let safe = CastOptions::SAFE;
    let parsed = |to: &DataType| cast(&input, to, safe).unwrap();
    let floats_as_json = |a: ArrayRef| -> Vec<Value> {
        let a = a.as_primitive::<alkaid_array::types::Float64Type>();
        (0..a.len())
            .map(|i| match a.is_valid(i).then(|| a.value(i)) {
                None => Value::Null,
                Some(v) if v.is_finite() => json!(v),
                Some(v) if v.is_nan() => json!("nan"),
                Some(v) => json!(if v > 0.0 { "inf" } else { "-inf" }),
            })
            .collect()
    };
    let raw = |a: ArrayRef, to: DataType| cells(cast(a.as_ref(), &to, safe).unwrap().as_ref());
    let utc = DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()));
    ours.push((
        "parse int64".into(),
        cells(parsed(&DataType::Int64).as_ref()),
    ));
    ours.push((
        "parse float64".into(),
        floats_as_json(parsed(&DataType::Float64)),
    ));
    ours.push((
        "parse bool".into(),
        cells(parsed(&DataType::Boolean).as_ref()),
    ));
    ours.push((
        "parse date32".into(),
        raw(parsed(&DataType::Date32), DataType::Int32),
    ));
    let seconds_type = DataType::Timestamp(TimeUnit::Second, None);
    ours.push((
        "parse timestamp_s".into(),
        raw(parsed(&seconds_type), DataType::Int64),
    ));
    ours.push((
        "parse timestamp_ms_utc".into(),
        raw(parsed(&utc), DataType::Int64),
    ));

    let zoned = cast(
        &Int64Array::from(seconds.clone()),
        &DataType::Timestamp(TimeUnit::Second, Some("+05:30".into())),
        safe,
    )
    .unwrap();
    let flags = BooleanArray::from(
        integers
            .iter()
            .map(|v| v.map(|v| v % 2 == 0))
            .collect::<Vec<_>>(),
    );
    ours.push((
        "format int64".into(),
        cells(utf8(std::sync::Arc::new(Int64Array::from(integers.clone()))).as_ref()),
    ));
    ours.push((
        "format float64".into(),
        cells(utf8(std::sync::Arc::new(Float64Array::from(floats.clone()))).as_ref()),
    ));
    ours.push((
        "format date32".into(),
        cells(utf8(std::sync::Arc::new(Date32Array::from(days.clone()))).as_ref()),
    ));
    ours.push((
        "format timestamp_s_zoned".into(),
        cells(utf8(zoned).as_ref()),
    ));
    ours.push((
        "format bool".into(),
        cells(utf8(std::sync::Arc::new(flags)).as_ref()),
    ));

    let mut checked = 0;
    for (name, ours) in &ours {
        let theirs = theirs[name.as_str()]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: no result"));
        assert_eq!(ours.len(), theirs.len(), "{name}");
        for (row, (a, b)) in ours.iter().zip(theirs).enumerate() {
            let value = values.get(row).cloned().flatten().unwrap_or_default();
            let same = a == b
                || match name.as_str() {
                    "upper" | "lower" => case_changes_length(&value, name == "upper"),
                    // `upper` as the second argument: where Rust's case mapping changes
                    // the length, as above.
                    "concat" => case_changes_length(&value, true),
                    // Longer values: cut to the width by Alkaid (PostgreSQL), left whole by
                    // pyarrow.
                    "lpad" | "rpad" => {
                        value.chars().count() > 6
                            && a.as_str() == Some(&value[..value.char_indices().nth(6).unwrap().0])
                            && b.as_str() == Some(value.as_str())
                    }
                    // Characters from 1 and 0 when absent (PostgreSQL) against bytes from 0
                    // and -1 (pyarrow).
                    "strpos" => match (a.as_i64(), b.as_i64()) {
                        (Some(0), Some(-1)) => true,
                        (Some(chars), Some(bytes)) => {
                            value[..bytes as usize].chars().count() as i64 + 1 == chars
                        }
                        _ => false,
                    },
                    // The same number, written by two formatters (`1e20` and `1e+20`).
                    "format float64" => {
                        a.as_str().and_then(|s| s.parse::<f64>().ok())
                            == b.as_str().and_then(|s| s.parse::<f64>().ok())
                    }
                    // ISO 8601 with `T` and `+05:30` against a space and `+0530`: the same
                    // digits in the same order.
                    "format timestamp_s_zoned" => {
                        let digits = |v: &Value| {
                            v.as_str()
                                .map(|s| s.chars().filter(char::is_ascii_digit).collect::<String>())
                        };
                        digits(a) == digits(b)
                    }
                    parse if parse.starts_with("parse ") => {
                        (b.is_null() && !a.is_null() && extension(&value, &parse[6..]))
                            || (a.is_null() && !b.is_null() && pyarrow_only(&value, &parse[6..]))
                    }
                    _ => false,
                };
            assert!(
                same,
                "{name}, row {row} ({value:?}): Alkaid {a}, pyarrow {b}"
            );
            checked += 1;
        }
    }
    assert!(checked > 10_000, "{checked} cells compared");
}
