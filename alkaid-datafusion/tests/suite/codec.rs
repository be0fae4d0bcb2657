//! Alkaid's plan codecs: logical and physical plans over Alkaid tables, serialized with
//! `datafusion-proto` and read back in a session that has no table registered, give the
//! same rows; what the codecs write, cut short or with any byte changed, is an error or
//! a plan, never a panic.
#![cfg(feature = "proto")]

use std::sync::Arc;

use alkaid_datafusion::{
    AlkaidContextExt, AlkaidFormat, AlkaidFormatFactory, AlkaidLogicalCodec, AlkaidPhysicalCodec,
    AlkaidTable,
};
use alkaid_ipc::{Compression, Magic, WriteOptions};
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::catalog::TableProvider;
use datafusion::common::TableReference;
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::physical_plan::{ExecutionPlan, collect, displayable};
use datafusion::prelude::SessionContext;
use datafusion_proto::bytes::{
    logical_plan_from_bytes_with_extension_codec, logical_plan_to_bytes_with_extension_codec,
    physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec,
};
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::{DefaultPhysicalProtoConverter, PhysicalExtensionCodec};

use crate::tables;
use tables::{FILTERS, QUERIES, dirs, runtime, table, url};

#[test]
fn logical_plans_over_alkaid_tables_travel_and_give_the_same_rows() {
    let dirs = dirs();
    let codec = AlkaidLogicalCodec::default();
    runtime().block_on(async {
        let ctx = SessionContext::new();
        ctx.register_alkaid("t", &url(&dirs.mixed)).await.unwrap();
        // The receiving session knows no table: the plan carries it.
        let receiver = SessionContext::new();
        for query in QUERIES.iter().chain(&FILTERS) {
            let plan = ctx.sql(query).await.unwrap().into_optimized_plan().unwrap();
            let bytes = logical_plan_to_bytes_with_extension_codec(&plan, &codec).unwrap();
            let back =
                logical_plan_from_bytes_with_extension_codec(&bytes, &receiver.task_ctx(), &codec)
                    .unwrap();
            let rows = receiver.execute_logical_plan(back).await.unwrap();
            let rows = pretty_format_batches(&rows.collect().await.unwrap())
                .unwrap()
                .to_string();
            assert_eq!(rows, table(&ctx, query).await, "{query}");
        }
    });
}

#[test]
fn physical_plans_with_alkaid_scans_travel_and_give_the_same_rows() {
    let dirs = dirs();
    let codec = AlkaidPhysicalCodec::default();
    runtime().block_on(async {
        let ctx = SessionContext::new();
        ctx.register_alkaid("t", &url(&dirs.mixed)).await.unwrap();
        let receiver = SessionContext::new();
        for query in QUERIES.iter().chain(&FILTERS) {
            let plan = ctx
                .sql(query)
                .await
                .unwrap()
                .create_physical_plan()
                .await
                .unwrap();
            let bytes =
                physical_plan_to_bytes_with_extension_codec(Arc::clone(&plan), &codec).unwrap();
            let back =
                physical_plan_from_bytes_with_extension_codec(&bytes, &receiver.task_ctx(), &codec)
                    .unwrap();
            // Same plan (files, ranges, projection, limit, the scan's filters)...
            assert_eq!(shown(&back), shown(&plan), "{query}");
            // ...and same rows.
            let ours = collect(back, receiver.task_ctx()).await.unwrap();
            let theirs = collect(plan, ctx.task_ctx()).await.unwrap();
            assert_eq!(
                pretty_format_batches(&ours).unwrap().to_string(),
                pretty_format_batches(&theirs).unwrap().to_string(),
                "{query}"
            );
        }
    });
}

fn shown(plan: &Arc<dyn ExecutionPlan>) -> String {
    displayable(plan.as_ref()).indent(true).to_string()
}

#[test]
fn write_options_travel_with_the_format_and_the_table() {
    let options = WriteOptions::default()
        .with_compression(Compression::Zstd { level: 7 })
        .with_magic(Magic::Arrow)
        .with_alignment(64)
        .with_dictionary_deltas(false);
    let codec = AlkaidLogicalCodec::default();
    let ctx = SessionContext::new();
    let factory: Arc<dyn FileFormatFactory> = Arc::new(AlkaidFormatFactory::new(options.clone()));
    let mut bytes = Vec::new();
    codec.try_encode_file_format(&mut bytes, factory).unwrap();
    let back = codec
        .try_decode_file_format(&bytes, &ctx.task_ctx())
        .unwrap();
    let back = back.downcast_ref::<AlkaidFormatFactory>().unwrap();
    assert_eq!(back.write_options(), &options);

    let dirs = dirs();
    let table = alkaid_table(&url(&dirs.mixed), options.clone(), Vec::new());
    let name = TableReference::bare("t");
    let schema = table.schema();
    let mut bytes = Vec::new();
    codec
        .try_encode_table_provider(&name, Arc::new(table), &mut bytes)
        .unwrap();
    let back = codec
        .try_decode_table_provider(&bytes, &name, schema, &ctx.task_ctx())
        .unwrap();
    let back = back.downcast_ref::<AlkaidTable>().unwrap();
    assert_eq!(back.format().write_options(), &options);
    assert_eq!(
        back.paths()[0].as_str(),
        ListingTableUrl::parse(url(&dirs.mixed)).unwrap().as_str()
    );
}

/// An Alkaid table over `location` (schema read from the files), without going through
/// a session's registration.
fn alkaid_table(
    location: &str,
    write: WriteOptions,
    partitions: Vec<(String, datafusion::arrow::datatypes::DataType)>,
) -> AlkaidTable {
    let schema = runtime().block_on(async {
        let ctx = SessionContext::new();
        ctx.register_alkaid("t", location).await.unwrap();
        ctx.table_provider("t").await.unwrap().schema()
    });
    let options = ListingOptions::new(Arc::new(AlkaidFormat::with_write_options(write)))
        .with_file_extension("")
        .with_table_partition_cols(partitions);
    let config = ListingTableConfig::new(ListingTableUrl::parse(location).unwrap())
        .with_listing_options(options)
        .with_schema(schema);
    AlkaidTable::try_new(ListingTable::try_new(config).unwrap()).unwrap()
}

#[test]
fn what_cannot_travel_is_refused_when_encoding() {
    let dirs = dirs();
    let table = alkaid_table(
        &url(&dirs.mixed),
        WriteOptions::default(),
        vec![("day".into(), datafusion::arrow::datatypes::DataType::Utf8)],
    );
    let error = AlkaidLogicalCodec::default()
        .try_encode_table_provider(&TableReference::bare("t"), Arc::new(table), &mut Vec::new())
        .unwrap_err();
    assert!(error.to_string().contains("partition columns"), "{error}");

    // A listing table over another format is not an Alkaid table.
    let config = ListingTableConfig::new(ListingTableUrl::parse(url(&dirs.mixed)).unwrap())
        .with_listing_options(ListingOptions::new(Arc::new(
            datafusion::datasource::file_format::arrow::ArrowFormat,
        )))
        .with_schema(Arc::new(datafusion::arrow::datatypes::Schema::empty()));
    let error = AlkaidTable::try_new(ListingTable::try_new(config).unwrap()).unwrap_err();
    assert!(error.to_string().contains("AlkaidFormat"), "{error}");
}

/// Every prefix of `bytes`, and `bytes` with each byte in turn changed.
fn damaged(bytes: &[u8]) -> impl Iterator<Item = Vec<u8>> + '_ {
    let cut = (0..bytes.len()).map(|len| bytes[..len].to_vec());
    let changed = (0..bytes.len()).flat_map(move |i| {
        [0x00, 0xFF, 0x80, 0x01].into_iter().map(move |x| {
            let mut bytes = bytes.to_vec();
            bytes[i] ^= x.max(1);
            bytes
        })
    });
    cut.chain(changed)
}

#[test]
fn damaged_serialized_tables_and_scans_are_errors_not_panics() {
    let dirs = dirs();
    let ctx = SessionContext::new();
    let logical = AlkaidLogicalCodec::default();
    let table = alkaid_table(&url(&dirs.mixed), WriteOptions::default(), Vec::new());
    let (name, schema) = (TableReference::bare("t"), table.schema());
    let mut bytes = Vec::new();
    logical
        .try_encode_table_provider(&name, Arc::new(table), &mut bytes)
        .unwrap();
    let (mut tried, mut decoded) = (0, 0);
    for bytes in damaged(&bytes) {
        let result =
            logical.try_decode_table_provider(&bytes, &name, schema.clone(), &ctx.task_ctx());
        tried += 1;
        decoded += usize::from(result.is_ok());
    }
    // Most damage is caught; some (a changed letter in a path) still decodes.
    assert!(
        decoded * 2 < tried,
        "{decoded} of {tried} damaged tables decoded"
    );

    let physical = AlkaidPhysicalCodec::default();
    let plan = runtime().block_on(async {
        ctx.register_alkaid("t", &url(&dirs.mixed)).await.unwrap();
        let frame = ctx
            .sql("SELECT id, s FROM t WHERE g = 3 AND x > 0.5 LIMIT 5")
            .await
            .unwrap();
        frame.create_physical_plan().await.unwrap()
    });
    let scan = find_scan(&plan).expect("the plan has a scan");
    let mut bytes = Vec::new();
    physical
        .try_encode(scan, &mut bytes, &DefaultPhysicalProtoConverter {})
        .unwrap();
    assert_eq!(bytes[0], 1, "the scan is Alkaid's to encode");
    for bytes in damaged(&bytes) {
        let _ = physical.try_decode(
            &bytes,
            &[],
            &ctx.task_ctx(),
            &DefaultPhysicalProtoConverter {},
        );
    }
}

/// The leaf of `plan`.
fn find_scan(plan: &Arc<dyn ExecutionPlan>) -> Option<Arc<dyn ExecutionPlan>> {
    match plan.children().first() {
        Some(child) => find_scan(child),
        None => Some(Arc::clone(plan)),
    }
}
