//! The served directory as the only local files a statement reaches.
//!
//! DataFusion reads and writes local files through the object store registered for
//! `file://`. Each statement's session registers a [`ConfinedStore`] there instead of
//! `object_store`'s plain one, so every path is checked on what is actually opened, after
//! DataFusion has parsed and percent-decoded the URL it came from:
//!
//! - a read must open a file inside the directory once symlinks are resolved;
//! - a write must name a new path inside the directory: nothing exists there (a file, a
//!   directory, a dangling symlink), no part of it below the directory is hidden (names
//!   starting with `.` are the server's own), and its nearest existing parent lies inside
//!   once symlinks are resolved. Its bytes go to a staging file under `.alkaid-staging/`,
//!   charged to the server's write budget as they arrive (a file at least a block,
//!   `FILE_BLOCK`), and only when the whole
//!   statement has succeeded does each staged file take its name, by a link that fails
//!   rather than replace whatever another writer put there meanwhile
//!   ([`StagedWrites::commit`]). A statement that fails, is cancelled or is dropped leaves
//!   nothing: its staging directory is removed and its bytes given back to the budget;
//! - deletes, copies and renames are refused: no statement of this server needs them.
//!
//! Refusals name paths as the client sees them, relative to the directory, never the
//! server's own paths.

use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use alkaid_flight::{BudgetExceeded, FILE_BLOCK, WriteAccount, WriteBudget};
use async_trait::async_trait;
use bytes::Bytes;
use datafusion::object_store::local::LocalFileSystem;
use datafusion::object_store::path::Path as Location;
use datafusion::object_store::{
    self as object_store, CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload,
    ObjectMeta, ObjectStore, PutMultipartOptions, PutOptions, PutPayload, PutResult, RenameOptions,
    UploadPart,
};
use futures_util::stream::{self, BoxStream, StreamExt};
use tonic::Code;

/// The directory, under the served one, where statements stage what they write.
pub const STAGING: &str = ".alkaid-staging";

/// The store names a refusal travels under, by its code (see `Refusal::into_store_error`).
const MARKERS: [(Code, &str); 4] = [
    (Code::PermissionDenied, "served directory (denied)"),
    (Code::AlreadyExists, "served directory (exists)"),
    (Code::ResourceExhausted, "served directory (limit)"),
    (Code::Internal, "served directory (failed)"),
];

/// A refusal of the served directory's rules, with the gRPC code it travels as. Its
/// message names paths as the client gave them (relative to the directory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The code: `PermissionDenied`, `AlreadyExists` or `ResourceExhausted`.
    pub code: Code,
    /// What was refused, and why.
    pub message: String,
}

impl Refusal {
    pub fn denied(message: impl Into<String>) -> Self {
        Self {
            code: Code::PermissionDenied,
            message: message.into(),
        }
    }

    fn exists(message: impl Into<String>) -> Self {
        Self {
            code: Code::AlreadyExists,
            message: message.into(),
        }
    }

    /// The refusal as an error of the object store, which DataFusion carries up. The
    /// store's name says the code, so that a refusal that reaches the service only as
    /// text (some layers keep an error's message and drop the error) keeps it too.
    fn into_store_error(self) -> object_store::Error {
        let store = MARKERS
            .iter()
            .find(|(code, _)| *code == self.code)
            .map_or(MARKERS[0].1, |(_, marker)| *marker);
        object_store::Error::Generic {
            store,
            source: Box::new(self),
        }
    }

    /// The refusal in `e`: somewhere in its chain of causes (through I/O errors, which
    /// hide what they wrap from `source()`), or failing that in its message.
    pub fn find(e: &(dyn std::error::Error + 'static)) -> Option<Refusal> {
        let mut next = Some(e);
        while let Some(e) = next {
            if let Some(refusal) = e.downcast_ref::<Refusal>() {
                return Some(refusal.clone());
            }
            let wrapped = e
                .downcast_ref::<std::io::Error>()
                .and_then(std::io::Error::get_ref)
                .map(|inner| inner as &(dyn std::error::Error + 'static));
            next = wrapped.or_else(|| e.source());
        }
        Self::in_text(&e.to_string())
    }

    /// The refusal an object store's error left in `text`, as `into_store_error` wrote it.
    fn in_text(text: &str) -> Option<Refusal> {
        MARKERS.iter().find_map(|(code, marker)| {
            let at = text.find(&format!("Generic {marker} error: "))?;
            let message = &text[at + marker.len() + "Generic  error: ".len()..];
            let message = message.lines().next().unwrap_or_default();
            Some(Refusal {
                code: *code,
                message: message.to_string(),
            })
        })
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Refusal {}

impl From<BudgetExceeded> for Refusal {
    fn from(e: BudgetExceeded) -> Self {
        Self {
            code: Code::ResourceExhausted,
            message: format!("the statement's writes: {e}"),
        }
    }
}

/// The served directory, by its canonical path.
#[derive(Debug)]
pub struct Served {
    dir: PathBuf,
}

impl Served {
    /// The directory `dir`, resolved.
    ///
    /// # Errors
    /// If `dir` cannot be resolved.
    pub fn new(dir: &Path) -> std::io::Result<Self> {
        Ok(Self {
            dir: std::fs::canonicalize(dir)?,
        })
    }

    /// The directory's canonical path.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `path` as a client may be told it: relative to the directory.
    pub fn shown(&self, path: &Path) -> String {
        match path.strip_prefix(&self.dir) {
            Ok(relative) if relative.as_os_str().is_empty() => ".".into(),
            Ok(relative) => relative.display().to_string(),
            Err(_) => "a path outside the served directory".into(),
        }
    }

    /// Whether the existing `path`, symlinks resolved, lies inside the directory.
    pub fn encloses(&self, path: &Path) -> std::io::Result<bool> {
        Ok(std::fs::canonicalize(path)?.starts_with(&self.dir))
    }

    /// Checks that reading `path` reads inside the directory. A path that does not exist
    /// passes: opening it fails as a missing file should.
    pub fn check_read(&self, path: &Path) -> Result<(), Refusal> {
        if !path.starts_with(&self.dir) {
            return Err(Refusal::denied(
                "a statement reads only the served directory's files",
            ));
        }
        match self.encloses(path) {
            Ok(true) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Ok(false) | Err(_) => Err(Refusal::denied(format!(
                "{} leads outside the served directory",
                self.shown(path)
            ))),
        }
    }

    /// Checks that `path` may be written as a new file: see the module's documentation.
    pub fn check_new(&self, path: &Path) -> Result<(), Refusal> {
        let outside = || Refusal::denied("a statement writes only inside the served directory");
        let relative = path.strip_prefix(&self.dir).map_err(|_| outside())?;
        let mut parts = 0;
        for component in relative.components() {
            match component {
                Component::Normal(name) if name.to_string_lossy().starts_with('.') => {
                    return Err(Refusal::denied(format!(
                        "{}: names starting with `.` are the server's own",
                        self.shown(path)
                    )));
                }
                Component::Normal(_) => parts += 1,
                _ => return Err(outside()),
            }
        }
        if parts == 0 {
            return Err(outside());
        }
        match std::fs::symlink_metadata(path) {
            Ok(_) => {
                return Err(Refusal::exists(format!(
                    "{} exists: a statement never replaces a file",
                    self.shown(path)
                )));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => return Err(outside()),
        }
        // The nearest parent that exists must be a directory inside, symlinks resolved.
        let mut parent = path.parent();
        while let Some(dir) = parent {
            if std::fs::symlink_metadata(dir).is_ok() {
                let inside = std::fs::canonicalize(dir)
                    .is_ok_and(|real| real.starts_with(&self.dir) && real.is_dir());
                return match inside {
                    true => Ok(()),
                    false => Err(Refusal::denied(format!(
                        "{} leads outside the served directory",
                        self.shown(path)
                    ))),
                };
            }
            parent = dir.parent();
        }
        Err(outside())
    }
}

/// Distinguishes the staging directories of statements.
static STATEMENTS: AtomicU64 = AtomicU64::new(0);

/// What one statement writes, staged until it succeeds.
#[derive(Debug)]
pub struct StagedWrites {
    served: Arc<Served>,
    /// This statement's staging directory.
    area: PathBuf,
    account: WriteAccount,
    /// Each staged file and the path it takes at the commit.
    staged: Mutex<Staged>,
    /// The first write this statement was refused: DataFusion reports a failed write as
    /// a failure of its own ("Error encountered while finalizing writes"), which would
    /// hide why.
    refusal: Mutex<Option<Refusal>>,
}

#[derive(Debug, Default)]
struct Staged {
    files: Vec<(PathBuf, PathBuf)>,
    committed: bool,
}

impl StagedWrites {
    /// The writes of one statement into `served`, charged to `budget`.
    pub fn new(served: Arc<Served>, budget: &WriteBudget) -> Self {
        let area = served.dir.join(STAGING).join(format!(
            "{}-{}",
            std::process::id(),
            STATEMENTS.fetch_add(1, Ordering::Relaxed)
        ));
        Self {
            served,
            area,
            account: budget.account(),
            staged: Mutex::default(),
            refusal: Mutex::default(),
        }
    }

    /// Keeps `refusal` as the statement's first, and returns it.
    fn refused(&self, refusal: Refusal) -> Refusal {
        let mut first = self.refusal.lock().expect("no panics while held");
        first.get_or_insert_with(|| refusal.clone());
        refusal
    }

    /// The first write this statement was refused, if any.
    pub fn refusal(&self) -> Option<Refusal> {
        self.refusal.lock().expect("no panics while held").clone()
    }

    /// The staging file for a write to `target`, once `target` is checked.
    fn stage(&self, target: &Path) -> Result<PathBuf, Refusal> {
        self.stage_checked(target).map_err(|r| self.refused(r))
    }

    fn stage_checked(&self, target: &Path) -> Result<PathBuf, Refusal> {
        self.served.check_new(target)?;
        // A file costs the disk a block, however little it holds.
        self.account.charge(FILE_BLOCK).map_err(Refusal::from)?;
        let mut staged = self.staged.lock().expect("no panics while held");
        if staged.committed {
            return Err(Refusal::denied("the statement's writes are committed"));
        }
        if staged.files.iter().any(|(_, t)| t == target) {
            return Err(Refusal::exists(format!(
                "{} is written twice by one statement",
                self.served.shown(target)
            )));
        }
        let file = self.area.join(staged.files.len().to_string());
        staged.files.push((file.clone(), target.to_path_buf()));
        Ok(file)
    }

    /// Takes `bytes` more from the budget.
    fn charge(&self, bytes: u64) -> Result<(), Refusal> {
        self.account
            .charge(bytes)
            .map_err(|e| self.refused(Refusal::from(e)))
    }

    /// Gives every staged file its name: each is synced and linked to its path, which
    /// fails where something took the path meanwhile; then every file linked by this
    /// commit is removed again and nothing is left. The staging directory goes either
    /// way. The number of files committed.
    ///
    /// # Errors
    /// If a path was taken meanwhile, or linking fails.
    pub fn commit(&self) -> Result<usize, Refusal> {
        let mut staged = self.staged.lock().expect("no panics while held");
        let mut placed: Vec<PathBuf> = Vec::new();
        let mut made: Vec<PathBuf> = Vec::new();
        for (file, target) in &staged.files {
            if let Err(refusal) = self.place(file, target, &mut made) {
                for done in placed.iter().rev() {
                    let _ = std::fs::remove_file(done);
                }
                for dir in made.iter().rev() {
                    let _ = std::fs::remove_dir(dir);
                }
                return Err(refusal);
            }
            placed.push(target.clone());
        }
        let mut parents: Vec<&Path> = placed.iter().filter_map(|p| p.parent()).collect();
        parents.sort();
        parents.dedup();
        for parent in parents {
            if let Ok(dir) = std::fs::File::open(parent) {
                let _ = dir.sync_all();
            }
        }
        staged.committed = true;
        self.remove_area();
        Ok(placed.len())
    }

    /// Links the staged `file` to `target`, making the directories it needs (recorded in
    /// `made`).
    fn place(&self, file: &Path, target: &Path, made: &mut Vec<PathBuf>) -> Result<(), Refusal> {
        let shown = self.served.shown(target);
        let failed = |e: std::io::Error| Refusal {
            code: Code::Internal,
            message: format!("writing {shown}: {}", e.kind()),
        };
        self.served.check_new(target)?;
        if let Some(parent) = target.parent() {
            let mut missing = Vec::new();
            let mut dir = parent;
            while std::fs::symlink_metadata(dir).is_err() {
                missing.push(dir.to_path_buf());
                dir = dir.parent().unwrap_or(dir);
            }
            for dir in missing.into_iter().rev() {
                match std::fs::create_dir(&dir) {
                    Ok(()) => made.push(dir),
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(failed(e)),
                }
            }
        }
        std::fs::File::open(file)
            .and_then(|f| f.sync_all())
            .map_err(failed)?;
        std::fs::hard_link(file, target).map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => Refusal::exists(format!(
                "{shown} was created while the statement ran; nothing was written"
            )),
            _ => failed(e),
        })
    }
}

impl StagedWrites {
    /// Removes the staging directory, and the directory of all statements' when it is
    /// left empty (a statement staging meanwhile makes it again).
    fn remove_area(&self) {
        let _ = std::fs::remove_dir_all(&self.area);
        if let Some(all) = self.area.parent() {
            let _ = std::fs::remove_dir(all);
        }
    }
}

impl Drop for StagedWrites {
    fn drop(&mut self) {
        let staged = self.staged.get_mut().map(|s| s.committed);
        if !staged.unwrap_or(false) {
            self.account.refund();
        }
        self.remove_area();
    }
}

/// The local file system as a statement may see it: the served directory's files, read
/// where they lie and written through the statement's [`StagedWrites`] (none: read-only).
/// Without a served directory (tables in an object store), no local file at all.
#[derive(Debug)]
pub struct ConfinedStore {
    inner: LocalFileSystem,
    served: Option<Arc<Served>>,
    writes: Option<Arc<StagedWrites>>,
}

impl fmt::Display for ConfinedStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ConfinedStore(the served directory)")
    }
}

impl ConfinedStore {
    /// The files of `served`, written through `writes` (or not at all).
    pub fn new(served: Option<Arc<Served>>, writes: Option<Arc<StagedWrites>>) -> Self {
        Self {
            inner: LocalFileSystem::new(),
            served,
            writes,
        }
    }

    fn path(&self, location: &Location) -> object_store::Result<PathBuf> {
        self.inner.path_to_filesystem(location)
    }

    /// Checks a read of `location`.
    fn readable(&self, location: &Location) -> object_store::Result<()> {
        let Some(served) = &self.served else {
            return Err(Refusal::denied("this server reads no local files").into_store_error());
        };
        let path = self.path(location)?;
        served.check_read(&path).map_err(Refusal::into_store_error)
    }

    /// The statement's writes, and the staging location of a write to `location`.
    fn staging(&self, location: &Location) -> object_store::Result<(&Arc<StagedWrites>, Location)> {
        let Some(writes) = &self.writes else {
            return Err(Refusal::denied("this statement may not write").into_store_error());
        };
        let target = self.path(location)?;
        let file = writes.stage(&target).map_err(Refusal::into_store_error)?;
        let staged = Location::from_absolute_path(&file)?;
        Ok((writes, staged))
    }
}

/// A refused call's error.
fn refused(what: &str) -> object_store::Error {
    Refusal::denied(format!("a statement may not {what} files")).into_store_error()
}

#[async_trait]
impl ObjectStore for ConfinedStore {
    async fn put_opts(
        &self,
        location: &Location,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        let (writes, staged) = self.staging(location)?;
        writes
            .charge(payload.content_length() as u64)
            .map_err(Refusal::into_store_error)?;
        // The staging file is this statement's own: the mode asked for is kept at the
        // commit, which never replaces.
        let opts = PutOptions {
            mode: object_store::PutMode::Overwrite,
            ..opts
        };
        self.inner.put_opts(&staged, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Location,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        let (writes, staged) = self.staging(location)?;
        let upload = self.inner.put_multipart_opts(&staged, opts).await?;
        Ok(Box::new(ChargedUpload {
            upload,
            writes: Arc::clone(writes),
        }))
    }

    async fn get_opts(
        &self,
        location: &Location,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        self.readable(location)?;
        self.inner.get_opts(location, options).await
    }

    async fn get_ranges(
        &self,
        location: &Location,
        ranges: &[std::ops::Range<u64>],
    ) -> object_store::Result<Vec<Bytes>> {
        self.readable(location)?;
        self.inner.get_ranges(location, ranges).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Location>>,
    ) -> BoxStream<'static, object_store::Result<Location>> {
        locations
            .map(|location| location.and_then(|_| Err(refused("delete"))))
            .boxed()
    }

    fn list(
        &self,
        prefix: Option<&Location>,
    ) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        match prefix.map(|p| self.readable(p)) {
            Some(Ok(())) => self.inner.list(prefix),
            Some(Err(e)) => stream::once(async { Err(e) }).boxed(),
            None => stream::once(async { Err(refused("list all")) }).boxed(),
        }
    }

    async fn list_with_delimiter(
        &self,
        prefix: Option<&Location>,
    ) -> object_store::Result<ListResult> {
        match prefix {
            Some(prefix) => {
                self.readable(prefix)?;
                self.inner.list_with_delimiter(Some(prefix)).await
            }
            None => Err(refused("list all")),
        }
    }

    async fn copy_opts(
        &self,
        _from: &Location,
        _to: &Location,
        _options: CopyOptions,
    ) -> object_store::Result<()> {
        Err(refused("copy"))
    }

    async fn rename_opts(
        &self,
        _from: &Location,
        _to: &Location,
        _options: RenameOptions,
    ) -> object_store::Result<()> {
        Err(refused("rename"))
    }
}

/// A multipart upload into a staging file, each part charged to the statement's budget
/// before it is written.
#[derive(Debug)]
struct ChargedUpload {
    upload: Box<dyn MultipartUpload>,
    writes: Arc<StagedWrites>,
}

#[async_trait]
impl MultipartUpload for ChargedUpload {
    fn put_part(&mut self, data: PutPayload) -> UploadPart {
        match self.writes.charge(data.content_length() as u64) {
            Ok(()) => self.upload.put_part(data),
            Err(refusal) => Box::pin(async move { Err(refusal.into_store_error()) }),
        }
    }

    async fn complete(&mut self) -> object_store::Result<PutResult> {
        self.upload.complete().await
    }

    async fn abort(&mut self) -> object_store::Result<()> {
        self.upload.abort().await
    }
}
