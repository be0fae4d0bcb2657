//! Bytes between layouts: text and binary with 32-bit offsets, 64-bit offsets or views,
//! and fixed-size binary, in any combination; bytes become text only if they are UTF-8.

use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use super::options::CastOptions;
use crate::error::ComputeError;
use crate::text::{TextWriter, each_value};

/// `data` (binary-like) re-laid out as `to` (binary or text of any layout).
pub(super) fn bytes(
    data: &ArrayData,
    to: &DataType,
    options: CastOptions,
) -> Result<ArrayData, ComputeError> {
    let check_text = to.is_string() && !data.data_type().is_string();
    let bytes = data.buffers().get(1).map_or(0, |b| b.len());
    let mut writer = TextWriter::like(to, data.len(), bytes);
    each_value(data, |row, value| {
        let value = match value {
            Some(v) if check_text && std::str::from_utf8(v).is_err() => {
                if !options.safe {
                    return Err(ComputeError::Cast {
                        row,
                        message: format!("{v:?} is not UTF-8, so not {to}"),
                    });
                }
                None
            }
            other => other,
        };
        writer.push(row, value)
    })?;
    writer.finish(to.clone())
}
