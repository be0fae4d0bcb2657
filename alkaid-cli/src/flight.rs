//! `get` and `put`: a flight fetched from an Arrow Flight server to a file (or printed),
//! or a file uploaded, through alkaid-flight (`serve` is `serve.rs`).

use std::path::PathBuf;

use alkaid_array::RecordBatch;
use alkaid_array::display::pretty_format_batches;
use alkaid_flight::{ClientOptions, FlightClient, FlightDescriptor};
use alkaid_ipc::WriteOptions;
use futures_util::{TryStreamExt, stream};

use crate::failure::Failure;
use crate::input::Input;
use crate::output::{Output, Sink};
use crate::progress;

/// How to reach a Flight server: its token and the CA its TLS certificate comes from.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Connection {
    /// Sends `authorization: Bearer TOKEN` with every call.
    #[arg(long)]
    pub token: Option<String>,
    /// Trusts this CA certificate (PEM) for a `grpc+tls://` server.
    #[arg(long)]
    pub tls_ca: Option<PathBuf>,
    /// Obtains the server's token by a basic-auth handshake with `USER:PASSWORD`.
    #[arg(long, value_name = "USER:PASSWORD", conflicts_with = "token")]
    pub basic: Option<String>,
    /// Presents this client certificate (PEM) to a server that asks for one; needs
    /// --tls-key.
    #[arg(long, requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(long, requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
}

/// `USER:PASSWORD` split.
pub(crate) fn credentials(basic: &str) -> Result<(&str, &str), Failure> {
    basic
        .split_once(':')
        .ok_or_else(|| Failure::new("--basic takes USER:PASSWORD"))
}

/// The runtime the Flight commands run on.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::new(format!("starting the runtime: {e}")))
}

/// The bytes of `path` (a certificate, a key).
pub(crate) fn read(path: &PathBuf) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| Failure::new(format!("{}: {e}", path.display())))
}

async fn connect(uri: &str, connection: &Connection) -> Result<FlightClient, Failure> {
    let mut options = ClientOptions::default();
    if let Some(token) = &connection.token {
        options = options.with_token(token.clone());
    }
    if let Some(ca) = &connection.tls_ca {
        options = options.with_tls(read(ca)?, None);
    }
    if let (Some(cert), Some(key)) = (&connection.tls_cert, &connection.tls_key) {
        options = options.with_identity(read(cert)?, read(key)?);
    }
    let failed = |e: alkaid_flight::FlightError| Failure::new(format!("{uri}: {e}"));
    let mut client = FlightClient::connect_with(uri, options)
        .await
        .map_err(failed)?;
    if let Some(basic) = &connection.basic {
        let (user, password) = credentials(basic)?;
        client
            .authenticate_basic(user, password)
            .await
            .map_err(failed)?;
    }
    Ok(client)
}

/// Fetches flight `name` from `uri`: into the IPC file `out` (its form and path), or
/// printed as a table.
pub fn get(
    uri: &str,
    name: &str,
    out: Option<(Output, String)>,
    connection: Connection,
) -> Result<(), Failure> {
    runtime()?.block_on(async {
        let mut client = connect(uri, &connection).await?;
        let failed = |e: alkaid_flight::FlightError| Failure::new(format!("{uri} {name}: {e}"));
        let mut batches = client.do_get(name.as_bytes()).await.map_err(failed)?;
        let schema = batches.read_schema().await.map_err(failed)?;
        match out {
            Some((output, path)) => {
                let mut sink = Sink::create(&path, schema, output, WriteOptions::default())?;
                let (mut count, mut rows) = (0usize, 0usize);
                let mut report = progress::Report::new("fetching");
                while let Some(batch) = batches.try_next().await.map_err(failed)? {
                    rows += batch.num_rows();
                    count += 1;
                    sink.write(&batch, &Default::default())?;
                    report.batch(&batch);
                }
                drop(report);
                sink.finish(None)?;
                let form = output.describe();
                println!("{name}: {count} batches, {rows} rows written to {path} ({form})");
            }
            None => {
                let read: Vec<RecordBatch> = batches.try_collect().await.map_err(failed)?;
                println!("{}", pretty_format_batches(&read, None));
            }
        }
        Ok(())
    })
}

/// Uploads `file` (an IPC file or stream, or `-`) to `uri` as flight `name`.
pub fn put(uri: &str, file: &str, name: &str, connection: Connection) -> Result<(), Failure> {
    let mut input = Input::open(file, &Default::default())?;
    let schema = input.schema();
    let batches: Vec<RecordBatch> = input
        .batches()
        .map(|b| b.map(|(batch, _)| batch))
        .collect::<Result<_, _>>()?;
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    let count = batches.len();
    runtime()?.block_on(async {
        let mut client = connect(uri, &connection).await?;
        let mut report = progress::Report::new("uploading");
        let upload = stream::iter(batches.into_iter().map(move |batch| {
            // Counted as the client takes it to send (the sending is a batch behind).
            report.batch(&batch);
            Ok((batch, Default::default()))
        }));
        client
            .do_put(FlightDescriptor::path([name]), schema, upload)
            .await
            .map_err(|e| Failure::new(format!("{uri} {name}: {e}")))?;
        println!("{name}: {count} batches, {rows} rows uploaded");
        Ok(())
    })
}
