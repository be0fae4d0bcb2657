//! A table over files whose schemas differ (a column added later, one left out, another
//! order, a narrower type): each file's columns are taken by name, a column the file lacks
//! is read as nulls, and one of another type is cast to the table's, as DataFusion's own
//! readers do under the merged schema.

use std::sync::Arc;

use alkaid_array::{ArrayRef, RecordBatch};
use alkaid_arrow::arrow59::{array_from_arrow, data_type_from_arrow};
use alkaid_compute::{CastOptions, cast};
use alkaid_schema::{Field, Schema, SchemaRef};
use datafusion::arrow::array::new_null_array;
use datafusion::arrow::datatypes::{DataType as ArrowType, Schema as ArrowSchema};
use datafusion::common::Result;

/// What a batch or a filter failed with.
type ScanError = Box<dyn std::error::Error + Send + Sync>;

/// The columns a scan reads, by name, with the table's type of each: the schema every
/// batch is conformed to (all nullable: a file may lack any of them), made once.
#[derive(Debug, Clone)]
pub(crate) struct TableColumns {
    schema: SchemaRef,
    names: Vec<String>,
    arrow_types: Vec<ArrowType>,
}

impl TableColumns {
    /// The columns `names` of the table whose file schema is `table`.
    pub fn new(table: &ArrowSchema, names: Vec<String>) -> Result<Self> {
        let mut fields = Vec::with_capacity(names.len());
        let mut arrow_types = Vec::with_capacity(names.len());
        for name in &names {
            let arrow_type = table.field_with_name(name)?.data_type().clone();
            let data_type = data_type_from_arrow(&arrow_type)
                .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
            fields.push(Field::new(name.as_str(), data_type, true));
            arrow_types.push(arrow_type);
        }
        Ok(Self {
            schema: Arc::new(Schema::new(fields)),
            names,
            arrow_types,
        })
    }

    /// The names, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// `batch` (a file's, with those of the names the file has) as the table's columns:
    /// each name in order, the file's column cast to the table's type where it differs,
    /// nulls where the file has none. A batch that has them all already passes as it is.
    pub fn conform(&self, batch: RecordBatch) -> std::result::Result<RecordBatch, ScanError> {
        let fields = self.schema.fields();
        let same = batch.schema().fields().len() == fields.len()
            && batch
                .schema()
                .fields()
                .iter()
                .zip(fields.iter())
                .all(|(a, b)| a.name() == b.name() && a.data_type() == b.data_type());
        if same {
            return Ok(batch);
        }
        let rows = batch.num_rows();
        let schema = batch.schema().clone();
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(fields.len());
        for (field, arrow_type) in fields.iter().zip(&self.arrow_types) {
            let (name, data_type) = (field.name(), field.data_type());
            let column = match schema.index_of(name) {
                Ok(i) if batch.column(i).data_type() == data_type => batch.column(i).clone(),
                Ok(i) => cast(batch.column(i).as_ref(), data_type, CastOptions::SAFE)
                    .map_err(|e| format!("column {name:?}: {e}"))?,
                // Made as arrow-rs makes it (one shared zeroed buffer), then shared.
                Err(_) => array_from_arrow(new_null_array(arrow_type, rows).as_ref())?,
            };
            columns.push(column);
        }
        Ok(RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &alkaid_array::RecordBatchOptions {
                num_rows: Some(rows),
                check_nullability: false,
            },
        )?)
    }
}

/// `merged` (the files' schemas merged), with every field that some file lacks made
/// nullable: those files read as nulls there.
pub(crate) fn nullable_where_missing(merged: ArrowSchema, files: &[ArrowSchema]) -> ArrowSchema {
    let fields: Vec<_> = merged
        .fields()
        .iter()
        .map(|field| {
            let missing = files
                .iter()
                .any(|file| file.field_with_name(field.name()).is_err());
            match missing && !field.is_nullable() {
                true => Arc::new(field.as_ref().clone().with_nullable(true)),
                false => Arc::clone(field),
            }
        })
        .collect();
    ArrowSchema::new_with_metadata(fields, merged.metadata().clone())
}

#[cfg(test)]
mod tests {
    use alkaid_array::{Int32Array, Int64Array, StringArray};
    use datafusion::arrow::datatypes::Field as ArrowField;

    use alkaid_schema::DataType;

    use super::*;

    #[test]
    fn missing_columns_are_nulls_and_other_types_are_cast() {
        let table = ArrowSchema::new(vec![
            ArrowField::new("id", ArrowType::Int64, false),
            ArrowField::new("added", ArrowType::Utf8, true),
        ]);
        let columns = TableColumns::new(&table, vec!["added".into(), "id".into()]).unwrap();
        // An older file: `id` as Int32, no `added`.
        let old = Arc::new(Schema::new(vec![Field::new("id", DataType::Int32, false)]));
        let id: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
        let batch = RecordBatch::try_new(old, vec![id]).unwrap();
        let conformed = columns.conform(batch).unwrap();
        assert_eq!(conformed.num_rows(), 3);
        let added = conformed.column(0);
        assert_eq!(
            (added.data_type(), added.null_count()),
            (&DataType::Utf8, 3)
        );
        let id = conformed.column(1);
        let id = id.as_any().downcast_ref::<Int64Array>().unwrap();
        assert_eq!(id.values().to_vec(), [1, 2, 3]);
        // A newer file, columns in another order: taken by name.
        let new = Arc::new(Schema::new(vec![
            Field::new("added", DataType::Utf8, true),
            Field::new("id", DataType::Int64, false),
        ]));
        let batch = RecordBatch::try_new(
            new,
            vec![
                Arc::new(StringArray::from(vec!["x"])),
                Arc::new(Int64Array::from(vec![9])),
            ],
        )
        .unwrap();
        let conformed = columns.conform(batch).unwrap();
        assert_eq!(conformed.column(0).null_count(), 0);
    }

    #[test]
    fn a_field_some_file_lacks_becomes_nullable() {
        let a = ArrowSchema::new(vec![ArrowField::new("x", ArrowType::Int32, false)]);
        let b = ArrowSchema::new(vec![
            ArrowField::new("x", ArrowType::Int32, false),
            ArrowField::new("y", ArrowType::Int32, false),
        ]);
        let merged = ArrowSchema::try_merge([a.clone(), b.clone()]).unwrap();
        let merged = nullable_where_missing(merged, &[a, b]);
        assert!(!merged.field_with_name("x").unwrap().is_nullable());
        assert!(merged.field_with_name("y").unwrap().is_nullable());
    }
}
