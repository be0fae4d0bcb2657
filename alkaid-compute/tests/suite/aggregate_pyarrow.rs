//! Differential test of the statistical aggregates against pyarrow.compute: variance and
//! standard deviation (sample and population), quantiles in all five interpolations,
//! first and last, over whole columns of floats and integers and per group (pyarrow's
//! hash aggregates). Floats agree within a relative 1e-9 (the two libraries add in
//! different orders); quantiles, first and last exactly. By design Alkaid's quantiles are
//! always `Float64`, where pyarrow's `lower`, `higher` and `nearest` keep the input's type
//! (compared as numbers here).

use crate::common;
use crate::peer_python;
use crate::pyarrow_compute::pyarrow_results;

use alkaid_array::types::{Float64Type, Int64Type};
use alkaid_array::{Array, ArrayRef, AsArray, Float64Array, Int64Array, Scalar};
use alkaid_compute::{Aggregate, Interpolation, quantile};
use common::Rng;
use serde_json::{Value, json};

const INTERPOLATIONS: [(&str, Interpolation); 5] = [
    ("linear", Interpolation::Linear),
    ("lower", Interpolation::Lower),
    ("higher", Interpolation::Higher),
    ("nearest", Interpolation::Nearest),
    ("midpoint", Interpolation::Midpoint),
];
const QUANTILES: [f64; 6] = [0.0, 0.1, 0.25, 0.5, 0.9, 1.0];

fn scalar_cell(scalar: &Scalar) -> Value {
    let array = scalar.array();
    cell(array.as_ref(), 0)
}

fn cell(array: &dyn Array, i: usize) -> Value {
    if array.is_null(i) {
        return Value::Null;
    }
    match array.data_type() {
        alkaid_schema::DataType::Float64 => json!(array.as_primitive::<Float64Type>().value(i)),
        _ => json!(array.as_primitive::<Int64Type>().value(i)),
    }
}

fn close(ours: &Value, theirs: &Value) -> bool {
    match (ours.as_f64(), theirs.as_f64()) {
        (Some(a), Some(b)) => a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()),
        _ => ours == theirs,
    }
}

#[test]
fn statistics_agree_with_pyarrow_compute() {
    let Some(python) = peer_python::python_with("pyarrow.compute") else {
        return;
    };
    let mut rng = Rng::new(0x57a7);
    let len = 500;
    let floats: Vec<Option<f64>> = (0..len)
        .map(|_| (!rng.chance(0.1)).then(|| (rng.below(2_000_001) as f64 - 1e6) / 64.0 + 1e6))
        .collect();
    let ints: Vec<Option<i64>> = (0..len)
        .map(|_| (!rng.chance(0.1)).then(|| rng.below(1000) as i64 - 500))
        .collect();
    // Seven groups, one of them (6) with a single row, so that ddof 1 gives a null.
    let mut groups: Vec<u32> = (0..len).map(|_| rng.below(6) as u32).collect();
    groups[len - 1] = 6;
    let spec = json!({"floats": floats, "ints": ints, "groups": groups, "quantiles": QUANTILES});
    let theirs = pyarrow_results(&python, "pyarrow_aggregate", &spec);

    let columns: [(&str, ArrayRef); 2] = [
        ("floats", std::sync::Arc::new(Float64Array::from(floats))),
        ("ints", std::sync::Arc::new(Int64Array::from(ints))),
    ];
    let mut compared = 0;
    let mut check = |name: String, ours: Vec<Value>, exact: bool| {
        let theirs = theirs[name.as_str()]
            .as_array()
            .unwrap_or_else(|| panic!("{name}"));
        assert_eq!(ours.len(), theirs.len(), "{name}");
        for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
            let same = if exact {
                a == b || a.as_f64() == b.as_f64()
            } else {
                close(a, b)
            };
            assert!(same, "{name}, row {i}: Alkaid {a}, pyarrow {b}");
            compared += 1;
        }
    };
    for (name, values) in &columns {
        let values = values.as_ref();
        for (ddof, variance, stddev) in [
            (
                0,
                Aggregate::VariancePopulation,
                Aggregate::StddevPopulation,
            ),
            (1, Aggregate::VarianceSample, Aggregate::StddevSample),
        ] {
            check(
                format!("variance {name} {ddof}"),
                vec![scalar_cell(&variance.evaluate(values).unwrap())],
                false,
            );
            check(
                format!("stddev {name} {ddof}"),
                vec![scalar_cell(&stddev.evaluate(values).unwrap())],
                false,
            );
        }
        for (k, q) in QUANTILES.into_iter().enumerate() {
            for (label, interpolation) in INTERPOLATIONS {
                let ours = scalar_cell(&quantile(values, q, interpolation).unwrap());
                check(format!("quantile {name} {k} {label}"), vec![ours], true);
            }
        }
        check(
            format!("first {name}"),
            vec![scalar_cell(&Aggregate::First.evaluate(values).unwrap())],
            true,
        );
        check(
            format!("last {name}"),
            vec![scalar_cell(&Aggregate::Last.evaluate(values).unwrap())],
            true,
        );
        // Per group: pyarrow's groups sorted by id, 0 to 6, all present.
        let present: Vec<Value> = (0..7).map(|g| json!(g)).collect();
        check(format!("groups {name}"), present, true);
        let per_group = |aggregate: Aggregate| -> Vec<Value> {
            let result = aggregate
                .evaluate_grouped(values, &groups, 7, None)
                .unwrap();
            (0..7).map(|g| cell(result.as_ref(), g)).collect()
        };
        check(
            format!("v_variance {name}"),
            per_group(Aggregate::VarianceSample),
            false,
        );
        check(
            format!("v_stddev {name}"),
            per_group(Aggregate::StddevPopulation),
            false,
        );
        check(format!("v_first {name}"), per_group(Aggregate::First), true);
        check(format!("v_last {name}"), per_group(Aggregate::Last), true);
    }
    assert!(compared > 100, "{compared} values compared");
}
