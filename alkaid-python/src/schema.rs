//! `alkaid.Field` and `alkaid.Schema` (with `alkaid.DataType` in `datatype.rs`): Alkaid's
//! schema types, each an `__arrow_c_schema__` producer, each made from any producer by
//! `from_arrow`.

use std::collections::HashMap;
use std::sync::Arc;

use alkaid_schema::{Field, Metadata, Schema, SchemaRef};
use pyo3::exceptions::{PyIndexError, PyKeyError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::capsule::{import_field_from, schema_capsule, schema_field, schema_of};
use crate::datatype::{PyDataType, data_type_of};

/// `metadata` as a Python dict.
fn metadata_map(metadata: &Metadata) -> HashMap<String, String> {
    metadata
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A named, typed column of a schema.
#[pyclass(name = "Field", module = "alkaid", frozen, eq)]
#[derive(Debug, Clone, PartialEq)]
pub struct PyField(pub Field);

#[pymethods]
impl PyField {
    /// A field named `name` of `type`.
    #[new]
    #[pyo3(signature = (name, r#type, nullable = true))]
    fn new(name: &str, r#type: &Bound<'_, PyAny>, nullable: bool) -> PyResult<Self> {
        Ok(Self(Field::new(name, data_type_of(r#type)?, nullable)))
    }

    /// The field of any `__arrow_c_schema__` producer.
    #[staticmethod]
    fn from_arrow(object: &Bound<'_, PyAny>) -> PyResult<Self> {
        import_field_from(object).map(Self)
    }

    /// The field's name.
    #[getter]
    fn name(&self) -> String {
        self.0.name().to_string()
    }

    /// The field's type.
    #[getter]
    fn r#type(&self) -> PyDataType {
        PyDataType(self.0.data_type().clone())
    }

    /// Whether the field may hold nulls.
    #[getter]
    fn nullable(&self) -> bool {
        self.0.is_nullable()
    }

    /// The field's metadata.
    #[getter]
    fn metadata(&self) -> HashMap<String, String> {
        metadata_map(self.0.metadata())
    }

    fn __repr__(&self) -> String {
        format!(
            "alkaid.Field({:?}: {}{})",
            self.0.name(),
            self.0.data_type(),
            if self.0.is_nullable() {
                ""
            } else {
                " not null"
            }
        )
    }

    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.0)
    }
}

/// The schema of a record batch: its fields and metadata.
#[pyclass(name = "Schema", module = "alkaid", frozen, eq)]
#[derive(Debug, Clone, PartialEq)]
pub struct PySchema(pub SchemaRef);

#[pymethods]
impl PySchema {
    /// A schema of `fields` (Alkaid fields or any `__arrow_c_schema__` producers).
    #[new]
    #[pyo3(signature = (fields, metadata = None))]
    fn new(
        fields: Vec<Bound<'_, PyAny>>,
        metadata: Option<HashMap<String, String>>,
    ) -> PyResult<Self> {
        let fields = fields
            .iter()
            .map(|f| match f.cast::<PyField>() {
                Ok(ours) => Ok(ours.get().0.clone()),
                Err(_) => import_field_from(f),
            })
            .collect::<PyResult<Vec<Field>>>()?;
        let schema =
            Schema::new(fields).with_metadata(metadata.unwrap_or_default().into_iter().collect());
        Ok(Self(Arc::new(schema)))
    }

    /// The schema of any `__arrow_c_schema__` producer of a struct (a pyarrow schema).
    #[staticmethod]
    fn from_arrow(object: &Bound<'_, PyAny>) -> PyResult<Self> {
        schema_of(&import_field_from(object)?).map(Self)
    }

    /// The fields, in order.
    #[getter]
    fn fields(&self) -> Vec<PyField> {
        self.0
            .fields()
            .iter()
            .map(|f| PyField(f.as_ref().clone()))
            .collect()
    }

    /// The fields' names, in order.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.0
            .fields()
            .iter()
            .map(|f| f.name().to_string())
            .collect()
    }

    /// The schema's metadata.
    #[getter]
    fn metadata(&self) -> HashMap<String, String> {
        metadata_map(self.0.metadata())
    }

    /// The field at position `key` (an int) or named `key` (a str).
    fn field(&self, key: &Bound<'_, PyAny>) -> PyResult<PyField> {
        if let Ok(i) = key.extract::<usize>() {
            return self
                .0
                .fields()
                .get(i)
                .map(|f| PyField(f.as_ref().clone()))
                .ok_or_else(|| PyIndexError::new_err(format!("no field {i}")));
        }
        let name: String = key.extract()?;
        self.0
            .fields()
            .iter()
            .find(|f| f.name() == name.as_str())
            .map(|f| PyField(f.as_ref().clone()))
            .ok_or_else(|| PyKeyError::new_err(format!("no field named {name:?}")))
    }

    fn __len__(&self) -> usize {
        self.0.fields().len()
    }

    fn __repr__(&self) -> String {
        let fields: Vec<String> = self
            .0
            .fields()
            .iter()
            .map(|f| format!("{}: {}", f.name(), f.data_type()))
            .collect();
        format!("alkaid.Schema({})", fields.join(", "))
    }

    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &schema_field(&self.0))
    }
}
