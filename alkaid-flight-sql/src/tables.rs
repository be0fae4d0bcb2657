//! The tables of a directory, local or in an object store: every file of a known format,
//! and every subdirectory, is a table, looked up when a query names it, so files that
//! appear (or go) are seen by the next query without a restart.
//!
//! An opened table is kept while its files (names, lengths, modification times or entity
//! tags) stay as they were, so a query does not read the footers again; DataFusion's own
//! cache of directory listings is turned off by the service for the same reason, as it
//! would hide a file added to a directory table (see `service.rs`).
//!
//! A file's table is its name without the extension (`trips.parquet` is `trips`; a file
//! without an extension is an IPC file of its own name); a subdirectory's is its name, read
//! as one table of the format its files share. Names starting with `.` or `_` are not
//! tables (the server's own temporary files, writers' markers). Two entries that give one
//! name (`trips.csv` beside `trips/`) make that name an error, never a silent choice.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use datafusion::catalog::{SchemaProvider, Session, TableProvider};
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::listing::ListingTableUrl;
use datafusion::execution::SessionState;
use datafusion::object_store::path::Path as StorePath;
use datafusion::object_store::{self as object_store, ObjectMeta, ObjectStore, ObjectStoreExt};
use futures_util::TryStreamExt;

use alkaid_datafusion::{TableFormat, open_table_as};

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
    /// The file's or subdirectory's name in the directory.
    pub name: String,
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

/// Where the tables are.
#[derive(Debug, Clone)]
enum Root {
    /// A local directory.
    Local(PathBuf),
    /// A directory of an object store: its URL (ending in `/`), the store (registered in
    /// the session's runtime under the URL's scheme and authority) and the prefix.
    Store {
        url: String,
        store: Arc<dyn ObjectStore>,
        prefix: StorePath,
    },
}

/// What a table was opened from: each file's name, length and modification time (or
/// entity tag). A table is opened again (its schema read again) only when this changes.
type Fingerprint = Vec<(String, u64, Option<String>)>;

/// A table opened before, with what it was opened from.
type Opened = (Fingerprint, Arc<dyn TableProvider>);

/// Opened tables kept, at most; beyond, the cache starts over.
const CACHED_TABLES: usize = 1024;

/// The directory's tables as DataFusion's schema `alkaid.public`.
#[derive(Debug)]
pub struct DirectoryTables {
    root: Root,
    /// The session whose runtime reads the files' footers when a table is looked up.
    state: SessionState,
    /// Tables opened before, by their entry's name, with what they were opened from.
    opened: Mutex<HashMap<String, Opened>>,
    /// An object store's entries as last listed, for DataFusion's questions that cannot
    /// wait for a listing ([`SchemaProvider::table_names`]).
    listed: Mutex<Vec<Entry>>,
}

/// A local file's fingerprint.
fn local_print(path: PathBuf) -> std::io::Result<(String, u64, Option<String>)> {
    let metadata = std::fs::metadata(&path)?;
    let modified = metadata.modified().ok().map(|t| format!("{t:?}"));
    Ok((
        path.to_string_lossy().into_owned(),
        metadata.len(),
        modified,
    ))
}

/// An object's fingerprint.
fn store_print(meta: ObjectMeta) -> (String, u64, Option<String>) {
    let version = meta.e_tag.or(meta.version);
    let version = version.or_else(|| Some(meta.last_modified.to_rfc3339()));
    (meta.location.to_string(), meta.size, version)
}

/// A store's error as DataFusion's.
fn store_error(e: object_store::Error) -> DataFusionError {
    DataFusionError::ObjectStore(Box::new(e))
}

impl DirectoryTables {
    /// The tables of the local directory `dir`, their files read with `state`'s runtime.
    pub fn new(dir: impl Into<PathBuf>, state: SessionState) -> Self {
        Self::with_root(Root::Local(dir.into()), state)
    }

    /// The tables under `url` (a directory URL such as `s3://bucket/data/`) in `store`,
    /// which `state`'s runtime must have registered for the URL.
    ///
    /// # Errors
    /// If `url` does not parse as a URL.
    pub fn in_store(url: &str, store: Arc<dyn ObjectStore>, state: SessionState) -> Result<Self> {
        let mut url = url.to_string();
        if !url.ends_with('/') {
            url.push('/');
        }
        let prefix = ListingTableUrl::parse(&url)?.prefix().clone();
        Ok(Self::with_root(Root::Store { url, store, prefix }, state))
    }

    fn with_root(root: Root, state: SessionState) -> Self {
        Self {
            root,
            state,
            opened: Mutex::default(),
            listed: Mutex::default(),
        }
    }

    /// The local directory, `None` when the tables are in an object store.
    pub fn local_dir(&self) -> Option<&Path> {
        match &self.root {
            Root::Local(dir) => Some(dir),
            Root::Store { .. } => None,
        }
    }

    /// Where the tables are: the local directory or the store's URL.
    pub fn location(&self) -> String {
        match &self.root {
            Root::Local(dir) => dir.display().to_string(),
            Root::Store { url, .. } => url.clone(),
        }
    }

    /// The entries that are tables now, sorted by table name (several for a name that is
    /// ambiguous).
    ///
    /// # Errors
    /// When the directory cannot be listed.
    pub async fn entries(&self) -> Result<Vec<Entry>> {
        let mut entries = match &self.root {
            Root::Local(dir) => local_entries(dir)?,
            Root::Store { store, prefix, .. } => {
                let listing = store
                    .list_with_delimiter(Some(prefix))
                    .await
                    .map_err(store_error)?;
                let dirs = listing.common_prefixes.into_iter().map(|p| (p, true));
                let files = listing.objects.into_iter().map(|o| (o.location, false));
                dirs.chain(files)
                    .filter_map(|(location, is_dir)| {
                        let name = location.filename()?.to_string();
                        let table = table_name(&name, is_dir)?;
                        Some(Entry {
                            table,
                            name,
                            is_dir,
                        })
                    })
                    .collect()
            }
        };
        entries.sort_by(|a, b| a.table.cmp(&b.table).then(a.name.cmp(&b.name)));
        if let Root::Store { .. } = self.root {
            *self.listed.lock().expect("no panics while held") = entries.clone();
        }
        Ok(entries)
    }

    /// The one entry of table `name`, `None` when there is none.
    ///
    /// # Errors
    /// When the directory cannot be listed, or two entries give the name.
    pub async fn entry(&self, name: &str) -> Result<Option<Entry>> {
        let mut found = self
            .entries()
            .await?
            .into_iter()
            .filter(|e| e.table == name);
        let Some(first) = found.next() else {
            return Ok(None);
        };
        if let Some(second) = found.next() {
            return Err(DataFusionError::Plan(format!(
                "table {name:?} is ambiguous: both {} and {} give that name; rename one",
                first.name, second.name
            )));
        }
        Ok(Some(first))
    }

    /// The fingerprint of `entry`: the file, or the files of the directory.
    async fn fingerprint(&self, entry: &Entry) -> Result<Fingerprint> {
        let mut print = match &self.root {
            Root::Local(dir) => {
                let path = dir.join(&entry.name);
                match entry.is_dir {
                    false => vec![local_print(path)?],
                    true => std::fs::read_dir(&path)?
                        .map(|e| local_print(e?.path()))
                        .collect::<std::io::Result<Fingerprint>>()?,
                }
            }
            Root::Store { store, prefix, .. } => {
                let location = prefix.clone().join(entry.name.as_str());
                match entry.is_dir {
                    false => vec![store_print(
                        store.head(&location).await.map_err(store_error)?,
                    )],
                    true => store
                        .list(Some(&location))
                        .map_ok(store_print)
                        .try_collect()
                        .await
                        .map_err(store_error)?,
                }
            }
        };
        print.sort();
        Ok(print)
    }

    /// The table of `entry`: the one opened before if its files have not changed since,
    /// else opened now (its schema read from its files).
    ///
    /// # Errors
    /// If its files cannot be listed or read, or are not of the format their names say.
    pub async fn open(&self, entry: &Entry) -> Result<Arc<dyn TableProvider>> {
        let print = self.fingerprint(entry).await?;
        if let Some((seen, table)) = self
            .opened
            .lock()
            .expect("no panics while held")
            .get(&entry.name)
            && *seen == print
        {
            return Ok(Arc::clone(table));
        }
        let (url, (format, extension)) = match &self.root {
            Root::Local(dir) => {
                let mut url = dir.join(&entry.name).to_string_lossy().into_owned();
                if entry.is_dir {
                    url.push('/');
                }
                let format = TableFormat::of(&url);
                (url, format)
            }
            Root::Store { url, .. } => {
                let url = format!("{url}{}", entry.name);
                match entry.is_dir {
                    // The files' names are in the fingerprint, listed just now.
                    true => {
                        let names = print.iter().map(|(location, ..)| location.as_str());
                        (format!("{url}/"), TableFormat::shared(names))
                    }
                    false => {
                        let format = TableFormat::of(&url);
                        (url, format)
                    }
                }
            }
        };
        let table = open_table_as(&self.state as &dyn Session, &url, format, &extension)
            .await
            .map_err(|e| e.context(format!("table {:?}", entry.table)))?;
        let mut opened = self.opened.lock().expect("no panics while held");
        if opened.len() >= CACHED_TABLES {
            opened.clear();
        }
        opened.insert(entry.name.clone(), (print, Arc::clone(&table)));
        Ok(table)
    }

    /// The entries' table names as last seen: the local directory's now, an object
    /// store's as last listed.
    fn names_now(&self) -> Vec<String> {
        let entries = match &self.root {
            Root::Local(dir) => local_entries(dir).unwrap_or_default(),
            Root::Store { .. } => self.listed.lock().expect("no panics while held").clone(),
        };
        let mut names: Vec<String> = entries.into_iter().map(|e| e.table).collect();
        names.sort();
        names.dedup();
        names
    }
}

/// The entries of the local directory `dir` that are tables. A symlink is the table of
/// what it leads to when that lies inside `dir`; one that leads out (or nowhere) is not a
/// table, so its target is never read.
fn local_entries(dir: &Path) -> std::io::Result<Vec<Entry>> {
    let dir = &std::fs::canonicalize(dir)?;
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let file_type = entry.file_type()?;
        let is_dir = match file_type.is_symlink() {
            false => file_type.is_dir(),
            true => match std::fs::canonicalize(entry.path()) {
                Ok(target) if target.starts_with(dir) => target.is_dir(),
                _ => continue,
            },
        };
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(table) = table_name(&name, is_dir) {
            entries.push(Entry {
                table,
                name,
                is_dir,
            });
        }
    }
    Ok(entries)
}

#[async_trait]
impl SchemaProvider for DirectoryTables {
    fn table_names(&self) -> Vec<String> {
        self.names_now()
    }

    async fn table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        match self.entry(name).await? {
            Some(entry) => self.open(&entry).await.map(Some),
            None => Ok(None),
        }
    }

    fn table_exist(&self, name: &str) -> bool {
        self.names_now().iter().any(|n| n == name)
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
        let runtime = runtime();
        let err = runtime.block_on(tables.entry("t")).unwrap_err().to_string();
        assert!(err.contains("ambiguous") && err.contains("t.csv"), "{err}");
        assert!(runtime.block_on(tables.entry("u")).unwrap().is_some());
        assert!(runtime.block_on(tables.entry("v")).unwrap().is_none());
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
    }

    #[test]
    fn an_opened_table_is_kept_until_its_files_change() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("t.csv"), "a\n1\n").unwrap();
        let state = datafusion::execution::SessionStateBuilder::new().build();
        let tables = DirectoryTables::new(dir.path(), state);
        let runtime = runtime();
        let entry = runtime.block_on(tables.entry("t")).unwrap().unwrap();
        let first = runtime.block_on(tables.open(&entry)).unwrap();
        let again = runtime.block_on(tables.open(&entry)).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        std::fs::write(dir.path().join("t.csv"), "a,b\n1,2\n").unwrap();
        let changed = runtime.block_on(tables.open(&entry)).unwrap();
        assert_eq!(changed.schema().fields().len(), 2);
    }

    /// The tables of an object store (here the local file system through
    /// `object_store`, which lists as S3 does): files, a directory of Parquet-less CSV
    /// files told by their shared extension, hidden names skipped, and a file added to
    /// the directory table seen once its listing changes.
    #[test]
    fn a_store_directory_lists_and_opens_like_a_local_one() {
        use datafusion::object_store::local::LocalFileSystem;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.csv"), "x\n1\n").unwrap();
        std::fs::write(dir.path().join("_SUCCESS"), "").unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        std::fs::write(dir.path().join("d/p1.csv"), "y\n1\n2\n").unwrap();
        let store: Arc<dyn ObjectStore> = Arc::new(LocalFileSystem::new());
        let state = datafusion::execution::SessionStateBuilder::new().build();
        let url = format!("file://{}", dir.path().display());
        let tables = DirectoryTables::in_store(&url, store, state).unwrap();
        assert!(tables.local_dir().is_none());
        assert!(tables.location().ends_with('/'));
        let runtime = runtime();
        let entries = runtime.block_on(tables.entries()).unwrap();
        let names: Vec<_> = entries
            .iter()
            .map(|e| (e.table.as_str(), e.is_dir))
            .collect();
        assert_eq!(names, [("a", false), ("d", true)]);
        assert_eq!(tables.table_names(), ["a", "d"], "the last listing");
        let d = entries[1].clone();
        let table = runtime.block_on(tables.open(&d)).unwrap();
        assert_eq!(table.schema().field(0).name(), "y", "read as CSV");
        let again = runtime.block_on(tables.open(&d)).unwrap();
        assert!(Arc::ptr_eq(&table, &again));
        std::fs::write(dir.path().join("d/p2.csv"), "y\n3\n").unwrap();
        let changed = runtime.block_on(tables.open(&d)).unwrap();
        assert!(!Arc::ptr_eq(&table, &changed), "a new file is a new table");
    }
}
