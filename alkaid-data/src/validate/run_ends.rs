//! Full validation of run ends.

use alkaid_schema::RunEndType;

use super::slots::{end, typed_slots};
use crate::{ArrayData, DataError, DataErrorKind};

/// Run ends have no nulls, are positive and strictly increasing, and the last one reaches
/// the end of the array (`offset + len`).
pub(super) fn check(data: &ArrayData) -> Result<(), DataError> {
    let run_ends = &data.children[0];
    let data_type = &data.data_type;
    let error = |message: String| {
        DataError::new(DataErrorKind::RunEnds, format!("{message} in {data_type}"))
    };
    if run_ends.null_count() > 0 {
        return Err(error(format!(
            "expected no null run ends, found {}",
            run_ends.null_count()
        )));
    }
    let (from, to) = (run_ends.offset, end(run_ends));
    let values: Vec<i64> = match run_ends.data_type() {
        alkaid_schema::DataType::Int16 => widen(typed_slots::<i16>(run_ends, 0, from, to)?),
        alkaid_schema::DataType::Int32 => widen(typed_slots::<i32>(run_ends, 0, from, to)?),
        _ => typed_slots::<i64>(run_ends, 0, from, to)?.to_vec(),
    };
    debug_assert!(matches!(
        data_type,
        alkaid_schema::DataType::RunEndEncoded(ree)
            if matches!(ree.run_end_type(), RunEndType::Int16 | RunEndType::Int32 | RunEndType::Int64)
    ));
    let mut previous = 0i64;
    for (index, &run_end) in values.iter().enumerate() {
        if run_end <= previous {
            let what = if index == 0 {
                "positive".to_string()
            } else {
                format!("greater than {previous}")
            };
            return Err(error(format!(
                "expected run end {index} to be {what}, found {run_end}"
            )));
        }
        previous = run_end;
    }
    let covered = usize::try_from(previous).unwrap_or(usize::MAX);
    if data.len > 0 && covered < end(data) {
        return Err(error(format!(
            "expected the last run end to reach {} (offset {} + length {}), found {previous}",
            end(data),
            data.offset,
            data.len
        )));
    }
    Ok(())
}

fn widen<T: Copy + Into<i64>>(values: &[T]) -> Vec<i64> {
    values.iter().map(|&v| v.into()).collect()
}
