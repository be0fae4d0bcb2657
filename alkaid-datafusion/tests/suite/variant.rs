//! The Variant functions in SQL (`register_variant_functions`), over a Parquet table
//! whose Variant column Alkaid wrote shredded, and over the Parquet project's own
//! shredded files: each answer equals the kernel's on the same column.

use std::path::PathBuf;
use std::sync::Arc;

use alkaid_array::variant::VariantArray;
use alkaid_array::{Array, ArrayRef, RecordBatch};
use alkaid_arrow::arrow59::array_from_arrow;
use alkaid_compute::variant::shred;
use alkaid_datafusion::{AlkaidContextExt, register_variant_functions};
use alkaid_formats::parquet;
use alkaid_schema::extension::{Namespace, ParquetVariant};
use alkaid_schema::{DataType, Field, Schema};
use datafusion::prelude::SessionContext;

use crate::tables::{runtime, url};

/// The rows of `sql`'s one column as text (null as `None`).
async fn column(ctx: &SessionContext, sql: &str) -> Vec<Option<String>> {
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    let mut out = Vec::new();
    for batch in batches {
        let column = array_from_arrow(batch.column(0).as_ref()).unwrap();
        for i in 0..column.len() {
            out.push(
                column
                    .is_valid(i)
                    .then(|| alkaid_array::display::format_value(column.as_ref(), i)),
            );
        }
    }
    out
}

#[test]
fn variant_functions_in_sql_over_a_shredded_parquet_table() {
    let rows = [
        Some(r#"{"id": 1, "name": "ada", "tags": ["x", "y"]}"#),
        Some(r#"{"id": "two", "name": null}"#),
        None,
        Some(r#"{"id": 3000000000, "extra": {"deep": [1, {"er": true}]}}"#),
        Some("[1, 2]"),
    ];
    let variants = VariantArray::from_json(rows).unwrap();
    let shape = DataType::Struct(
        vec![
            Field::new("id", DataType::Int64, true),
            Field::new("name", DataType::Utf8, true),
        ]
        .into(),
    );
    let shredded = shred(variants.storage(), &shape).unwrap();
    let field = Field::new("v", shredded.data_type().clone(), true)
        .with_extension_type(&ParquetVariant, Namespace::Arrow)
        .unwrap();
    let schema = Arc::new(Schema::new(vec![field]));
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(shredded) as ArrayRef]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    parquet::write(
        dir.path().join("v.parquet"),
        schema,
        vec![batch],
        &Default::default(),
    )
    .unwrap();

    runtime().block_on(async {
        let ctx = SessionContext::new();
        register_variant_functions(&ctx);
        ctx.register_alkaid_parquet("t", &url(dir.path()))
            .await
            .unwrap();
        let text = |v: &[Option<&str>]| v.iter().map(|s| s.map(String::from)).collect::<Vec<_>>();
        assert_eq!(
            column(&ctx, "SELECT try_variant_get(v, '$.id', 'BIGINT') FROM t").await,
            text(&[Some("1"), None, None, Some("3000000000"), None])
        );
        let error = ctx
            .sql("SELECT variant_get(v, '$.id', 'Int64') FROM t")
            .await
            .unwrap()
            .collect()
            .await
            .unwrap_err()
            .to_string();
        assert!(error.contains("\"two\" is not a Int64"), "{error}");
        assert_eq!(
            column(&ctx, "SELECT variant_type(v) FROM t").await,
            text(&[
                Some("object"),
                Some("object"),
                None,
                Some("object"),
                Some("array")
            ])
        );
        assert_eq!(
            column(
                &ctx,
                "SELECT is_variant_null(variant_get(v, 'name')) FROM t"
            )
            .await,
            text(&[Some("false"), Some("true"), None, None, None])
        );
        assert_eq!(
            column(
                &ctx,
                "SELECT variant_to_json(variant_get(v, 'extra.deep[1]')) FROM t"
            )
            .await,
            text(&[None, None, None, Some(r#"{"er":true}"#), None])
        );
        assert_eq!(
            column(&ctx, "SELECT variant_to_json(v) FROM t").await,
            text(&[
                Some(r#"{"id":1,"name":"ada","tags":["x","y"]}"#),
                Some(r#"{"id":"two","name":null}"#),
                None,
                Some(r#"{"extra":{"deep":[1,{"er":true}]},"id":3000000000}"#),
                Some("[1,2]"),
            ])
        );
        assert_eq!(
            column(
                &ctx,
                "SELECT count(*) FROM t WHERE try_variant_get(v, 'tags[0]', 'VARCHAR') = 'x'"
            )
            .await,
            text(&[Some("1")])
        );
        let error = ctx
            .sql("SELECT variant_get(v, 'id', 'NOPE') FROM t")
            .await
            .unwrap_err()
            .to_string();
        assert!(error.contains("\"NOPE\" is not a type"), "{error}");
    });
}

/// The Parquet project's shredded files answer in SQL as the kernel reads them.
#[test]
fn the_parquet_corpus_shredded_files_in_sql() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../alkaid-formats/tests/parquet-testing/shredded_variant");
    runtime().block_on(async {
        for (case, expected, b) in [
            ("case-046.parquet", r#"{"a":null,"b":""}"#, ""),
            (
                "case-134.parquet",
                r#"{"a":null,"b":"iceberg","d":"2024-01-30"}"#,
                "iceberg",
            ),
        ] {
            let ctx = SessionContext::new();
            register_variant_functions(&ctx);
            let dir = tempfile::tempdir().unwrap();
            std::fs::copy(corpus.join(case), dir.path().join(case)).unwrap();
            ctx.register_alkaid_parquet("t", &url(dir.path()))
                .await
                .unwrap();
            let json = column(&ctx, "SELECT variant_to_json(var) FROM t").await;
            assert_eq!(json, [Some(expected.to_string())], "{case}");
            let found = column(&ctx, "SELECT try_variant_get(var, 'b', 'VARCHAR') FROM t").await;
            assert_eq!(found, [Some(b.to_string())], "{case}");
        }
    });
}
