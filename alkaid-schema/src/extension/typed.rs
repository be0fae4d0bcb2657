//! A field's canonical extension type as one typed value.

use super::{
    Bool8, ExtensionRegistry, FixedShapeTensor, Json, Opaque, ParquetVariant, TimestampWithOffset,
    Uuid, VariableShapeTensor,
};
use crate::{Field, SchemaError};

/// The canonical extension type of a field, with its parameters.
///
/// ```
/// use alkaid_schema::extension::{CanonicalExtension, FixedShapeTensor, Namespace};
/// use alkaid_schema::{DataType, Field};
///
/// let tensor = FixedShapeTensor::try_new(DataType::Int8, vec![2, 2], None, None)?;
/// let field = Field::new("t", tensor.storage_type(), false)
///     .with_extension_type(&tensor, Namespace::Arrow)?;
/// match CanonicalExtension::of(&field)? {
///     Some(CanonicalExtension::FixedShapeTensor(t)) => assert_eq!(t.shape(), &[2, 2]),
///     other => panic!("{other:?}"),
/// }
/// assert_eq!(CanonicalExtension::of(&Field::new("x", DataType::Int8, true))?, None);
/// # Ok::<(), alkaid_schema::SchemaError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CanonicalExtension {
    /// `arrow.uuid`.
    Uuid,
    /// `arrow.json`.
    Json,
    /// `arrow.bool8`.
    Bool8,
    /// `arrow.fixed_shape_tensor`.
    FixedShapeTensor(FixedShapeTensor),
    /// `arrow.variable_shape_tensor`.
    VariableShapeTensor(VariableShapeTensor),
    /// `arrow.opaque`.
    Opaque(Opaque),
    /// `arrow.parquet.variant`.
    ParquetVariant,
    /// `arrow.timestamp_with_offset`.
    TimestampWithOffset,
}

impl CanonicalExtension {
    /// The canonical extension type `field` is annotated with: `None` when it has no
    /// annotation or a non-canonical one.
    ///
    /// # Errors
    /// When the annotation names a canonical type but the storage type or the description
    /// does not fit it.
    pub fn of(field: &Field) -> Result<Option<Self>, SchemaError> {
        let Some(resolved) = ExtensionRegistry::with_canonical().resolve(field)? else {
            return Ok(None);
        };
        let any = resolved.as_any();
        let typed = if any.is::<Uuid>() {
            Self::Uuid
        } else if any.is::<Json>() {
            Self::Json
        } else if any.is::<Bool8>() {
            Self::Bool8
        } else if let Some(t) = any.downcast_ref::<FixedShapeTensor>() {
            Self::FixedShapeTensor(t.clone())
        } else if let Some(t) = any.downcast_ref::<VariableShapeTensor>() {
            Self::VariableShapeTensor(t.clone())
        } else if let Some(o) = any.downcast_ref::<Opaque>() {
            Self::Opaque(o.clone())
        } else if any.is::<ParquetVariant>() {
            Self::ParquetVariant
        } else if any.is::<TimestampWithOffset>() {
            Self::TimestampWithOffset
        } else {
            unreachable!("the canonical registry holds only the types above")
        };
        Ok(Some(typed))
    }
}
