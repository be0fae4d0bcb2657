//! Differential test of the math kernels against pyarrow.compute: the float functions
//! (`sqrt` … `atan`, `atan2`, `power`), `sign`, `ceil`/`floor`/`trunc`, and `round` in four
//! modes at five digit counts, on floats, integers and decimals, including exact ties. The
//! inputs go to `pyarrow_math.py` as JSON; its results come back row by row.
//!
//! Rounding, signs and decimals must agree exactly. The transcendental functions may
//! differ in the last bits (both call the platform's math library, but through `f64`
//! helpers that may be inlined or fused differently); they must agree within 2 ulps.

use crate::common;
use crate::peer_python;
use crate::pyarrow_compute::pyarrow_results;

use alkaid_array::display::format_value;
use alkaid_array::types::{Float64Type, Int64Type};
use alkaid_array::{Array, ArrayRef, AsArray, Decimal128Array, Float64Array, Int64Array};
use alkaid_compute::{RoundMode, math};
use alkaid_schema::DataType;
use common::Rng;
use serde_json::{Value, json};

const MODES: [(&str, RoundMode); 4] = [
    ("half_to_even", RoundMode::HalfEven),
    ("half_up", RoundMode::HalfUp),
    ("half_down", RoundMode::HalfDown),
    ("half_towards_infinity", RoundMode::HalfAwayFromZero),
];
const DIGITS: [i32; 5] = [-2, -1, 0, 1, 2];

/// A one-argument math kernel.
type FloatFunction = fn(&dyn Array) -> Result<ArrayRef, alkaid_compute::ComputeError>;

/// A float as `pyarrow_math.py` writes it.
fn float_cell(v: f64) -> Value {
    if v.is_nan() {
        json!("nan")
    } else if v.is_infinite() {
        json!(if v > 0.0 { "inf" } else { "-inf" })
    } else {
        json!(v)
    }
}

/// The rows of a result as JSON.
fn cells(array: &ArrayRef) -> Vec<Value> {
    (0..array.len())
        .map(|i| {
            if array.is_null(i) {
                return Value::Null;
            }
            match array.data_type() {
                DataType::Float64 => float_cell(array.as_primitive::<Float64Type>().value(i)),
                DataType::Int64 => json!(array.as_primitive::<Int64Type>().value(i)),
                DataType::Decimal(_) => json!(format_value(array.as_ref(), i)),
                other => panic!("no JSON form for {other}"),
            }
        })
        .collect()
}

/// Whether two float cells are within `ulps` units in the last place (or equal).
fn close(ours: &Value, theirs: &Value, ulps: u64) -> bool {
    match (ours.as_f64(), theirs.as_f64()) {
        (Some(a), Some(b)) => {
            let (a, b) = (a.to_bits() as i64, b.to_bits() as i64);
            a == b || a.abs_diff(b) <= ulps || (ours.as_f64() == theirs.as_f64())
        }
        _ => ours == theirs,
    }
}

#[test]
fn math_kernels_agree_with_pyarrow_compute() {
    let Some(python) = peer_python::python_with("pyarrow.compute") else {
        return;
    };
    let mut rng = Rng::new(0x4d41_5448);
    let mut floats: Vec<Option<f64>> = [
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.0,
        -1.0,
        2.5,
        -2.5,
        0.125,
        -0.125,
        0.375,
        1250.0,
        -1250.0,
        1350.0,
        1.005,
        2.675,
        1234.5678,
        1e-7,
        123_456_789.987,
        3.0,
        10.0,
        100.0,
        0.25,
        -7.5,
        0.05,
        0.15,
        -0.15,
        1e300,
        -1e-300,
        4.5e15,
        9.5,
        -9.5,
    ]
    .into_iter()
    .map(Some)
    .collect();
    floats.push(None);
    for _ in 0..200 {
        let value = match rng.below(3) {
            // Multiples of 1/8 and 5s at each digit: exact ties.
            0 => (rng.below(4001) as f64 - 2000.0) / 8.0,
            1 => (rng.below(2001) as f64 - 1000.0) * 5.0,
            _ => (rng.below(4_000_001) as f64 - 2_000_000.0) / 1000.0,
        };
        floats.push(Some(value));
    }
    let exponents: Vec<Option<f64>> = (0..floats.len())
        .map(|i| match i % 7 {
            6 => None,
            k => Some([2.0, 0.5, -1.0, 3.0, 0.0, -0.5][k]),
        })
        .collect();
    let ints: Vec<Option<i64>> = (0..floats.len())
        .map(|i| match i % 9 {
            8 => None,
            0 => Some((rng.below(201) as i64 - 100) * 50),
            _ => Some(rng.below(200_001) as i64 - 100_000),
        })
        .collect();
    // Decimals of scale 3, as thousandths; a third of them ties at one or two digits.
    let thousandths: Vec<Option<i128>> = (0..floats.len())
        .map(|i| match i % 11 {
            10 => None,
            0..=3 => Some((rng.below(2001) as i128 - 1000) * 50),
            4..=5 => Some((rng.below(2001) as i128 - 1000) * 5),
            _ => Some(rng.below(20_000_001) as i128 - 10_000_000),
        })
        .collect();
    let decimal_type = DataType::decimal(128, 12, 3).unwrap();
    let decimals = Decimal128Array::from(thousandths)
        .with_data_type(decimal_type)
        .unwrap();
    let decimal_text: Vec<Value> = (0..decimals.len())
        .map(|i| match decimals.is_null(i) {
            true => Value::Null,
            false => json!(format_value(&decimals, i)),
        })
        .collect();
    let spec = json!({
        "floats": floats.iter().map(|v| v.map(float_cell)).collect::<Vec<_>>(),
        "exponents": exponents, "ints": ints,
        "decimals": decimal_text, "decimal_type": [12, 3], "digits": DIGITS,
    });
    let theirs = pyarrow_results(&python, "pyarrow_math", &spec);

    let (floats, exponents) = (Float64Array::from(floats), Float64Array::from(exponents));
    let ints = Int64Array::from(ints);
    let functions: [(&str, FloatFunction); 11] = [
        ("sqrt", math::sqrt),
        ("exp", math::exp),
        ("ln", math::ln),
        ("log10", math::log10),
        ("log2", math::log2),
        ("sin", math::sin),
        ("cos", math::cos),
        ("tan", math::tan),
        ("asin", math::asin),
        ("acos", math::acos),
        ("atan", math::atan),
    ];
    let mut approximate: Vec<(String, ArrayRef)> = functions
        .iter()
        .map(|(name, f)| (name.to_string(), f(&floats).unwrap()))
        .collect();
    approximate.push(("atan2".into(), math::atan2(&floats, &exponents).unwrap()));
    approximate.push(("power".into(), math::power(&floats, &exponents).unwrap()));
    let mut exact: Vec<(String, ArrayRef)> = vec![
        ("sign floats".into(), math::sign(&floats).unwrap()),
        ("sign ints".into(), math::sign(&ints).unwrap()),
        ("sign decimals".into(), math::sign(&decimals).unwrap()),
        ("ceil floats".into(), math::ceil(&floats).unwrap()),
        ("floor floats".into(), math::floor(&floats).unwrap()),
        ("trunc floats".into(), math::trunc(&floats).unwrap()),
        ("ceil decimals".into(), math::ceil(&decimals).unwrap()),
        ("floor decimals".into(), math::floor(&decimals).unwrap()),
        ("trunc decimals".into(), math::trunc(&decimals).unwrap()),
    ];
    for (mode_name, mode) in MODES {
        for digits in DIGITS {
            for (kind, input) in [
                ("floats", &floats as &dyn Array),
                ("ints", &ints),
                ("decimals", &decimals),
            ] {
                let name = format!("round {kind} {digits} {mode_name}");
                exact.push((name, math::round(input, digits, mode).unwrap()));
            }
        }
    }
    for (name, array) in &exact {
        let theirs = theirs[name.as_str()].as_array().unwrap();
        for (i, ours) in cells(array).iter().enumerate() {
            // -0.0 and 0.0 are one value here (JSON writes both as 0).
            let same = ours == &theirs[i]
                || (ours.as_f64().is_some() && ours.as_f64() == theirs[i].as_f64());
            assert!(
                same,
                "{name}, row {i}: ours {ours}, pyarrow's {}",
                theirs[i]
            );
        }
    }
    for (name, array) in &approximate {
        let theirs = theirs[name.as_str()].as_array().unwrap();
        for (i, ours) in cells(array).iter().enumerate() {
            assert!(
                close(ours, &theirs[i], 2),
                "{name}, row {i}: ours {ours}, pyarrow's {}",
                theirs[i]
            );
        }
    }
}
