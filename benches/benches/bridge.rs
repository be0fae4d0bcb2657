//! The arrow-rs bridge (alkaid-arrow) on the `ipc.rs` batch of seven columns, at 1 Ki and
//! at 4 Mi rows: a conversion rewraps buffers, so both sizes should take the same time.
//! Beside it, the same hand-over through the C data interface (Alkaid's export imported by
//! arrow-rs's `from_ffi`), the path for arrow-rs releases the bridge does not cover.

use alkaid_arrow::arrow60::{batch_from_arrow, batch_to_arrow};
use alkaid_benches::ipc_batch;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// Each column of `batch` through the C data interface into arrow-rs.
fn through_c_data(batch: &alkaid_array::RecordBatch) -> Vec<arrow_array::ArrayRef> {
    use alkaid_data::ffi::ArrowArray;
    use alkaid_schema::ffi::ArrowSchema;
    use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema, from_ffi};
    batch
        .schema()
        .fields()
        .iter()
        .zip(batch.columns())
        .map(|(field, column)| {
            let exported_schema = ArrowSchema::try_export(field).expect("exportable");
            let exported_array = ArrowArray::export(&column.to_data());
            // SAFETY: the same C structs on both sides (`repr(C)`, same fields); each
            // moves into arrow-rs's type, whose drop calls Alkaid's release once.
            let (schema, array): (FFI_ArrowSchema, FFI_ArrowArray) = unsafe {
                (
                    std::ptr::read((&raw const exported_schema).cast()),
                    std::ptr::read((&raw const exported_array).cast()),
                )
            };
            std::mem::forget(exported_schema);
            std::mem::forget(exported_array);
            // SAFETY: a valid array and schema from Alkaid's exports.
            let data = unsafe { from_ffi(array, &schema) }.expect("arrow-rs imports it");
            arrow_array::make_array(data)
        })
        .collect()
}

fn bridge(c: &mut Criterion) {
    let mut group = c.benchmark_group("bridge");
    for (rows, label) in [(1 << 10, "1Ki"), (4 << 20, "4Mi")] {
        let ours = ipc_batch::alkaid_batch(&ipc_batch::columns(rows));
        let theirs = batch_to_arrow(&ours);
        group.bench_function(BenchmarkId::new("to_arrow", label), |b| {
            b.iter(|| batch_to_arrow(black_box(&ours)))
        });
        group.bench_function(BenchmarkId::new("from_arrow", label), |b| {
            b.iter(|| batch_from_arrow(black_box(&theirs)).expect("valid"))
        });
        group.bench_function(BenchmarkId::new("c_data_to_arrow", label), |b| {
            b.iter(|| through_c_data(black_box(&ours)))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = alkaid_benches::criterion();
    targets = bridge
}
criterion_main!(benches);
