//! Buffers: filling a mutable buffer with 16 Mi `i64`s, and slicing.

use alkaid_benches::data::i64_values;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

const VALUES: usize = 16 << 20;

fn extend(c: &mut Criterion) {
    let values = i64_values(VALUES, 7);
    let mut group = c.benchmark_group("extend_i64");
    group.throughput(Throughput::Bytes((VALUES * 8) as u64));
    group.bench_function(BenchmarkId::new("alkaid", "16Mi/from_slice"), |b| {
        b.iter(|| {
            let mut buffer = alkaid_buffer::MutableBuffer::new();
            buffer.extend_from_slice(black_box(&values));
            buffer
        })
    });
    group.bench_function(BenchmarkId::new("arrow", "16Mi/from_slice"), |b| {
        b.iter(|| {
            let mut buffer = arrow_buffer::MutableBuffer::new(0);
            buffer.extend_from_slice(black_box(&values));
            buffer
        })
    });
    group.bench_function(BenchmarkId::new("alkaid", "16Mi/push"), |b| {
        b.iter(|| {
            let mut buffer = alkaid_buffer::MutableBuffer::new();
            for &v in black_box(&values) {
                buffer.push(v);
            }
            buffer
        })
    });
    group.bench_function(BenchmarkId::new("arrow", "16Mi/push"), |b| {
        b.iter(|| {
            let mut buffer = arrow_buffer::MutableBuffer::new(0);
            for &v in black_box(&values) {
                buffer.push(v);
            }
            buffer
        })
    });
    group.bench_function(BenchmarkId::new("alkaid", "16Mi/iter"), |b| {
        b.iter(|| {
            let mut buffer = alkaid_buffer::MutableBuffer::new();
            buffer.extend(black_box(&values).iter().map(|v| v ^ 1));
            buffer
        })
    });
    group.bench_function(BenchmarkId::new("arrow", "16Mi/iter"), |b| {
        b.iter(|| {
            let mut buffer = arrow_buffer::MutableBuffer::new(0);
            buffer.extend(black_box(&values).iter().map(|v| v ^ 1));
            buffer
        })
    });
    group.finish();
}

fn slice(c: &mut Criterion) {
    const SLICES: usize = 1024;
    let values = i64_values(1 << 16, 8);
    let ours = alkaid_buffer::Buffer::from_slice_ref(&values);
    let arrow = arrow_buffer::Buffer::from_slice_ref(&values);
    let mut group = c.benchmark_group("slice");
    group.throughput(Throughput::Elements(SLICES as u64));
    group.bench_function(BenchmarkId::new("alkaid", "1024x"), |b| {
        b.iter(|| {
            (0..SLICES)
                .map(|i| black_box(ours.slice(i * 8, 4096)).len())
                .sum::<usize>()
        })
    });
    group.bench_function(BenchmarkId::new("arrow", "1024x"), |b| {
        b.iter(|| {
            (0..SLICES)
                .map(|i| black_box(arrow.slice_with_length(i * 8, 4096)).len())
                .sum::<usize>()
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = alkaid_benches::criterion();
    targets = extend, slice
}
criterion_main!(benches);
