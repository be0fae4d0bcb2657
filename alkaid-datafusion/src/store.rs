//! An object in DataFusion's object store as a [`RangeSource`] for Alkaid's async file
//! reader.
//!
//! DataFusion 55 is built on `object_store` 0.13, while alkaid-ipc-async's own adapter
//! (its `object_store` feature) follows the newest release, 0.14: two different traits.
//! This adapter is the 0.13 one, with the object's size known from the listing, so that
//! opening a file costs one ranged request (its tail) and each batch the ranges of the
//! selected columns only.
//!
//! A file on the local disk is read from its open handle instead ([`StoreSource::open`]):
//! `object_store`'s local ranged reads hop to a blocking thread per range and zero each
//! buffer before reading into it, which together cost about as much as the reads.

use std::fs::File;
use std::ops::Range;
use std::sync::Arc;

use alkaid_buffer::Buffer;
use alkaid_ipc::{IpcError, Result, Seekable};
use alkaid_ipc_async::{Blocking, RangeSource};
use datafusion::object_store::{GetOptions, GetRange, GetResultPayload, ObjectMeta, ObjectStore};

/// One object of a DataFusion object store, read by range.
#[derive(Debug, Clone)]
pub struct StoreSource {
    store: Arc<dyn ObjectStore>,
    meta: ObjectMeta,
    /// The object's file, when the store is the local file system and gave it out.
    local: Option<Arc<Blocking<Seekable<File>>>>,
}

impl StoreSource {
    /// Reads the object `meta` describes from `store`, one ranged request per range.
    pub fn new(store: Arc<dyn ObjectStore>, meta: ObjectMeta) -> Self {
        Self {
            store,
            meta,
            local: None,
        }
    }

    /// Reads the object `meta` describes from `store`; when `store` is the local file
    /// system, from the file it opens, read on the calling task as DataFusion's own
    /// readers of local files do. `local` says whether to ask: asking another store
    /// starts a download of the whole object, which is then dropped.
    ///
    /// # Errors
    /// If the store cannot open the object, or it changed since it was listed.
    pub async fn open(store: Arc<dyn ObjectStore>, meta: ObjectMeta, local: bool) -> Result<Self> {
        let mut source = Self::new(store, meta);
        if local {
            let opened = source.request(None).await?;
            if let GetResultPayload::File(file, _) = opened.payload {
                source.local = Some(Arc::new(Blocking::new(Seekable(file))));
            }
        }
        Ok(source)
    }

    /// Whether the object is read from its local file.
    pub(crate) fn is_local(&self) -> bool {
        self.local.is_some()
    }

    fn failed(&self, e: datafusion::object_store::Error) -> IpcError {
        IpcError::from(std::io::Error::other(format!(
            "{}: {e}",
            self.meta.location
        )))
    }

    async fn request(
        &self,
        range: Option<GetRange>,
    ) -> Result<datafusion::object_store::GetResult> {
        let options = GetOptions {
            range,
            // A file replaced while a query reads it fails the read rather than mixing
            // two files' bytes (an opened local file stays the file that was opened).
            if_match: self.meta.e_tag.clone(),
            ..GetOptions::default()
        };
        self.store
            .get_opts(&self.meta.location, options)
            .await
            .map_err(|e| self.failed(e))
    }

    async fn get(&self, range: Range<u64>) -> Result<Buffer> {
        if let Some(file) = &self.local {
            return file.fetch(range).await;
        }
        let result = self.request(Some(GetRange::Bounded(range))).await?;
        let bytes = result.bytes().await.map_err(|e| self.failed(e))?;
        Ok(Buffer::from_owner(bytes))
    }
}

impl RangeSource for StoreSource {
    async fn size(&self) -> Result<u64> {
        Ok(self.meta.size)
    }

    async fn fetch(&self, range: Range<u64>) -> Result<Buffer> {
        self.get(range).await
    }

    async fn fetch_suffix(&self, n: u64) -> Result<(u64, Buffer)> {
        // The size is known from the listing, so the tail is an ordinary range.
        let size = self.meta.size;
        let tail = match n.min(size) {
            0 => Buffer::empty(),
            n => self.get(size - n..size).await?,
        };
        Ok((size, tail))
    }
}

#[cfg(test)]
mod tests {
    use datafusion::object_store::local::LocalFileSystem;
    use datafusion::object_store::memory::InMemory;
    use datafusion::object_store::path::Path;
    use datafusion::object_store::{ObjectStoreExt, PutPayload};

    use super::*;

    #[test]
    fn only_the_local_file_system_gives_out_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.arrow");
        std::fs::write(&path, b"0123456789").unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let local: Arc<dyn ObjectStore> = Arc::new(LocalFileSystem::new());
            let location = Path::from_filesystem_path(&path).unwrap();
            let meta = local.head(&location).await.unwrap();
            let asked = StoreSource::open(Arc::clone(&local), meta.clone(), true);
            assert!(asked.await.unwrap().is_local());
            let not_asked = StoreSource::open(Arc::clone(&local), meta, false);
            assert!(!not_asked.await.unwrap().is_local());

            let memory: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
            let location = Path::from("x.arrow");
            let payload = PutPayload::from_static(b"0123456789");
            memory.put(&location, payload).await.unwrap();
            let meta = memory.head(&location).await.unwrap();
            let source = StoreSource::open(memory, meta, true).await.unwrap();
            assert!(!source.is_local());
            assert_eq!(&source.fetch(2..5).await.unwrap()[..], b"234");
        });
    }
}
