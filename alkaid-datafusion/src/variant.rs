//! Alkaid's Variant kernels as SQL functions: `variant_get`, `try_variant_get`,
//! `variant_type`, `is_variant_null`, `parse_json` and `variant_to_json`.
//!
//! A Variant column is a struct of `metadata` and `value` (shredded columns too), as the
//! Parquet reader gives it; the functions run alkaid-compute's kernels on it through the
//! bridge, without copying. The type of `variant_get(v, path, type)` comes from its third
//! argument, a text literal: Alkaid's type notation (`Int64`, `Utf8`,
//! `Decimal128(10, 2)`, `Timestamp(µs, "UTC")`) or a SQL name (`BIGINT`, `VARCHAR`,
//! `DOUBLE`, …).

use std::sync::Arc;

use alkaid_array::variant::{Variant, VariantArray, VariantPath, variant_to_json};
use alkaid_array::{AsArray, StructArray};
use alkaid_arrow::arrow59::{array_from_arrow, array_to_arrow, data_type_to_arrow};
use alkaid_compute::CastOptions;
use alkaid_compute::variant::{is_variant_null, variant_get, variant_type};
use alkaid_schema::DataType;
use alkaid_schema::extension::ParquetVariant;
use datafusion::arrow::datatypes::{DataType as ArrowType, Field, FieldRef};
use datafusion::common::{DataFusionError, Result, ScalarValue, exec_err, plan_err};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    TypeSignature, Volatility,
};
use datafusion::prelude::SessionContext;

/// Registers the Variant functions in `ctx`:
///
/// | function | gives |
/// | --- | --- |
/// | `variant_get(v, path)` | the Variant at `path` (`'$.a.b[2]'`), null where there is none |
/// | `variant_get(v, path, type)` | that value cast to `type`; an error names a row that does not convert |
/// | `try_variant_get(v, path[, type])` | the same, null where a value does not convert |
/// | `variant_type(v)` | the value's type in the spec's words (`int64`, `string`, `object`, …) |
/// | `is_variant_null(v)` | whether the value is Variant null |
/// | `parse_json(text)` | the Variant of JSON text |
/// | `variant_to_json(v)` | the JSON text of a Variant |
///
/// ```
/// use alkaid_datafusion::register_variant_functions;
/// use datafusion::arrow::array::AsArray;
/// use datafusion::arrow::datatypes::Int64Type;
/// use datafusion::prelude::SessionContext;
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
/// let ctx = SessionContext::new();
/// register_variant_functions(&ctx);
/// let sql = r#"SELECT variant_get(parse_json('{"a": [1, 20]}'), '$.a[1]', 'BIGINT') AS n"#;
/// let batches = ctx.sql(sql).await?.collect().await?;
/// assert_eq!(batches[0].column(0).as_primitive::<Int64Type>().value(0), 20);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn register_variant_functions(ctx: &SessionContext) {
    for kind in [
        Kind::Get { safe: false },
        Kind::Get { safe: true },
        Kind::Type,
        Kind::IsNull,
        Kind::ParseJson,
        Kind::ToJson,
    ] {
        ctx.register_udf(ScalarUDF::new_from_impl(VariantFunction::new(kind)));
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Get { safe: bool },
    Type,
    IsNull,
    ParseJson,
    ToJson,
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct VariantFunction {
    kind: Kind,
    signature: Signature,
}

impl VariantFunction {
    fn new(kind: Kind) -> Self {
        let signature = match kind {
            Kind::Get { .. } => Signature::one_of(
                vec![TypeSignature::Any(2), TypeSignature::Any(3)],
                Volatility::Immutable,
            ),
            Kind::ParseJson => Signature::string(1, Volatility::Immutable),
            _ => Signature::any(1, Volatility::Immutable),
        };
        Self { kind, signature }
    }
}

/// The field of a Variant column, annotated as the extension.
fn variant_field(name: &str) -> Field {
    let storage = data_type_to_arrow(&ParquetVariant::storage_type());
    Field::new(name, storage, true).with_metadata(
        [
            (
                "ARROW:extension:name".to_string(),
                "arrow.parquet.variant".to_string(),
            ),
            ("ARROW:extension:metadata".to_string(), String::new()),
        ]
        .into(),
    )
}

/// The type a text literal names: Alkaid's notation, or a SQL name.
fn named_type(text: &str) -> Result<DataType> {
    if let Ok(data_type) = text.parse::<DataType>() {
        return Ok(data_type);
    }
    let sql = match text.trim().to_ascii_uppercase().as_str() {
        "BOOLEAN" | "BOOL" => DataType::Boolean,
        "TINYINT" => DataType::Int8,
        "SMALLINT" => DataType::Int16,
        "INT" | "INTEGER" => DataType::Int32,
        "BIGINT" => DataType::Int64,
        "REAL" | "FLOAT" => DataType::Float32,
        "DOUBLE" => DataType::Float64,
        "VARCHAR" | "TEXT" | "STRING" => DataType::Utf8,
        "BYTEA" | "BINARY" | "VARBINARY" => DataType::Binary,
        "DATE" => DataType::Date32,
        "TIMESTAMP" => DataType::Timestamp(alkaid_schema::TimeUnit::Microsecond, None),
        "TIMESTAMPTZ" => {
            DataType::Timestamp(alkaid_schema::TimeUnit::Microsecond, Some("UTC".into()))
        }
        _ => {
            return plan_err!(
                "variant_get: {text:?} is not a type (Int64, Utf8, BIGINT, VARCHAR, …)"
            );
        }
    };
    Ok(sql)
}

/// The text literal of argument `i`, when it is one.
fn literal(args: &ReturnFieldArgs, i: usize) -> Option<String> {
    match args.scalar_arguments.get(i).copied().flatten() {
        Some(
            ScalarValue::Utf8(Some(s))
            | ScalarValue::LargeUtf8(Some(s))
            | ScalarValue::Utf8View(Some(s)),
        ) => Some(s.clone()),
        _ => None,
    }
}

fn scalar_text(value: &ColumnarValue, what: &str) -> Result<String> {
    match value {
        ColumnarValue::Scalar(
            ScalarValue::Utf8(Some(s))
            | ScalarValue::LargeUtf8(Some(s))
            | ScalarValue::Utf8View(Some(s)),
        ) => Ok(s.clone()),
        _ => exec_err!("variant_get's {what} must be a text literal"),
    }
}

fn failed(e: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Execution(e.to_string())
}

impl ScalarUDFImpl for VariantFunction {
    fn name(&self) -> &str {
        match self.kind {
            Kind::Get { safe: false } => "variant_get",
            Kind::Get { safe: true } => "try_variant_get",
            Kind::Type => "variant_type",
            Kind::IsNull => "is_variant_null",
            Kind::ParseJson => "parse_json",
            Kind::ToJson => "variant_to_json",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[ArrowType]) -> Result<ArrowType> {
        // `return_field_from_args` answers; this is what it answers without literals.
        Ok(match self.kind {
            Kind::Type | Kind::ToJson => ArrowType::Utf8,
            Kind::IsNull => ArrowType::Boolean,
            Kind::Get { .. } if arg_types.len() == 3 => {
                return plan_err!("{} is typed by its third argument, a literal", self.name());
            }
            Kind::Get { .. } | Kind::ParseJson => variant_field("").data_type().clone(),
        })
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let name = self.name();
        Ok(Arc::new(match self.kind {
            Kind::Get { .. } if args.arg_fields.len() == 3 => {
                let Some(text) = literal(&args, 2) else {
                    return plan_err!("{name}'s type must be a text literal");
                };
                Field::new(name, data_type_to_arrow(&named_type(&text)?), true)
            }
            Kind::Get { .. } | Kind::ParseJson => variant_field(name),
            Kind::Type | Kind::ToJson => Field::new(name, ArrowType::Utf8, true),
            Kind::IsNull => Field::new(name, ArrowType::Boolean, true),
        }))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let input = args.args[0].to_array(rows)?;
        let input = array_from_arrow(input.as_ref()).map_err(failed)?;
        let output = match self.kind {
            Kind::Get { safe } => {
                let path: VariantPath = scalar_text(&args.args[1], "path")?
                    .parse()
                    .map_err(failed)?;
                let as_type = match args.args.get(2) {
                    Some(text) => Some(named_type(&scalar_text(text, "type")?)?),
                    None => None,
                };
                let options = if safe {
                    CastOptions::SAFE
                } else {
                    CastOptions::STRICT
                };
                variant_get(input.as_ref(), &path, as_type.as_ref(), options).map_err(failed)?
            }
            Kind::Type => variant_type(input.as_ref()).map_err(failed)?,
            Kind::IsNull => Arc::new(is_variant_null(input.as_ref()).map_err(failed)?),
            Kind::ParseJson => {
                let texts =
                    alkaid_compute::cast(input.as_ref(), &DataType::Utf8, CastOptions::STRICT)
                        .map_err(failed)?;
                let column =
                    VariantArray::from_json(texts.as_string::<i32>().iter()).map_err(failed)?;
                Arc::new(column.storage().clone())
            }
            Kind::ToJson => {
                let storage = input
                    .as_any()
                    .downcast_ref::<StructArray>()
                    .ok_or_else(|| {
                        failed(format!(
                            "variant_to_json takes a Variant column, found {}",
                            input.data_type()
                        ))
                    })?;
                let variants = VariantArray::try_new(storage).map_err(failed)?;
                let root = VariantPath::default();
                // The columns resolved once, not per row.
                let texts: Vec<Option<String>> = variants
                    .iter_at(&root)
                    .map_err(failed)?
                    .map(|row| {
                        row?.map(|(metadata, value)| {
                            variant_to_json(Variant::try_new(metadata, &value)?)
                        })
                        .transpose()
                    })
                    .collect::<Result<_, _>>()
                    .map_err(failed)?;
                Arc::new(
                    texts
                        .iter()
                        .map(Option::as_deref)
                        .collect::<alkaid_array::StringArray>(),
                )
            }
        };
        Ok(ColumnarValue::Array(array_to_arrow(output.as_ref())))
    }
}
