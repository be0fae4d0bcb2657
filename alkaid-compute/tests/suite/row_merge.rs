//! Property test of spilling sorted runs of rows and merging them: random columns of
//! every comparable type cut into runs, each sorted, written as blocks of random sizes
//! and read back, then merged; the merge must be the stable sort of all the rows.

use crate::common;
use crate::reference;

use std::io::Cursor;

use alkaid_array::{ArrayRef, UInt64Array, make_array};
use alkaid_compute::row::{RowConverter, RowMerger, Rows, SortField};
use alkaid_compute::sort::SortOptions;
use common::Rng;
use common::encode::encode;
use proptest::prelude::*;
use reference::{comparable_types, pooled};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn merged_runs_are_the_stable_sort_of_all_rows(seed in any::<u64>(), pick in any::<usize>(), runs in 1usize..6, descending in any::<bool>()) {
        let mut rng = Rng::new(seed);
        let types = comparable_types();
        let (data_type, _) = &types[pick % types.len()];
        let options = SortOptions { descending, nulls_first: rng.chance(0.5) };
        let converter = RowConverter::new(vec![SortField::new(data_type.clone(), options)]).unwrap();
        let mut files = Vec::new();
        let mut all: Vec<Vec<u8>> = Vec::new();
        for _ in 0..runs {
            let len = rng.below(30);
            let values = pooled(data_type, len, &mut rng);
            let column: ArrayRef = make_array(encode(data_type, &values, &mut rng));
            let rows = converter.convert_columns(&[column.as_ref()]).unwrap();
            let mut order: Vec<u64> = (0..len as u64).collect();
            order.sort_by(|&a, &b| rows.row(a as usize).cmp(rows.row(b as usize)));
            let sorted = alkaid_select::take(column.as_ref(), &UInt64Array::from(order)).unwrap();
            all.extend(converter.convert_columns(&[sorted.as_ref()]).unwrap().iter().map(<[u8]>::to_vec));
            // Written in blocks of random sizes, an empty one now and then.
            let mut file = Vec::new();
            let mut at = 0;
            loop {
                let take = rng.below(len - at + 1);
                let piece = sorted.slice(at, take);
                converter.convert_columns(&[piece.as_ref()]).unwrap().write_block(&mut file).unwrap();
                at += take;
                if at == len && rng.chance(0.7) {
                    break;
                }
            }
            files.push(file);
        }
        let readers: Vec<_> = files
            .into_iter()
            .map(|file| {
                let mut input = Cursor::new(file);
                std::iter::from_fn(move || Rows::read_block(&mut input).transpose())
            })
            .collect();
        let mut merger = RowMerger::new(readers).unwrap();
        let mut merged: Vec<Vec<u8>> = Vec::new();
        let mut origins = Vec::new();
        while let Some((rows, from)) = merger.next_batch(1 + rng.below(7)).unwrap() {
            merged.extend(rows.iter().map(<[u8]>::to_vec));
            origins.extend(from);
        }
        let mut expected = all.clone();
        expected.sort(); // stable; equal rows keep run order, as `all` lists runs in order
        prop_assert_eq!(&merged, &expected);
        // Equal rows come out in run order, and each run's rows in their own order.
        for pair in origins.windows(2).zip(merged.windows(2)) {
            let (o, m) = pair;
            if m[0] == m[1] {
                prop_assert!((o[0].run, o[0].row) < (o[1].run, o[1].row));
            }
        }
    }
}
