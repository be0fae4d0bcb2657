//! [`pretty_format_batches`]: batches as a table of text.

use std::fmt::Write;

use super::format_field_value;
use crate::RecordBatch;

/// The batches as a table: a header of column names, then at most `max_rows` rows (all if
/// `None`), then `... N more rows` if some were left out.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{display::pretty_format_batches, Int32Array, RecordBatch, StringArray};
/// use alkaid_schema::{DataType, Field, Schema};
///
/// let schema = Arc::new(Schema::new(vec![
///     Field::new("id", DataType::Int32, false),
///     Field::new("name", DataType::Utf8, true),
/// ]));
/// let batch = RecordBatch::try_new(schema, vec![
///     Arc::new(Int32Array::from(vec![1, 2, 3])),
///     Arc::new(StringArray::from(vec![Some("ann"), None, Some("bo")])),
/// ])?;
/// let table = pretty_format_batches(&[batch], Some(2));
/// assert_eq!(table, "\
/// +----+------+
/// | id | name |
/// +----+------+
/// | 1  | ann  |
/// | 2  | null |
/// +----+------+
/// ... 1 more row");
/// # Ok::<(), alkaid_array::ArrayError>(())
/// ```
pub fn pretty_format_batches(batches: &[RecordBatch], max_rows: Option<usize>) -> String {
    let Some(first) = batches.first() else {
        return String::new();
    };
    let header: Vec<String> = first
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().to_string())
        .collect();
    let total: usize = batches.iter().map(RecordBatch::num_rows).sum();
    let limit = max_rows.unwrap_or(total).min(total);
    let mut rows: Vec<Vec<String>> = Vec::with_capacity(limit);
    'batches: for batch in batches {
        for row in 0..batch.num_rows() {
            if rows.len() == limit {
                break 'batches;
            }
            let fields = batch.schema().fields().clone();
            let cells = batch
                .columns()
                .iter()
                .zip(fields.iter())
                .map(|(column, field)| {
                    // Keep one line per row: escape line breaks and tabs.
                    format_field_value(field, column.as_ref(), row)
                        .replace('\n', "\\n")
                        .replace('\r', "\\r")
                        .replace('\t', "\\t")
                });
            rows.push(cells.collect());
        }
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([header[c].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let rule: String = widths.iter().fold(String::from("+"), |mut line, w| {
        line.push_str(&"-".repeat(w + 2));
        line.push('+');
        line
    });
    let line = |cells: &[String]| {
        let mut text = String::from("|");
        for (cell, width) in cells.iter().zip(&widths) {
            let pad = width - cell.chars().count();
            write!(text, " {cell}{} |", " ".repeat(pad)).expect("writing to a String cannot fail");
        }
        text
    };
    let mut table = vec![rule.clone(), line(&header), rule.clone()];
    table.extend(rows.iter().map(|r| line(r)));
    table.push(rule);
    let mut text = table.join("\n");
    if total > limit {
        let more = total - limit;
        write!(
            text,
            "\n... {more} more row{}",
            if more == 1 { "" } else { "s" }
        )
        .expect("writing to a String cannot fail");
    }
    text
}
