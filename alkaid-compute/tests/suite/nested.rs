//! Property tests of the nested kernels: every list kind (lists, large lists, both views,
//! fixed-size lists, maps) over random item types two levels deep, sliced, against
//! references over the decoded values.

use crate::common;
use crate::conditional::{canonical, rows};

use std::sync::Arc;

use alkaid_array::types::{Int32Type, Int64Type};
use alkaid_array::{ArrayRef, AsArray, Scalar, make_array};
use alkaid_compute::{
    Aggregate, list_aggregate, list_contains, list_element, list_flatten, list_length, list_slice,
};
use alkaid_schema::{DataType, Field, arbitrary};
use common::encode::encode;
use common::{Rng, Value, generatable, value};
use proptest::prelude::*;

fn list_of(kind: usize, item: DataType) -> DataType {
    let field = Arc::new(Field::new("item", item, true));
    match kind {
        0 => DataType::List(field),
        1 => DataType::LargeList(field),
        2 => DataType::ListView(field),
        3 => DataType::LargeListView(field),
        _ => DataType::FixedSizeList(field, 3),
    }
}

/// Random lists (a fifth null), sliced by one row half the time.
fn random_lists(data_type: &DataType, len: usize, rng: &mut Rng) -> (Vec<Value>, ArrayRef) {
    let mut values: Vec<Value> = (0..len + 1).map(|_| value(data_type, rng, 0.2)).collect();
    let array = make_array(encode(data_type, &values, rng));
    if rng.chance(0.5) {
        values.remove(0);
        return (values, array.slice(1, len));
    }
    values.pop();
    (values, array.slice(0, len))
}

fn items(v: &Value) -> Option<&Vec<Value>> {
    match v {
        Value::List(items) => Some(items),
        _ => None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn list_kernels_match_the_reference(
        item in arbitrary::data_type_with_depth(1),
        kind in 0usize..5,
        seed in any::<u64>(),
        len in 0usize..20,
        index in -4i64..4,
        start in 0usize..4,
        stop in proptest::option::of(0usize..5),
    ) {
        let data_type = list_of(kind, item);
        prop_assume!(generatable(&data_type));
        let mut rng = Rng::new(seed);
        let (values, lists) = random_lists(&data_type, len, &mut rng);

        let lengths = list_length(lists.as_ref()).unwrap();
        let lengths: Vec<Option<i64>> = (0..len).map(|i| lengths.is_valid(i).then(|| match lengths.data_type() {
            DataType::Int64 => lengths.as_primitive::<Int64Type>().value(i),
            _ => i64::from(lengths.as_primitive::<Int32Type>().value(i)),
        })).collect();
        prop_assert_eq!(lengths, values.iter().map(|v| items(v).map(|i| i.len() as i64)).collect::<Vec<_>>());

        let element = list_element(lists.as_ref(), index).unwrap();
        let expected: Vec<Value> = values.iter().map(|v| {
            items(v).and_then(|items| {
                let at = if index >= 0 { Some(index as usize) } else { items.len().checked_sub(index.unsigned_abs() as usize) };
                at.and_then(|i| items.get(i)).cloned()
            }).map_or(Value::Null, |v| canonical(&v))
        }).collect();
        prop_assert_eq!(rows(element.as_ref()), expected);

        let stop = stop.map(|s| s.max(start));
        let sliced = list_slice(lists.as_ref(), start, stop).unwrap();
        let expected: Vec<Value> = values.iter().map(|v| match items(v) {
            None => Value::Null,
            Some(items) => {
                let to = stop.map_or(items.len(), |s| s.min(items.len()));
                let from = start.min(items.len());
                Value::List(items[from..to.max(from)].iter().map(canonical).collect())
            }
        }).collect();
        prop_assert_eq!(rows(sliced.as_ref()), expected);

        let flat = list_flatten(lists.as_ref()).unwrap();
        let expected: Vec<Value> = values.iter().filter_map(items).flatten().map(canonical).collect();
        prop_assert_eq!(rows(flat.as_ref()), expected);

        // A needle drawn from the items half the time.
        let all: Vec<usize> = (0..flat.len()).filter(|&i| !matches!(rows(flat.as_ref())[i], Value::Null)).collect();
        if let Some(&pick) = all.get(rng.below(all.len().max(1))) {
            let needle = Scalar::try_new(flat.slice(pick, 1)).unwrap();
            let wanted = &rows(flat.as_ref())[pick];
            let found = list_contains(lists.as_ref(), &needle).unwrap();
            let expected: Vec<Option<bool>> = values.iter().map(|v| items(v).map(|items| items.iter().any(|i| &canonical(i) == wanted))).collect();
            prop_assert_eq!(found.iter().collect::<Vec<_>>(), expected);
        }
    }

    #[test]
    fn list_aggregates_match_a_sum_per_list(seed in any::<u64>(), len in 0usize..30, kind in 0usize..5) {
        let data_type = list_of(kind, DataType::Int32);
        let mut rng = Rng::new(seed);
        let (values, lists) = random_lists(&data_type, len, &mut rng);
        let ints = |items: &Vec<Value>| -> Vec<i64> {
            items.iter().filter_map(|v| match v {
                Value::Bytes(b) => Some(i64::from(i32::from_le_bytes(b[..4].try_into().unwrap()))),
                _ => None,
            }).collect()
        };
        let sums = list_aggregate(lists.as_ref(), Aggregate::Sum).unwrap();
        let expected: Vec<Option<i64>> = values.iter().map(|v| items(v).and_then(|items| {
            let present = ints(items);
            (!present.is_empty()).then(|| present.iter().sum())
        })).collect();
        prop_assert_eq!(sums.as_primitive::<Int64Type>().iter().collect::<Vec<_>>(), expected);
        let counts = list_aggregate(lists.as_ref(), Aggregate::Count).unwrap();
        let expected: Vec<Option<i64>> = values.iter().map(|v| items(v).map(|items| ints(items).len() as i64)).collect();
        prop_assert_eq!(counts.as_primitive::<Int64Type>().iter().collect::<Vec<_>>(), expected);
        let maxima = list_aggregate(lists.as_ref(), Aggregate::Max).unwrap();
        let expected: Vec<Option<i64>> = values.iter().map(|v| items(v).and_then(|items| ints(items).into_iter().max())).collect();
        prop_assert_eq!(maxima.as_primitive::<Int32Type>().iter().map(|v| v.map(i64::from)).collect::<Vec<_>>(), expected);
    }
}
