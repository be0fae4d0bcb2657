//! Differential test of the bitwise kernels against arrow-arith's, on random integers with
//! nulls, sliced at random, handed over without a copy. They agree wherever both answer;
//! the one difference is by design: a shift amount outside `0..width` is an error naming
//! the row in Alkaid, and wraps in arrow-rs.

use crate::common;

use alkaid_array::types::Int64Type;
use alkaid_array::{Array, ArrayRef, AsArray, Int32Array, Int64Array, UInt8Array};
use alkaid_arrow::arrow60::{array_from_arrow, array_to_arrow};
use alkaid_compute::{bit_and, bit_not, bit_or, bit_xor, shift_left, shift_right};
use arrow_array::cast::AsArray as _;
use common::Rng;
use proptest::prelude::*;

fn nullable<T>(rng: &mut Rng, len: usize, value: impl Fn(&mut Rng) -> T) -> Vec<Option<T>> {
    (0..len)
        .map(|_| (!rng.chance(0.15)).then(|| value(rng)))
        .collect()
}

fn same(ours: &ArrayRef, theirs: &dyn arrow_array::Array) -> bool {
    let theirs = array_from_arrow(theirs).unwrap();
    ours.to_data().len() == theirs.len()
        && (0..ours.len()).all(|i| {
            ours.is_null(i) == theirs.is_null(i)
                && (ours.is_null(i)
                    || alkaid_array::display::format_value(ours.as_ref(), i)
                        == alkaid_array::display::format_value(theirs.as_ref(), i))
        })
}

macro_rules! agree {
    ($ours:ident, $theirs:path, $l:expr, $r:expr) => {{
        let (l, r) = (array_to_arrow($l), array_to_arrow($r));
        let theirs = $theirs(l.as_primitive(), r.as_primitive()).unwrap();
        let ours = $ours($l, $r).unwrap();
        prop_assert!(same(&ours, &theirs), "{}", stringify!($ours));
    }};
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn bitwise_kernels_agree_with_arrow_arith(seed in any::<u64>(), len in 0usize..70, offset in 0usize..5) {
        let mut rng = Rng::new(seed);
        let total = len + offset;
        let sliced = |values: Vec<Option<i64>>| {
            Int64Array::from(values).slice(offset, len).as_primitive::<Int64Type>().clone()
        };
        let a = sliced(nullable(&mut rng, total, |r| r.next_u64() as i64));
        let b = sliced(nullable(&mut rng, total, |r| r.next_u64() as i64));
        agree!(bit_and, arrow_arith::bitwise::bitwise_and::<arrow_array::types::Int64Type>, &a, &b);
        agree!(bit_or, arrow_arith::bitwise::bitwise_or::<arrow_array::types::Int64Type>, &a, &b);
        agree!(bit_xor, arrow_arith::bitwise::bitwise_xor::<arrow_array::types::Int64Type>, &a, &b);
        let not_theirs = arrow_arith::bitwise::bitwise_not(array_to_arrow(&a).as_primitive::<arrow_array::types::Int64Type>()).unwrap();
        prop_assert!(same(&bit_not(&a).unwrap(), &not_theirs));

        let values = Int32Array::from(nullable(&mut rng, len, |r| r.next_u64() as i32));
        let amounts = Int32Array::from(nullable(&mut rng, len, |r| r.below(32) as i32));
        agree!(shift_left, arrow_arith::bitwise::bitwise_shift_left::<arrow_array::types::Int32Type>, &values, &amounts);
        agree!(shift_right, arrow_arith::bitwise::bitwise_shift_right::<arrow_array::types::Int32Type>, &values, &amounts);
        let bytes = UInt8Array::from(nullable(&mut rng, len, |r| r.next_u64() as u8));
        let byte_amounts = UInt8Array::from(nullable(&mut rng, len, |r| r.below(8) as u8));
        agree!(shift_right, arrow_arith::bitwise::bitwise_shift_right::<arrow_array::types::UInt8Type>, &bytes, &byte_amounts);

        // An amount out of range where the row is valid: an error naming that row.
        if let Some(row) = (0..len).find(|&i| values.is_valid(i) && amounts.is_valid(i)) {
            let mut wide: Vec<Option<i32>> = amounts.iter().collect();
            wide[row] = Some(32 + rng.below(100) as i32);
            let error = shift_left(&values, &Int32Array::from(wide)).unwrap_err();
            prop_assert!(error.to_string().contains(&format!("at row {row}")), "{}", error);
        }
    }
}
