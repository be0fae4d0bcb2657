//! Stand-ins for the codecs a build leaves out (features `lz4` and `zstd`): the same names
//! as the real ones, each failing with an error that names the feature. Readers and writers
//! check a codec is there before they use it ([`super::Compression::require`]), so these
//! only keep the code that calls them compiling.

use crate::error::IpcError;

/// The error for `codec`, which this build leaves out.
pub(crate) fn absent(codec: &str, feature: &str) -> IpcError {
    IpcError::unsupported(format!(
        "{codec} compression needs alkaid-ipc's `{feature}` feature, which this build leaves out"
    ))
}

#[cfg(not(all(feature = "lz4", feature = "zstd")))]
fn io_absent(codec: &str, feature: &str) -> std::io::Error {
    std::io::Error::other(absent(codec, feature).message().to_string())
}

/// What stands in for `lz4_frame.rs` without the `lz4` feature.
#[cfg(not(feature = "lz4"))]
pub(crate) mod lz4 {
    use crate::codec::absent::{absent, io_absent};
    use crate::error::Result;

    /// Compresses nothing: every call fails.
    #[derive(Default)]
    pub(crate) struct Lz4FrameEncoder {
        _none: (),
    }

    impl Lz4FrameEncoder {
        pub(crate) fn compress_to(&mut self, _: &[u8], _: &mut [u8]) -> Result<usize> {
            Err(absent("LZ4", "lz4"))
        }
    }

    /// No room is needed: nothing is compressed.
    pub(crate) fn max_frame_len(_: usize) -> usize {
        0
    }

    pub(crate) fn decompress_to_vec(_: &[u8], _: usize) -> Result<Option<Vec<u8>>> {
        Err(absent("LZ4", "lz4"))
    }

    pub(crate) fn decompress_into(_: &[u8], _: &mut [u8]) -> Result<Option<usize>> {
        Err(absent("LZ4", "lz4"))
    }

    pub(crate) fn decompress_bounded(_: &[u8], _: u64, _: &mut Vec<u8>) -> std::io::Result<()> {
        Err(io_absent("LZ4", "lz4"))
    }

    pub(crate) fn decompress_filling(_: &[u8], _: &mut [u8]) -> std::io::Result<usize> {
        Err(io_absent("LZ4", "lz4"))
    }
}

/// What stands in for `zstd.rs` without the `zstd` feature.
#[cfg(not(feature = "zstd"))]
pub(crate) mod zstd {
    use crate::codec::absent::{absent, io_absent};
    use crate::error::Result;

    /// Compresses nothing: every call fails.
    #[derive(Default)]
    pub(crate) struct ZstdEncoder {
        _none: (),
    }

    impl ZstdEncoder {
        pub(crate) fn compress_to(&mut self, _: i32, _: &[u8], _: &mut [u8]) -> Result<usize> {
            Err(absent("zstd", "zstd"))
        }
    }

    /// No room is needed: nothing is compressed.
    pub(crate) fn max_compressed_len(_: usize) -> usize {
        0
    }

    /// Decompresses nothing: every call fails.
    #[derive(Default)]
    pub(crate) struct ZstdDecoder {
        _none: (),
    }

    impl ZstdDecoder {
        pub(crate) fn decompress_into(&mut self, _: &[u8], _: &mut [u8]) -> std::io::Result<usize> {
            Err(io_absent("zstd", "zstd"))
        }

        pub(crate) fn decompress_to_vec(&mut self, _: &[u8], _: usize) -> std::io::Result<Vec<u8>> {
            Err(io_absent("zstd", "zstd"))
        }
    }

    pub(crate) fn decompress_bounded(_: &[u8], _: u64, _: &mut Vec<u8>) -> std::io::Result<()> {
        Err(io_absent("zstd", "zstd"))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alkaid_schema::Schema;

    use crate::{Compression, IpcErrorKind, StreamReader, StreamWriter, WriteOptions};

    /// pyarrow's stream compressed with `codec`: its schema is read, its first batch is an
    /// `Unsupported` error naming `feature`, and a writer asked for the codec refuses too.
    #[cfg_attr(all(feature = "lz4", feature = "zstd"), allow(dead_code))]
    fn left_out(codec: Compression, fixture: &[u8], feature: &str) {
        assert!(!codec.is_available());
        let mut reader = StreamReader::try_new(fixture).unwrap();
        assert!(!reader.schema().fields().is_empty());
        let err = reader.next().unwrap().unwrap_err();
        assert_eq!(err.kind(), IpcErrorKind::Unsupported, "{err}");
        assert!(
            err.message().contains(&format!("`{feature}` feature")),
            "{err}"
        );
        let options = WriteOptions::default().with_compression(codec);
        let schema = Arc::new(Schema::empty());
        let err = StreamWriter::try_new(Vec::new(), schema, options)
            .err()
            .unwrap();
        assert_eq!(err.kind(), IpcErrorKind::Unsupported, "{err}");
        assert!(
            err.message().contains(&format!("`{feature}` feature")),
            "{err}"
        );
    }

    #[cfg(not(feature = "lz4"))]
    #[test]
    fn without_lz4_its_bodies_are_errors_naming_the_feature() {
        let stream = include_bytes!("../../tests/fixtures/pyarrow/all_types_lz4.stream");
        left_out(Compression::Lz4Frame, stream, "lz4");
    }

    #[cfg(not(feature = "zstd"))]
    #[test]
    fn without_zstd_its_bodies_are_errors_naming_the_feature() {
        // The same batches as the zstd file fixture, as a stream.
        let file = include_bytes!("../../tests/fixtures/pyarrow/all_types_zstd.arrow");
        let stream = &file[8..];
        left_out(Compression::ZSTD, stream, "zstd");
    }

    #[test]
    fn a_build_has_the_codecs_its_features_name() {
        assert_eq!(Compression::Lz4Frame.is_available(), cfg!(feature = "lz4"));
        assert_eq!(Compression::ZSTD.is_available(), cfg!(feature = "zstd"));
        assert!(Compression::None.is_available());
    }
}
