//! `FlightData`, written by hand rather than generated: its body is a list of pieces (the
//! batch's buffers and their padding, shared, never joined into one vector) going out, and
//! the received bytes themselves coming in. Field numbers are Flight.proto's.
//!
//! A body is of use where it arrives only if its buffers are aligned for their types;
//! otherwise the decoder copies them. The sender cannot know where the receiver keeps a
//! message, but gRPC receivers (tonic, gRPC C++) commonly read each message into memory
//! of its own, from an allocation's start: so the header goes out padded with zero bytes
//! (trailing bytes after a flatbuffer are ignored by its readers, as the IPC stream
//! format's own 8-byte padding is) until the body starts [`BODY_ALIGNMENT`] bytes into
//! the message. A receiver that keeps it elsewhere copies, as before.

use alkaid_buffer::Buffer;
use alkaid_ipc::EncodedMessage;
use bytes::{Buf, BufMut, Bytes};
use prost::encoding::{self, DecodeContext, WireType};

use crate::proto::FlightDescriptor;

/// One IPC message of a Flight stream: the `Message` flatbuffer (`data_header`), its
/// body, and application metadata that travels with it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlightData {
    /// The flight this stream is, on the first message of a `DoPut` or `DoExchange`.
    pub flight_descriptor: Option<FlightDescriptor>,
    /// The IPC message's flatbuffer, without the stream framing's prefix.
    pub data_header: Bytes,
    /// Application metadata.
    pub app_metadata: Bytes,
    /// The IPC message's body.
    pub data_body: DataBody,
}

/// A message body as pieces, written one after another: on the wire they are one field.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DataBody {
    pieces: Vec<Bytes>,
    len: usize,
}

impl DataBody {
    /// A body of the pieces `pieces`, in order.
    pub fn from_pieces(pieces: Vec<Bytes>) -> Self {
        let len = pieces.iter().map(Bytes::len).sum();
        Self { pieces, len }
    }

    /// The body's length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the body is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The pieces, in order.
    pub fn pieces(&self) -> &[Bytes] {
        &self.pieces
    }

    /// The body as one buffer: without a copy when it is one piece (as every received
    /// body is), joined otherwise.
    pub fn to_buffer(&self) -> Buffer {
        match self.pieces.as_slice() {
            [] => Buffer::empty(),
            [one] => Buffer::from_owner(one.clone()),
            many => Buffer::from(many.concat()),
        }
    }
}

impl From<Bytes> for DataBody {
    fn from(bytes: Bytes) -> Self {
        Self::from_pieces(vec![bytes])
    }
}

impl FlightData {
    /// The FlightData that carries `message`: its flatbuffer, and its body's pieces shared
    /// with the batch (compressed pieces move in whole).
    pub fn from_message(message: EncodedMessage) -> Self {
        let (flatbuffer, pieces) = message.into_parts();
        Self {
            flight_descriptor: None,
            data_header: Bytes::from(flatbuffer),
            app_metadata: Bytes::new(),
            data_body: DataBody::from_pieces(pieces.into_iter().map(Bytes::from_owner).collect()),
        }
    }

    /// With `descriptor`.
    pub fn with_descriptor(mut self, descriptor: FlightDescriptor) -> Self {
        self.flight_descriptor = Some(descriptor);
        self
    }

    /// With `app_metadata`.
    pub fn with_app_metadata(mut self, app_metadata: impl Into<Bytes>) -> Self {
        self.app_metadata = app_metadata.into();
        self
    }
}

/// Where a sent body starts, counted from the start of its message, is a multiple of
/// this (the largest alignment of a fixed-width type).
pub const BODY_ALIGNMENT: usize = 16;

const DESCRIPTOR: u32 = 1;
const HEADER: u32 = 2;
const APP_METADATA: u32 = 3;
const BODY: u32 = 1000;

impl FlightData {
    /// The length of the encoding up to the body's first byte, with the header padded by
    /// `padding` zero bytes.
    fn encoded_len_before_body(&self, padding: usize) -> usize {
        let descriptor = self
            .flight_descriptor
            .as_ref()
            .map_or(0, |d| encoding::message::encoded_len(DESCRIPTOR, d));
        let header = match self.data_header.len() {
            0 => 0,
            n => {
                encoding::key_len(HEADER)
                    + encoding::encoded_len_varint((n + padding) as u64)
                    + n
                    + padding
            }
        };
        let app_metadata = match self.app_metadata.is_empty() {
            true => 0,
            false => encoding::bytes::encoded_len(APP_METADATA, &self.app_metadata),
        };
        let body = match self.data_body.len() {
            0 => 0,
            n => encoding::key_len(BODY) + encoding::encoded_len_varint(n as u64),
        };
        descriptor + header + app_metadata + body
    }

    /// The zero bytes after the header that start the body at a multiple of
    /// [`BODY_ALIGNMENT`]: none without a header or a body. One more byte of padding
    /// moves the body by one, or by two where the header's length grows a varint byte,
    /// so two rounds of the alignment always hold a fit.
    fn header_padding(&self) -> usize {
        if self.data_header.is_empty() || self.data_body.is_empty() {
            return 0;
        }
        (0..2 * BODY_ALIGNMENT)
            .find(|&padding| {
                self.encoded_len_before_body(padding)
                    .is_multiple_of(BODY_ALIGNMENT)
            })
            .unwrap_or(0)
    }
}

impl FlightData {
    /// Writes the encoding up to the body's first byte: every field but the body, then
    /// the body's key and length.
    pub(crate) fn encode_before_body(&self, buf: &mut impl BufMut) {
        if let Some(descriptor) = &self.flight_descriptor {
            encoding::message::encode(DESCRIPTOR, descriptor, buf);
        }
        if !self.data_header.is_empty() {
            let padding = self.header_padding();
            encoding::encode_key(HEADER, WireType::LengthDelimited, buf);
            encoding::encode_varint((self.data_header.len() + padding) as u64, buf);
            buf.put_slice(&self.data_header);
            buf.put_bytes(0, padding);
        }
        if !self.app_metadata.is_empty() {
            encoding::bytes::encode(APP_METADATA, &self.app_metadata, buf);
        }
        if !self.data_body.is_empty() {
            encoding::encode_key(BODY, WireType::LengthDelimited, buf);
            encoding::encode_varint(self.data_body.len() as u64, buf);
        }
    }
}

impl prost::Message for FlightData {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        self.encode_before_body(buf);
        if !self.data_body.is_empty() {
            for piece in &self.data_body.pieces {
                buf.put_slice(piece);
            }
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        match tag {
            DESCRIPTOR => encoding::message::merge(
                wire_type,
                self.flight_descriptor.get_or_insert_with(Default::default),
                buf,
                ctx,
            ),
            HEADER => encoding::bytes::merge(wire_type, &mut self.data_header, buf, ctx),
            APP_METADATA => encoding::bytes::merge(wire_type, &mut self.app_metadata, buf, ctx),
            BODY => {
                // Taken out of the received buffer without a copy.
                let mut body = Bytes::new();
                encoding::bytes::merge(wire_type, &mut body, buf, ctx)?;
                self.data_body = DataBody::from(body);
                Ok(())
            }
            _ => encoding::skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        self.encoded_len_before_body(self.header_padding()) + self.data_body.len()
    }

    fn clear(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::*;
    use crate::proto::flight_descriptor::DescriptorType;

    /// The same message as a generated struct would declare it, to check the hand-written
    /// encoding against prost's own.
    #[derive(Clone, PartialEq, prost::Message)]
    struct Generated {
        #[prost(message, optional, tag = "1")]
        flight_descriptor: Option<FlightDescriptor>,
        #[prost(bytes = "bytes", tag = "2")]
        data_header: Bytes,
        #[prost(bytes = "bytes", tag = "3")]
        app_metadata: Bytes,
        #[prost(bytes = "bytes", tag = "1000")]
        data_body: Bytes,
    }

    #[test]
    fn the_encoding_is_prosts_and_pieces_join_on_the_wire() {
        let descriptor = FlightDescriptor {
            r#type: DescriptorType::Path as i32,
            cmd: Bytes::new(),
            path: vec!["a".into(), "b".into()],
        };
        for (with_descriptor, pieces) in [
            (
                true,
                vec![Bytes::from_static(b"abc"), Bytes::from_static(b"defgh")],
            ),
            (false, vec![]),
            (false, vec![Bytes::from(vec![7u8; 300])]),
        ] {
            let ours = FlightData {
                flight_descriptor: with_descriptor.then(|| descriptor.clone()),
                data_header: Bytes::from_static(b"header"),
                app_metadata: Bytes::from_static(b"meta"),
                data_body: DataBody::from_pieces(pieces.clone()),
            };
            let wire = ours.encode_to_vec();
            // prost's encoding of the same fields, with the header padded by the zero
            // bytes that start the body at a multiple of the alignment.
            let padded = (0..2 * BODY_ALIGNMENT).find(|&padding| {
                let mut header = ours.data_header.to_vec();
                header.resize(header.len() + padding, 0);
                let theirs = Generated {
                    flight_descriptor: ours.flight_descriptor.clone(),
                    data_header: header.into(),
                    app_metadata: ours.app_metadata.clone(),
                    data_body: Bytes::from(pieces.concat()),
                };
                theirs.encode_to_vec() == wire
            });
            let padding = padded.expect("the encoding is prost's with a padded header");
            let body = pieces.concat().len();
            match body {
                0 => assert_eq!(padding, 0),
                n => assert_eq!((wire.len() - n) % BODY_ALIGNMENT, 0),
            }
            assert_eq!(ours.encoded_len(), wire.len());
            let back = FlightData::decode(Bytes::from(wire)).unwrap();
            assert_eq!(&back.data_header[..6], b"header");
            assert!(back.data_header[6..].iter().all(|&b| b == 0));
            assert_eq!(back.data_body.to_buffer().as_slice(), &pieces.concat()[..]);
            assert_eq!(back.flight_descriptor, ours.flight_descriptor);
            assert_eq!(back.app_metadata, ours.app_metadata);
        }
    }

    #[test]
    fn every_body_starts_aligned_whatever_comes_before_it() {
        // Header, app_metadata and body lengths on both sides of the varint boundaries
        // (127/128 and 16383/16384 bytes).
        let lengths = [1, 7, 100, 120, 126, 127, 128, 129, 16_370, 16_383, 16_384];
        for header in lengths {
            for metadata in [0, 1, 127, 128] {
                for body in [1, 8, 127, 128, 16_384, 70_000] {
                    let data = FlightData {
                        flight_descriptor: None,
                        data_header: Bytes::from(vec![1u8; header]),
                        app_metadata: Bytes::from(vec![2u8; metadata]),
                        data_body: DataBody::from(Bytes::from(vec![3u8; body])),
                    };
                    let wire = data.encode_to_vec();
                    assert_eq!(wire.len(), data.encoded_len());
                    let start = wire.len() - body;
                    assert_eq!(start % BODY_ALIGNMENT, 0, "{header} {metadata} {body}");
                    assert!(wire[start..].iter().all(|&b| b == 3));
                    let back = FlightData::decode(&wire[..]).unwrap();
                    assert_eq!(back.data_body.len(), body);
                    assert_eq!(&back.data_header[..header], &data.data_header[..]);
                    assert_eq!(back.app_metadata, data.app_metadata);
                }
            }
        }
    }

    #[test]
    fn a_received_body_is_the_received_bytes() {
        let data = FlightData {
            data_body: DataBody::from(Bytes::from(vec![1u8; 1000])),
            ..FlightData::default()
        };
        let wire = Bytes::from(data.encode_to_vec());
        let back = FlightData::decode(wire.clone()).unwrap();
        let body = back.data_body.to_buffer();
        // The body points into the received bytes.
        let start = wire.as_ptr() as usize;
        let at = body.as_ptr() as usize;
        assert!(at > start && at + body.len() <= start + wire.len());
    }

    #[test]
    fn unknown_fields_are_skipped_and_garbage_is_an_error() {
        let mut wire = FlightData::default()
            .with_app_metadata(Bytes::from_static(b"x"))
            .encode_to_vec();
        // An unknown varint field 7, then a known one.
        wire.extend_from_slice(&[7 << 3, 42]);
        let back = FlightData::decode(&wire[..]).unwrap();
        assert_eq!(&back.app_metadata[..], b"x");
        // A body that says it is longer than the message.
        let lying = [0xC2, 0x3E, 0xFF, 0x01, 1, 2, 3];
        assert!(FlightData::decode(&lying[..]).is_err());
    }
}
