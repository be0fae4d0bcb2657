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
//!
//! Why a map outlives its readers a little. A new map's pages are mapped into the process
//! as they are first touched, a fault per 64 KiB, and a map's removal unmaps them again:
//! for a client that fetches a file again and again, that was a tenth of the server's time
//! per `DoGet`. The [`KEPT`] maps used last stay for [`KEPT_FOR`] after their last use
//! (dropped at the next `open` after that, or when their file is replaced).
//!
//! Why a file remembers which batches were validated. Every batch is validated in full
//! before it is first served; a later `DoGet` of the same map (the same file, unchanged:
//! same inode, length, modification and status-change times) reads the batches validated
//! before with the structural checks only, which saves a tenth of the server's time per
//! `DoGet` again. A write to the file changes its status-change time, which no program can
//! set back, but file times are coarse (a few milliseconds): two writes within one tick
//! leave the same times. So a validation counts only once the file has been left alone for
//! [`SETTLED`]: a file written less than a second before is validated on every read.

use std::collections::{HashMap, VecDeque};
use std::fs::{File, Metadata};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant, SystemTime};

use alkaid_array::RecordBatch;
use alkaid_buffer::Buffer;
use alkaid_ipc::{FileMap, FileReader, ReadOptions};
use alkaid_schema::SchemaRef;

use crate::error::Result;

/// How many maps stay after their last reader.
pub(crate) const KEPT: usize = 4;

/// How long they stay.
pub(crate) const KEPT_FOR: Duration = Duration::from_secs(10);

/// How long a file must have been left alone for a validation of its bytes to be
/// remembered: far more than the granularity of file times.
const SETTLED: Duration = Duration::from_secs(1);

/// A file being served: its map and which of its batches were validated in full.
#[derive(Debug)]
pub(crate) struct ServedFile {
    map: FileMap,
    /// When the file was last written to or had its metadata changed, if known.
    changed: Option<SystemTime>,
    validated: Mutex<Vec<bool>>,
}

impl ServedFile {
    /// The file's bytes.
    pub(crate) fn map(&self) -> &FileMap {
        &self.map
    }

    /// Whether batch `index` was read from this map with full validation before.
    pub(crate) fn validated(&self, index: usize) -> bool {
        let validated = self
            .validated
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        validated.get(index).copied().unwrap_or(false)
    }

    /// Records that batch `index` passed full validation (and the map's check after it),
    /// if the file has been left alone long enough for that to stay true (see the module
    /// notes).
    pub(crate) fn set_validated(&self, index: usize) {
        self.set_validated_at(index, SystemTime::now());
    }

    fn set_validated_at(&self, index: usize, now: SystemTime) {
        let settled = self
            .changed
            .and_then(|changed| now.duration_since(changed).ok())
            .is_some_and(|age| age >= SETTLED);
        if !settled {
            return;
        }
        let mut validated = self
            .validated
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if validated.len() <= index {
            validated.resize(index + 1, false);
        }
        validated[index] = true;
    }
}

/// The batches of a served file, each read with full validation the first time it is read
/// from the file's map and with the structural checks only after that. Each reader is
/// opened when a batch first needs it: a file whose batches were all validated before has
/// its footer and dictionaries read once per `DoGet`, not twice.
pub(crate) struct ServedBatches {
    file: Arc<ServedFile>,
    options: ReadOptions,
    full: Option<FileReader<Buffer>>,
    trusted: Option<FileReader<Buffer>>,
}

impl ServedBatches {
    /// The batches of `file`, read with `options`, and their schema.
    pub(crate) fn open(file: Arc<ServedFile>, options: ReadOptions) -> Result<(Self, SchemaRef)> {
        let mut batches = Self {
            file,
            options,
            full: None,
            trusted: None,
        };
        let first = batches.file.validated(0);
        let schema = batches.reader(first)?.schema();
        Ok((batches, schema))
    }

    /// How many batches the file has.
    pub(crate) fn len(&self) -> usize {
        self.full
            .as_ref()
            .or(self.trusted.as_ref())
            .map_or(0, FileReader::num_batches)
    }

    /// Batch `index`, handed out only once the map is known whole after reading it (a
    /// file that shrank is the cause of whatever else went wrong).
    pub(crate) fn read(&mut self, index: usize) -> Result<RecordBatch> {
        let validated = self.file.validated(index);
        let batch = self.reader(validated).and_then(|r| Ok(r.batch(index)?));
        self.file.map().check()?;
        let batch = batch?;
        if !validated {
            self.file.set_validated(index);
        }
        Ok(batch)
    }

    /// The reader of validated batches (`trusted`) or of the others, opened if it was not.
    fn reader(&mut self, trusted: bool) -> Result<&mut FileReader<Buffer>> {
        let (reader, options) = match trusted {
            // SAFETY: the trusted reader reads only batches that a reader with full
            // validation read from these same bytes before (`ServedFile::validated`, set
            // only after such a read, whose opening validated the footer's dictionaries
            // too), in this process, from a map of the file as it was then. A file written
            // to since has another status-change time (which no program sets back), or
            // another inode, length or modification time, and so a map of its own,
            // validated afresh; a validation is remembered only for a file left alone for
            // longer than file times' granularity. What remains is what any map has: a
            // write racing a read changes the bytes under it, between two `DoGet`s as
            // between the validation of a batch and its encoding within one.
            true => (&mut self.trusted, unsafe {
                self.options.clone().skip_full_validation()
            }),
            false => (&mut self.full, self.options.clone()),
        };
        if reader.is_none() {
            *reader = Some(FileReader::open(self.file.map().buffer().clone(), options)?);
        }
        Ok(reader.as_mut().expect("opened above"))
    }
}

/// The files being served, by path, and the maps kept after their last use.
#[derive(Debug)]
pub(crate) struct SharedMaps {
    state: Mutex<State>,
    kept_for: Duration,
}

#[derive(Debug, Default)]
struct State {
    open: HashMap<PathBuf, (Identity, Weak<ServedFile>)>,
    /// The maps used last, the latest first, with when they were.
    kept: VecDeque<(Instant, Arc<ServedFile>)>,
}

impl Default for SharedMaps {
    fn default() -> Self {
        Self::keeping_for(KEPT_FOR)
    }
}

/// What tells a file's versions apart: a map made of one is not used for another.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Identity {
    /// Device and inode where the platform has them.
    node: Option<(u64, u64)>,
    len: u64,
    modified: Option<SystemTime>,
    /// The last change of content or metadata (`ctime`), where the platform has it.
    changed: Option<SystemTime>,
}

impl Identity {
    fn of(metadata: &Metadata) -> Self {
        #[cfg(unix)]
        let (node, changed) = {
            use std::os::unix::fs::MetadataExt;
            let changed = u64::try_from(metadata.ctime()).ok().map(|seconds| {
                SystemTime::UNIX_EPOCH
                    + Duration::new(seconds, metadata.ctime_nsec().clamp(0, 999_999_999) as u32)
            });
            (Some((metadata.dev(), metadata.ino())), changed)
        };
        #[cfg(not(unix))]
        let (node, changed) = (None, None);
        Identity {
            node,
            len: metadata.len(),
            modified: metadata.modified().ok(),
            changed,
        }
    }

    /// When the file last changed, as far as its times say.
    fn last_change(&self) -> Option<SystemTime> {
        match (self.modified, self.changed) {
            (Some(modified), Some(changed)) => Some(modified.max(changed)),
            _ => None,
        }
    }
}

impl SharedMaps {
    /// Maps kept for `kept_for` after their last use.
    pub(crate) fn keeping_for(kept_for: Duration) -> Self {
        Self {
            state: Mutex::default(),
            kept_for,
        }
    }

    /// The file at `path`: the one in use (or kept) if its file is still the one there, a
    /// new map otherwise.
    pub(crate) fn open(&self, path: &Path) -> Result<Arc<ServedFile>> {
        let file = File::open(path)?;
        let identity = Identity::of(&file.metadata()?);
        // A poisoned lock holds a state that is whole: nothing panics while changing it.
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let known = state.open.get(path).and_then(|(known, served)| {
            let served = served.upgrade()?;
            Some((*known == identity, served))
        });
        let served = match known {
            Some((true, served)) => served,
            replaced => {
                if let Some((_, old)) = replaced {
                    // The old version goes with its last reader.
                    state.kept.retain(|(_, kept)| !Arc::ptr_eq(kept, &old));
                }
                let served = Arc::new(ServedFile {
                    map: FileMap::of(&file)?,
                    changed: identity.last_change(),
                    validated: Mutex::default(),
                });
                state
                    .open
                    .retain(|_, (_, served)| served.strong_count() > 0);
                state
                    .open
                    .insert(path.to_path_buf(), (identity, Arc::downgrade(&served)));
                served
            }
        };
        let now = Instant::now();
        let kept_for = self.kept_for;
        state.kept.retain(|(used, kept)| {
            !Arc::ptr_eq(kept, &served) && now.duration_since(*used) < kept_for
        });
        state.kept.push_front((now, served.clone()));
        state.kept.truncate(KEPT);
        Ok(served)
    }

    /// How many files have a map in use or kept.
    #[cfg(test)]
    fn in_use(&self) -> usize {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state
            .open
            .values()
            .filter(|(_, served)| served.strong_count() > 0)
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
        let maps = SharedMaps::keeping_for(Duration::ZERO);
        let first = maps.open(&path).unwrap();
        let second = maps.open(&path).unwrap();
        assert!(Arc::ptr_eq(&first, &second));
        assert_eq!(first.map().buffer().as_slice(), &[5; 10_000][..]);
        drop((first, second));
        // Kept for no time: gone at the next `open`, of any file.
        let other = dir.join("g");
        File::create(&other).unwrap().write_all(&[6; 10]).unwrap();
        drop(maps.open(&other).unwrap());
        assert_eq!(maps.in_use(), 1);
        let third = maps.open(&path).unwrap();
        assert_eq!(third.map().buffer().len(), 10_000);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_maps_used_last_are_kept_with_what_was_validated() {
        let dir = scratch("kept");
        let paths: Vec<PathBuf> = (0..KEPT + 1).map(|i| dir.join(format!("f{i}"))).collect();
        for path in &paths {
            File::create(path).unwrap().write_all(&[7; 100]).unwrap();
        }
        let maps = SharedMaps::default();
        let first = maps.open(&paths[0]).unwrap();
        assert!(!first.validated(3));
        // Just written: a validation is not remembered yet (the file's times are coarser
        // than two writes apart); a second on, it is.
        first.set_validated(3);
        assert!(!first.validated(3));
        let changed = first.changed.unwrap();
        first.set_validated_at(3, changed + SETTLED);
        assert!(first.validated(3));
        let kept = Arc::downgrade(&first);
        drop(first);
        // No reader holds it, yet the next `DoGet` finds the same map, validations and all.
        let again = maps.open(&paths[0]).unwrap();
        assert!(Weak::ptr_eq(&kept, &Arc::downgrade(&again)));
        assert!(again.validated(3) && !again.validated(2) && !again.validated(40));
        drop(again);
        // KEPT other files used since: the first is let go.
        for path in &paths[1..] {
            drop(maps.open(path).unwrap());
        }
        assert_eq!(kept.strong_count(), 0);
        assert_eq!(maps.in_use(), KEPT);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_replaced_since_gets_a_map_of_its_own() {
        let dir = scratch("replace");
        let path = dir.join("f");
        File::create(&path).unwrap().write_all(&[1; 100]).unwrap();
        let maps = SharedMaps::default();
        let old = maps.open(&path).unwrap();
        old.set_validated_at(0, old.changed.unwrap() + SETTLED);
        assert!(old.validated(0));
        // Replaced the way uploads are: a new file renamed over the old one.
        let new_path = dir.join("f.new");
        File::create(&new_path)
            .unwrap()
            .write_all(&[2; 200])
            .unwrap();
        std::fs::rename(&new_path, &path).unwrap();
        let new = maps.open(&path).unwrap();
        assert!(!Arc::ptr_eq(&old, &new));
        assert!(!new.validated(0), "a new version is validated afresh");
        assert_eq!(old.map().buffer().as_slice(), &[1; 100][..]);
        assert_eq!(new.map().buffer().as_slice(), &[2; 200][..]);
        // The old version is no longer kept: it goes with its last reader.
        let weak = Arc::downgrade(&old);
        drop(old);
        assert_eq!(weak.strong_count(), 0);
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
