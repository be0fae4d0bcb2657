//! A table over a file or a directory of files, its format told by their names: IPC and
//! Parquet through Alkaid's readers ([`AlkaidTable`], [`AlkaidParquetFormat`]), CSV and
//! newline-delimited JSON through DataFusion's own. One place for that choice, which
//! `alkaid sql --table` and the Flight SQL server's directory of tables both make.

use std::path::Path;
use std::sync::Arc;

use datafusion::catalog::{Session, TableProvider};
use datafusion::common::Result;
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::file_format::csv::CsvFormat;
use datafusion::datasource::file_format::json::JsonFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};

use crate::format::AlkaidFormat;
use crate::parquet::{AlkaidParquetFormat, PARQUET_EXTENSION};
use crate::table::AlkaidTable;

/// The format of a table's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// Alkaid and Arrow IPC files (the format of a name with no known extension).
    Ipc,
    /// Parquet (`.parquet`, `.pq`).
    Parquet,
    /// CSV with a header line (`.csv`).
    Csv,
    /// Newline-delimited JSON (`.json`, `.ndjson`, `.jsonl`).
    Json,
}

impl TableFormat {
    /// The format a file name's extension says, if it names one other than IPC's
    /// (IPC files go by many names, or none).
    pub fn by_extension(name: &str) -> Option<Self> {
        let extension = Path::new(name)
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match extension.as_deref() {
            Some("parquet" | "pq") => Some(Self::Parquet),
            Some("csv") => Some(Self::Csv),
            Some("json" | "ndjson" | "jsonl") => Some(Self::Json),
            _ => None,
        }
    }

    /// The format of the table at `url`, and the extension (with its dot, or empty) its
    /// files are taken by: a file's by its own extension; a local directory's (a URL
    /// ending in `/`) by the one extension its files of a known format share, IPC when
    /// they share none or the directory is not local. So the markers writers leave beside
    /// their files (`_SUCCESS`) are not read as rows.
    pub fn of(url: &str) -> (Self, String) {
        let extension = |name: &str| {
            Path::new(name)
                .extension()
                .map(|e| format!(".{}", e.to_string_lossy()))
                .unwrap_or_default()
        };
        if !url.ends_with('/') {
            let format = Self::by_extension(url).unwrap_or(Self::Ipc);
            return (format, extension(url));
        }
        let local = url.strip_prefix("file://").unwrap_or(url);
        let Ok(entries) = std::fs::read_dir(local) else {
            return (Self::Ipc, String::new());
        };
        let names = entries.filter_map(|entry| Some(entry.ok()?.file_name()));
        Self::shared(names.map(|name| name.to_string_lossy().into_owned()))
    }

    /// The format, and the extension (with its dot), that the files named `names` share
    /// among those of a known format; IPC with no extension when they share none. For a
    /// directory that is not local, whose names the caller listed.
    pub fn shared<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> (Self, String) {
        let mut found = names.into_iter().filter_map(|name| {
            let name = name.as_ref();
            let format = Self::by_extension(name)?;
            let extension = Path::new(name).extension()?.to_string_lossy();
            Some((format, format!(".{extension}")))
        });
        match found.next() {
            Some(first) if found.all(|other| other == first) => first,
            _ => (Self::Ipc, String::new()),
        }
    }
}

/// The table of the file at `url`, or of every file under it when `url` ends in `/`, in
/// the format [`TableFormat::of`] finds; its schema read from the files (merged when they
/// differ). The object store of the URL's scheme must be registered in the session's
/// runtime (local paths always are).
///
/// # Errors
/// If the URL does not parse, no file is found, a file is not in the format (the error
/// names it), or the schemas do not merge.
pub async fn open_table(session: &dyn Session, url: &str) -> Result<Arc<dyn TableProvider>> {
    let (format, extension) = TableFormat::of(url);
    open_table_as(session, url, format, &extension).await
}

/// The table at `url` as [`open_table`] opens it, in `format`, a directory's files taken
/// by `extension` (with its dot; empty for every file): for a caller that knows the
/// format, as of a directory in an object store, which [`TableFormat::of`] cannot list.
///
/// # Errors
/// As [`open_table`].
pub async fn open_table_as(
    session: &dyn Session,
    url: &str,
    format: TableFormat,
    extension: &str,
) -> Result<Arc<dyn TableProvider>> {
    match format {
        TableFormat::Ipc => ipc_table(session, url).await,
        TableFormat::Parquet => parquet_table(session, url).await,
        TableFormat::Csv => {
            let csv = CsvFormat::default().with_has_header(true);
            listing(session, url, Arc::new(csv), extension).await
        }
        TableFormat::Json => {
            listing(session, url, Arc::new(JsonFormat::default()), extension).await
        }
    }
}

/// The IPC table at `url`: a directory's files whatever their extension (`.alkaid`,
/// `.arrow`, none), a single file by its name.
pub(crate) async fn ipc_table(session: &dyn Session, url: &str) -> Result<Arc<dyn TableProvider>> {
    let table_url = ListingTableUrl::parse(url)?;
    let options = ListingOptions::new(Arc::new(AlkaidFormat::default())).with_file_extension("");
    let config = ListingTableConfig::new(table_url)
        .with_listing_options(options)
        .infer_schema(session)
        .await?;
    Ok(Arc::new(AlkaidTable::try_new(ListingTable::try_new(
        config,
    )?)?))
}

/// The Parquet table at `url`: a directory's `*.parquet` files, a single file by its name.
pub(crate) async fn parquet_table(
    session: &dyn Session,
    url: &str,
) -> Result<Arc<dyn TableProvider>> {
    let extension = match url.ends_with('/') {
        true => format!(".{PARQUET_EXTENSION}"),
        false => String::new(),
    };
    let format = AlkaidParquetFormat::for_session(session)?;
    listing(session, url, Arc::new(format), &extension).await
}

/// DataFusion's listing table of `format` at `url`, a directory's files by `extension`.
async fn listing(
    session: &dyn Session,
    url: &str,
    format: Arc<dyn FileFormat>,
    extension: &str,
) -> Result<Arc<dyn TableProvider>> {
    let table_url = ListingTableUrl::parse(url)?;
    let options = ListingOptions::new(format).with_file_extension(extension);
    let config = ListingTableConfig::new(table_url)
        .with_listing_options(options)
        .infer_schema(session)
        .await?;
    Ok(Arc::new(ListingTable::try_new(config)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_by_extension_and_a_directory_by_what_its_files_share() {
        assert_eq!(TableFormat::of("a/b.PARQUET").0, TableFormat::Parquet);
        assert_eq!(
            TableFormat::of("x.ndjson"),
            (TableFormat::Json, ".ndjson".into())
        );
        assert_eq!(TableFormat::of("x.arrow").0, TableFormat::Ipc);
        let dir = tempfile::tempdir().unwrap();
        for name in ["a.csv", "b.csv", "_SUCCESS"] {
            std::fs::write(dir.path().join(name), "x\n1\n").unwrap();
        }
        let url = format!("{}/", dir.path().display());
        assert_eq!(TableFormat::of(&url), (TableFormat::Csv, ".csv".into()));
        std::fs::write(dir.path().join("c.parquet"), "").unwrap();
        assert_eq!(TableFormat::of(&url).0, TableFormat::Ipc, "mixed formats");
        assert_eq!(TableFormat::of("s3://bucket/dir/").0, TableFormat::Ipc);
        assert_eq!(
            TableFormat::shared(["a.PQ", "b.PQ", "_SUCCESS"]),
            (TableFormat::Parquet, ".PQ".into())
        );
        assert_eq!(
            TableFormat::shared(["a.pq", "b.parquet"]).0,
            TableFormat::Ipc
        );
        assert_eq!(
            TableFormat::shared(Vec::<String>::new()).0,
            TableFormat::Ipc
        );
    }
}
