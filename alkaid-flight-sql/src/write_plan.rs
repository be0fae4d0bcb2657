//! What a statement may write, decided from its plan before it runs: nothing unless the
//! operator allowed writes; `INSERT INTO` (appending) to a table of a local directory;
//! `COPY … TO` a new path inside the directory. A `COPY` target is read exactly as
//! DataFusion will read it (`ListingTableUrl::parse`: a URL's percent-escapes and dot
//! segments resolved, a path made absolute), except that a relative path is taken
//! relative to the served directory rather than the server's working directory; the
//! path that comes out must be one [`Served::check_new`] accepts.
//!
//! These checks give a client a clear answer before anything runs. What is actually
//! written is checked again, file by file, by the statement's
//! [`ConfinedStore`](crate::confined::ConfinedStore).

use std::path::Path;

use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::datasource::listing::ListingTableUrl;
use datafusion::logical_expr::dml::{CopyTo, InsertOp};
use datafusion::logical_expr::{LogicalPlan, WriteOp};
use datafusion::object_store::local::LocalFileSystem;

use crate::confined::{Refusal, Served};

/// What the server lets statements write.
#[derive(Debug, Clone, Copy)]
pub struct WriteRules<'a> {
    /// The served directory; `None` when the tables are in an object store.
    pub served: Option<&'a Served>,
    /// Whether the operator allowed writes.
    pub allowed: bool,
}

/// The refusal of every write by a server its operator keeps read-only.
pub fn read_only() -> Refusal {
    Refusal::denied(
        "this server is read-only: its operator has not allowed writes (INSERT, COPY, \
         bulk ingestion)",
    )
}

/// The refusal of every write to tables in an object store.
pub fn store_read_only() -> Refusal {
    Refusal::denied("the tables of this server are in an object store, and read-only")
}

/// Whether `plan` writes (a `COPY` or DML anywhere in it).
pub fn writes(plan: &LogicalPlan) -> bool {
    let mut found = false;
    let _ = plan.apply(|node| {
        found = matches!(node, LogicalPlan::Copy(_) | LogicalPlan::Dml(_));
        Ok(match found {
            true => TreeNodeRecursion::Stop,
            false => TreeNodeRecursion::Continue,
        })
    });
    found
}

/// `plan` with its writes checked against `rules`, each `COPY` target resolved to the
/// absolute path DataFusion will write.
///
/// # Errors
/// The refusal of the first write the rules do not allow.
pub fn checked(plan: LogicalPlan, rules: WriteRules<'_>) -> Result<LogicalPlan, Refusal> {
    if !writes(&plan) {
        return Ok(plan);
    }
    if !rules.allowed {
        return Err(read_only());
    }
    let Some(served) = rules.served else {
        return Err(store_read_only());
    };
    let mut refused = None;
    let rewritten = plan.transform_down(|node| match node {
        LogicalPlan::Copy(copy) => match copy_target(served, &copy.output_url) {
            Ok(output_url) => Ok(Transformed::yes(LogicalPlan::Copy(CopyTo {
                output_url,
                ..copy
            }))),
            Err(refusal) => {
                refused = Some(refusal);
                Ok(Transformed::new(
                    LogicalPlan::Copy(copy),
                    false,
                    TreeNodeRecursion::Stop,
                ))
            }
        },
        LogicalPlan::Dml(dml) => match &dml.op {
            WriteOp::Insert(InsertOp::Append) => Ok(Transformed::no(LogicalPlan::Dml(dml))),
            other => {
                refused = Some(Refusal::denied(format!(
                    "{} is not offered: statements add rows (INSERT INTO) and new files \
                     (COPY), and never change or remove what a table holds",
                    other.name()
                )));
                Ok(Transformed::new(
                    LogicalPlan::Dml(dml),
                    false,
                    TreeNodeRecursion::Stop,
                ))
            }
        },
        other => Ok(Transformed::no(other)),
    });
    if let Some(refusal) = refused {
        return Err(refusal);
    }
    rewritten.map(|t| t.data).map_err(|e| {
        Refusal::denied(format!(
            "the statement's writes cannot be checked: {}",
            e.strip_backtrace()
        ))
    })
}

/// The absolute target of `COPY … TO url`, checked: see the module's documentation.
fn copy_target(served: &Served, url: &str) -> Result<String, Refusal> {
    let refuse = |why: &str| Refusal::denied(format!("COPY to {url:?}: {why}"));
    // DataFusion's own order: an absolute path, else a URL, else a relative path.
    let absolute = match url::Url::parse(url) {
        _ if Path::new(url).is_absolute() => url.to_string(),
        Ok(parsed) if parsed.scheme() != "file" => {
            return Err(refuse(
                "a statement writes only files of the served directory, not another store",
            ));
        }
        Ok(parsed)
            if parsed
                .host_str()
                .is_some_and(|h| !h.is_empty() && h != "localhost") =>
        {
            return Err(refuse(
                "a file URL with a host names another machine's files",
            ));
        }
        Ok(_) => url.to_string(),
        Err(url::ParseError::RelativeUrlWithoutBase) => {
            // Relative to the served directory, which a client cannot otherwise know.
            served.dir().join(url).to_string_lossy().into_owned()
        }
        Err(_) => return Err(refuse("not a path or URL")),
    };
    let parsed = ListingTableUrl::parse(&absolute)
        .map_err(|_| refuse("not a path or URL DataFusion takes"))?;
    if parsed.scheme() != "file" {
        return Err(refuse(
            "a statement writes only files of the served directory, not another store",
        ));
    }
    let path = LocalFileSystem::new()
        .path_to_filesystem(parsed.prefix())
        .map_err(|_| refuse("not a path of this machine"))?;
    served.check_new(&path).map_err(|refusal| Refusal {
        message: format!("COPY to {url:?}: {}", refusal.message),
        ..refusal
    })?;
    Ok(absolute)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served() -> (tempfile::TempDir, Served) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("regions.csv"), "a\n1\n").unwrap();
        std::fs::create_dir(dir.path().join("events")).unwrap();
        std::fs::write(dir.path().join("events/p.arrow"), "").unwrap();
        let served = Served::new(dir.path()).unwrap();
        (dir, served)
    }

    #[test]
    fn copy_targets_resolve_inside_the_directory_as_datafusion_reads_them() {
        let (_dir, served) = served();
        let root = served.dir().display().to_string();
        let ok = |url: &str| copy_target(&served, url);
        assert_eq!(ok("out.csv").unwrap(), format!("{root}/out.csv"));
        assert_eq!(
            ok("sub/new/out.csv").unwrap(),
            format!("{root}/sub/new/out.csv")
        );
        assert_eq!(
            ok(&format!("{root}/x.csv")).unwrap(),
            format!("{root}/x.csv")
        );
        assert!(ok(&format!("file://{root}/x.parquet")).is_ok());
        assert!(ok(&format!("file://localhost{root}/x.parquet")).is_ok());
        // A literal `%2e%2e` in a path is a name, not a way up.
        assert!(ok(&format!("{root}/%2e%2e/x.csv")).is_ok());
    }

    #[test]
    fn every_escape_and_every_existing_file_is_refused_without_naming_the_directory() {
        let (_dir, served) = served();
        let root = served.dir().display().to_string();
        let parent = served.dir().parent().unwrap().display().to_string();
        for url in [
            format!("file://{root}/%2e%2e/elsewhere/x.csv"),
            format!("file://{root}/%2E%2E/elsewhere/x.csv"),
            format!("file://{root}/..%2felsewhere.csv"),
            format!("file://{root}%2f..%2fx.csv"),
            format!("file:{root}/../x.csv"),
            format!("file://{root}/./../x.csv"),
            format!("{root}/../x.csv"),
            format!("{root}//../x.csv"),
            format!("{root}/./../x.csv"),
            "../x.csv".to_string(),
            "sub/../../x.csv".to_string(),
            "..\\..\\x.csv".to_string(),
            format!("{parent}/x.csv"),
            "file://otherhost/tmp/x.csv".to_string(),
            "s3://bucket/x.csv".to_string(),
            "/tmp/x.csv".to_string(),
            ".hidden.csv".to_string(),
            ".alkaid-staging/x.csv".to_string(),
            "regions.csv".to_string(),
            format!("{root}/regions.csv"),
            "events/p.arrow".to_string(),
            "events/".to_string(),
            "events".to_string(),
            String::new(),
        ] {
            let refusal = copy_target(&served, &url).expect_err(&url);
            // The client's own words come back; nothing more of the server's paths.
            let told = refusal.message.replace(&format!("{url:?}"), "");
            assert!(!told.contains(&parent), "{url}: {}", refusal.message);
            let expected = if url.contains("regions") || url.starts_with("events") {
                tonic::Code::AlreadyExists
            } else {
                tonic::Code::PermissionDenied
            };
            assert_eq!(refusal.code, expected, "{url}: {}", refusal.message);
        }
    }

    #[test]
    fn a_backslash_is_part_of_a_name_not_a_separator() {
        let (_dir, served) = served();
        // On Unix `a\..\x.csv` is one file name inside the directory.
        let target = copy_target(&served, "a\\..\\x.csv").unwrap();
        let root = served.dir().display().to_string();
        assert_eq!(target, format!("{root}/a\\..\\x.csv"));
    }

    #[test]
    fn symlinks_inside_the_directory_that_lead_out_are_refused() {
        let (dir, served) = served();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.csv"), "s\n1\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.csv"),
            dir.path().join("secret.csv"),
        )
        .unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("gone.csv"),
            dir.path().join("dangling.csv"),
        )
        .unwrap();
        let refusal = copy_target(&served, "out/x.csv").unwrap_err();
        assert_eq!(refusal.code, tonic::Code::PermissionDenied, "{refusal}");
        assert!(refusal.message.contains("leads outside"), "{refusal}");
        let refusal = copy_target(&served, "secret.csv").unwrap_err();
        assert_eq!(refusal.code, tonic::Code::AlreadyExists, "{refusal}");
        let refusal = copy_target(&served, "dangling.csv").unwrap_err();
        assert_eq!(refusal.code, tonic::Code::AlreadyExists, "{refusal}");
        assert!(!outside.path().join("x.csv").exists());
        // Reading through them is refused too.
        let read = served
            .check_read(&dir.path().join("secret.csv"))
            .unwrap_err();
        assert!(read.message.contains("leads outside"), "{read}");
        let inside = served.dir().join("regions.csv");
        served.check_read(&inside).unwrap();
    }
}
