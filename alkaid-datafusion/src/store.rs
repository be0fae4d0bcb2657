//! An object in DataFusion's object store as a [`RangeSource`] for Alkaid's async file
//! reader.
//!
//! DataFusion 55 is built on `object_store` 0.13, while alkaid-ipc-async's own adapter
//! (its `object_store` feature) follows the newest release, 0.14: two different traits.
//! This adapter is the 0.13 one, with the object's size known from the listing, so that
//! opening a file costs one ranged request (its tail) and each batch the ranges of the
//! selected columns only.

use std::ops::Range;
use std::sync::Arc;

use alkaid_buffer::Buffer;
use alkaid_ipc::{IpcError, Result};
use alkaid_ipc_async::RangeSource;
use datafusion::object_store::{GetOptions, GetRange, ObjectMeta, ObjectStore};

/// One object of a DataFusion object store, read by range.
#[derive(Debug, Clone)]
pub struct StoreSource {
    store: Arc<dyn ObjectStore>,
    meta: ObjectMeta,
}

impl StoreSource {
    /// Reads the object `meta` describes from `store`.
    pub fn new(store: Arc<dyn ObjectStore>, meta: ObjectMeta) -> Self {
        Self { store, meta }
    }

    async fn get(&self, range: GetRange) -> Result<Buffer> {
        let options = GetOptions {
            range: Some(range),
            // A file replaced while a query reads it fails the read rather than mixing
            // two files' bytes.
            if_match: self.meta.e_tag.clone(),
            ..GetOptions::default()
        };
        let failed = |e: datafusion::object_store::Error| {
            IpcError::from(std::io::Error::other(format!(
                "{}: {e}",
                self.meta.location
            )))
        };
        let result = self
            .store
            .get_opts(&self.meta.location, options)
            .await
            .map_err(failed)?;
        let bytes = result.bytes().await.map_err(failed)?;
        Ok(Buffer::from_owner(bytes))
    }
}

impl RangeSource for StoreSource {
    async fn size(&self) -> Result<u64> {
        Ok(self.meta.size)
    }

    async fn fetch(&self, range: Range<u64>) -> Result<Buffer> {
        self.get(GetRange::Bounded(range)).await
    }

    async fn fetch_suffix(&self, n: u64) -> Result<(u64, Buffer)> {
        let n = n.min(self.meta.size);
        Ok((self.meta.size, self.get(GetRange::Suffix(n)).await?))
    }
}
