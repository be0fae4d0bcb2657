//! `variant_get` of one field over 1 Mi rows of Variant objects, through alkaid-compute and
//! through arrow-rs's `parquet-variant-compute` 60 on the same memory (bridged without a
//! copy): the field read as Int64 from an unshredded column (every row's bytes searched)
//! and from a column shredding that field (the typed column is the answer), and the same
//! path as a Variant. Every id is an int64 Variant, so the shredded column holds all of
//! them typed. The floors: a copy of the shredded field's 8 MiB, and a walk over the
//! unshredded values' bytes.

use std::hint::black_box;
use std::sync::Arc;

use alkaid_array::ArrayRef;
use alkaid_array::variant::VariantArray;
use alkaid_arrow::arrow60::{array_to_arrow, field_to_arrow};
use alkaid_benches::VersusGroup;
use alkaid_compute::CastOptions;
use alkaid_compute::variant::{shred, variant_get};
use alkaid_schema::{DataType, Field};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use parquet_variant_compute::GetOptions;

const ROWS: usize = 1 << 20;

fn variant(c: &mut Criterion) {
    let texts: Vec<String> = (0..ROWS)
        .map(|i| {
            // Ids past 2^32 are int64 Variants, the type the shredded column holds.
            let id = 5_000_000_000 + i * 7;
            format!(
                r#"{{"id": {id}, "name": "user {i}", "score": {}.{:02}, "tags": ["a", "b"]}}"#,
                i % 100,
                i % 97
            )
        })
        .collect();
    let plain = VariantArray::from_json(texts.iter().map(|t| Some(t.as_str()))).unwrap();
    let shape = DataType::Struct(vec![Field::new("id", DataType::Int64, true)].into());
    let shredded: ArrayRef = Arc::new(shred(plain.storage(), &shape).unwrap());
    let plain: ArrayRef = Arc::new(plain.storage().clone());
    let (plain_rs, shredded_rs) = (
        array_to_arrow(plain.as_ref()),
        array_to_arrow(shredded.as_ref()),
    );
    let path: alkaid_array::variant::VariantPath = "id".parse().unwrap();
    let as_int = Arc::new(field_to_arrow(&Field::new("id", DataType::Int64, true)));
    let theirs = |input: &arrow_array::ArrayRef, typed: bool| {
        let path = parquet_variant::VariantPath::try_from("id").unwrap();
        let options = GetOptions::new_with_path(path).with_as_type(typed.then(|| as_int.clone()));
        parquet_variant_compute::variant_get(input, options).unwrap()
    };
    // Both answer the same.
    let check = variant_get(
        plain.as_ref(),
        &path,
        Some(&DataType::Int64),
        CastOptions::SAFE,
    )
    .unwrap();
    let check_rs = theirs(&plain_rs, true);
    assert_eq!(check.len(), check_rs.len());
    assert_eq!(check.null_count(), 0);

    let mut group = VersusGroup::new(c, "variant_get");
    for (name, ours, rs) in [
        ("unshredded", &plain, &plain_rs),
        ("shredded", &shredded, &shredded_rs),
    ] {
        group.versus(
            &format!("{name}_as_int64"),
            || {
                variant_get(
                    ours.as_ref(),
                    &path,
                    Some(&DataType::Int64),
                    CastOptions::SAFE,
                )
                .unwrap()
            },
            || theirs(rs, true),
        );
        group.versus(
            &format!("{name}_as_variant"),
            || variant_get(ours.as_ref(), &path, None, CastOptions::SAFE).unwrap(),
            || theirs(rs, false),
        );
    }
    group.finish();

    let mut group = c.benchmark_group("variant_get_bound");
    let source = vec![1u8; ROWS * 8];
    let mut target = vec![0u8; ROWS * 8];
    group.bench_function(BenchmarkId::new("memcpy", "shredded_int64"), |bench| {
        bench.iter(|| target.copy_from_slice(black_box(&source)))
    });
    let values = plain.to_data().children()[1].clone();
    group.bench_function(
        BenchmarkId::new("sum_bytes", "unshredded_values"),
        |bench| {
            bench.iter(|| {
                let mut sum = 0u64;
                alkaid_benches::each_buffer(black_box(&values), &mut |bytes| {
                    sum += bytes.iter().map(|&b| u64::from(b)).sum::<u64>();
                });
                sum
            })
        },
    );
    group.finish();
}

criterion_group! {
    name = benches;
    config = alkaid_benches::criterion();
    targets = variant
}
criterion_main!(benches);
