//! Column paths for error messages (`events.tags.item`), built only when an error needs one.

use std::fmt;

/// Where a field is: a top-level name, or a child of another path. Walks hand a `Path` down
/// by reference, so naming costs nothing until an error formats it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Path<'a> {
    /// A top-level field.
    Root(&'a str),
    /// The values of the dictionary with this id ("dictionary 3").
    Dictionary(i64),
    /// The field `name` inside `parent`.
    Child(&'a Path<'a>, &'a str),
}

impl<'a> Path<'a> {
    /// The field `name` inside this one.
    pub fn child(&'a self, name: &'a str) -> Path<'a> {
        Path::Child(self, name)
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root(name) => f.write_str(name),
            Path::Dictionary(id) => write!(f, "dictionary {id}"),
            Path::Child(parent, name) => write!(f, "{parent}.{name}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Path;

    #[test]
    fn paths_join_with_dots() {
        let root = Path::Root("events");
        let tags = root.child("tags");
        assert_eq!(tags.child("item").to_string(), "events.tags.item");
        let dictionary = Path::Dictionary(3);
        assert_eq!(dictionary.child("item").to_string(), "dictionary 3.item");
    }
}
