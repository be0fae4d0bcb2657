//! Extension types: user-defined logical types carried by a built-in storage type.
//!
//! An extension type is an annotation in a field's metadata: a name, and optionally a
//! serialized description. The Alkaid spec reserves the `ALKAID:` namespace for the two keys;
//! Apache Arrow reserves `ARROW:`. Readers here recognise both (Alkaid's wins when a field has
//! both); writers pick one with [`Namespace`].
//!
//! A field whose extension is unknown is still an ordinary field of its storage type, with
//! its metadata intact, so it round-trips untouched. To give an extension meaning, implement
//! [`ExtensionType`] and an [`ExtensionFactory`] for it, and register the factory in an
//! [`ExtensionRegistry`].
//!
//! # Canonical types and their names
//! [`ExtensionRegistry::with_canonical`] knows every canonical type Arrow defines:
//! [`Uuid`], [`Json`], [`Bool8`], [`FixedShapeTensor`], [`VariableShapeTensor`],
//! [`Opaque`], [`ParquetVariant`] and [`TimestampWithOffset`] (the eight Arrow lists);
//! [`CanonicalExtension::of`] reads a field's as a typed value. Their names
//! are written as Arrow spells them (`arrow.uuid`, `arrow.fixed_shape_tensor`, ...), since
//! that is what every other implementation writes and recognises. The Alkaid specification
//! reserves the prefix `ipc.` for canonical names instead; Alkaid treats both prefixes as
//! reserved, and reads a name under `ipc.` as the canonical type of the same name under
//! `arrow.` (so `ipc.uuid` resolves to [`Uuid`]), but never writes `ipc.` names.
//!
//! # Examples
//! ```
//! use alkaid_schema::extension::{ExtensionRegistry, Namespace, Uuid};
//! use alkaid_schema::{DataType, Field};
//!
//! let field = Field::new("id", DataType::FixedSizeBinary(16), false)
//!     .with_extension_type(&Uuid, Namespace::Arrow)?;
//! assert_eq!(field.metadata().get("ARROW:extension:name"), Some("arrow.uuid"));
//!
//! let registry = ExtensionRegistry::with_canonical();
//! let resolved = registry.resolve(&field)?.expect("arrow.uuid is registered");
//! assert_eq!(resolved.name(), "arrow.uuid");
//!
//! // Unknown extensions stay plain fields of their storage type.
//! let custom = Field::new("p", DataType::Utf8, true)
//!     .with_metadata_entry("ALKAID:extension:name", "myorg.point");
//! assert_eq!(custom.extension_name(), Some("myorg.point"));
//! assert!(registry.resolve(&custom)?.is_none());
//! # Ok::<(), alkaid_schema::SchemaError>(())
//! ```

use std::any::Any;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::{DataType, Field, SchemaError};

/// Implements [`ExtensionType`] and [`ExtensionFactory`] for a canonical type without
/// parameters whose storage is checked by `$rule` (a `fn(&DataType) -> Result<(),
/// SchemaError>`) and whose description is `$metadata` (the newer canonical types write
/// it present and empty, as Arrow C++ and arrow-rs do; the older ones leave it out).
/// Defined before the modules, so that textual macro scoping reaches them.
macro_rules! canonical_with_storage_rule {
    ($ty:ident, $name:expr, $metadata:expr, $rule:expr) => {
        impl ExtensionType for $ty {
            fn name(&self) -> &str {
                $name
            }
            fn metadata(&self) -> Option<String> {
                $metadata
            }
            fn check_storage(&self, storage: &DataType) -> Result<(), SchemaError> {
                $rule(storage)
            }
            fn as_any(&self) -> &dyn Any {
                self
            }
        }

        impl ExtensionFactory for $ty {
            fn name(&self) -> &str {
                $name
            }
            fn build(
                &self,
                storage: &DataType,
                metadata: Option<&str>,
            ) -> Result<Arc<dyn ExtensionType>, SchemaError> {
                self.check_storage(storage)?;
                super::canonical::check_no_parameters($name, metadata)?;
                Ok(Arc::new(Self))
            }
        }
    };
}

mod canonical;
mod opaque;
mod tensor;
mod timestamp_with_offset;
mod typed;
mod variant;

pub use canonical::{Bool8, Json, Uuid};
pub use opaque::Opaque;
pub use tensor::{
    FixedShapeTensor, FixedShapeTensorFactory, VariableShapeTensor, VariableShapeTensorFactory,
};
pub use timestamp_with_offset::{MAX_OFFSET_MINUTES, TimestampWithOffset};
pub use typed::CanonicalExtension;
pub use variant::ParquetVariant;

/// The metadata key of an extension's name in the Alkaid namespace.
pub const ALKAID_EXTENSION_NAME: &str = "ALKAID:extension:name";
/// The metadata key of an extension's serialized description in the Alkaid namespace.
pub const ALKAID_EXTENSION_METADATA: &str = "ALKAID:extension:metadata";
/// The metadata key of an extension's name in the Arrow namespace.
pub const ARROW_EXTENSION_NAME: &str = "ARROW:extension:name";
/// The metadata key of an extension's serialized description in the Arrow namespace.
pub const ARROW_EXTENSION_METADATA: &str = "ARROW:extension:metadata";

/// The namespace of the reserved metadata keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Namespace {
    /// `ALKAID:extension:…`, the default for what Alkaid writes.
    #[default]
    Alkaid,
    /// `ARROW:extension:…`, for data that Arrow implementations should understand.
    Arrow,
}

impl Namespace {
    /// The key that holds the extension's name.
    pub fn name_key(self) -> &'static str {
        match self {
            Self::Alkaid => ALKAID_EXTENSION_NAME,
            Self::Arrow => ARROW_EXTENSION_NAME,
        }
    }

    /// The key that holds the extension's serialized description.
    pub fn metadata_key(self) -> &'static str {
        match self {
            Self::Alkaid => ALKAID_EXTENSION_METADATA,
            Self::Arrow => ARROW_EXTENSION_METADATA,
        }
    }
}

/// An extension annotation as found on a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtensionAnnotation<'a> {
    /// The extension's name.
    pub name: &'a str,
    /// Its serialized description, if the field has one.
    pub metadata: Option<&'a str>,
    /// The namespace it was found in.
    pub namespace: Namespace,
}

impl Field {
    /// The extension annotation of this field, under either namespace (Alkaid's first).
    pub fn extension_annotation(&self) -> Option<ExtensionAnnotation<'_>> {
        [Namespace::Alkaid, Namespace::Arrow]
            .into_iter()
            .find_map(|namespace| {
                let name = self.metadata().get(namespace.name_key())?;
                let metadata = self.metadata().get(namespace.metadata_key());
                Some(ExtensionAnnotation {
                    name,
                    metadata,
                    namespace,
                })
            })
    }

    /// The name of this field's extension type, under either namespace.
    pub fn extension_name(&self) -> Option<&str> {
        self.extension_annotation()
            .map(|annotation| annotation.name)
    }

    /// The same field annotated as `extension` under `namespace`, after the extension has
    /// accepted the field's type as its storage. Any earlier annotation, in either
    /// namespace, is replaced.
    ///
    /// # Errors
    /// The extension's error if it rejects the storage type.
    pub fn with_extension_type(
        self,
        extension: &dyn ExtensionType,
        namespace: Namespace,
    ) -> Result<Field, SchemaError> {
        extension.check_storage(self.data_type())?;
        let mut field = self.without_extension();
        let mut metadata = field.metadata().clone();
        metadata.insert(namespace.name_key(), extension.name());
        if let Some(serialized) = extension.metadata() {
            metadata.insert(namespace.metadata_key(), serialized);
        }
        field = field.with_metadata(metadata);
        Ok(field)
    }

    /// The same field with its extension annotation, if any, moved to `namespace`: what a
    /// writer does before writing an Arrow (or an Alkaid) file.
    pub fn with_extension_namespace(self, namespace: Namespace) -> Field {
        let Some(annotation) = self.extension_annotation() else {
            return self;
        };
        if annotation.namespace == namespace {
            return self;
        }
        let (name, serialized) = (
            annotation.name.to_string(),
            annotation.metadata.map(str::to_string),
        );
        let field = self.without_extension();
        let mut metadata = field.metadata().clone();
        metadata.insert(namespace.name_key(), name);
        if let Some(serialized) = serialized {
            metadata.insert(namespace.metadata_key(), serialized);
        }
        field.with_metadata(metadata)
    }

    /// The same field without any extension annotation: a plain field of its storage type.
    pub fn without_extension(self) -> Field {
        let mut metadata = self.metadata().clone();
        for key in [
            ALKAID_EXTENSION_NAME,
            ALKAID_EXTENSION_METADATA,
            ARROW_EXTENSION_NAME,
            ARROW_EXTENSION_METADATA,
        ] {
            metadata.remove(key);
        }
        self.with_metadata(metadata)
    }
}

/// A user-defined logical type.
pub trait ExtensionType: fmt::Debug + Send + Sync + 'static {
    /// The name written under `…:extension:name`, e.g. `myorg.point`. Names starting with
    /// `arrow.` are reserved for the canonical types.
    fn name(&self) -> &str;

    /// The serialized description written under `…:extension:metadata`, or `None` to write
    /// no such key.
    fn metadata(&self) -> Option<String>;

    /// Checks that `storage` can carry this type.
    ///
    /// # Errors
    /// [`SchemaError::Extension`] saying what storage was expected.
    fn check_storage(&self, storage: &DataType) -> Result<(), SchemaError>;

    /// The value as `Any`, to downcast to the concrete type.
    fn as_any(&self) -> &dyn Any;
}

/// Builds the extension types of one name from what a field carries.
pub trait ExtensionFactory: Send + Sync + 'static {
    /// The name this factory answers to.
    fn name(&self) -> &str;

    /// The extension type for a field of `storage` type with this serialized description.
    ///
    /// # Errors
    /// [`SchemaError::Extension`] if the storage or the description is not acceptable.
    fn build(
        &self,
        storage: &DataType,
        metadata: Option<&str>,
    ) -> Result<Arc<dyn ExtensionType>, SchemaError>;
}

/// Extension factories by name.
#[derive(Clone, Default)]
pub struct ExtensionRegistry {
    factories: HashMap<String, Arc<dyn ExtensionFactory>>,
}

impl ExtensionRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// A registry holding every canonical type: [`Uuid`], [`Json`], [`Bool8`],
    /// [`FixedShapeTensor`], [`VariableShapeTensor`], [`Opaque`], [`ParquetVariant`] and
    /// [`TimestampWithOffset`].
    pub fn with_canonical() -> Self {
        let mut registry = Self::new();
        registry.register(Uuid);
        registry.register(Json);
        registry.register(Bool8);
        registry.register(FixedShapeTensorFactory);
        registry.register(VariableShapeTensorFactory);
        registry.register(Opaque::new("", ""));
        registry.register(ParquetVariant);
        registry.register(TimestampWithOffset);
        registry
    }

    /// Adds `factory` under its name, returning the factory it replaces.
    pub fn register(
        &mut self,
        factory: impl ExtensionFactory,
    ) -> Option<Arc<dyn ExtensionFactory>> {
        self.factories
            .insert(factory.name().to_string(), Arc::new(factory))
    }

    /// The factory registered under `name`; a name under the Alkaid specification's
    /// reserved `ipc.` prefix finds the factory of the same name under `arrow.`.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn ExtensionFactory>> {
        self.factories.get(name).or_else(|| {
            let rest = name.strip_prefix("ipc.")?;
            self.factories.get(&format!("arrow.{rest}"))
        })
    }

    /// The extension type of `field`: `None` when the field has no annotation or its name is
    /// not registered (it stays a plain field of its storage type).
    ///
    /// # Errors
    /// The registered factory's error when it rejects the field's storage or description.
    pub fn resolve(&self, field: &Field) -> Result<Option<Arc<dyn ExtensionType>>, SchemaError> {
        let Some(annotation) = field.extension_annotation() else {
            return Ok(None);
        };
        match self.get(annotation.name) {
            Some(factory) => factory
                .build(field.data_type(), annotation.metadata)
                .map(Some),
            None => Ok(None),
        }
    }
}

impl fmt::Debug for ExtensionRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<_> = self.factories.keys().collect();
        names.sort();
        f.debug_struct("ExtensionRegistry")
            .field("names", &names)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canonical::storage_error;

    #[test]
    fn both_namespaces_are_recognised_and_alkaid_wins() {
        let arrow = Field::new("a", DataType::Int8, true)
            .with_metadata_entry(ARROW_EXTENSION_NAME, "x.arrow")
            .with_metadata_entry(ARROW_EXTENSION_METADATA, "m");
        let annotation = arrow.extension_annotation().unwrap();
        assert_eq!(
            (annotation.name, annotation.metadata),
            ("x.arrow", Some("m"))
        );
        assert_eq!(annotation.namespace, Namespace::Arrow);
        let both = arrow.with_metadata_entry(ALKAID_EXTENSION_NAME, "x.alkaid");
        assert_eq!(both.extension_name(), Some("x.alkaid"));
        assert_eq!(
            Field::new("b", DataType::Int8, true).extension_annotation(),
            None
        );
    }

    #[test]
    fn annotations_move_between_namespaces_intact() {
        let field = Field::new("a", DataType::Utf8, true)
            .with_metadata_entry("other", "kept")
            .with_metadata_entry(ALKAID_EXTENSION_NAME, "myorg.thing")
            .with_metadata_entry(ALKAID_EXTENSION_METADATA, "{\"v\":1}");
        let arrow = field.clone().with_extension_namespace(Namespace::Arrow);
        assert_eq!(
            arrow.metadata().get(ARROW_EXTENSION_NAME),
            Some("myorg.thing")
        );
        assert_eq!(
            arrow.metadata().get(ARROW_EXTENSION_METADATA),
            Some("{\"v\":1}")
        );
        assert!(!arrow.metadata().contains_key(ALKAID_EXTENSION_NAME));
        assert_eq!(arrow.metadata().get("other"), Some("kept"));
        assert_eq!(arrow.with_extension_namespace(Namespace::Alkaid), field);
        let plain = Field::new("p", DataType::Int8, true);
        assert_eq!(
            plain.clone().with_extension_namespace(Namespace::Arrow),
            plain
        );
    }

    #[test]
    fn canonical_types_check_storage_and_parameters() {
        let registry = ExtensionRegistry::with_canonical();
        let wrong = Field::new("u", DataType::FixedSizeBinary(8), true)
            .with_metadata_entry(ARROW_EXTENSION_NAME, "arrow.uuid");
        assert_eq!(
            registry.resolve(&wrong).unwrap_err().to_string(),
            "extension type \"arrow.uuid\": expected FixedSizeBinary(16) storage, found FixedSizeBinary(8)"
        );
        let json = Field::new("j", DataType::LargeUtf8, true)
            .with_metadata_entry(ARROW_EXTENSION_NAME, "arrow.json")
            .with_metadata_entry(ARROW_EXTENSION_METADATA, "{}");
        let resolved = registry.resolve(&json).unwrap().unwrap();
        assert!(resolved.as_any().downcast_ref::<Json>().is_some());
        let with_parameters = json.with_metadata_entry(ARROW_EXTENSION_METADATA, "{\"x\": 1}");
        assert!(registry.resolve(&with_parameters).is_err());
        assert!(
            Field::new("b", DataType::Boolean, true)
                .with_extension_type(&Bool8, Namespace::Alkaid)
                .is_err()
        );
        let bool8 = Field::new("b", DataType::Int8, true)
            .with_extension_type(&Bool8, Namespace::Alkaid)
            .unwrap();
        assert_eq!(
            bool8.metadata().get(ALKAID_EXTENSION_NAME),
            Some("arrow.bool8")
        );
        assert!(!bool8.metadata().contains_key(ALKAID_EXTENSION_METADATA));
    }

    /// A user-defined extension with parameters.
    #[derive(Debug)]
    struct Unit(String);

    impl ExtensionType for Unit {
        fn name(&self) -> &str {
            "test.unit"
        }
        fn metadata(&self) -> Option<String> {
            Some(self.0.clone())
        }
        fn check_storage(&self, storage: &DataType) -> Result<(), SchemaError> {
            if storage.is_floating() {
                Ok(())
            } else {
                Err(storage_error("test.unit", "a float", storage))
            }
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
    }

    struct UnitFactory;

    impl ExtensionFactory for UnitFactory {
        fn name(&self) -> &str {
            "test.unit"
        }
        fn build(
            &self,
            storage: &DataType,
            metadata: Option<&str>,
        ) -> Result<Arc<dyn ExtensionType>, SchemaError> {
            let unit = Unit(metadata.unwrap_or("").to_string());
            unit.check_storage(storage)?;
            Ok(Arc::new(unit))
        }
    }

    #[test]
    fn user_extensions_register_and_round_trip() {
        let mut registry = ExtensionRegistry::new();
        assert!(registry.register(UnitFactory).is_none());
        assert!(
            registry.register(UnitFactory).is_some(),
            "a second registration replaces"
        );
        let field = Field::new("t", DataType::Float64, true)
            .with_extension_type(&Unit("kelvin".into()), Namespace::Alkaid)
            .unwrap();
        let resolved = registry.resolve(&field).unwrap().unwrap();
        assert_eq!(
            resolved.as_any().downcast_ref::<Unit>().unwrap().0,
            "kelvin"
        );
        assert_eq!(
            format!("{registry:?}"),
            "ExtensionRegistry { names: [\"test.unit\"] }"
        );
        assert_eq!(field.clone().without_extension().metadata().len(), 0);
    }
}
