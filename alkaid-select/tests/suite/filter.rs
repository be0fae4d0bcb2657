//! Property test: filtering random arrays of every type (nested two deep, sliced with junk
//! around them) with random masks of every density, with nulls and long runs, keeps exactly
//! the values the plain reference keeps.

use crate::common;

use alkaid_array::{Array, AsArray, BooleanArray, make_array};
use alkaid_schema::arbitrary;
use alkaid_select::FilterPredicate;
use common::decode::decode;
use common::encode::encode;
use common::{Rng, Value, generatable, value};
use proptest::prelude::*;

/// A mask of `len` slots: density, null share and run shape from `rng`.
fn mask(len: usize, rng: &mut Rng) -> Vec<Option<bool>> {
    let density = [0.0, 0.01, 0.5, 0.99, 1.0][rng.below(5)];
    let nulls = [0.0, 0.2][rng.below(2)];
    let runs = rng.chance(0.5);
    let mut out = Vec::with_capacity(len);
    let mut current = rng.chance(density);
    for _ in 0..len {
        if !runs || rng.chance(0.1) {
            current = rng.chance(density);
        }
        out.push(if rng.chance(nulls) {
            None
        } else {
            Some(current)
        });
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn filtered_values_are_the_reference_selection(
        data_type in arbitrary::data_type_with_depth(2),
        seed in any::<u64>(),
        len in 0usize..40,
    ) {
        prop_assume!(generatable(&data_type));
        let mut rng = Rng::new(seed);
        // Sliced at a random offset, so that every path meets a non-zero one.
        let skip = rng.below(3);
        let all: Vec<Value> = (0..len + skip).map(|_| value(&data_type, &mut rng, 0.3)).collect();
        let array = make_array(encode(&data_type, &all, &mut rng)).slice(skip, len);
        let values = &all[skip..];
        // The mask sliced too, at a bit offset that may put its slots across two words.
        let mask_skip = rng.below(70);
        let all_bits = mask(len + mask_skip, &mut rng);
        let bits = &all_bits[mask_skip..];
        let expected: Vec<Value> = values
            .iter()
            .zip(bits)
            .filter(|(_, keep)| **keep == Some(true))
            .map(|(v, _)| v.clone())
            .collect();
        let sliced_mask = BooleanArray::from(all_bits).slice(mask_skip, len);
        let predicate = FilterPredicate::new(sliced_mask.as_boolean());
        prop_assert_eq!(predicate.count(), expected.len());
        let filtered = predicate.filter(array.as_ref()).unwrap();
        prop_assert_eq!(decode(&filtered.to_data()), expected);
    }
}
