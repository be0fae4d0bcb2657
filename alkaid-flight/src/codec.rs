//! The gRPC codec of every Flight method: prost's encoding, with the message's whole
//! length reserved in tonic's buffer before it is written. A FlightData body that goes
//! through it (sent with [`RawClient`](crate::RawClient), or by a service not run by
//! [`serve`](crate::serve)) is written piece by piece from the batch's buffers; without
//! the reservation the buffer would grow, and copy what it held, several times per
//! message. `FlightClient`'s uploads and `serve`'s answers bypass it (`framing.rs`).

use std::marker::PhantomData;

use prost::Message;
use tonic::Status;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};

/// A codec for prost messages of type `T` out and `U` in.
#[derive(Debug)]
pub struct FlightCodec<T, U>(PhantomData<fn(T) -> U>);

impl<T, U> Default for FlightCodec<T, U> {
    fn default() -> Self {
        Self(PhantomData)
    }
}

impl<T, U> Codec for FlightCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = MessageEncoder<T>;
    type Decoder = MessageDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        MessageEncoder(PhantomData)
    }

    fn decoder(&mut self) -> Self::Decoder {
        MessageDecoder(PhantomData)
    }
}

/// Writes a message into tonic's buffer, reserving its length first.
#[derive(Debug)]
pub struct MessageEncoder<T>(PhantomData<fn(T)>);

impl<T: Message> Encoder for MessageEncoder<T> {
    type Item = T;
    type Error = Status;

    fn encode(&mut self, item: T, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        let len = item.encoded_len();
        dst.reserve(len);
        item.encode(dst)
            .map_err(|e| Status::internal(format!("encoding a {len}-byte message: {e}")))
    }
}

/// Reads a message from tonic's buffer; `bytes` fields take their bytes out of it without
/// a copy.
#[derive(Debug)]
pub struct MessageDecoder<U>(PhantomData<fn() -> U>);

impl<U: Message + Default> Decoder for MessageDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        U::decode(src)
            .map(Some)
            .map_err(|e| Status::invalid_argument(format!("a malformed message: {e}")))
    }
}
