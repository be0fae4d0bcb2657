//! Corrupted arrays: validation must never panic, and whatever it accepts must be safe to
//! read. Valid arrays of random types come from the generator the integration tests use;
//! the corruption builds `ArrayData` directly, past the checked builder.

#[path = "../../tests/common/mod.rs"]
mod common;

use std::sync::Arc;

use alkaid_buffer::{Buffer, NullBuffer};
use proptest::prelude::*;

use super::ValidationLevel;
use crate::{ArrayData, equal};
use common::decode::decode;
use common::encode::encode;
use common::{Rng, Value, generatable, value};

/// A copy of `data` with one random corruption somewhere in its tree.
fn corrupt(data: &ArrayData, rng: &mut Rng) -> ArrayData {
    let mut out = data.clone();
    let nested = out.children.len() + usize::from(out.dictionary.is_some());
    if nested > 0 && rng.chance(0.5) {
        let k = rng.below(nested);
        if k < out.children.len() {
            out.children[k] = corrupt(&out.children[k], rng);
        } else if let Some(dictionary) = &out.dictionary {
            out.dictionary = Some(Arc::new(corrupt(dictionary, rng)));
        }
        return out;
    }
    match rng.below(9) {
        // Flip or overwrite a byte of a buffer: offsets, views, type ids, keys, run ends...
        0 | 1 => {
            if let Some(b) = pick(out.buffers.len(), rng).filter(|&b| !out.buffers[b].is_empty()) {
                let mut bytes = out.buffers[b].to_vec();
                let at = rng.below(bytes.len());
                bytes[at] = if rng.chance(0.5) {
                    bytes[at] ^ (1 << rng.below(8))
                } else {
                    rng.next_u64() as u8
                };
                out.buffers[b] = Buffer::from_slice_ref(&bytes);
            }
        }
        // Truncate a buffer.
        2 => {
            if let Some(b) = pick(out.buffers.len(), rng) {
                let len = rng.below(out.buffers[b].len() + 1);
                out.buffers[b] = out.buffers[b].slice(0, len);
            }
        }
        // Lie about the length, with or without a matching validity bitmap.
        3 => {
            out.len = rng.below(out.len * 2 + 4);
            if out.nulls.is_some() && rng.chance(0.5) {
                out.nulls = Some(NullBuffer::from(
                    (0..out.len).map(|_| rng.chance(0.8)).collect::<Vec<_>>(),
                ));
            }
        }
        // Lie about the offset.
        4 => out.offset = rng.below(out.offset + out.len + 4),
        // Lose a buffer, or gain one.
        5 => {
            if rng.chance(0.5) && !out.buffers.is_empty() {
                out.buffers.remove(rng.below(out.buffers.len()));
            } else {
                let len = rng.below(40);
                out.buffers.push(Buffer::from_slice_ref(&rng.bytes(len)));
            }
        }
        // Lose a child, or repeat one.
        6 => {
            if rng.chance(0.5) && !out.children.is_empty() {
                out.children.remove(rng.below(out.children.len()));
            } else if let Some(k) = pick(out.children.len(), rng) {
                let copy = out.children[k].clone();
                out.children.push(copy);
            }
        }
        // A validity bitmap of the wrong length, or where none belongs, or none at all.
        7 => {
            out.nulls = if rng.chance(0.5) {
                Some(NullBuffer::new_null(rng.below(out.len + 3)))
            } else {
                None
            };
        }
        // Lose or gain a dictionary.
        _ => {
            out.dictionary = match out.dictionary {
                Some(_) => None,
                None => out.children.first().cloned().map(Arc::new),
            };
        }
    }
    out
}

fn pick(n: usize, rng: &mut Rng) -> Option<usize> {
    (n > 0).then(|| rng.below(n))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn corrupted_arrays_are_rejected_or_safe_to_read(
        data_type in alkaid_schema::arbitrary::data_type_with_depth(2),
        seed in any::<u64>(),
        len in 0usize..12,
        corruptions in 1usize..4,
    ) {
        prop_assume!(generatable(&data_type));
        let mut rng = Rng::new(seed);
        let values: Vec<Value> = (0..len).map(|_| value(&data_type, &mut rng, 0.3)).collect();
        let mut data = encode(&data_type, &values, &mut rng);
        for _ in 0..corruptions {
            data = corrupt(&data, &mut rng);
        }
        for level in [ValidationLevel::Structural, ValidationLevel::Full, ValidationLevel::Strict] {
            let result = data.validate(level);
            if let Err(error) = &result {
                // Errors say something, and the Display does not panic either.
                prop_assert!(!error.to_string().is_empty());
            }
            if level == ValidationLevel::Full && result.is_ok() {
                // Accepted: every read must stay in bounds.
                let _ = decode(&data);
                prop_assert!(equal(&data, &data));
            }
        }
    }
}

#[test]
fn generator_arrays_are_generatable_at_every_depth() {
    // A smoke check of the test support itself: some type of each depth generates.
    let mut rng = Rng::new(7);
    let data_type: alkaid_schema::DataType =
        "List(item: Struct(a: Dictionary(Int8, Utf8View), b: Union(Dense, 3 => x: Int16, 9 => y: Utf8)))".parse().unwrap();
    assert!(generatable(&data_type));
    let values: Vec<Value> = (0..20).map(|_| value(&data_type, &mut rng, 0.3)).collect();
    let data = encode(&data_type, &values, &mut rng);
    assert_eq!(decode(&data), values);
}

#[test]
fn an_invalid_type_deep_in_the_tree_is_rejected_at_its_child() {
    // Each node checks only its own type's parameters; a bad type further down is caught at
    // the child that has it, and the error carries that child's path. The checked builders
    // refuse such a type, so the tree is made valid first and its types replaced after.
    let bad = alkaid_schema::DataType::FixedSizeBinary(-4);
    let child = ArrayData::builder("FixedSizeBinary(4)".parse().unwrap())
        .len(0)
        .buffers(vec![Buffer::from_slice_ref::<u8>(&[])])
        .build()
        .unwrap();
    let mut data = ArrayData::builder("Struct(a: FixedSizeBinary(4))".parse().unwrap())
        .len(0)
        .children(vec![child])
        .build()
        .unwrap();
    data.children[0].data_type = bad.clone();
    data.data_type =
        alkaid_schema::DataType::Struct(vec![alkaid_schema::Field::new("a", bad, true)].into());
    for level in [ValidationLevel::Structural, ValidationLevel::Full] {
        let error = data.validate(level).unwrap_err();
        assert_eq!(error.kind(), crate::DataErrorKind::InvalidType);
        assert_eq!(error.path(), ["a"]);
        assert_eq!(
            error.to_string(),
            "a: invalid FixedSizeBinary type: expected a non-negative width, found -4"
        );
    }
}
