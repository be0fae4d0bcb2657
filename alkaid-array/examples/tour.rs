//! A tour of Alkaid as it stands: a schema from text, a million-row batch from builders,
//! a table of the first rows, O(1) slicing, validation catching corrupt bytes, and memory
//! accounting. `cargo run --release -p alkaid-array --example tour`

use std::sync::Arc;
use std::time::Instant;

use alkaid_array::display::pretty_format_batches;
use alkaid_array::types::{Float64Type, Int32Type, TimestampMillisecondType};
use alkaid_array::{
    ArrayRef, GenericByteDictionaryBuilder, GenericListBuilder, GenericStringType,
    PrimitiveBuilder, RecordBatch,
};
use alkaid_buffer::Buffer;
use alkaid_buffer::memory::MemoryTally;
use alkaid_data::{ArrayData, ValidationLevel};
use alkaid_schema::{Field, Schema};

const ROWS: usize = 1_000_000;
const CITIES: [&str; 6] = ["Oslo", "Lima", "Hanoi", "Nairobi", "Quito", "Perth"];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let started = Instant::now();

    // 1. A schema, written in the type notation every Alkaid type displays and parses.
    let schema = Arc::new(Schema::new(vec![
        "time: Timestamp(ms, \"Europe/Paris\") not null".parse::<Field>()?,
        "city: Dictionary(Int32, Utf8)".parse::<Field>()?,
        "temperature: Float64".parse::<Field>()?,
        "readings: List(item: Int32)".parse::<Field>()?,
    ]));
    println!("schema: {schema}\n");

    // 2. A million rows from builders; the dictionary builder stores each city once.
    let step = Instant::now();
    let mut time = PrimitiveBuilder::<TimestampMillisecondType>::with_capacity(ROWS)
        .with_data_type(schema.field(0)?.data_type().clone())?;
    let mut city = GenericByteDictionaryBuilder::<Int32Type, GenericStringType<i32>>::new();
    let mut temperature = PrimitiveBuilder::<Float64Type>::with_capacity(ROWS);
    let mut readings =
        GenericListBuilder::<i32, _>::new(PrimitiveBuilder::<Int32Type>::with_capacity(ROWS * 2));
    let mut seed = 42u64;
    for row in 0..ROWS {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        time.append_value(1_700_000_000_000 + row as i64 * 1_000);
        city.append(CITIES[(seed >> 33) as usize % CITIES.len()])?;
        if seed.is_multiple_of(10) {
            temperature.append_null();
        } else {
            temperature.append_value(((seed >> 20) % 400) as f64 / 10.0 - 5.0);
        }
        for k in 0..(seed >> 60) % 3 {
            readings
                .values()
                .append_value((row as i32).wrapping_add(k as i32));
        }
        readings.append(true);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(time.finish()),
        Arc::new(city.finish()),
        Arc::new(temperature.finish()),
        Arc::new(readings.finish()?),
    ];
    let batch = RecordBatch::try_new(schema, columns)?;
    println!("built {} rows in {:?}", batch.num_rows(), step.elapsed());

    // 3. The first rows, as a table.
    println!(
        "{}\n",
        pretty_format_batches(std::slice::from_ref(&batch), Some(5))
    );

    // 4. Slicing is O(1), at any offset, and the slice displays like any array.
    let tail = batch.slice(ROWS - 3, 3);
    println!("last readings: {}", tail.column(3).as_ref());

    // 5. Full validation of every column, and of corrupt bytes.
    let step = Instant::now();
    for column in batch.columns() {
        column.to_data().validate(ValidationLevel::Full)?;
    }
    println!("validated every column fully in {:?}", step.elapsed());
    let corrupt = ArrayData::builder("Utf8".parse()?)
        .len(2)
        .buffers(vec![
            Buffer::from_slice_ref(&[0i32, 3, 2]),
            Buffer::from(b"abc".to_vec()),
        ])
        .build();
    println!(
        "corrupt offsets are an error: {}",
        corrupt.expect_err("decreasing offsets")
    );

    // 6. Memory: buffers shared by many arrays count once.
    let mut tally = MemoryTally::new();
    for column in batch.columns().iter().chain(tail.columns()) {
        add_to_tally(&column.to_data(), &mut tally); // the slice adds nothing new
    }
    println!(
        "the batch holds {} MiB in {} allocations",
        tally.bytes() >> 20,
        tally.allocations()
    );
    println!("done in {:?}", started.elapsed());
    Ok(())
}

/// Adds every buffer an array holds (validity, values, children, dictionary) to `tally`.
fn add_to_tally(data: &ArrayData, tally: &mut MemoryTally) {
    if let Some(nulls) = data.nulls() {
        tally.add(nulls.validity().inner());
    }
    for buffer in data.buffers() {
        tally.add(buffer);
    }
    for child in data.children().iter().chain(data.dictionary()) {
        add_to_tally(child, tally);
    }
}
