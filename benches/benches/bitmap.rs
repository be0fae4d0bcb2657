//! Bit kernels: population count, `and` at aligned and unaligned offsets, set-bit iteration.

use alkaid_benches::data::bitmap_bytes;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

const BITS: usize = 64 << 20; // 64 Mi bits = 8 MiB

fn count_set_bits(c: &mut Criterion) {
    let bytes = bitmap_bytes(BITS + 64, 0.5, 1);
    let ours = alkaid_buffer::Buffer::from_slice_ref(&bytes);
    let arrow = arrow_buffer::Buffer::from_slice_ref(&bytes);
    let mut group = c.benchmark_group("count_set_bits");
    group.throughput(Throughput::Bytes((BITS / 8) as u64));
    for offset in [0usize, 3] {
        group.bench_function(BenchmarkId::new("alkaid", format!("64Mi@{offset}")), |b| {
            b.iter(|| alkaid_buffer::bitmap::count_set_bits(black_box(&ours), offset, BITS))
        });
        group.bench_function(BenchmarkId::new("arrow", format!("64Mi@{offset}")), |b| {
            b.iter(|| black_box(&arrow).count_set_bits_offset(offset, BITS))
        });
    }
    group.finish();
}

fn and(c: &mut Criterion) {
    let left = bitmap_bytes(BITS + 64, 0.5, 2);
    let right = bitmap_bytes(BITS + 64, 0.5, 3);
    let (ours_l, ours_r) = (
        alkaid_buffer::Buffer::from_slice_ref(&left),
        alkaid_buffer::Buffer::from_slice_ref(&right),
    );
    let (arrow_l, arrow_r) = (
        arrow_buffer::Buffer::from_slice_ref(&left),
        arrow_buffer::Buffer::from_slice_ref(&right),
    );
    let mut group = c.benchmark_group("and");
    group.throughput(Throughput::Bytes((BITS / 8) as u64));
    for (lo, ro) in [(0usize, 0usize), (3, 5)] {
        let param = format!("64Mi@({lo},{ro})");
        group.bench_function(BenchmarkId::new("alkaid", &param), |b| {
            b.iter(|| alkaid_buffer::bitmap::and(&ours_l, lo, &ours_r, ro, BITS))
        });
        group.bench_function(BenchmarkId::new("arrow", &param), |b| {
            b.iter(|| arrow_buffer::buffer::buffer_bin_and(&arrow_l, lo, &arrow_r, ro, BITS))
        });
    }
    group.finish();
}

/// Runs `ours` and `arrow` over 1 Mi bits at offset 3, at 1%, 50% and 99% density.
fn by_density(
    c: &mut Criterion,
    name: &str,
    seed: u64,
    ours: impl Fn(&alkaid_buffer::BooleanBuffer) -> usize,
    arrow: impl Fn(&arrow_buffer::BooleanBuffer) -> usize,
) {
    const LEN: usize = 1 << 20;
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(LEN as u64));
    for density in [0.01, 0.5, 0.99] {
        let bytes = bitmap_bytes(LEN + 8, density, seed);
        let ours_bits = alkaid_buffer::BooleanBuffer::new(
            alkaid_buffer::Buffer::from_slice_ref(&bytes),
            3,
            LEN,
        );
        let arrow_bits =
            arrow_buffer::BooleanBuffer::new(arrow_buffer::Buffer::from_slice_ref(&bytes), 3, LEN);
        let param = format!("1Mi@{}%", density * 100.0);
        group.bench_function(BenchmarkId::new("alkaid", &param), |b| {
            b.iter(|| ours(&ours_bits))
        });
        group.bench_function(BenchmarkId::new("arrow", &param), |b| {
            b.iter(|| arrow(&arrow_bits))
        });
    }
    group.finish();
}

fn set_indices(c: &mut Criterion) {
    by_density(
        c,
        "set_indices",
        4,
        |bits| {
            bits.set_indices()
                .fold(0usize, |acc, i| acc.wrapping_add(i))
        },
        |bits| {
            bits.set_indices()
                .fold(0usize, |acc, i| acc.wrapping_add(i))
        },
    );
}

fn set_runs(c: &mut Criterion) {
    by_density(
        c,
        "set_runs",
        5,
        |bits| {
            bits.set_runs()
                .fold(0usize, |acc, (s, e)| acc.wrapping_add(e - s))
        },
        |bits| {
            bits.set_slices()
                .fold(0usize, |acc, (s, e)| acc.wrapping_add(e - s))
        },
    );
}

criterion_group! {
    name = benches;
    config = alkaid_benches::criterion();
    targets = count_set_bits, and, set_indices, set_runs
}
criterion_main!(benches);
