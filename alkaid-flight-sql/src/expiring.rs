//! What the server holds between a client's calls (prepared statements, planned queries,
//! client sessions): a map bounded in number whose entries are forgotten after a time
//! unused, so that clients that never close cannot grow the server.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tonic::Status;

/// An entry and when it was last used.
struct Held<T> {
    value: T,
    used: Instant,
}

/// At most `limit` entries, each forgotten `timeout` after its last use.
pub struct Expiring<K, T> {
    entries: Mutex<HashMap<K, Held<T>>>,
    limit: usize,
    timeout: Duration,
}

impl<K, T> std::fmt::Debug for Expiring<K, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Expiring")
            .field("limit", &self.limit)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl<K: Hash + Eq, T> Expiring<K, T> {
    /// An empty map of at most `limit` entries, each kept `timeout` unused.
    pub fn new(limit: usize, timeout: Duration) -> Self {
        Self {
            entries: Mutex::default(),
            limit,
            timeout,
        }
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<K, Held<T>>> {
        self.entries.lock().expect("no panics while held")
    }

    /// Keeps `value` under `key`, after forgetting what has expired; replacing an entry
    /// needs no room.
    ///
    /// # Errors
    /// `ResourceExhausted`, naming the entries `what` are, when the map is full.
    pub fn insert(&self, key: K, value: T, what: &str) -> Result<(), Status> {
        let mut entries = self.entries();
        let now = Instant::now();
        entries.retain(|_, held| now.duration_since(held.used) < self.timeout);
        if !entries.contains_key(&key) && entries.len() >= self.limit {
            return Err(Status::resource_exhausted(format!(
                "the server holds {} {what}s, its limit: close some, or wait for them to expire",
                self.limit
            )));
        }
        entries.insert(key, Held { value, used: now });
        Ok(())
    }

    /// `f` of the entry of `key` (its expiry restarted), when it has not expired; with
    /// `revive`, also when it has, and is not forgotten yet.
    pub fn with<Q, R>(&self, key: &Q, revive: bool, f: impl FnOnce(&mut T) -> R) -> Option<R>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let mut entries = self.entries();
        let held = entries.get_mut(key)?;
        if !revive && held.used.elapsed() >= self.timeout {
            return None;
        }
        held.used = Instant::now();
        Some(f(&mut held.value))
    }

    /// Takes the entry of `key` out, whether or not it has expired.
    pub fn remove<Q>(&self, key: &Q) -> Option<T>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.entries().remove(key).map(|held| held.value)
    }

    /// Takes the entry of `key` out; `None` when it has expired.
    pub fn take<Q>(&self, key: &Q) -> Option<T>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let held = self.entries().remove(key)?;
        (held.used.elapsed() < self.timeout).then_some(held.value)
    }

    /// Whether `key` has an entry (expired or not, until it is forgotten).
    pub fn contains<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.entries().contains_key(key)
    }
}
