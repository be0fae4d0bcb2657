//! `alkaid inspect`: the message sequence of a stream or file, as the bytes lay it out.

use alkaid_ipc::{Decoded, Decoder, FileReader, StreamWriter, WriteOptions};
use alkaid_schema::SchemaRef;

use crate::failure::Failure;
use crate::input::{bytes, is_file};

/// Prints each message (its kind, position, metadata and body sizes, compression,
/// dictionary id and whether it is a delta, rows and custom metadata of batches), the
/// alignment of the bodies, and for a file its magic and footer.
pub fn inspect(path: &str) -> Result<(), Failure> {
    let source = bytes(path)?;
    let all = source.buffer().clone();
    let mut out = String::new();
    // A file is its magic, then a stream, then the footer.
    let (start, stand_in) = if is_file(&all) {
        let magic = if all.starts_with(b"ALKAID1") {
            "ALKAID1"
        } else {
            "ARROW1"
        };
        let file = FileReader::from_buffer(all.clone())
            .map_err(|e| Failure::new(format!("{path}: {e}")))?;
        out.push_str(&format!(
            "file, magic {magic}, {} bytes; footer: {} record batches{}\n",
            all.len(),
            file.num_batches(),
            if file.metadata().is_empty() {
                String::new()
            } else {
                format!(", metadata {:?}", file.metadata())
            },
        ));
        let (start, framed_schema) = stream_start(&all);
        match framed_schema {
            true => (start, None),
            false => {
                out.push_str(&format!(
                    "no framed schema message before byte {start} (the footer's schema is used)\n"
                ));
                (start, Some(schema_message(file.schema())?))
            }
        }
    } else {
        out.push_str(&format!("stream, {} bytes\n", all.len()));
        (0, None)
    };
    let mut decoder = Decoder::new();
    // Offsets the decoder reports are shifted by the stand-in schema message, if any.
    let shift = stand_in.as_ref().map_or(0, Vec::len);
    if let Some(message) = &stand_in {
        decoder.push(message);
        decoder
            .next_message()
            .map_err(|e| Failure::new(format!("{path}: the footer's schema: {e}")))?;
    }
    decoder.push(&all[start..]);
    let mut alignment = 64usize;
    let mut index = 0;
    loop {
        let decoded = match decoder.next_message() {
            Ok(Some(decoded)) => decoded,
            Ok(None) => break,
            // A file's footer follows its stream; anything else is an error.
            Err(_) if start > 0 && index > 0 => break,
            Err(e) => return Err(Failure::new(format!("{path}: message {index}: {e}"))),
        };
        let Some(info) = decoder.last_message() else {
            break;
        };
        let at = start + info.offset - shift;
        let body_at = at + info.prefix_bytes + info.metadata_bytes;
        if info.body_bytes > 0 {
            alignment = alignment.min(1 << body_at.trailing_zeros().min(6));
        }
        let what = match &decoded {
            Decoded::Schema(schema) => format!("schema, {} fields", schema.fields().len()),
            Decoded::Dictionary { id, is_delta } => {
                format!("dictionary {id}{}", if *is_delta { " (delta)" } else { "" })
            }
            Decoded::Batch(batch, metadata) => format!(
                "record batch, {} rows{}",
                batch.num_rows(),
                if metadata.is_empty() {
                    String::new()
                } else {
                    format!(", metadata {metadata:?}")
                }
            ),
        };
        out.push_str(&format!(
            "#{index} at byte {at}: {what}; metadata {} B, body {} B{}\n",
            info.metadata_bytes,
            info.body_bytes,
            info.compression
                .map(|c| format!(", {c}"))
                .unwrap_or_default(),
        ));
        index += 1;
    }
    if decoder.is_ended() {
        out.push_str("end-of-stream marker\n");
    }
    out.push_str(&format!(
        "{index} messages; bodies aligned to {alignment} bytes\n"
    ));
    // Nothing is printed from a file that shrank while it was read.
    source
        .check()
        .map_err(|e| Failure::new(format!("{path}: {e}")))?;
    print!("{out}");
    Ok(())
}

/// Where the stream of `file` starts, and whether a framed schema message is there. Writers
/// differ (alkaid-ipc's file reader says how): arrow-rs pads the magic with zeros to 64
/// bytes, Polars writes the schema without its length prefix (the first framed message
/// then starts at the next 8-byte boundary with a continuation marker), apache-arrow JS
/// writes no schema at all.
fn stream_start(file: &[u8]) -> (usize, bool) {
    let mut at = 8;
    while file.get(at..at + 8) == Some(&[0; 8]) {
        at += 8;
    }
    let framed = |at: usize| file.get(at..at + 4) == Some(&[0xFF; 4]);
    let mut decoder = Decoder::new();
    decoder.push(&file[at..]);
    if framed(at) && matches!(decoder.next_message(), Ok(Some(Decoded::Schema(_)))) {
        return (at, true);
    }
    let next = (at..file.len()).step_by(8).find(|&i| framed(i));
    (next.unwrap_or(file.len()), false)
}

/// A schema message for `schema`, framed, as a stream would open with it.
fn schema_message(schema: SchemaRef) -> Result<Vec<u8>, Failure> {
    let failed = |e: alkaid_ipc::IpcError| Failure::new(format!("the footer's schema: {e}"));
    let writer =
        StreamWriter::try_new(Vec::new(), schema, WriteOptions::default()).map_err(failed)?;
    let mut bytes = writer.into_inner().map_err(failed)?;
    // Without the end-of-stream marker the writer closes with.
    bytes.truncate(bytes.len() - 8);
    Ok(bytes)
}
