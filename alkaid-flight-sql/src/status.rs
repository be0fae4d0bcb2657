//! DataFusion's errors as gRPC statuses, with the code a client can act on: a query that
//! does not parse or plan is the client's `InvalidArgument`, a limit reached is
//! `ResourceExhausted`, a table that does not exist `NotFound`, a refusal of the served
//! directory's rules what the refusal says. And [`Redactor`]: no status leaves the server
//! with the served directory's own path in it.

use std::path::Path;

use alkaid_flight::BudgetExceeded;
use datafusion::common::DataFusionError;
use tonic::{Code, Status};

use crate::confined::Refusal;

/// The status `e` travels as: a refusal anywhere in it as the refusal, else DataFusion's
/// whole message.
pub fn status(e: DataFusionError) -> Status {
    if let Some(refusal) = Refusal::find(&e) {
        return refused(refusal);
    }
    if let Some(exceeded) = BudgetExceeded::find(&e) {
        return refused(Refusal::from(exceeded.clone()));
    }
    Status::new(code(&e), e.to_string())
}

/// The status a refusal travels as.
pub fn refused(refusal: Refusal) -> Status {
    Status::new(refusal.code, refusal.message)
}

/// Takes the served directory's path out of what the server tells clients: a path under
/// it is given relative to it, the directory itself as `<served directory>`.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// The directory's spellings, longest first, each with and without a trailing `/`.
    needles: Vec<(String, &'static str)>,
}

impl Redactor {
    /// Redacts `dir` (as given and canonical, as a path and a `file://` URL).
    pub fn new(dirs: &[&Path]) -> Self {
        let mut needles = Vec::new();
        for dir in dirs {
            let plain = dir.to_string_lossy().trim_end_matches('/').to_string();
            if plain.is_empty() {
                continue;
            }
            let mut spellings = vec![format!("file://{plain}"), plain.clone()];
            if let Ok(url) = url::Url::from_directory_path(dir) {
                spellings.push(url.as_str().trim_end_matches('/').to_string());
            }
            // Object-store paths drop the leading slash.
            spellings.push(plain.trim_start_matches('/').to_string());
            for spelling in spellings {
                needles.push((format!("{spelling}/"), ""));
                needles.push((spelling, "<served directory>"));
            }
        }
        needles.sort_by_key(|(needle, _)| std::cmp::Reverse(needle.len()));
        needles.dedup();
        Self { needles }
    }

    /// `status` with the directory taken out of its message.
    pub fn status(&self, status: Status) -> Status {
        let message = status.message();
        if !self
            .needles
            .iter()
            .any(|(n, _)| message.contains(n.as_str()))
        {
            return status;
        }
        let mut redacted = message.to_string();
        for (needle, replacement) in &self.needles {
            redacted = replace_whole(&redacted, needle, replacement);
        }
        Status::new(status.code(), redacted)
    }
}

/// `text` with each `needle` replaced, where it is not the start of a longer name.
fn replace_whole(text: &str, needle: &str, replacement: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(needle) {
        let after = &rest[at + needle.len()..];
        let continues = !needle.ends_with('/')
            && after
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || "_-.~%".contains(c));
        out.push_str(&rest[..at]);
        out.push_str(if continues { needle } else { replacement });
        rest = after;
    }
    out.push_str(rest);
    out
}

fn code(e: &DataFusionError) -> Code {
    match e {
        DataFusionError::Context(_, inner) => code(inner),
        DataFusionError::Diagnostic(_, inner) => code(inner),
        DataFusionError::Shared(inner) => code(inner),
        DataFusionError::SQL(..) | DataFusionError::Plan(_) | DataFusionError::SchemaError(..) => {
            match e.to_string().contains("not found") {
                true => Code::NotFound,
                false => Code::InvalidArgument,
            }
        }
        DataFusionError::ResourcesExhausted(_) => Code::ResourceExhausted,
        DataFusionError::NotImplemented(_) => Code::Unimplemented,
        DataFusionError::ExecutionJoin(_) | DataFusionError::External(_) => Code::Internal,
        DataFusionError::IoError(io) if io.kind() == std::io::ErrorKind::NotFound => Code::NotFound,
        _ => Code::Internal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use datafusion::object_store;

    #[test]
    fn codes_follow_whose_fault_it_is() {
        assert_eq!(
            status(DataFusionError::Plan("bad".into())).code(),
            Code::InvalidArgument
        );
        let missing = DataFusionError::Plan("table 'x' not found".into());
        assert_eq!(status(missing).code(), Code::NotFound);
        let memory = DataFusionError::ResourcesExhausted("pool".into());
        let wrapped = DataFusionError::Context("query".into(), Box::new(memory));
        let wrapped = status(wrapped);
        assert_eq!(wrapped.code(), Code::ResourceExhausted);
        assert!(wrapped.message().contains("pool"));
        // A refusal deep inside an object store's error, inside an I/O error.
        let refusal = Refusal::denied("x.csv leads outside the served directory");
        let store = object_store::Error::Generic {
            store: "served directory (denied)",
            source: Box::new(refusal.clone()),
        };
        let io = std::io::Error::other(store);
        let deep =
            DataFusionError::Context("writing".into(), Box::new(DataFusionError::IoError(io)));
        let deep = status(deep);
        assert_eq!(deep.code(), Code::PermissionDenied);
        assert_eq!(deep.message(), refusal.message);
    }

    #[test]
    fn the_served_directory_never_leaves_in_a_message() {
        let redactor = Redactor::new(&[Path::new("/srv/my data"), Path::new("/srv/data/")]);
        for (message, expected) in [
            (
                "Object at location /srv/data/t.csv not found",
                "Object at location t.csv not found",
            ),
            ("file:///srv/data/sub/x.parquet: bad", "sub/x.parquet: bad"),
            ("file:///srv/my%20data/x.csv: bad", "x.csv: bad"),
            ("path srv/data/t.csv", "path t.csv"),
            ("served from /srv/data", "served from <served directory>"),
            ("/srv/database/x", "/srv/database/x"),
        ] {
            let got = redactor.status(Status::internal(message));
            assert_eq!(got.message(), expected, "{message}");
            assert_eq!(got.code(), Code::Internal);
        }
    }
}
