//! A file's two copies of its schema: the message that opens its stream, and the footer's.
//! They must agree, or a reader that streams the file and one that reads its footer would
//! see different columns.
//!
//! Comparing them by decoding the message costs as much as decoding the footer again (a
//! third of opening a small file), so a cheaper proof comes first. A writer encodes the
//! schema first into both flatbuffers, which are built back to front, so each buffer ends
//! with the same bytes: the schema table, its vtable, and everything it references. When
//! the two byte runs are equal, the schemas are (the footer's copy was verified and decoded
//! already). Anything else, a foreign writer's layout say, is decoded and compared field by
//! field.

use alkaid_schema::Schema;

use crate::dictionary::DictionaryIds;
use crate::error::{IpcError, Result};
use crate::fb;
use crate::read::options::ReadOptions;
use crate::read::state::parse_message;
use crate::schema::decode_schema;

fn u32_at(bytes: &[u8], at: usize) -> Option<usize> {
    let raw = bytes.get(at..at.checked_add(4)?)?;
    usize::try_from(u32::from_le_bytes(raw.try_into().ok()?)).ok()
}

fn u16_at(bytes: &[u8], at: usize) -> Option<usize> {
    let raw = bytes.get(at..at.checked_add(2)?)?;
    Some(usize::from(u16::from_le_bytes(raw.try_into().ok()?)))
}

/// Where the vtable of the table at `loc` is.
fn vtable(bytes: &[u8], loc: usize) -> Option<usize> {
    let raw = bytes.get(loc..loc.checked_add(4)?)?;
    let back = i64::from(i32::from_le_bytes(raw.try_into().ok()?));
    usize::try_from(loc as i64 - back).ok()
}

/// The position of field `id`'s value in the table at `loc`, if present.
fn field(bytes: &[u8], loc: usize, id: usize) -> Option<usize> {
    let vt = vtable(bytes, loc)?;
    let vt_len = u16_at(bytes, vt)?;
    let slot = 4 + 2 * id;
    if slot + 2 > vt_len {
        return None;
    }
    let offset = u16_at(bytes, vt + slot)?;
    (offset != 0).then(|| loc + offset)
}

/// Where the schema table of an unverified `Message` flatbuffer is, read with bounds
/// checks only: `None` unless the root is a message whose header is a schema.
fn message_schema_location(message: &[u8]) -> Option<usize> {
    let root = u32_at(message, 0)?;
    // Message fields: version 0, header_type 1, header 2.
    let header_type = *message.get(field(message, root, 1)?)?;
    if header_type != fb::MessageHeader::Schema.0 {
        return None;
    }
    let header = field(message, root, 2)?;
    header.checked_add(u32_at(message, header)?)
}

/// Whether the schema table at `message_loc` of `message` and the footer's, at `footer_loc`
/// of `footer`, are the same run of bytes, each starting at its table or its vtable
/// (whichever comes first) and running to the end of the footer's buffer.
fn same_bytes(message: &[u8], message_loc: usize, footer: &[u8], footer_loc: usize) -> bool {
    let lowest = |bytes: &[u8], loc: usize| Some(vtable(bytes, loc)?.min(loc));
    let (Some(m_low), Some(f_low)) = (lowest(message, message_loc), lowest(footer, footer_loc))
    else {
        return false;
    };
    let run = footer.len() - f_low.min(footer.len());
    message_loc.checked_sub(m_low) == footer_loc.checked_sub(f_low)
        && message.get(m_low..m_low + run) == footer.get(f_low..)
}

/// Checks `message` (a schema message's flatbuffer) against the footer's schema, which
/// `footer` (its flatbuffer) holds at `footer_loc` and which decodes to `schema` and `ids`.
pub(crate) fn check_stream_schema(
    message: &[u8],
    footer: &[u8],
    footer_loc: usize,
    schema: &Schema,
    ids: &DictionaryIds,
    options: &ReadOptions,
) -> Result<()> {
    if let Some(loc) = message_schema_location(message)
        && same_bytes(message, loc, footer, footer_loc)
    {
        return Ok(());
    }
    let message = parse_message(message, options)?;
    let stream = message.header_as_schema().ok_or_else(|| {
        IpcError::malformed("the file's stream does not start with a schema message")
    })?;
    let (stream_schema, stream_ids) = decode_schema(stream)?;
    if &stream_schema != schema || stream_ids.ids() != ids.ids() {
        return Err(IpcError::malformed(format!(
            "the footer's schema ({schema}) differs from the schema message at the start of \
             the file ({stream_schema})"
        )));
    }
    Ok(())
}
