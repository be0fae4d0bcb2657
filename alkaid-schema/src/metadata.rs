//! [`Metadata`]: the custom key-value pairs of fields and schemas.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Key-value metadata, kept in insertion order, with unique keys.
///
/// The order is kept so that metadata read from a file is written back the same way; equality
/// ignores it (two metadata with the same pairs are equal), as for a map. Cloning is O(1):
/// the pairs are shared until one of the clones is changed.
///
/// # Examples
/// ```
/// use alkaid_schema::Metadata;
/// let mut metadata = Metadata::from_iter([("source", "sensor-7"), ("unit", "°C")]);
/// metadata.insert("unit", "K"); // replaces in place
/// assert_eq!(metadata.get("unit"), Some("K"));
/// assert_eq!(metadata.iter().map(|(k, _)| k).collect::<Vec<_>>(), ["source", "unit"]);
/// assert_eq!(metadata, Metadata::from_iter([("unit", "K"), ("source", "sensor-7")]));
/// ```
#[derive(Clone, Default)]
pub struct Metadata(
    /// `None` when there are no pairs (most fields have none): empty metadata is then made,
    /// cloned and dropped without touching a shared reference count, which every thread
    /// building fields would otherwise contend on.
    Option<Arc<Vec<(String, String)>>>,
);

impl Metadata {
    /// No pairs.
    pub fn new() -> Self {
        Self::default()
    }

    fn pairs(&self) -> &[(String, String)] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }

    /// Number of pairs.
    pub fn len(&self) -> usize {
        self.pairs().len()
    }

    /// Whether there are no pairs.
    pub fn is_empty(&self) -> bool {
        self.pairs().is_empty()
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs()
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets `key` to `value`, in place if the key exists, at the end otherwise; returns the
    /// old value.
    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<String>) -> Option<String> {
        let (key, value) = (key.into(), value.into());
        let pairs = Arc::make_mut(self.0.get_or_insert_with(Arc::default));
        match pairs.iter_mut().find(|(k, _)| *k == key) {
            Some((_, old)) => Some(std::mem::replace(old, value)),
            None => {
                pairs.push((key, value));
                None
            }
        }
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<String> {
        let position = self.pairs().iter().position(|(k, _)| k == key)?;
        let pairs = Arc::make_mut(self.0.as_mut()?);
        let (_, value) = pairs.remove(position);
        if pairs.is_empty() {
            self.0 = None;
        }
        Some(value)
    }

    /// The pairs in insertion order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &str)> {
        self.pairs().iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The pairs sorted by key, for order-independent comparison and hashing.
    fn sorted(&self) -> Vec<(&str, &str)> {
        let mut pairs: Vec<_> = self.iter().collect();
        pairs.sort_unstable();
        pairs
    }
}

impl PartialEq for Metadata {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl Eq for Metadata {}

impl Hash for Metadata {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.sorted().hash(state);
    }
}

impl fmt::Debug for Metadata {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for Metadata {
    /// Later pairs replace earlier ones with the same key.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut metadata = Self::new();
        for (k, v) in iter {
            metadata.insert(k, v);
        }
        metadata
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::hash_map::DefaultHasher;

    fn hash(metadata: &Metadata) -> u64 {
        let mut hasher = DefaultHasher::new();
        metadata.hash(&mut hasher);
        hasher.finish()
    }

    #[test]
    fn order_is_kept_but_not_compared() {
        let a = Metadata::from_iter([("x", "1"), ("y", "2")]);
        let b = Metadata::from_iter([("y", "2"), ("x", "1")]);
        assert_eq!(a, b);
        assert_eq!(hash(&a), hash(&b));
        assert_ne!(a, Metadata::from_iter([("x", "1")]));
        assert_ne!(a, Metadata::from_iter([("x", "1"), ("y", "3")]));
        assert_eq!(format!("{b:?}"), r#"{"y": "2", "x": "1"}"#);
    }

    #[test]
    fn insert_replace_and_remove() {
        let mut metadata = Metadata::new();
        assert_eq!(metadata.insert("k", "v"), None);
        assert_eq!(metadata.insert("k", "w"), Some("v".to_string()));
        let shared = metadata.clone();
        assert_eq!(metadata.remove("k"), Some("w".to_string()));
        assert_eq!(metadata.remove("k"), None);
        assert!(metadata.is_empty() && !metadata.contains_key("k"));
        assert_eq!(shared.get("k"), Some("w"), "clones are not affected");
        // Emptied metadata is the empty metadata, and fills again.
        assert_eq!(metadata, Metadata::new());
        assert_eq!(hash(&metadata), hash(&Metadata::new()));
        assert_eq!(metadata.iter().len(), 0);
        assert_eq!(metadata.insert("j", "x"), None);
        assert_eq!(metadata.len(), 1);
        assert_eq!(shared.len(), 1);
    }
}
