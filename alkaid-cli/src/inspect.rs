//! `alkaid inspect`: the message sequence of a stream or file, as the bytes lay it out.

use alkaid_ipc::{Decoded, Decoder, FileReader};

use crate::failure::Failure;
use crate::input::{bytes, is_file};

/// Prints each message (its kind, position, metadata and body sizes, compression,
/// dictionary id and whether it is a delta, rows and custom metadata of batches), the
/// alignment of the bodies, and for a file its magic and footer.
pub fn inspect(path: &str) -> Result<(), Failure> {
    let all = bytes(path)?;
    let mut out = String::new();
    // A file is its magic, then a stream, then the footer.
    let start = if is_file(&all) {
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
        8
    } else {
        out.push_str(&format!("stream, {} bytes\n", all.len()));
        0
    };
    let mut decoder = Decoder::new();
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
        let body_at = start + info.offset + info.prefix_bytes + info.metadata_bytes;
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
            "#{index} at byte {}: {what}; metadata {} B, body {} B{}\n",
            start + info.offset,
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
    print!("{out}");
    Ok(())
}
