//! `sql`: a query over IPC files with DataFusion, through alkaid-datafusion's provider,
//! printed with Alkaid's table display.

use alkaid_array::display::pretty_format_batches;
use alkaid_arrow::arrow59::batch_from_arrow;
use alkaid_datafusion::{AlkaidContextExt, register_alkaid_format};
use datafusion::prelude::SessionContext;

use crate::failure::Failure;

/// Runs `query` with each `name=path` of `tables` registered as an Alkaid table (a file,
/// or a directory of files when the path ends in `/`), and prints the result.
pub fn run(query: &str, tables: &[String]) -> Result<(), Failure> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::new(format!("starting the runtime: {e}")))?;
    let batches = runtime.block_on(async {
        let ctx = SessionContext::new();
        register_alkaid_format(&ctx);
        for table in tables {
            let Some((name, path)) = table.split_once('=') else {
                return Err(Failure::new(format!(
                    "--table {table:?}: expected NAME=PATH"
                )));
            };
            ctx.register_alkaid(name, path)
                .await
                .map_err(|e| Failure::new(format!("table {name}: {e}")))?;
        }
        let frame = ctx
            .sql(query)
            .await
            .map_err(|e| Failure::new(e.to_string()))?;
        frame
            .collect()
            .await
            .map_err(|e| Failure::new(e.to_string()))
    })?;
    let ours = batches
        .iter()
        .map(batch_from_arrow)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Failure::new(e.to_string()))?;
    println!("{}", pretty_format_batches(&ours, None));
    Ok(())
}
