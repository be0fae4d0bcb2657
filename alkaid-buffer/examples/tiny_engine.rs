//! A small query engine on the buffer layer alone: what an engine that embeds only
//! `alkaid-buffer` (no types, no arrays) builds on it. Two columns held as typed buffers
//! with validity bitmaps answer
//!
//! ```sql
//! SELECT count(*), sum(amount) FROM sales WHERE amount IS NOT NULL AND store = 3
//! ```
//!
//! by evaluating the predicate into a bitmap, combining it with the validity bitmaps
//! word by word, and summing the selected rows, run by run; the answer is checked
//! against a plain loop over the same values.
//!
//! `cargo run --release -p alkaid-buffer --example tiny_engine`

use alkaid_buffer::{BooleanBuffer, Buffer, MutableBuffer, NullBuffer, ScalarBuffer};

/// A column: typed values and, when some are null, which are valid.
struct Column<T: alkaid_buffer::native::NativeType> {
    values: ScalarBuffer<T>,
    validity: Option<NullBuffer>,
}

impl<T: alkaid_buffer::native::NativeType> Column<T> {
    /// The rows that hold a value: every row when the column has no nulls.
    fn valid(&self) -> BooleanBuffer {
        match &self.validity {
            Some(validity) => validity.validity().clone(),
            None => BooleanBuffer::new_set(self.values.len()),
        }
    }
}

/// `count(*)` and `sum(amount)` of the rows `selected` marks, summed a run of set bits at
/// a time (each run a contiguous slice of the values).
fn count_and_sum(amount: &Column<i64>, selected: &BooleanBuffer) -> (usize, i64) {
    let sum = selected
        .set_runs()
        .map(|(start, end)| amount.values[start..end].iter().sum::<i64>())
        .sum();
    (selected.count_set_bits(), sum)
}

fn main() {
    const ROWS: usize = 1 << 20;
    // The table: `store` without nulls, `amount` with every tenth value null.
    let mut stores = MutableBuffer::with_capacity(ROWS * 4);
    stores.extend_with(ROWS, |i| ((i * 7) % 11) as i32);
    let store = Column::<i32> {
        values: Buffer::from(stores).try_into().expect("aligned i32 values"),
        validity: None,
    };
    let mut amounts = MutableBuffer::with_capacity(ROWS * 8);
    amounts.extend_with(ROWS, |i| (i as i64 * 31) % 1_000);
    let amount = Column::<i64> {
        values: Buffer::from(amounts)
            .try_into()
            .expect("aligned i64 values"),
        validity: Some(NullBuffer::new((0..ROWS).map(|i| i % 10 != 0).collect())),
    };

    // WHERE store = 3, as a bitmap; AND amount IS NOT NULL, word by word.
    let is_store_3: BooleanBuffer = store.values.iter().map(|&s| s == 3).collect();
    let selected = &is_store_3 & &amount.valid();
    let (count, sum) = count_and_sum(&amount, &selected);

    // The same answer, row by row.
    let expected = (0..ROWS)
        .filter(|&i| store.values[i] == 3 && amount.valid().value(i))
        .fold((0, 0), |(n, s), i| (n + 1, s + amount.values[i]));
    assert_eq!((count, sum), expected);
    println!("count(*) = {count}, sum(amount) = {sum} over {ROWS} rows");
}
