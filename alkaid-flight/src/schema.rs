//! Schemas as Flight carries them in `FlightInfo` and `SchemaResult`: an IPC schema
//! message with its stream framing (continuation marker, length, flatbuffer, padding).

use alkaid_ipc::{Decoded, Decoder, MessageEncoder, WriteOptions};
use alkaid_schema::SchemaRef;
use bytes::Bytes;

use crate::error::{FlightError, Result};

/// `schema` as a framed IPC schema message.
///
/// # Errors
/// If the schema cannot be written (a dictionary of dictionaries).
pub fn schema_to_ipc(schema: SchemaRef, options: &WriteOptions) -> Result<Bytes> {
    let flatbuffer = MessageEncoder::new(schema, options.clone())?
        .schema_message()
        .into_parts()
        .0;
    let padded = flatbuffer.len().next_multiple_of(8);
    let mut framed = Vec::with_capacity(8 + padded);
    framed.extend_from_slice(&[0xFF; 4]);
    let declared =
        i32::try_from(padded).map_err(|_| FlightError::protocol("a schema larger than 2 GiB"))?;
    framed.extend_from_slice(&declared.to_le_bytes());
    framed.extend_from_slice(&flatbuffer);
    framed.resize(8 + padded, 0);
    Ok(Bytes::from(framed))
}

/// The schema of a framed IPC schema message (with or without the continuation marker).
///
/// # Errors
/// If the bytes are empty or not a valid schema message.
pub fn schema_from_ipc(bytes: &[u8]) -> Result<SchemaRef> {
    if bytes.is_empty() {
        return Err(FlightError::protocol("no schema (an empty schema message)"));
    }
    let mut decoder = Decoder::new();
    decoder.push(bytes);
    match decoder.next_message()? {
        Some(Decoded::Schema(schema)) => Ok(schema),
        Some(_) => Err(FlightError::protocol(
            "the schema bytes hold another message",
        )),
        None => Err(FlightError::protocol("the schema message is cut short")),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alkaid_schema::{DataType, Field, IntegerType, Schema};

    use super::*;

    #[test]
    fn schemas_round_trip_and_bad_bytes_are_errors() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int64, true),
            Field::new(
                "d",
                DataType::dictionary(IntegerType::Int8, DataType::Utf8),
                false,
            ),
        ]));
        let bytes = schema_to_ipc(schema.clone(), &WriteOptions::default()).unwrap();
        assert_eq!(bytes.len() % 8, 0);
        assert_eq!(&bytes[..4], &[0xFF; 4]);
        assert_eq!(schema_from_ipc(&bytes).unwrap(), schema);
        assert!(schema_from_ipc(&[]).is_err());
        assert!(schema_from_ipc(&bytes[..bytes.len() - 9]).is_err());
        assert!(
            schema_from_ipc(&[0xFF, 0xFF, 0xFF, 0xFF, 7, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7]).is_err()
        );
    }
}
