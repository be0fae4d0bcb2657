//! Where an input or a served directory is: a local path, or an object-store URL
//! (`s3://bucket/key`, `gs://…`, `az://…`, `http(s)://…`, `file:///…`) whose store takes
//! its credentials and endpoint from the environment.

/// Whether `path` is a URL rather than a local path: a scheme of letters, then `://`.
#[cfg(any(feature = "object-store", feature = "flight"))]
pub fn is_url(path: &str) -> bool {
    path.split_once("://").is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '+')
    })
}

/// The options of the stores, from the environment: the variables of the stores' own
/// prefixes (`AWS_*`, `GOOGLE_*`, `AZURE_*`), which `object_store` matches
/// case-insensitively.
#[cfg(any(feature = "object-store", feature = "sql"))]
pub fn store_options() -> impl Iterator<Item = (String, String)> {
    std::env::vars().filter(|(key, _)| {
        ["AWS_", "GOOGLE_", "AZURE_"]
            .iter()
            .any(|prefix| key.to_ascii_uppercase().starts_with(prefix))
    })
}

#[cfg(all(test, any(feature = "object-store", feature = "flight")))]
mod tests {
    use super::*;

    #[test]
    fn urls_have_a_scheme() {
        for url in [
            "s3://b/k",
            "file:///tmp/x",
            "https://h/p",
            "gs://b/o",
            "az://c/b",
        ] {
            assert!(is_url(url), "{url}");
        }
        for path in ["data.arrow", "/tmp/x://y", "-", "://x", "./a b://c"] {
            assert!(!is_url(path), "{path}");
        }
    }
}
