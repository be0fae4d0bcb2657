//! Property tests of sorting: `sort_to_indices`, limits, `lexsort_to_indices`, `rank` and
//! the bounds against a plain reference (a stable sort by a row-by-row comparison), on
//! random values of every orderable leaf type, encoded at random, and on lists and
//! structs of them nested up to three deep; and differential tests against arrow-ord's
//! sorts on the same inputs, handed over by alkaid-arrow. Where the two differ on purpose:
//!
//! - arrow-ord's sorts are not stable, so the sorted *values* are compared, not the row
//!   numbers;
//! - floats: arrow-rs sorts by IEEE 754's `totalOrder` (`-0.0` before `0.0`, a NaN with
//!   its sign bit set before every number), Alkaid as PostgreSQL does (zeros equal, every
//!   NaN last); zeros compare as equals and inputs with such a NaN are left out;
//! - `rank`: arrow-rs gives ties the highest rank of their group, SQL (and Alkaid) the
//!   lowest.

use crate::common;
use crate::reference;

use std::cmp::Ordering;

use alkaid_array::{Array, ArrayRef, Scalar, make_array};
use alkaid_arrow::arrow60::array_to_arrow;
use alkaid_compute::row::{RowConverter, SortField};
use alkaid_compute::sort::{
    SortColumn, SortOptions, lexsort_to_indices, lower_bound, rank, sort, sort_to_indices,
    upper_bound,
};
use alkaid_schema::{DataType, Field};
use common::decode::decode;
use common::encode::encode;
use common::{Rng, Value};
use proptest::prelude::*;
use reference::{R, comparable_types, maybe_encoded, order, pooled, read, value_type};

/// How two values of `data_type` compare in the order of `options`, written out.
fn reference_order(data_type: &DataType, a: &Value, b: &Value, options: SortOptions) -> Ordering {
    let value_type = value_type(data_type);
    let null = |v: &Value| matches!(v, Value::Null);
    match (null(a), null(b)) {
        (true, true) => return Ordering::Equal,
        (true, false) => {
            return if options.nulls_first {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        (false, true) => {
            return if options.nulls_first {
                Ordering::Greater
            } else {
                Ordering::Less
            };
        }
        (false, false) => {}
    }
    let directed = |o: Ordering| if options.descending { o.reverse() } else { o };
    match (a, b) {
        (Value::List(x), Value::List(y)) => {
            let item = value_type.children()[0].data_type();
            x.iter()
                .zip(y)
                .map(|(p, q)| reference_order(item, p, q, options))
                .find(|o| o.is_ne())
                .unwrap_or_else(|| directed(x.len().cmp(&y.len())))
        }
        (Value::Struct(x), Value::Struct(y)) => value_type
            .children()
            .iter()
            .zip(x.iter().zip(y))
            .map(|(field, (p, q))| reference_order(field.data_type(), p, q, options))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal),
        _ => directed(order(&read(value_type, a), &read(value_type, b))),
    }
}

/// A random orderable type: a leaf (maybe encoded), or lists and structs of leaves, up to
/// three levels deep.
fn orderable_type(rng: &mut Rng, depth: usize) -> DataType {
    let leaves = comparable_types();
    let leaf = leaves[rng.below(leaves.len())].0.clone();
    if depth == 0 || rng.chance(0.5) {
        return maybe_encoded(&leaf, rng);
    }
    let inner = orderable_type(rng, depth - 1);
    // Inside lists a child may outgrow small dictionary keys: wide keys there.
    let widen = |t: DataType| match t {
        DataType::Dictionary { value, .. } => {
            DataType::dictionary(alkaid_schema::IntegerType::Int32, *value)
        }
        other => other,
    };
    let inner = widen(inner);
    match rng.below(3) {
        0 => DataType::List(Field::new("item", inner, true).into()),
        1 => DataType::LargeList(Field::new("item", inner, true).into()),
        _ => DataType::Struct(
            vec![
                Field::new("a", inner, true),
                Field::new("b", widen(maybe_encoded(&leaf, rng)), true),
            ]
            .into(),
        ),
    }
}

/// `len` values of `data_type`, from a small pool for leaves so that ties are common.
fn values(data_type: &DataType, len: usize, rng: &mut Rng) -> Vec<Value> {
    match value_type(data_type) {
        DataType::List(_) | DataType::LargeList(_) | DataType::Struct(_) => (0..len)
            .map(|_| common::value(data_type, rng, 0.2))
            .collect(),
        _ => pooled(value_type(data_type), len, rng),
    }
}

fn options(rng: &mut Rng) -> SortOptions {
    SortOptions {
        descending: rng.chance(0.5),
        nulls_first: rng.chance(0.5),
    }
}

fn expected_order(columns: &[(&DataType, &[Value], SortOptions)], len: usize) -> Vec<u32> {
    let mut rows: Vec<u32> = (0..len as u32).collect();
    rows.sort_by(|&a, &b| {
        columns
            .iter()
            .map(|(t, v, o)| reference_order(t, &v[a as usize], &v[b as usize], *o))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    });
    rows
}

fn build(data_type: &DataType, values: &[Value], rng: &mut Rng) -> ArrayRef {
    make_array(encode(data_type, values, rng))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn sorts_match_a_stable_reference_sort(seed in any::<u64>(), len in 0usize..60) {
        let mut rng = Rng::new(seed);
        let data_type = orderable_type(&mut rng, 3);
        let values = values(&data_type, len, &mut rng);
        let array = build(&data_type, &values, &mut rng);
        let options = options(&mut rng);
        let expected = expected_order(&[(&data_type, &values, options)], len);
        let found = sort_to_indices(array.as_ref(), options, None).unwrap();
        prop_assert_eq!(&found.values()[..], &expected[..], "{} {:?}", data_type, options);

        let limit = rng.below(len + 2);
        let first = sort_to_indices(array.as_ref(), options, Some(limit)).unwrap();
        prop_assert_eq!(&first.values()[..], &expected[..limit.min(len)]);

        // Ranks: one more than the number of rows strictly before.
        let ranks = rank(array.as_ref(), options).unwrap();
        for row in 0..len {
            let before = (0..len)
                .filter(|&other| reference_order(&data_type, &values[other], &values[row], options).is_lt())
                .count();
            prop_assert_eq!(ranks.value(row) as usize, before + 1);
        }
    }

    #[test]
    fn lexsorts_match_a_stable_reference_sort(seed in any::<u64>(), len in 0usize..60) {
        let mut rng = Rng::new(seed);
        let (first_type, second_type) = (orderable_type(&mut rng, 1), orderable_type(&mut rng, 1));
        let (first_values, second_values) = (values(&first_type, len, &mut rng), values(&second_type, len, &mut rng));
        let (first, second) = (build(&first_type, &first_values, &mut rng), build(&second_type, &second_values, &mut rng));
        let (first_options, second_options) = (options(&mut rng), options(&mut rng));
        let expected = expected_order(
            &[(&first_type, &first_values, first_options), (&second_type, &second_values, second_options)],
            len,
        );
        let columns = [
            SortColumn { values: first.as_ref(), options: first_options },
            SortColumn { values: second.as_ref(), options: second_options },
        ];
        let found = lexsort_to_indices(&columns, None).unwrap();
        prop_assert_eq!(&found.values()[..], &expected[..]);
        let limit = rng.below(len + 2);
        let found = lexsort_to_indices(&columns, Some(limit)).unwrap();
        prop_assert_eq!(&found.values()[..], &expected[..limit.min(len)]);
    }

    #[test]
    fn bounds_match_a_linear_scan(seed in any::<u64>(), len in 0usize..60) {
        let mut rng = Rng::new(seed);
        let data_type = orderable_type(&mut rng, 1);
        let values = values(&data_type, len + 1, &mut rng);
        let array = build(&data_type, &values[..len], &mut rng);
        let options = options(&mut rng);
        let sorted = sort(array.as_ref(), options).unwrap();
        let order = expected_order(&[(&data_type, &values[..len], options)], len);
        let sorted_values: Vec<&Value> = order.iter().map(|&r| &values[r as usize]).collect();
        // The value sought: one of the array's, or the extra one.
        let pick = rng.below(len + 1);
        let probe = build(&data_type, &values, &mut rng);
        let scalar = Scalar::from_array(probe.as_ref(), pick);
        let sought = &values[pick];
        let compare = |v: &Value| reference_order(&data_type, v, sought, options);
        let lower = sorted_values.iter().take_while(|v| compare(v).is_lt()).count();
        let upper = sorted_values.iter().take_while(|v| !compare(v).is_gt()).count();
        prop_assert_eq!(lower_bound(sorted.as_ref(), &scalar, options).unwrap(), lower);
        prop_assert_eq!(upper_bound(sorted.as_ref(), &scalar, options).unwrap(), upper);
    }
}

/// The values of `array` in the order `rows` gives, as the reference reads them, with the
/// zeros of both signs made one.
fn in_order(data_type: &DataType, array: &dyn Array, rows: &[u32]) -> Vec<R> {
    let values = decode(&array.to_data());
    rows.iter()
        .map(|&r| match read(data_type, &values[r as usize]) {
            // Matches -0.0 too: float patterns compare with `==`.
            R::Float(0.0) => R::Float(0.0),
            other => other,
        })
        .collect()
}

/// Whether a float NaN with its sign bit set is among `values` (arrow-rs sorts it first).
fn negative_nan(data_type: &DataType, values: &[Value]) -> bool {
    values
        .iter()
        .any(|v| matches!(read(data_type, v), R::Float(x) if x.is_nan() && x.is_sign_negative()))
}

/// Whether floats the two libraries tie differently are among `values`: zeros of both
/// signs, or NaNs (arrow-rs tells their payloads apart). Sorting one column, such rows
/// only trade places among equals; before a second column they change its order.
fn float_ties(data_type: &DataType, values: &[Value]) -> bool {
    values.iter().any(|v| {
        matches!(read(data_type, v), R::Float(x) if x.is_nan() || (x == 0.0 && x.is_sign_negative()))
    })
}

/// Whether floats are anywhere in `data_type` (at any depth, or as encoded values).
fn has_floats(data_type: &DataType) -> bool {
    let value = value_type(data_type);
    matches!(
        value,
        DataType::Float16 | DataType::Float32 | DataType::Float64
    ) || value.children().iter().any(|f| has_floats(f.data_type()))
}

fn arrow_options(options: SortOptions) -> arrow_schema::SortOptions {
    arrow_schema::SortOptions {
        descending: options.descending,
        nulls_first: options.nulls_first,
    }
}

/// Equal as the reference reads them, every NaN equal to every other.
fn same(a: &[R], b: &[R]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (R::Float(x), R::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
            (x, y) => x == y,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn sorts_agree_with_arrow_ord(seed in any::<u64>(), len in 0usize..80, pick in any::<usize>(), dictionary in any::<bool>()) {
        let mut rng = Rng::new(seed);
        let types = comparable_types();
        let leaf = &types[pick % types.len()].0;
        let values = pooled(leaf, len, &mut rng);
        prop_assume!(!negative_nan(leaf, &values));
        let data_type = match dictionary {
            true => DataType::dictionary(alkaid_schema::IntegerType::Int32, leaf.clone()),
            false => leaf.clone(),
        };
        let ours = build(&data_type, &values, &mut rng);
        let theirs = array_to_arrow(ours.as_ref());
        let options = options(&mut rng);
        let limit = rng.chance(0.5).then(|| rng.below(len + 2));
        // Types arrow-ord does not sort are not part of the comparison.
        let Ok(expected) = arrow_ord::sort::sort_to_indices(&theirs, Some(arrow_options(options)), limit) else {
            return Ok(());
        };
        let found = sort_to_indices(ours.as_ref(), options, limit).unwrap();
        let (found, expected) = (in_order(leaf, ours.as_ref(), &found.values()[..]), in_order(leaf, ours.as_ref(), expected.values()));
        prop_assert!(same(&found, &expected), "{} {:?}: {:?} against {:?}", data_type, options, found, expected);

        if let Ok(their_ranks) = arrow_ord::rank::rank(&theirs, Some(arrow_options(options))) {
            let ranks = rank(ours.as_ref(), options).unwrap();
            for (row, &theirs) in their_ranks.iter().enumerate() {
                let ties = (0..len).filter(|&r| ranks.value(r) == ranks.value(row)).count() as u32;
                prop_assert_eq!(ranks.value(row) + ties - 1, theirs, "row {}", row);
            }
        }
    }

    #[test]
    fn lexsorts_agree_with_arrow_ord(seed in any::<u64>(), len in 0usize..80, picks in any::<(usize, usize)>()) {
        let mut rng = Rng::new(seed);
        let types = comparable_types();
        let (first_type, second_type) = (&types[picks.0 % types.len()].0, &types[picks.1 % types.len()].0);
        let (first_values, second_values) = (pooled(first_type, len, &mut rng), pooled(second_type, len, &mut rng));
        prop_assume!(!float_ties(first_type, &first_values) && !negative_nan(second_type, &second_values));
        let (first, second) = (build(first_type, &first_values, &mut rng), build(second_type, &second_values, &mut rng));
        let (first_options, second_options) = (options(&mut rng), options(&mut rng));
        let limit = rng.chance(0.5).then(|| rng.below(len + 2));
        let theirs = [
            arrow_ord::sort::SortColumn { values: array_to_arrow(first.as_ref()), options: Some(arrow_options(first_options)) },
            arrow_ord::sort::SortColumn { values: array_to_arrow(second.as_ref()), options: Some(arrow_options(second_options)) },
        ];
        let Ok(expected) = arrow_ord::sort::lexsort_to_indices(&theirs, limit) else {
            return Ok(());
        };
        let columns = [
            SortColumn { values: first.as_ref(), options: first_options },
            SortColumn { values: second.as_ref(), options: second_options },
        ];
        let found = lexsort_to_indices(&columns, limit).unwrap();
        for (data_type, column) in [(first_type, &first), (second_type, &second)] {
            let ours = in_order(data_type, column.as_ref(), &found.values()[..]);
            let theirs = in_order(data_type, column.as_ref(), expected.values());
            prop_assert!(same(&ours, &theirs), "{} then {}: {:?} against {:?}", first_type, second_type, ours, theirs);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The row format orders rows as lexsort does, and as arrow-row's rows order them
    /// (leaving out floats, whose orders differ on purpose, see the top of this file).
    #[test]
    fn rows_order_as_lexsort_and_as_arrow_row(seed in any::<u64>(), len in 0usize..60, count in 1usize..4) {
        let mut rng = Rng::new(seed);
        let leaves = comparable_types();
        let mut columns = Vec::new();
        let mut options_list = Vec::new();
        for _ in 0..count {
            // Leaves (maybe encoded) and, a third of the time, lists and structs of them
            // up to three levels deep.
            let data_type = if rng.chance(0.33) {
                orderable_type(&mut rng, 2)
            } else {
                let leaf = leaves[rng.below(leaves.len())].0.clone();
                maybe_encoded(&leaf, &mut rng)
            };
            let values = values(&data_type, len, &mut rng);
            columns.push(build(&data_type, &values, &mut rng));
            options_list.push(options(&mut rng));
        }
        let fields = columns.iter().zip(&options_list).map(|(c, o)| SortField::new(c.data_type().clone(), *o)).collect();
        let converter = RowConverter::new(fields).unwrap();
        let refs: Vec<&dyn Array> = columns.iter().map(|c| c.as_ref()).collect();
        let rows = converter.convert_columns(&refs).unwrap();
        let mut ours: Vec<u32> = (0..len as u32).collect();
        ours.sort_by(|&a, &b| rows.row(a as usize).cmp(rows.row(b as usize)));
        let sort_columns: Vec<SortColumn<'_>> = columns.iter().zip(&options_list).map(|(c, o)| SortColumn { values: c.as_ref(), options: *o }).collect();
        let expected = lexsort_to_indices(&sort_columns, None).unwrap();
        prop_assert_eq!(&ours[..], &expected.values()[..]);
        // Decoded (encodings as their values) and encoded again: the same rows.
        let back = converter.convert_rows(&rows).unwrap();
        let plain = RowConverter::new(back.iter().zip(&options_list).map(|(c, o)| SortField::new(c.data_type().clone(), *o)).collect()).unwrap();
        let back_refs: Vec<&dyn Array> = back.iter().map(|c| c.as_ref()).collect();
        prop_assert_eq!(plain.convert_columns(&back_refs).unwrap(), rows);

        let floats = columns.iter().any(|c| has_floats(c.data_type()));
        if !floats {
            let theirs: Vec<arrow_array::ArrayRef> = columns.iter().map(|c| array_to_arrow(c.as_ref())).collect();
            let fields = theirs.iter().zip(&options_list).map(|(c, o)| arrow_row::SortField::new_with_options(c.data_type().clone(), arrow_options(*o))).collect();
            if let Ok(converter) = arrow_row::RowConverter::new(fields) {
                let their_rows = converter.convert_columns(&theirs).unwrap();
                let mut by_theirs: Vec<u32> = (0..len as u32).collect();
                by_theirs.sort_by(|&a, &b| their_rows.row(a as usize).cmp(&their_rows.row(b as usize)));
                prop_assert_eq!(&ours, &by_theirs);
            }
        }
    }
}
