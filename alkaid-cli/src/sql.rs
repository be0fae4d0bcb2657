//! `sql`: a query with DataFusion over IPC and Parquet files, through alkaid-datafusion's
//! providers (Alkaid's readers, with the filters evaluated, and for Parquet pruning, in
//! the scan), and over CSV and newline-delimited JSON files through DataFusion's own
//! readers; printed with Alkaid's table display.

use alkaid_array::display::pretty_format_batches;
use std::sync::Arc;

use alkaid_arrow::arrow59::{batch_from_arrow, schema_from_arrow};
use alkaid_datafusion::{open_table, register_alkaid_format, register_variant_functions};
use alkaid_ipc::WriteOptions;
use datafusion::prelude::{SessionConfig, SessionContext};

use crate::failure::Failure;
use crate::output::{Output, Sink};

/// Runs `query` with each `name=path` of `tables` registered as a table (a file, or a
/// directory of files when the path ends in `/`) of the format `alkaid_datafusion::TableFormat::of` finds, and
/// prints the result, or writes it to `output` (its form and path); Parquet's INT96
/// timestamps in microseconds when `int96_as_microseconds`.
pub fn run(
    query: &str,
    tables: &[String],
    output: Option<(Output, String)>,
    int96_as_microseconds: bool,
) -> Result<(), Failure> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::new(format!("starting the runtime: {e}")))?;
    let (schema, batches) = runtime.block_on(async {
        let mut config = SessionConfig::new();
        if int96_as_microseconds {
            // DataFusion's own option, which alkaid-datafusion's Parquet tables follow.
            config.options_mut().execution.parquet.coerce_int96 = Some("us".into());
        }
        let ctx = SessionContext::new_with_config(config);
        register_alkaid_format(&ctx);
        register_variant_functions(&ctx);
        for table in tables {
            let Some((name, path)) = table.split_once('=') else {
                return Err(Failure::new(format!(
                    "--table {table:?}: expected NAME=PATH"
                )));
            };
            register(&ctx, name, path)
                .await
                .map_err(|e| Failure::new(format!("table {name}: {e}")))?;
        }
        let frame = ctx
            .sql(query)
            .await
            .map_err(|e| Failure::new(e.to_string()))?;
        let schema = frame.schema().inner().clone();
        let batches = frame
            .collect()
            .await
            .map_err(|e| Failure::new(e.to_string()))?;
        Ok((schema, batches))
    })?;
    let ours = batches
        .iter()
        .map(batch_from_arrow)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Failure::new(e.to_string()))?;
    match output {
        None => println!("{}", pretty_format_batches(&ours, None)),
        Some((output, path)) => {
            // The batches' schema, or the plan's when there are none: an empty result is a
            // file with its columns.
            let schema = match ours.first() {
                Some(batch) => batch.schema().clone(),
                None => {
                    Arc::new(schema_from_arrow(&schema).map_err(|e| Failure::new(e.to_string()))?)
                }
            };
            let mut sink = Sink::create(&path, schema, output, WriteOptions::default())?;
            for batch in &ours {
                sink.write(batch, &Default::default())?;
            }
            sink.finish(None)?;
            let rows: usize = ours.iter().map(|b| b.num_rows()).sum();
            println!("{rows} rows written to {path} ({})", output.describe());
        }
    }
    Ok(())
}

/// Registers the file or directory at `path` (a directory when it ends in `/`) as the
/// table `name`, in the format its name or its files' names say
/// ([`alkaid_datafusion::TableFormat::of`]).
async fn register(ctx: &SessionContext, name: &str, path: &str) -> datafusion::common::Result<()> {
    let table = open_table(&ctx.state(), path).await?;
    ctx.register_table(name, table)?;
    Ok(())
}
