//! `alkaid demo`: every layer at work on a realistic table, timed step by step.
//!
//! Builds about a million rows (timestamps with a time zone, a dictionary-encoded city, free
//! text, floats and integers with nulls, a list column) with the typed arrays, writes them
//! as a zstd-compressed IPC file, memory-maps the file and reads it back without copying,
//! validates it, filters with a predicate from alkaid-compute and takes with alkaid-select,
//! aggregates the rows kept, and prints what it did.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use alkaid_array::display::pretty_format_batches;
use alkaid_array::types::{Float64Type, Int16Type, Int32Type};
use alkaid_array::{
    Array, ArrayRef, AsArray, DictionaryArray, Float64Array, GenericListBuilder, Int16Array,
    Int64Array, PrimitiveBuilder, RecordBatch, Scalar, StringArray, UInt32Array, make_array,
};
use alkaid_data::ArrayData;
use alkaid_ipc::{Compression, FileReader, FileWriter, WriteOptions};
use alkaid_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use alkaid_select::{FilterPredicate, take_record_batch};

use crate::failure::Failure;

const ROWS: usize = 1 << 20;
const BATCH_ROWS: usize = 1 << 16;

const CITIES: [&str; 12] = [
    "Lisbon",
    "Oslo",
    "Nairobi",
    "Lima",
    "Osaka",
    "Tbilisi",
    "Quito",
    "Perth",
    "Reykjavik",
    "Montreal",
    "Dakar",
    "Hanoi",
];

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new(
            "time",
            DataType::Timestamp(TimeUnit::Millisecond, Some("Europe/Paris".into())),
            false,
        ),
        Field::new(
            "city",
            DataType::dictionary(alkaid_schema::IntegerType::Int16, DataType::Utf8),
            false,
        ),
        Field::new("note", DataType::Utf8, true),
        Field::new("temperature", DataType::Float64, true),
        Field::new("count", DataType::Int64, true),
        Field::new("readings", DataType::list(DataType::Int32), true),
    ]))
}

/// A small deterministic generator, so every run shows the same table.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Rows `start..start + len` of the demo table.
fn batch(
    schema: &SchemaRef,
    start: usize,
    len: usize,
    rng: &mut Rng,
) -> Result<RecordBatch, Failure> {
    let rows = start..start + len;
    // 2026-01-01T00:00:00Z, then a reading every 0.937 s.
    let times: Vec<i64> = rows
        .clone()
        .map(|i| 1_767_225_600_000 + i as i64 * 937)
        .collect();
    let times = Int64Array::from(times).to_data();
    let times = ArrayData::builder(schema.fields()[0].data_type().clone())
        .len(len)
        .buffers(times.buffers().to_vec())
        .build()?;
    let keys: Vec<i16> = rows
        .clone()
        .map(|_| (rng.next() % CITIES.len() as u64) as i16)
        .collect();
    let cities = DictionaryArray::<Int16Type>::try_new(
        Int16Array::from(keys),
        Arc::new(StringArray::from(CITIES.to_vec())),
    )?;
    let notes: Vec<Option<String>> = rows
        .clone()
        .map(|i| (i % 11 != 0).then(|| format!("reading {i} from sensor {}", i % 977)))
        .collect();
    let notes = StringArray::from(notes.iter().map(Option::as_deref).collect::<Vec<_>>());
    let temperatures: Vec<Option<f64>> = rows
        .clone()
        .map(|i| (i % 13 != 0).then(|| (rng.next() % 160) as f64 * 0.25 - 5.0))
        .collect();
    let counts: Vec<Option<i64>> = rows
        .clone()
        .map(|i| (i % 7 != 0).then(|| (rng.next() % 10_000) as i64))
        .collect();
    let mut readings =
        GenericListBuilder::<i32, _>::new(PrimitiveBuilder::<Int32Type>::with_capacity(len * 2));
    for i in rows {
        for k in 0..(i % 4) as i32 {
            readings.values().append_value(k * 10 + (i % 10) as i32);
        }
        readings.append(i % 17 != 0);
    }
    let columns: Vec<ArrayRef> = vec![
        make_array(times),
        Arc::new(cities),
        Arc::new(notes),
        Arc::new(Float64Array::from(temperatures)),
        Arc::new(Int64Array::from(counts)),
        Arc::new(readings.finish()?),
    ];
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}

/// Bytes an array holds in memory (buffers, children and dictionary).
fn memory(data: &ArrayData) -> usize {
    let own: usize = data.buffers().iter().map(|b| b.len()).sum::<usize>()
        + data.nulls().map_or(0, |n| n.validity().inner().len());
    own + data.children().iter().map(memory).sum::<usize>() + data.dictionary().map_or(0, memory)
}

fn megabytes(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

/// Runs the demo, writing its file into `dir`.
pub fn run(dir: &Path) -> Result<(), Failure> {
    let total = Instant::now();
    let mut steps: Vec<(String, std::time::Duration)> = Vec::new();
    let mut step = |name: String, started: Instant| steps.push((name, started.elapsed()));

    let started = Instant::now();
    let schema = schema();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let batches = (0..ROWS)
        .step_by(BATCH_ROWS)
        .map(|start| batch(&schema, start, BATCH_ROWS.min(ROWS - start), &mut rng))
        .collect::<Result<Vec<_>, _>>()?;
    let in_memory: usize = batches
        .iter()
        .flat_map(|b| b.columns().iter().map(|c| memory(&c.to_data())))
        .sum();
    step(
        format!(
            "built {ROWS} rows in {} batches ({})",
            batches.len(),
            megabytes(in_memory)
        ),
        started,
    );

    let started = Instant::now();
    std::fs::create_dir_all(dir).map_err(|e| Failure::new(format!("{}: {e}", dir.display())))?;
    let path = dir.join("demo.alkaid");
    let file = std::fs::File::create(&path)
        .map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
    let options = WriteOptions::default().with_compression(Compression::Zstd { level: 1 });
    let mut writer = FileWriter::try_new(std::io::BufWriter::new(file), schema.clone(), options)?;
    for batch in &batches {
        writer.write(batch)?;
    }
    writer.finish()?;
    drop(writer);
    let size = std::fs::metadata(&path)
        .map(|m| m.len() as usize)
        .unwrap_or(0);
    step(
        format!("wrote {} (zstd, {})", path.display(), megabytes(size)),
        started,
    );

    let started = Instant::now();
    let source = crate::input::bytes(&path.to_string_lossy())?;
    let mut reader = FileReader::from_buffer(source.buffer().clone())?;
    let read: Vec<RecordBatch> = (0..reader.num_batches())
        .map(|i| reader.batch(i))
        .collect::<Result<_, _>>()?;
    source.check()?;
    let rows: usize = read.iter().map(RecordBatch::num_rows).sum();
    step(
        format!("memory-mapped it and read {rows} rows back, every value validated"),
        started,
    );

    let started = Instant::now();
    let mut warm = Vec::new();
    let mut kept_rows = 0;
    for batch in &read {
        let mask = alkaid_compute::gt(batch.column(3), &Scalar::from(30.0f64))?;
        let predicate = FilterPredicate::new(&mask);
        let columns = batch
            .columns()
            .iter()
            .map(|c| predicate.filter(c.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        let kept =
            RecordBatch::try_new_with_rows(batch.schema().clone(), columns, predicate.count())?;
        kept_rows += kept.num_rows();
        warm.push(kept);
    }
    step(
        format!("filtered temperature > 30: {kept_rows} rows kept"),
        started,
    );

    let started = Instant::now();
    let hottest = alkaid_select::concat_batches(&schema, &warm)?;
    let temperature = hottest.column(3).as_ref();
    let mean = alkaid_compute::mean(temperature)?.value::<Float64Type>();
    let max = alkaid_compute::max(temperature)?;
    let cities = alkaid_compute::value_counts(hottest.column(1).as_ref())?;
    step(
        format!(
            "joined the hot rows and aggregated them: mean {:.2}, max {max}, in {} cities",
            mean.unwrap_or(f64::NAN),
            cities.len()
        ),
        started,
    );

    let started = Instant::now();
    let temperatures = hottest.column(3).as_primitive::<Float64Type>();
    let mut order: Vec<u32> = (0..hottest.num_rows() as u32).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (
            temperatures.value(a as usize),
            temperatures.value(b as usize),
        );
        b.total_cmp(&a)
    });
    order.truncate(8);
    let top = take_record_batch(&hottest, &UInt32Array::from(order))?;
    step("took the 8 hottest".to_string(), started);

    println!("schema:");
    for field in schema.fields().iter() {
        println!("  {}: {}", field.name(), field.data_type());
    }
    println!("\nfirst rows of the file:");
    println!("{}", pretty_format_batches(&read[..1], Some(5)));
    println!("\nthe 8 hottest readings:");
    println!("{}", pretty_format_batches(&[top], None));
    println!("\nsteps:");
    for (name, time) in &steps {
        println!("  {:>9.1} ms  {name}", time.as_secs_f64() * 1e3);
    }
    println!("  {:>9.1} ms  in all", total.elapsed().as_secs_f64() * 1e3);
    let _ = hottest.column(0).len();
    Ok(())
}
