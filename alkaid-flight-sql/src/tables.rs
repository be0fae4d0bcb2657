//! The tables of a directory: every file of a known format, and every subdirectory, is a
//! table, looked up when a query names it, so files that appear (or go) are seen by the
//! next query without a restart.
//!
//! An opened table is kept while its files (names, lengths, modification times) stay as
//! they were, so a query does not read the footers again.
//!
//! A file's table is its name without the extension (`trips.parquet` is `trips`; a file
//! without an extension is an IPC file of its own name); a subdirectory's is its name, read
//! as one table of the format its files share. Names starting with `.` or `_` are not
//! tables (the server's own temporary files, writers' markers). Two entries that give one
//! name (`trips.csv` beside `trips/`) make that name an error, never a silent choice.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use async_trait::async_trait;
use datafusion::catalog::{SchemaProvider, Session, TableProvider};
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::SessionState;

use alkaid_datafusion::{TableFormat, open_table};

/// The catalog the directory's tables are in.
pub const CATALOG: &str = "alkaid";
/// The schema the directory's tables are in.
pub const SCHEMA: &str = "public";

/// Extensions of IPC files, beside no extension at all.
const IPC_EXTENSIONS: [&str; 5] = ["arrow", "alkaid", "feather", "ipc", "arrows"];

/// One entry of the directory that is a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The table's name.
    pub table: String,
    /// The file or subdirectory.
    pub path: PathBuf,
    /// Whether it is a subdirectory.
    pub is_dir: bool,
}

/// The table an entry named `name` gives, if any.
fn table_name(name: &str, is_dir: bool) -> Option<String> {
    if name.starts_with(['.', '_']) || name.is_empty() {
        return None;
    }
    if is_dir {
        return Some(name.to_string());
    }
    let path = Path::new(name);
    let known = |extension: &str| {
        TableFormat::by_extension(name).is_some()
            || IPC_EXTENSIONS.contains(&extension.to_ascii_lowercase().as_str())
    };
    match path.extension().map(|e| e.to_string_lossy()) {
        None => Some(name.to_string()),
        Some(extension) if known(&extension) => {
            Some(path.file_stem()?.to_string_lossy().into_owned())
        }
        Some(_) => None,
    }
}

/// What a table was opened from: each file's name, length and modification time. A
/// table is opened again (its schema read again) only when this changes.
type Fingerprint = Vec<(PathBuf, u64, Option<SystemTime>)>;

/// A table opened before, with what it was opened from.
type Opened = (Fingerprint, Arc<dyn TableProvider>);

/// Opened tables kept, at most; beyond, the cache starts over.
const CACHED_TABLES: usize = 1024;

/// The directory's tables as DataFusion's schema `alkaid.public`.
#[derive(Debug)]
pub struct DirectoryTables {
    dir: PathBuf,
    /// The session whose runtime reads the files' footers when a table is looked up.
    state: SessionState,
    /// Tables opened before, by their entry, with what they were opened from.
    opened: Mutex<HashMap<PathBuf, Opened>>,
}

/// The fingerprint of `entry`: the file, or the files of the directory.
fn fingerprint(entry: &Entry) -> std::io::Result<Fingerprint> {
    let of = |path: PathBuf| -> std::io::Result<(PathBuf, u64, Option<SystemTime>)> {
        let metadata = std::fs::metadata(&path)?;
        Ok((path, metadata.len(), metadata.modified().ok()))
    };
    if !entry.is_dir {
        return Ok(vec![of(entry.path.clone())?]);
    }
    let mut files = std::fs::read_dir(&entry.path)?
        .map(|e| of(e?.path()))
        .collect::<std::io::Result<Fingerprint>>()?;
    files.sort();
    Ok(files)
}

impl DirectoryTables {
    /// The tables of `dir`, their files read with `state`'s runtime.
    pub fn new(dir: impl Into<PathBuf>, state: SessionState) -> Self {
        Self {
            dir: dir.into(),
            state,
            opened: Mutex::default(),
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The entries that are tables now, sorted by table name (several for a name that is
    /// ambiguous).
    pub fn entries(&self) -> std::io::Result<Vec<Entry>> {
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(&self.dir)? {
            let entry = entry?;
            let is_dir = entry.file_type()?.is_dir();
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(table) = table_name(&name, is_dir) {
                entries.push(Entry {
                    table,
                    path: entry.path(),
                    is_dir,
                });
            }
        }
        entries.sort_by(|a, b| a.table.cmp(&b.table).then(a.path.cmp(&b.path)));
        Ok(entries)
    }

    /// The one entry of table `name`, `None` when there is none.
    ///
    /// # Errors
    /// When the directory cannot be read, or two entries give the name.
    pub fn entry(&self, name: &str) -> Result<Option<Entry>> {
        let mut found = self.entries()?.into_iter().filter(|e| e.table == name);
        let Some(first) = found.next() else {
            return Ok(None);
        };
        if let Some(second) = found.next() {
            return Err(DataFusionError::Plan(format!(
                "table {name:?} is ambiguous: both {} and {} give that name; rename one",
                first.path.display(),
                second.path.display()
            )));
        }
        Ok(Some(first))
    }

    /// The table of `entry`: the one opened before if its files have not changed since,
    /// else opened now (its schema read from its files).
    pub async fn open(&self, entry: &Entry) -> Result<Arc<dyn TableProvider>> {
        let print = fingerprint(entry)?;
        if let Some((seen, table)) = self
            .opened
            .lock()
            .expect("no panics while held")
            .get(&entry.path)
            && *seen == print
        {
            return Ok(Arc::clone(table));
        }
        let mut url = entry.path.to_string_lossy().into_owned();
        if entry.is_dir {
            url.push('/');
        }
        let table = open_table(&self.state as &dyn Session, &url)
            .await
            .map_err(|e| e.context(format!("table {:?}", entry.table)))?;
        let mut opened = self.opened.lock().expect("no panics while held");
        if opened.len() >= CACHED_TABLES {
            opened.clear();
        }
        opened.insert(entry.path.clone(), (print, Arc::clone(&table)));
        Ok(table)
    }
}

#[async_trait]
impl SchemaProvider for DirectoryTables {
    fn table_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .entries()
            .unwrap_or_default()
            .into_iter()
            .map(|e| e.table)
            .collect();
        names.dedup();
        names
    }

    async fn table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        match self.entry(name)? {
            Some(entry) => self.open(&entry).await.map(Some),
            None => Ok(None),
        }
    }

    fn table_exist(&self, name: &str) -> bool {
        self.entries()
            .is_ok_and(|entries| entries.iter().any(|e| e.table == name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_name_tables_by_stem_and_skip_hidden_and_unknown_files() {
        assert_eq!(table_name("trips.parquet", false).as_deref(), Some("trips"));
        assert_eq!(table_name("t.ARROW", false).as_deref(), Some("t"));
        assert_eq!(table_name("plain", false).as_deref(), Some("plain"));
        assert_eq!(table_name("events", true).as_deref(), Some("events"));
        assert_eq!(table_name("notes.txt", false), None);
        assert_eq!(table_name(".t.arrow.ingest-1", false), None);
        assert_eq!(table_name("_SUCCESS", false), None);
        assert_eq!(table_name("_tmp", true), None);
    }

    #[test]
    fn a_name_two_entries_give_is_an_error_that_names_both() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("t.csv"), "a\n1\n").unwrap();
        std::fs::create_dir(dir.path().join("t")).unwrap();
        std::fs::write(dir.path().join("u.csv"), "a\n1\n").unwrap();
        let state = datafusion::execution::SessionStateBuilder::new().build();
        let tables = DirectoryTables::new(dir.path(), state);
        assert_eq!(tables.table_names(), ["t", "u"]);
        let err = tables.entry("t").unwrap_err().to_string();
        assert!(err.contains("ambiguous") && err.contains("t.csv"), "{err}");
        assert!(tables.entry("u").unwrap().is_some());
        assert!(tables.entry("v").unwrap().is_none());
    }

    #[test]
    fn an_opened_table_is_kept_until_its_files_change() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("t.csv"), "a\n1\n").unwrap();
        let state = datafusion::execution::SessionStateBuilder::new().build();
        let tables = DirectoryTables::new(dir.path(), state);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let entry = tables.entry("t").unwrap().unwrap();
        let first = runtime.block_on(tables.open(&entry)).unwrap();
        let again = runtime.block_on(tables.open(&entry)).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        std::fs::write(dir.path().join("t.csv"), "a,b\n1,2\n").unwrap();
        let changed = runtime.block_on(tables.open(&entry)).unwrap();
        assert_eq!(changed.schema().fields().len(), 2);
    }
}
