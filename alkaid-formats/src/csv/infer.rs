//! A CSV file's schema inferred from its first rows: arrow-csv's inference, then one rule
//! of pyarrow's it lacks. arrow-csv infers a column of integers of which one is past
//! Int64 (`9223372036854775808`) as text; pyarrow, as a double, and so does Alkaid: a
//! number stays a number, as near as a double holds it.

use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;

use arrow_array_60::Array;
use arrow_array_60::cast::AsArray;
use arrow_csv::ReaderBuilder;
use arrow_csv::reader::Format;
use arrow_schema_60::{ArrowError, DataType, Field, Schema};

/// The schema of the first `rows` records of `input` read as `format` says, `input` left
/// at its start.
pub(super) fn infer<R: Read + Seek>(
    format: &Format,
    input: &mut R,
    rows: usize,
) -> Result<Schema, ArrowError> {
    let (schema, _) = format.infer_schema(&mut *input, Some(rows))?;
    input.seek(SeekFrom::Start(0))?;
    let widened = past_int64(format, &schema, &mut *input, rows)?;
    input.seek(SeekFrom::Start(0))?;
    Ok(widened)
}

/// `schema` with each text column whose sampled values are all integers (one at least, so
/// some past Int64, or arrow-csv would have inferred Int64) made Float64.
fn past_int64<R: Read>(
    format: &Format,
    schema: &Schema,
    input: R,
    rows: usize,
) -> Result<Schema, ArrowError> {
    if !schema
        .fields()
        .iter()
        .any(|f| f.data_type() == &DataType::Utf8)
    {
        return Ok(schema.clone());
    }
    let mut reader = ReaderBuilder::new(Arc::new(schema.clone()))
        .with_format(format.clone())
        .with_batch_size(rows)
        .build(input)?;
    let Some(sample) = reader.next().transpose()? else {
        return Ok(schema.clone());
    };
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(c, field)| {
            let column = sample.column(c);
            let integers = field.data_type() == &DataType::Utf8
                && column.null_count() < column.len()
                && column.as_string::<i32>().iter().flatten().all(is_integer);
            match integers {
                true => field.as_ref().clone().with_data_type(DataType::Float64),
                false => field.as_ref().clone(),
            }
        })
        .collect();
    Ok(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// An optional sign, then decimal digits.
fn is_integer(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn integers_past_int64_infer_as_doubles_and_text_stays_text() {
        let csv =
            "big,small,text,mixed\n1,1,a,1\n9223372036854775808,2,b,x\n,3,,99999999999999999999\n";
        let mut input = Cursor::new(csv.as_bytes());
        let schema = infer(&Format::default().with_header(true), &mut input, 100).unwrap();
        let types: Vec<String> = schema
            .fields()
            .iter()
            .map(|f| f.data_type().to_string())
            .collect();
        assert_eq!(types, ["Float64", "Int64", "Utf8", "Utf8"]);
        assert_eq!(input.position(), 0);
        assert!(is_integer("-12") && is_integer("+3") && !is_integer("-") && !is_integer("1e5"));
    }
}
