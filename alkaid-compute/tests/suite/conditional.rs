//! Property tests for the conditional and membership kernels over random arrays of every
//! type (nested, dictionary and run-end encoded, sliced), against row-by-row references
//! over the decoded values; and the differential against arrow-rs's `zip`.

use crate::common;

use alkaid_array::{Array, ArrayRef, BooleanArray, Datum, Scalar, make_array};
use alkaid_arrow::arrow60::{array_from_arrow, array_to_arrow};
use alkaid_compute::{
    ComputeError, ValueSet, coalesce, fill_null, fill_null_backward, fill_null_forward, if_else,
    index_in, is_in,
};
use alkaid_schema::{DataType, arbitrary};
use alkaid_select::SelectError;
use arrow_array::cast::AsArray as _;
use common::decode::decode;
use common::encode::encode;
use common::{Rng, Value, generatable, value};
use proptest::prelude::*;

/// Whether a decoded value is a logical null (a union whose member is null is one).
fn null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Union(_, inner) => null(inner),
        _ => false,
    }
}

/// `value` with every null, at any depth, written as `Value::Null`: a union whose member
/// is null is a null, as the crate's equality has it.
pub(crate) fn canonical(value: &Value) -> Value {
    match value {
        v if null(v) => Value::Null,
        Value::List(items) => Value::List(items.iter().map(canonical).collect()),
        Value::Struct(fields) => Value::Struct(fields.iter().map(canonical).collect()),
        Value::Union(id, inner) => Value::Union(*id, Box::new(canonical(inner))),
        v => v.clone(),
    }
}

/// The decoded rows, canonical.
pub(crate) fn rows(array: &dyn Array) -> Vec<Value> {
    decode(&array.to_data()).iter().map(canonical).collect()
}

/// Random values of `data_type`, a third of them null, and their array (sliced half the
/// time, so that offsets are exercised).
fn random(data_type: &DataType, len: usize, rng: &mut Rng) -> (Vec<Value>, ArrayRef) {
    let values: Vec<Value> = (0..len).map(|_| value(data_type, rng, 0.3)).collect();
    if rng.chance(0.5) {
        let mut padded = vec![value(data_type, rng, 0.3)];
        padded.extend(values.iter().cloned());
        padded.push(value(data_type, rng, 0.3));
        let array = make_array(encode(data_type, &padded, rng));
        return (values, array.slice(1, len));
    }
    let array = make_array(encode(data_type, &values, rng));
    (values, array)
}

/// An argument: the array, or (a third of the time) a scalar of its first value.
fn maybe_scalar(values: &[Value], array: &ArrayRef, rng: &mut Rng) -> (Vec<Value>, Box<dyn Datum>) {
    if !values.is_empty() && rng.chance(0.33) {
        let scalar = Scalar::try_new(array.slice(0, 1)).expect("one slot");
        return (vec![values[0].clone(); values.len()], Box::new(scalar));
    }
    (values.to_vec(), Box::new(array.clone()))
}

/// Whether a float type occurs anywhere in `data_type`.
fn has_float(data_type: &DataType) -> bool {
    let here = match data_type {
        DataType::Dictionary { value, .. } => has_float(value),
        DataType::RunEndEncoded(ree) => has_float(ree.values().data_type()),
        t => t.is_floating(),
    };
    here || data_type
        .children()
        .iter()
        .any(|f| has_float(f.data_type()))
}

/// The one error a kernel may give on these inputs: dictionary keys that overflow their
/// type when the arguments' dictionaries merge.
fn assembly_error(error: &ComputeError) -> bool {
    matches!(error, ComputeError::Select(SelectError::Overflow(_)))
}

fn normalised(values: &[Value]) -> Vec<Value> {
    values.iter().map(canonical).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn if_else_picks_the_named_branch(
        data_type in arbitrary::data_type_with_depth(2),
        seed in any::<u64>(),
        len in 0usize..24,
    ) {
        prop_assume!(generatable(&data_type));
        let mut rng = Rng::new(seed);
        let (t_values, truthy) = random(&data_type, len, &mut rng);
        let (f_values, falsy) = random(&data_type, len, &mut rng);
        let (t_values, truthy) = maybe_scalar(&t_values, &truthy, &mut rng);
        let (f_values, falsy) = maybe_scalar(&f_values, &falsy, &mut rng);
        let mask: Vec<Option<bool>> = (0..len)
            .map(|_| (!rng.chance(0.2)).then(|| rng.chance(0.5)))
            .collect();
        let condition = BooleanArray::from(mask.clone());
        match if_else(&condition, truthy.as_ref(), falsy.as_ref()) {
            Ok(picked) => {
                let expected: Vec<Value> = (0..len)
                    .map(|i| match mask[i] {
                        None => Value::Null,
                        Some(true) => t_values[i].clone(),
                        Some(false) => f_values[i].clone(),
                    })
                    .collect();
                prop_assert_eq!(picked.len(), len);
                prop_assert_eq!(rows(picked.as_ref()), normalised(&expected));
            }
            Err(e) => prop_assert!(assembly_error(&e), "{}: {}", data_type, e),
        }
    }

    /// The byte layouts' own path (values copied, or views picked), with long values that
    /// views keep in their data buffers.
    #[test]
    fn if_else_of_bytes_picks_the_named_branch(
        pick in 0usize..6,
        seed in any::<u64>(),
        len in 0usize..40,
    ) {
        let data_type = [
            DataType::Utf8,
            DataType::LargeUtf8,
            DataType::Utf8View,
            DataType::Binary,
            DataType::LargeBinary,
            DataType::BinaryView,
        ][pick].clone();
        let mut rng = Rng::new(seed);
        let (t_values, truthy) = random(&data_type, len, &mut rng);
        let (f_values, falsy) = random(&data_type, len, &mut rng);
        let (t_values, truthy) = maybe_scalar(&t_values, &truthy, &mut rng);
        let (f_values, falsy) = maybe_scalar(&f_values, &falsy, &mut rng);
        let mask: Vec<Option<bool>> = (0..len)
            .map(|_| (!rng.chance(0.2)).then(|| rng.chance(0.5)))
            .collect();
        let picked = if_else(&BooleanArray::from(mask.clone()), truthy.as_ref(), falsy.as_ref()).unwrap();
        let expected: Vec<Value> = (0..len)
            .map(|i| match mask[i] {
                None => Value::Null,
                Some(true) => t_values[i].clone(),
                Some(false) => f_values[i].clone(),
            })
            .collect();
        prop_assert_eq!(picked.data_type(), &data_type);
        // Built with structural checks only: the values must pass full validation.
        picked.to_data().validate(alkaid_data::ValidationLevel::Full).unwrap();
        prop_assert_eq!(rows(picked.as_ref()), normalised(&expected));
    }

    #[test]
    fn coalesce_takes_the_first_value_and_fills_match_their_definitions(
        data_type in arbitrary::data_type_with_depth(2),
        seed in any::<u64>(),
        len in 0usize..24,
        count in 1usize..4,
    ) {
        prop_assume!(generatable(&data_type));
        let mut rng = Rng::new(seed);
        let mut arguments = Vec::new();
        for _ in 0..count {
            let (values, array) = random(&data_type, len, &mut rng);
            arguments.push(maybe_scalar(&values, &array, &mut rng));
        }
        let datums: Vec<&dyn Datum> = arguments.iter().map(|(_, d)| d.as_ref()).collect();
        let all_scalars = arguments.iter().all(|(_, d)| d.get().1);
        let expected: Vec<Value> = (0..if all_scalars { len.min(1) } else { len })
            .map(|i| {
                arguments
                    .iter()
                    .map(|(values, _)| &values[i])
                    .find(|v| !null(v))
                    .cloned()
                    .unwrap_or(Value::Null)
            })
            .collect();
        match coalesce(&datums) {
            Ok(result) if len > 0 || !all_scalars => {
                prop_assert_eq!(rows(result.as_ref()), normalised(&expected))
            }
            Ok(_) => {}
            Err(e) => prop_assert!(assembly_error(&e), "{}: {}", data_type, e),
        }

        let (values, array) = random(&data_type, len, &mut rng);
        let forward: Vec<Value> = values
            .iter()
            .scan(Value::Null, |last, v| {
                if !null(v) {
                    *last = v.clone();
                }
                Some(last.clone())
            })
            .collect();
        let mut backward: Vec<Value> = values
            .iter()
            .rev()
            .scan(Value::Null, |last, v| {
                if !null(v) {
                    *last = v.clone();
                }
                Some(last.clone())
            })
            .collect();
        backward.reverse();
        for (filled, expected) in [
            (fill_null_forward(array.as_ref()), forward),
            (fill_null_backward(array.as_ref()), backward),
        ] {
            match filled {
                Ok(filled) => prop_assert_eq!(rows(filled.as_ref()), normalised(&expected)),
                Err(e) => prop_assert!(assembly_error(&e), "{}: {}", data_type, e),
            }
        }
        let (fill_values, fill) = random(&data_type, len, &mut rng);
        let expected: Vec<Value> = values
            .iter()
            .zip(&fill_values)
            .map(|(v, f)| if null(v) { f.clone() } else { v.clone() })
            .collect();
        match fill_null(array.as_ref(), &fill) {
            Ok(filled) => prop_assert_eq!(rows(filled.as_ref()), normalised(&expected)),
            Err(e) => prop_assert!(assembly_error(&e), "{}: {}", data_type, e),
        }
    }

    #[test]
    fn is_in_and_index_in_follow_sql(
        data_type in arbitrary::data_type_with_depth(2),
        seed in any::<u64>(),
        len in 0usize..24,
        set_len in 0usize..8,
    ) {
        // Floats are equal in the crate's total order (every NaN one value, -0.0 = 0.0),
        // which the byte-wise reference does not know: they have a test of their own.
        prop_assume!(generatable(&data_type) && !has_float(&data_type));
        let mut rng = Rng::new(seed);
        let (set_values, set_array) = random(&data_type, set_len, &mut rng);
        // The probe draws half its rows from the set, so that values meet.
        let probe_values: Vec<Value> = (0..len)
            .map(|_| {
                if !set_values.is_empty() && rng.chance(0.5) {
                    set_values[rng.below(set_values.len())].clone()
                } else {
                    value(&data_type, &mut rng, 0.3)
                }
            })
            .collect();
        let probe = make_array(encode(&data_type, &probe_values, &mut rng));
        let set = ValueSet::new(set_array.as_ref()).unwrap();
        let set_values = normalised(&set_values);
        let set_null = set_values.contains(&Value::Null);
        let position = |v: &Value| set_values.iter().position(|s| s == v);
        let expected_in: Vec<Option<bool>> = normalised(&probe_values)
            .iter()
            .map(|v| match (v, position(v)) {
                (Value::Null, _) => None,
                (_, Some(_)) => Some(true),
                (_, None) if set_null => None,
                (_, None) => Some(false),
            })
            .collect();
        let expected_index: Vec<Option<i32>> = normalised(&probe_values)
            .iter()
            .map(|v| match v {
                Value::Null => None,
                v => position(v).map(|p| p as i32),
            })
            .collect();
        prop_assert_eq!(is_in(probe.as_ref(), &set).unwrap().iter().collect::<Vec<_>>(), expected_in);
        prop_assert_eq!(index_in(probe.as_ref(), &set).unwrap().iter().collect::<Vec<_>>(), expected_index);
    }

    #[test]
    fn float_membership_uses_the_total_order(seed in any::<u64>(), len in 0usize..40, single in any::<bool>()) {
        let mut rng = Rng::new(seed);
        let pool = [0.0, -0.0, 1.5, f64::NAN, -f64::NAN, f64::from_bits(0x7ff8_0000_0000_0001), f64::INFINITY, -2.0];
        let draw = |rng: &mut Rng| (!rng.chance(0.1)).then(|| pool[rng.below(pool.len())]);
        let set_values: Vec<Option<f64>> = (0..rng.below(5)).map(|_| draw(&mut rng)).collect();
        let probe: Vec<Option<f64>> = (0..len).map(|_| draw(&mut rng)).collect();
        let same = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan());
        let set_null = set_values.contains(&None);
        let expected: Vec<Option<bool>> = probe.iter().map(|p| match p {
            None => None,
            Some(p) if set_values.iter().flatten().any(|s| same(*s, *p)) => Some(true),
            Some(_) if set_null => None,
            Some(_) => Some(false),
        }).collect();
        let found = if single {
            let to32 = |v: &Vec<Option<f64>>| alkaid_array::Float32Array::from(v.iter().map(|x| x.map(|x| x as f32)).collect::<Vec<_>>());
            is_in(&to32(&probe), &ValueSet::new(&to32(&set_values)).unwrap()).unwrap()
        } else {
            let to64 = |v: &Vec<Option<f64>>| alkaid_array::Float64Array::from(v.clone());
            is_in(&to64(&probe), &ValueSet::new(&to64(&set_values)).unwrap()).unwrap()
        };
        prop_assert_eq!(found.iter().collect::<Vec<_>>(), expected);
    }

    /// arrow-rs's `zip` picks the false branch where the mask is null; Alkaid's `if_else`
    /// gives a null there (Arrow C++'s rule). Everywhere else the two agree.
    #[test]
    fn if_else_agrees_with_arrow_select_zip(seed in any::<u64>(), len in 0usize..40, pick in 0usize..4) {
        let mut rng = Rng::new(seed);
        let data_type = [DataType::Int32, DataType::Utf8, DataType::Float64, DataType::BinaryView][pick].clone();
        let (_, truthy) = random(&data_type, len, &mut rng);
        let (_, falsy) = random(&data_type, len, &mut rng);
        let mask: Vec<Option<bool>> = (0..len)
            .map(|_| (!rng.chance(0.2)).then(|| rng.chance(0.5)))
            .collect();
        let condition = BooleanArray::from(mask.clone());
        let ours = if_else(&condition, &truthy, &falsy).unwrap();
        let arrow_condition = array_to_arrow(&condition);
        let theirs = arrow_select::zip::zip(
            arrow_condition.as_boolean(),
            &array_to_arrow(truthy.as_ref()),
            &array_to_arrow(falsy.as_ref()),
        )
        .unwrap();
        let theirs = array_from_arrow(theirs.as_ref()).unwrap();
        let (ours, theirs) = (rows(ours.as_ref()), rows(theirs.as_ref()));
        for (i, m) in mask.iter().enumerate() {
            match m {
                None => prop_assert_eq!(&ours[i], &Value::Null),
                Some(_) => prop_assert_eq!(&ours[i], &theirs[i]),
            }
        }
    }
}
