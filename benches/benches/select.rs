//! Selection kernels: filter at several selectivities and mask shapes, take of random
//! indices, concat of slices and interleave of random rows, through alkaid-select and
//! arrow-select on the same data of every kind the issue names.

use std::sync::Arc;

use alkaid_benches::VersusGroup;
use alkaid_benches::export;
use alkaid_benches::select_inputs::{
    Inputs, MASKS, ROWS, inputs, interleave_pairs, mask, take_indices,
};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

fn select(c: &mut Criterion) {
    let Inputs { ours, theirs } = inputs();
    export_inputs(&ours);
    let mut group = VersusGroup::new(c, "filter");
    for shape in MASKS {
        let bits = mask(shape);
        let our_mask = alkaid_array::BooleanArray::from(bits.clone());
        let their_mask = arrow_array::BooleanArray::from(bits);
        for ((name, a), (_, b)) in ours.iter().zip(&theirs) {
            let id = format!("{name}@{shape}");
            group.versus(
                &id,
                || alkaid_select::filter(a.as_ref(), &our_mask).unwrap(),
                || arrow_select::filter::filter(b.as_ref(), &their_mask).unwrap(),
            );
        }
    }
    group.finish();

    let picks = take_indices();
    let our_indices = alkaid_array::UInt32Array::from(picks.clone());
    let their_indices = arrow_array::UInt32Array::from(picks);
    let mut group = VersusGroup::new(c, "take");
    for ((name, a), (_, b)) in ours.iter().zip(&theirs) {
        group.versus(
            &format!("{name}/1Mi"),
            || alkaid_select::take(a.as_ref(), &our_indices).unwrap(),
            || arrow_select::take::take(b.as_ref(), &their_indices, None).unwrap(),
        );
    }
    group.finish();

    let mut group = VersusGroup::new(c, "concat");
    let eighth = ROWS / 8;
    for ((name, a), (_, b)) in ours.iter().zip(&theirs) {
        let our_parts: Vec<_> = (0..8).map(|k| a.slice(k * eighth, eighth)).collect();
        let their_parts: Vec<_> = (0..8).map(|k| b.slice(k * eighth, eighth)).collect();
        let our_refs: Vec<&dyn alkaid_array::Array> =
            our_parts.iter().map(|p| p.as_ref()).collect();
        let their_refs: Vec<&dyn arrow_array::Array> =
            their_parts.iter().map(|p| p.as_ref()).collect();
        group.versus(
            &format!("{name}/8"),
            || alkaid_select::concat(&our_refs).unwrap(),
            || arrow_select::concat::concat(&their_refs).unwrap(),
        );
    }
    group.finish();

    // Interleave 1 Mi rows picked at random from four quarter-length slices.
    let mut group = VersusGroup::new(c, "interleave");
    let quarter = ROWS / 4;
    let pairs = interleave_pairs();
    for ((name, a), (_, b)) in ours.iter().zip(&theirs) {
        let our_parts: Vec<_> = (0..4).map(|k| a.slice(k * quarter, quarter)).collect();
        let their_parts: Vec<_> = (0..4).map(|k| b.slice(k * quarter, quarter)).collect();
        let our_refs: Vec<&dyn alkaid_array::Array> =
            our_parts.iter().map(|p| p.as_ref()).collect();
        let their_refs: Vec<&dyn arrow_array::Array> =
            their_parts.iter().map(|p| p.as_ref()).collect();
        group.versus(
            &format!("{name}/4"),
            || alkaid_select::interleave(&our_refs, &pairs).unwrap(),
            || arrow_select::interleave::interleave(&their_refs, &pairs).unwrap(),
        );
    }
    group.finish();

    // The memory bound each kernel is judged against: a copy of all the input's bytes
    // (every buffer, children and dictionary included) into memory allocated once, so
    // reading everything once and writing as much. A filter or take moves no more.
    let mut group = c.benchmark_group("bound");
    for (name, a) in &ours {
        let mut source = Vec::new();
        alkaid_benches::each_buffer(&a.to_data(), &mut |bytes| source.extend_from_slice(bytes));
        let mut target = vec![0u8; source.len()];
        group.bench_function(BenchmarkId::new("memcpy", *name), |bench| {
            bench.iter(|| target.copy_from_slice(&source))
        });
    }
    group.finish();
}

/// Writes the inputs, the masks and the take indices for `pyarrow_bench.py`: one file of
/// nine columns, one of the masks (a column per mask, named as in [`MASKS`]) and one of the
/// indices. Interleave has no pyarrow counterpart.
fn export_inputs(ours: &[(&'static str, alkaid_array::ArrayRef)]) {
    use alkaid_array::{ArrayRef, BooleanArray, RecordBatch, UInt32Array};
    use alkaid_schema::{Field, Schema};
    let batch = |columns: Vec<(&str, ArrayRef)>| {
        let fields: Vec<Field> = columns
            .iter()
            .map(|(name, column)| Field::new(*name, column.data_type().clone(), true))
            .collect();
        let arrays = columns.into_iter().map(|(_, column)| column).collect();
        RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap()
    };
    export::batch("select_inputs", &batch(ours.to_vec()));
    let masks = MASKS
        .iter()
        .map(|shape| {
            (
                *shape,
                Arc::new(BooleanArray::from(mask(shape))) as ArrayRef,
            )
        })
        .collect();
    export::batch("select_masks", &batch(masks));
    let indices: ArrayRef = Arc::new(UInt32Array::from(take_indices()));
    export::batch("select_take", &batch(vec![("indices", indices)]));
}

criterion_group! {
    name = benches;
    config = alkaid_benches::criterion().sample_size(10);
    targets = select
}
criterion_main!(benches);
