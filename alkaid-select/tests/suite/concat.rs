//! Property test: parts of random arrays of every type (nested two deep, sliced with junk
//! around them, each part with its own dictionaries) concatenate to the concatenated values.

use crate::common;

use alkaid_array::make_array;
use alkaid_schema::arbitrary;
use alkaid_select::{SelectError, concat};
use common::decode::decode;
use common::encode::encode;
use common::{Rng, Value, generatable, value};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn parts_concatenate_to_the_concatenated_values(
        data_type in arbitrary::data_type_with_depth(2),
        seed in any::<u64>(),
        lens in prop::collection::vec(0usize..8, 1..5),
    ) {
        prop_assume!(generatable(&data_type));
        let mut rng = Rng::new(seed);
        let total: usize = lens.iter().sum();
        let values: Vec<Value> = (0..total).map(|_| value(&data_type, &mut rng, 0.3)).collect();
        let mut at = 0;
        let parts: Vec<_> = lens
            .iter()
            .map(|&n| {
                at += n;
                make_array(encode(&data_type, &values[at - n..at], &mut rng))
            })
            .collect();
        let refs: Vec<&dyn alkaid_array::Array> = parts.iter().map(|p| p.as_ref()).collect();
        match concat(&refs) {
            Ok(joined) => prop_assert_eq!(decode(&joined.to_data()), values),
            Err(SelectError::Overflow(_)) => {}
            Err(e) => prop_assert!(false, "{}: {}", data_type, e),
        }
    }
}
