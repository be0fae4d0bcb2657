//! Property test: taking random indices (repeats, nulls, any order) from random arrays of
//! every type (nested two deep, sliced with junk around them) gives the reference values;
//! a null index gives the value a builder's null slot has for that type.

use crate::common;

use alkaid_array::{Int32Array, Int64Array, UInt16Array, make_array, make_builder};
use alkaid_schema::arbitrary;
use alkaid_select::take;
use common::decode::decode;
use common::encode::encode;
use common::{Rng, Value, generatable, value};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn taken_values_are_the_reference_values(
        data_type in arbitrary::data_type_with_depth(2),
        seed in any::<u64>(),
        len in 1usize..20,
        // Up to ten times the values: taking from a source much smaller than the result
        // (a dictionary's values) has a path of its own.
        picks in 0usize..200,
    ) {
        prop_assume!(generatable(&data_type));
        let mut rng = Rng::new(seed);
        let values: Vec<Value> = (0..len).map(|_| value(&data_type, &mut rng, 0.3)).collect();
        let array = make_array(encode(&data_type, &values, &mut rng));
        let indices: Vec<Option<i32>> = (0..picks)
            .map(|_| (!rng.chance(0.2)).then(|| rng.below(len) as i32))
            .collect();
        let null_value = make_builder(&data_type, 1).ok().and_then(|mut b| {
            b.append_null();
            b.try_finish().ok().map(|a| decode(&a.to_data())[0].clone())
        });
        let result = take(array.as_ref(), &Int32Array::from(indices.clone()));
        let has_null = indices.iter().any(Option::is_none);
        match (result, &null_value) {
            (Ok(taken), _) => {
                let expected: Vec<Value> = indices
                    .iter()
                    .map(|i| match i {
                        Some(i) => values[*i as usize].clone(),
                        None => null_value.clone().expect("a null was produced"),
                    })
                    .collect();
                prop_assert_eq!(decode(&taken.to_data()), expected);
            }
            (Err(e), None) => prop_assert!(has_null, "{}: {}", data_type, e),
            (Err(e), Some(_)) => prop_assert!(false, "{}: {}", data_type, e),
        }
        // Out of range is an error, never a panic.
        let past = Int32Array::from(vec![len as i32]);
        prop_assert!(take(array.as_ref(), &past).is_err());
        let negative = Int32Array::from(vec![-1]);
        prop_assert!(take(array.as_ref(), &negative).is_err());
        // One bad index among good ones, in every index type, names its position.
        let mut wide: Vec<Option<i64>> = indices.iter().map(|i| i.map(i64::from)).collect();
        let at = rng.below(wide.len() + 1);
        wide.insert(at, Some(len as i64 + rng.below(3) as i64));
        let message = take(array.as_ref(), &Int64Array::from(wide.clone())).unwrap_err().to_string();
        prop_assert!(message.contains(&format!("at position {at}")), "{}", message);
        let unsigned: Vec<Option<u16>> = wide.iter().map(|i| i.map(|i| i as u16)).collect();
        prop_assert!(take(array.as_ref(), &UInt16Array::from(unsigned)).is_err());
    }
}
