//! Codecs that carry Alkaid tables, scans and formats through DataFusion's plan
//! serialization (`datafusion-proto`), so that a query planned in one process runs in
//! others: Ballista's scheduler and executors, or any engine that ships plans as protobuf.
//!
//! Each codec wraps another (DataFusion's default, or Ballista's) and hands it everything
//! that is not Alkaid's. What either writes starts with one byte saying whose it is, so
//! that decoding goes back to the codec that encoded; the rest is a protobuf message
//! (`messages.rs`), decoded as hostile bytes: a malformed one is an error, never a panic.

/// The function methods (scalar, aggregate, window, higher-order) that both extension
/// codec traits have, with the same signatures: handed to `self.inner` unchanged, since
/// Alkaid has no functions of its own to carry. The types are the caller's imports.
macro_rules! forward_functions {
    () => {
        fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
            self.inner.try_decode_udf(name, buf)
        }

        fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
            self.inner.try_encode_udf(node, buf)
        }

        fn try_decode_higher_order_function(
            &self,
            name: &str,
            buf: &[u8],
        ) -> Result<Arc<HigherOrderUDF>> {
            self.inner.try_decode_higher_order_function(name, buf)
        }

        fn try_encode_higher_order_function(
            &self,
            node: &HigherOrderUDF,
            buf: &mut Vec<u8>,
        ) -> Result<()> {
            self.inner.try_encode_higher_order_function(node, buf)
        }

        fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
            self.inner.try_decode_udaf(name, buf)
        }

        fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
            self.inner.try_encode_udaf(node, buf)
        }

        fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
            self.inner.try_decode_udwf(name, buf)
        }

        fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
            self.inner.try_encode_udwf(node, buf)
        }
    };
}

mod logical;
mod messages;
mod physical;

pub use logical::AlkaidLogicalCodec;
pub use physical::AlkaidPhysicalCodec;

use datafusion::common::{Result, internal_err};

/// The first byte of what the wrapped codec wrote.
const INNER: u8 = 0;
/// The first byte of what an Alkaid codec wrote.
const ALKAID: u8 = 1;

/// Splits `buf` into whose it is (`true`: Alkaid's) and the rest.
fn split<'a>(buf: &'a [u8], what: &str) -> Result<(bool, &'a [u8])> {
    match buf.split_first() {
        Some((&ALKAID, rest)) => Ok((true, rest)),
        Some((&INNER, rest)) => Ok((false, rest)),
        Some((other, _)) => {
            internal_err!("a serialized {what} starts with {other}, which no Alkaid codec writes")
        }
        None => internal_err!("a serialized {what} is empty: no Alkaid codec writes that"),
    }
}

/// Runs `encode` for the wrapped codec with `buf` opened by [`INNER`]; on error leaves
/// `buf` as it was (a codec composed with others may be asked next).
fn encode_inner(buf: &mut Vec<u8>, encode: impl FnOnce(&mut Vec<u8>) -> Result<()>) -> Result<()> {
    let start = buf.len();
    buf.push(INNER);
    encode(buf).inspect_err(|_| buf.truncate(start))
}

/// Appends [`ALKAID`] and `message` to `buf`.
fn encode_alkaid(buf: &mut Vec<u8>, message: &impl prost::Message) {
    buf.push(ALKAID);
    buf.extend(message.encode_to_vec());
}
