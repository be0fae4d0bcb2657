//! Property tests for interleave and nullif over random arrays of every type, against the
//! reference decoder.

use crate::common;

use alkaid_array::{Array, BooleanArray, make_array, make_builder};
use alkaid_data::layout;
use alkaid_schema::{DataType, arbitrary};
use alkaid_select::{SelectError, interleave, nullif};
use common::decode::decode;
use common::encode::encode;
use common::{Rng, Value, generatable, value};
use proptest::prelude::*;

fn nested_dictionary(data_type: &DataType) -> bool {
    data_type
        .children()
        .iter()
        .any(|f| f.data_type().is_dictionary() || nested_dictionary(f.data_type()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn interleaved_slots_are_the_named_values(
        data_type in arbitrary::data_type_with_depth(2),
        seed in any::<u64>(),
        lens in prop::collection::vec(1usize..8, 1..4),
        picks in 0usize..20,
    ) {
        prop_assume!(generatable(&data_type));
        let mut rng = Rng::new(seed);
        let values: Vec<Vec<Value>> = lens
            .iter()
            .map(|&n| (0..n).map(|_| value(&data_type, &mut rng, 0.3)).collect())
            .collect();
        let arrays: Vec<_> = values.iter().map(|v| make_array(encode(&data_type, v, &mut rng))).collect();
        let pairs: Vec<(usize, usize)> = (0..picks)
            .map(|_| {
                let a = rng.below(arrays.len());
                (a, rng.below(lens[a]))
            })
            .collect();
        let refs: Vec<&dyn Array> = arrays.iter().map(|a| a.as_ref()).collect();
        match interleave(&refs, &pairs) {
            Ok(mixed) => {
                let expected: Vec<Value> = pairs.iter().map(|&(a, r)| values[a][r].clone()).collect();
                prop_assert_eq!(decode(&mixed.to_data()), expected);
            }
            Err(SelectError::Overflow(_)) => {}
            Err(e) => prop_assert!(false, "{}: {}", data_type, e),
        }
        let past = [(0, lens[0])];
        prop_assert!(interleave(&refs, &past).is_err());
    }

    #[test]
    fn nullif_clears_exactly_the_masked_slots(
        data_type in arbitrary::data_type_with_depth(2),
        seed in any::<u64>(),
        len in 0usize..20,
    ) {
        prop_assume!(generatable(&data_type));
        let mut rng = Rng::new(seed);
        let values: Vec<Value> = (0..len).map(|_| value(&data_type, &mut rng, 0.3)).collect();
        let array = make_array(encode(&data_type, &values, &mut rng));
        let mask: Vec<Option<bool>> = (0..len)
            .map(|_| (!rng.chance(0.2)).then(|| rng.chance(0.4)))
            .collect();
        let null_value = if layout(&data_type).has_validity || matches!(data_type, DataType::Null) {
            Some(Value::Null)
        } else {
            make_builder(&data_type, 1).ok().and_then(|mut b| {
                b.append_null();
                b.try_finish().ok().map(|a| decode(&a.to_data())[0].clone())
            })
        };
        let masked = mask.contains(&Some(true));
        match nullif(array.as_ref(), &BooleanArray::from(mask.clone())) {
            Ok(cleared) => {
                let expected: Vec<Value> = values
                    .iter()
                    .zip(&mask)
                    .map(|(v, m)| if *m == Some(true) { null_value.clone().expect("a null slot") } else { v.clone() })
                    .collect();
                prop_assert_eq!(decode(&cleared.to_data()), expected);
            }
            Err(e) => prop_assert!(
                masked && (null_value.is_none() || nested_dictionary(&data_type)),
                "{}: {}", data_type, e
            ),
        }
    }
}
