//! Property tests over random arrays of every type, nested two deep: values encoded with
//! random physical choices decode back to themselves (so the encoder only makes arrays that
//! full validation accepts), and equality agrees with the plain decoder.

use crate::common;

use alkaid_data::{ValidationLevel, equal};
use alkaid_schema::arbitrary;
use common::decode::decode;
use common::encode::encode;
use common::{Rng, Value, generatable, value};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn encoded_values_decode_back_and_compare_equal(
        data_type in arbitrary::data_type_with_depth(2),
        seed in any::<u64>(),
        len in 0usize..16,
    ) {
        prop_assume!(generatable(&data_type));
        let mut rng = Rng::new(seed);
        let values: Vec<Value> = (0..len).map(|_| value(&data_type, &mut rng, 0.3)).collect();

        let data = encode(&data_type, &values, &mut rng);
        prop_assert_eq!(decode(&data), values.clone());
        prop_assert!(data.validate(ValidationLevel::Full).is_ok());

        // The same values laid out differently are equal.
        let again = encode(&data_type, &values, &mut rng);
        prop_assert!(equal(&data, &again), "{} {:?}", data_type, values);

        if len > 0 {
            // One slot changed: equal exactly when the values still are.
            let mut other = values.clone();
            let k = rng.below(len);
            other[k] = value(&data_type, &mut rng, 0.5);
            let changed = encode(&data_type, &other, &mut rng);
            prop_assert_eq!(equal(&data, &changed), other == values);

            // Slicing agrees with slicing the values.
            let start = rng.below(len);
            let count = rng.below(len - start + 1);
            let slice = data.slice(start, count);
            prop_assert_eq!(decode(&slice), values[start..start + count].to_vec());
            prop_assert!(equal(&slice, &encode(&data_type, &values[start..start + count], &mut rng)));
        }
    }
}

fn has_dictionary(data_type: &alkaid_schema::DataType) -> bool {
    data_type.is_dictionary()
        || data_type
            .children()
            .iter()
            .any(|f| has_dictionary(f.data_type()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Slices of one array, concatenated, are the array's values (dictionaries included,
    /// since slices share their dictionary); separately encoded parts concatenate too,
    /// except dictionary arrays with different dictionaries, which are refused.
    #[test]
    fn concatenated_parts_decode_to_the_concatenated_values(
        data_type in arbitrary::data_type_with_depth(2),
        seed in any::<u64>(),
        lens in prop::collection::vec(0usize..8, 1..5),
    ) {
        prop_assume!(generatable(&data_type));
        let mut rng = Rng::new(seed);
        let total: usize = lens.iter().sum();
        let values: Vec<Value> = (0..total).map(|_| value(&data_type, &mut rng, 0.3)).collect();

        let whole = encode(&data_type, &values, &mut rng);
        let mut at = 0;
        let slices: Vec<_> = lens.iter().map(|&n| { at += n; whole.slice(at - n, n) }).collect();
        let joined = alkaid_data::concat(&slices.iter().collect::<Vec<_>>()).unwrap();
        prop_assert_eq!(decode(&joined), values.clone());
        prop_assert!(joined.validate(ValidationLevel::Full).is_ok());

        let mut at = 0;
        let parts: Vec<_> = lens.iter().map(|&n| { at += n; encode(&data_type, &values[at - n..at], &mut rng) }).collect();
        match alkaid_data::concat(&parts.iter().collect::<Vec<_>>()) {
            Ok(joined) => prop_assert_eq!(decode(&joined), values),
            Err(e) => {
                prop_assert!(has_dictionary(&data_type), "{}: {}", data_type, e);
                prop_assert_eq!(e.kind(), alkaid_data::DataErrorKind::Dictionary);
            }
        }
    }
}
