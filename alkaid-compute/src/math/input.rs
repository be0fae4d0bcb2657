//! What the math kernels share: the float type a number computes in, and a result's data
//! rebuilt around its input's nulls.

use alkaid_array::make_array;
use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use crate::cast::{CastOptions, cast};
use crate::error::ComputeError;

/// The float type a math function computes `data_type` in: floats as they are, other
/// numbers as `Float64`; `None` for anything else.
fn float_type(data_type: &DataType) -> Option<DataType> {
    match data_type {
        t if t.is_floating() => Some(t.clone()),
        t if t.is_integer() || matches!(t, DataType::Decimal(_)) => Some(DataType::Float64),
        _ => None,
    }
}

/// `data` as the float type it computes in.
pub(super) fn as_float(
    kernel: &'static str,
    data: &ArrayData,
) -> Result<(ArrayData, DataType), ComputeError> {
    let Some(to) = float_type(data.data_type()) else {
        return Err(ComputeError::unsupported(
            kernel,
            format!("expected a number, found {}", data.data_type()),
        ));
    };
    if data.data_type() == &to {
        return Ok((data.clone(), to));
    }
    let cast = cast(make_array(data.clone()).as_ref(), &to, CastOptions::STRICT)?;
    Ok((cast.to_data(), to))
}

/// `values` (one per row) as the data of `data_type`, with `like`'s nulls.
pub(super) fn rebuilt(
    data_type: DataType,
    like: &ArrayData,
    values: alkaid_buffer::Buffer,
) -> Result<ArrayData, ComputeError> {
    Ok(ArrayData::builder(data_type)
        .len(like.len())
        .nulls(like.nulls().cloned())
        .buffers(vec![values])
        .build()?)
}
