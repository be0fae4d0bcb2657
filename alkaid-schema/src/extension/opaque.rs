//! The canonical `arrow.opaque` extension type: data of a type that another system knows
//! and this one does not, carried through untouched in any storage.

use std::any::Any;
use std::sync::Arc;

use super::{ExtensionFactory, ExtensionType};
use crate::json::{parse_json, write_json_string};
use crate::{DataType, SchemaError};

const OPAQUE: &str = "arrow.opaque";

/// `arrow.opaque`: values of the type `type_name` of the system `vendor_name`, in any
/// storage type.
///
/// ```
/// use alkaid_schema::extension::{ExtensionRegistry, Namespace, Opaque};
/// use alkaid_schema::{DataType, Field};
///
/// let opaque = Opaque::new("geometry", "postgis");
/// let field = Field::new("g", DataType::Binary, true).with_extension_type(&opaque, Namespace::Arrow)?;
/// let resolved = ExtensionRegistry::with_canonical().resolve(&field)?.unwrap();
/// assert_eq!(resolved.as_any().downcast_ref::<Opaque>(), Some(&opaque));
/// # Ok::<(), alkaid_schema::SchemaError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opaque {
    type_name: String,
    vendor_name: String,
}

impl Opaque {
    /// The type `type_name` of the system `vendor_name`.
    pub fn new(type_name: impl Into<String>, vendor_name: impl Into<String>) -> Self {
        Self {
            type_name: type_name.into(),
            vendor_name: vendor_name.into(),
        }
    }

    /// The name of the type in the system that knows it.
    pub fn type_name(&self) -> &str {
        &self.type_name
    }

    /// The name of the system that knows the type.
    pub fn vendor_name(&self) -> &str {
        &self.vendor_name
    }
}

impl ExtensionType for Opaque {
    fn name(&self) -> &str {
        OPAQUE
    }

    fn metadata(&self) -> Option<String> {
        let mut out = String::from("{\"type_name\":");
        write_json_string(&mut out, &self.type_name);
        out.push_str(",\"vendor_name\":");
        write_json_string(&mut out, &self.vendor_name);
        out.push('}');
        Some(out)
    }

    fn check_storage(&self, _storage: &DataType) -> Result<(), SchemaError> {
        Ok(())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl ExtensionFactory for Opaque {
    fn name(&self) -> &str {
        OPAQUE
    }

    /// Any storage; the description must be a JSON object with the strings `type_name`
    /// and `vendor_name`.
    fn build(
        &self,
        _storage: &DataType,
        metadata: Option<&str>,
    ) -> Result<Arc<dyn ExtensionType>, SchemaError> {
        let error = |reason: String| SchemaError::Extension {
            name: OPAQUE.to_string(),
            reason,
        };
        let description =
            parse_json(metadata.unwrap_or("")).map_err(|e| error(format!("metadata: {e}")))?;
        let member = |key: &str| {
            description
                .get(key)
                .and_then(|v| v.as_str())
                .map(str::to_string)
                .ok_or_else(|| error(format!("metadata has no string {key}")))
        };
        Ok(Arc::new(Opaque::new(
            member("type_name")?,
            member("vendor_name")?,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Field;
    use crate::extension::ExtensionRegistry;

    #[test]
    fn opaque_needs_both_names() {
        let registry = ExtensionRegistry::with_canonical();
        let field = |metadata: &str| {
            Field::new("o", DataType::Null, true)
                .with_metadata_entry("ARROW:extension:name", OPAQUE)
                .with_metadata_entry("ARROW:extension:metadata", metadata)
        };
        let read = registry
            .resolve(&field(r#"{"type_name": "t \"q\"", "vendor_name": "v"}"#))
            .unwrap()
            .unwrap();
        let opaque = read.as_any().downcast_ref::<Opaque>().unwrap();
        assert_eq!((opaque.type_name(), opaque.vendor_name()), ("t \"q\"", "v"));
        assert_eq!(
            opaque.metadata().unwrap(),
            r#"{"type_name":"t \"q\"","vendor_name":"v"}"#
        );
        for (metadata, reason) in [
            (r#"{"type_name": "t"}"#, "no string vendor_name"),
            (
                r#"{"type_name": 1, "vendor_name": "v"}"#,
                "no string type_name",
            ),
            ("", "metadata: "),
        ] {
            let error = registry.resolve(&field(metadata)).unwrap_err().to_string();
            assert!(error.contains(reason), "{metadata}: {error}");
        }
    }
}
