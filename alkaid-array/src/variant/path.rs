//! Paths into Variant values: `a.b[2]`, `$.a["key.with dots"]`.

use std::fmt;
use std::str::FromStr;

use super::{Variant, VariantError, VariantMetadata};

/// One step of a [`VariantPath`]: an object's field or an array's element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathSegment {
    /// The field of this name.
    Field(String),
    /// The element at this index (from 0).
    Index(usize),
}

/// A path into a Variant: fields and indexes from the value's root. Written as text like
/// JSONPath without filters: an optional `$`, then `.name` or `name` for a field,
/// `[3]` for an element, `["name"]` or `['name']` for a field whose name has other
/// characters.
///
/// ```
/// use alkaid_array::variant::{json_to_variant, PathSegment, Variant, VariantMetadata, VariantPath};
///
/// let path: VariantPath = "$.tags[1]".parse()?;
/// assert_eq!(path.segments(), [PathSegment::Field("tags".into()), PathSegment::Index(1)]);
/// let (metadata, value) = json_to_variant(r#"{"tags": ["a", "b"]}"#)?;
/// let variant = Variant::try_new(VariantMetadata::try_new(&metadata)?, &value)?;
/// assert_eq!(variant.get_path(&path)?, Some(Variant::String("b")));
/// assert_eq!(variant.get_path(&"tags[7]".parse()?)?, None);
/// # Ok::<(), alkaid_array::variant::VariantError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VariantPath {
    segments: Vec<PathSegment>,
}

impl VariantPath {
    /// The path of `segments`.
    pub fn new(segments: Vec<PathSegment>) -> Self {
        Self { segments }
    }

    /// The steps, from the root.
    pub fn segments(&self) -> &[PathSegment] {
        &self.segments
    }

    /// Whether the path is the root itself.
    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }
}

impl FromStr for VariantPath {
    type Err = VariantError;

    fn from_str(text: &str) -> Result<Self, VariantError> {
        let bad = |at: usize, why: &str| {
            VariantError::value(format!("path {text:?} at character {at}: {why}"))
        };
        let bytes = text.as_bytes();
        let mut at = usize::from(text.starts_with('$'));
        let mut segments = Vec::new();
        while at < bytes.len() {
            match bytes[at] {
                b'.' if !matches!(bytes.get(at + 1), None | Some(b'.' | b'[')) => at += 1,
                b'.' => return Err(bad(at, "a field name must follow '.'")),
                b'[' => {
                    let close = text[at..]
                        .find(']')
                        .map(|c| at + c)
                        .ok_or_else(|| bad(at, "'[' without ']'"))?;
                    let inner = &text[at + 1..close];
                    let quoted = inner.len() >= 2
                        && (inner.starts_with('"') && inner.ends_with('"')
                            || inner.starts_with('\'') && inner.ends_with('\''));
                    if quoted {
                        segments.push(PathSegment::Field(inner[1..inner.len() - 1].to_string()));
                    } else {
                        let index = inner
                            .parse()
                            .map_err(|_| bad(at, "expected an index or a quoted name in [ ]"))?;
                        segments.push(PathSegment::Index(index));
                    }
                    at = close + 1;
                    continue;
                }
                _ => {}
            }
            let end = text[at..].find(['.', '[']).map_or(text.len(), |e| at + e);
            if end == at {
                return Err(bad(at, "empty field name"));
            }
            segments.push(PathSegment::Field(text[at..end].to_string()));
            at = end;
        }
        Ok(Self { segments })
    }
}

impl fmt::Display for VariantPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("$")?;
        for segment in &self.segments {
            match segment {
                PathSegment::Field(name)
                    if name.chars().all(|c| c.is_alphanumeric() || c == '_') =>
                {
                    write!(f, ".{name}")?;
                }
                PathSegment::Field(name) => write!(f, "[{name:?}]")?,
                PathSegment::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

impl<'m, 'v> Variant<'m, 'v> {
    /// The value at `path` below this one, `None` when a step finds no such field or
    /// element, or a value of another kind (a field of an array, say).
    ///
    /// # Errors
    /// When a value on the way does not read.
    pub fn get_path(&self, path: &VariantPath) -> Result<Option<Variant<'m, 'v>>, VariantError> {
        let mut here = *self;
        for segment in path.segments() {
            let next = match (&here, segment) {
                (Variant::Object(object), PathSegment::Field(name)) => object.get(name)?,
                (Variant::List(list), PathSegment::Index(i)) if *i < list.len() => {
                    Some(list.get(*i)?)
                }
                _ => None,
            };
            match next {
                Some(value) => here = value,
                None => return Ok(None),
            }
        }
        Ok(Some(here))
    }
}

/// The bytes of the value at `path` inside `value`, `None` when a step finds nothing.
pub(super) fn locate_bytes<'v>(
    metadata: VariantMetadata<'_>,
    value: &'v [u8],
    path: &[PathSegment],
) -> Result<Option<&'v [u8]>, VariantError> {
    let mut here = value;
    for segment in path {
        here = match (Variant::parse(metadata, here)?, segment) {
            (Variant::Object(object), PathSegment::Field(name)) => match object.position(name)? {
                Some(k) => object.field_bytes(k)?,
                None => return Ok(None),
            },
            (Variant::List(list), PathSegment::Index(i)) if *i < list.len() => {
                list.element_bytes(*i)?
            }
            _ => return Ok(None),
        };
    }
    Ok(Some(here))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_parse_and_print() {
        for (text, printed) in [
            ("", "$"),
            ("$", "$"),
            ("a", "$.a"),
            ("$.a.b", "$.a.b"),
            ("a[0][12].b", "$.a[0][12].b"),
            (r#"$["x.y"].z"#, r#"$["x.y"].z"#),
            ("['q']", "$.q"),
        ] {
            let path: VariantPath = text.parse().unwrap();
            assert_eq!(path.to_string(), printed, "{text}");
        }
        for (text, why) in [
            ("a.", "a field name must follow"),
            ("a..b", "a field name must follow"),
            ("a[1", "without ']'"),
            ("a[x]", "expected an index"),
            ("a[-1]", "expected an index"),
        ] {
            let error = text.parse::<VariantPath>().unwrap_err().to_string();
            assert!(error.contains(why), "{text}: {error}");
        }
    }
}
