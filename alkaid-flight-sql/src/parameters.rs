//! Parameters bound to a prepared statement (a `DoPut` of their rows), received within
//! the operator's bounds: at most so many bytes of messages and so many rows, counted as
//! they arrive, so that an oversized binding is refused before it is held.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use alkaid_arrow::arrow59::{batch_to_arrow, schema_to_arrow};
use alkaid_flight::{FlightData, FlightError, FlightRecordBatchStream};
use datafusion::arrow::array::RecordBatch as ArrowBatch;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use futures_core::Stream;
use futures_util::TryStreamExt;
use tonic::Status;

use crate::status::status;

/// A stream of a `DoPut`'s messages that fails once more than its limit of bytes
/// (headers, bodies, app_metadata) has arrived; the limit is set once the command says
/// what the upload is, and counts from the first message.
pub struct Metered<S> {
    inner: S,
    seen: usize,
    limit: Arc<AtomicUsize>,
}

impl<S> Metered<S> {
    /// `inner`, unlimited until [`Meter::limit`] is called on the returned meter.
    pub fn new(inner: S) -> (Self, Meter) {
        let limit = Arc::new(AtomicUsize::new(usize::MAX));
        let meter = Meter(Arc::clone(&limit));
        let metered = Self {
            inner,
            seen: 0,
            limit,
        };
        (metered, meter)
    }
}

/// Sets the limit of a [`Metered`] stream.
pub struct Meter(Arc<AtomicUsize>);

impl Meter {
    /// At most `bytes` in all.
    pub fn limit(&self, bytes: usize) {
        self.0.store(bytes, Ordering::Relaxed);
    }
}

impl<S> Stream for Metered<S>
where
    S: Stream<Item = Result<FlightData, FlightError>> + Unpin,
{
    type Item = Result<FlightData, FlightError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let polled = Pin::new(&mut self.inner).poll_next(cx);
        if let Poll::Ready(Some(Ok(data))) = &polled {
            let size = data.data_header.len() + data.data_body.len() + data.app_metadata.len();
            self.seen = self.seen.saturating_add(size);
            let limit = self.limit.load(Ordering::Relaxed);
            if self.seen > limit {
                return Poll::Ready(Some(Err(FlightError::Status(Status::resource_exhausted(
                    format!(
                        "the bound parameters are more than {limit} bytes (the operator's limit)"
                    ),
                )))));
            }
        }
        polled
    }
}

/// The rest of `upload` as one arrow-rs batch of at most `max_rows` rows.
///
/// # Errors
/// If the upload is malformed, or has more rows (or bytes, through [`Metered`]).
pub async fn collect<S>(
    upload: &mut FlightRecordBatchStream<S>,
    max_rows: usize,
) -> Result<ArrowBatch, Status>
where
    S: Stream<Item = alkaid_flight::Result<FlightData>> + Send + Unpin,
{
    let schema = upload.read_schema().await?;
    let mut batches = Vec::new();
    let mut rows = 0usize;
    while let Some(batch) = upload.try_next().await? {
        rows = rows.saturating_add(batch.num_rows());
        if rows > max_rows {
            return Err(Status::resource_exhausted(format!(
                "the bound parameters are more than {max_rows} rows (the operator's limit)"
            )));
        }
        batches.push(batch_to_arrow(&batch));
    }
    let arrow_schema = Arc::new(schema_to_arrow(&schema));
    datafusion::arrow::compute::concat_batches(&arrow_schema, &batches)
        .map_err(|e| Status::invalid_argument(format!("the parameters: {e}")))
}

/// The types a plan inferred for its placeholders, by name (`$1`); `None` where it could
/// not tell.
pub type ParameterTypes = HashMap<String, Option<DataType>>;

/// `values` (of `$1`, `$2`, … in order) cast to the types the plan inferred for them
/// (`types`, by placeholder): a client binds what its language has (an integer where the
/// column compared is a float), and a value of another type than the plan's compares
/// wrongly (`fare < 10` bound as an integer matched no row). A value in a union (how
/// flightsql-dbapi binds every parameter, as Go's Flight SQL client does) is first the
/// member value it holds.
///
/// # Errors
/// `InvalidArgument` naming the parameter when its value does not cast.
pub fn typed(values: Vec<ScalarValue>, types: &ParameterTypes) -> Result<Vec<ScalarValue>, Status> {
    values
        .into_iter()
        .enumerate()
        .map(|(i, value)| {
            let value = match value {
                ScalarValue::Union(Some((_, held)), _, _) => *held,
                ScalarValue::Union(None, _, _) => ScalarValue::Null,
                other => other,
            };
            let name = format!("${}", i + 1);
            match types.get(&name) {
                Some(Some(wanted)) if value.data_type() != *wanted => {
                    value.cast_to(wanted).map_err(|e| {
                        Status::invalid_argument(format!(
                            "parameter {name}: its value {value} is not a {wanted}: {e}"
                        ))
                    })
                }
                _ => Ok(value),
            }
        })
        .collect()
}

/// Row `row` of bound parameters as the values of `$1`, `$2`, ….
///
/// # Errors
/// If a value cannot be taken from its column.
pub fn row(parameters: &ArrowBatch, row: usize) -> Result<Vec<ScalarValue>, Status> {
    parameters
        .columns()
        .iter()
        .map(|column| ScalarValue::try_from_array(column, row))
        .collect::<datafusion::common::Result<Vec<_>>>()
        .map_err(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_take_the_types_the_plan_inferred() {
        let types = HashMap::from([
            ("$1".to_string(), Some(DataType::Float64)),
            ("$2".to_string(), None),
            ("$3".to_string(), Some(DataType::Int32)),
        ]);
        let values = vec![
            ScalarValue::Int64(Some(10)),
            ScalarValue::Utf8(Some("Oslo".into())),
            ScalarValue::Int64(None),
        ];
        let typed = typed(values, &types).unwrap();
        assert_eq!(typed[0], ScalarValue::Float64(Some(10.0)));
        assert_eq!(typed[1], ScalarValue::Utf8(Some("Oslo".into())));
        assert_eq!(typed[2], ScalarValue::Int32(None));
        let wrong = vec![ScalarValue::Utf8(Some("ten".into()))];
        let refused = super::typed(wrong, &types).unwrap_err();
        assert_eq!(refused.code(), tonic::Code::InvalidArgument);
        assert!(refused.message().contains("parameter $1"), "{refused}");
        let fields = datafusion::arrow::datatypes::UnionFields::try_new(
            [0, 1],
            [
                datafusion::arrow::datatypes::Field::new("0", DataType::Int64, true),
                datafusion::arrow::datatypes::Field::new("1", DataType::Utf8, true),
            ],
        )
        .unwrap();
        let mode = datafusion::arrow::datatypes::UnionMode::Dense;
        let held = Box::new(ScalarValue::Int64(Some(10)));
        let unions = vec![
            ScalarValue::Union(Some((0, held)), fields.clone(), mode),
            ScalarValue::Union(None, fields, mode),
        ];
        let typed = super::typed(unions, &types).unwrap();
        assert_eq!(typed[0], ScalarValue::Float64(Some(10.0)));
        assert!(typed[1].is_null());
        let overflow = HashMap::from([("$1".to_string(), Some(DataType::Int8))]);
        let big = vec![ScalarValue::Int64(Some(1000))];
        assert!(super::typed(big, &overflow).is_err(), "no silent wrapping");
    }
}
