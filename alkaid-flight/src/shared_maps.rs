//! One memory map per served file, shared by every `DoGet` reading it at the same time.
//!
//! Why maps. A `DoGet` that reads its file through `read` copies every batch into memory
//! of its own: with 64 clients fetching an 11 MB file, the server held about 10 MB per
//! client. Batches read from a map are slices of the file's pages in the page cache, which
//! every reader shares, so a client costs only the batches' metadata and what HTTP/2 has
//! in flight. Why shared: the kernel counts a page once per map it is mapped in, so 64
//! maps of one file would each be charged to the server; one map per file, kept while
//! any reader holds it, is charged once.
//!
//! The maps are alkaid-ipc's [`FileMap`]: a file truncated while it is served is an error
//! for the streams reading it (the reader checks after each batch), never a crash. A file
//! replaced since its map was made (another inode, length or modification time) gets a
//! map of its own; readers of the old one go on reading the old bytes.

use std::collections::HashMap;
use std::fs::{File, Metadata};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::SystemTime;

use alkaid_ipc::FileMap;

use crate::error::Result;

/// The maps in use, by path.
#[derive(Debug, Default)]
pub(crate) struct SharedMaps {
    open: Mutex<HashMap<PathBuf, (Identity, Weak<FileMap>)>>,
}

/// What tells a file's versions apart: a map made of one is not used for another.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Identity {
    /// Device and inode where the platform has them.
    node: Option<(u64, u64)>,
    len: u64,
    modified: Option<SystemTime>,
}

impl Identity {
    fn of(metadata: &Metadata) -> Self {
        #[cfg(unix)]
        let node = {
            use std::os::unix::fs::MetadataExt;
            Some((metadata.dev(), metadata.ino()))
        };
        #[cfg(not(unix))]
        let node = None;
        Identity {
            node,
            len: metadata.len(),
            modified: metadata.modified().ok(),
        }
    }
}

impl SharedMaps {
    /// The map of the file at `path`: the one in use if its file is still the one there,
    /// a new one otherwise.
    pub(crate) fn open(&self, path: &Path) -> Result<Arc<FileMap>> {
        let file = File::open(path)?;
        let identity = Identity::of(&file.metadata()?);
        // A poisoned lock holds a map that is whole: nothing panics while changing it.
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((known, map)) = open.get(path)
            && *known == identity
            && let Some(map) = map.upgrade()
        {
            return Ok(map);
        }
        let map = Arc::new(FileMap::of(&file)?);
        open.retain(|_, (_, map)| map.strong_count() > 0);
        open.insert(path.to_path_buf(), (identity, Arc::downgrade(&map)));
        Ok(map)
    }

    /// How many files have a map in use.
    #[cfg(test)]
    fn in_use(&self) -> usize {
        let open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        open.values()
            .filter(|(_, map)| map.strong_count() > 0)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("alkaid-shared-maps-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn readers_at_the_same_time_share_one_map_and_it_goes_with_the_last() {
        let dir = scratch("share");
        let path = dir.join("f");
        File::create(&path)
            .unwrap()
            .write_all(&[5; 10_000])
            .unwrap();
        let maps = SharedMaps::default();
        let first = maps.open(&path).unwrap();
        let second = maps.open(&path).unwrap();
        assert!(Arc::ptr_eq(&first, &second));
        assert_eq!(first.buffer().as_slice(), &[5; 10_000][..]);
        drop((first, second));
        assert_eq!(maps.in_use(), 0);
        let third = maps.open(&path).unwrap();
        assert_eq!(third.buffer().len(), 10_000);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_replaced_since_gets_a_map_of_its_own() {
        let dir = scratch("replace");
        let path = dir.join("f");
        File::create(&path).unwrap().write_all(&[1; 100]).unwrap();
        let maps = SharedMaps::default();
        let old = maps.open(&path).unwrap();
        // Replaced the way uploads are: a new file renamed over the old one.
        let new_path = dir.join("f.new");
        File::create(&new_path)
            .unwrap()
            .write_all(&[2; 200])
            .unwrap();
        std::fs::rename(&new_path, &path).unwrap();
        let new = maps.open(&path).unwrap();
        assert!(!Arc::ptr_eq(&old, &new));
        assert_eq!(old.buffer().as_slice(), &[1; 100][..]);
        assert_eq!(new.buffer().as_slice(), &[2; 200][..]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_file_is_not_found() {
        let dir = scratch("missing");
        let e = SharedMaps::default().open(&dir.join("none")).unwrap_err();
        assert!(
            matches!(e, crate::FlightError::Io(ref io) if io.kind() == std::io::ErrorKind::NotFound),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
