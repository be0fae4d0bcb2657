//! `serve`, `get` and `put`: the directory of IPC files as an Arrow Flight service, and a
//! flight fetched to a file (or printed) or a file uploaded, through alkaid-flight.

use std::path::{Path, PathBuf};

use alkaid_array::RecordBatch;
use alkaid_array::display::pretty_format_batches;
use alkaid_flight::{
    ClientOptions, DirectoryService, FlightClient, FlightDescriptor, ServerOptions, serve,
};
use alkaid_ipc::WriteOptions;
use futures_util::{TryStreamExt, stream};

use crate::failure::Failure;
use crate::input::Input;
use crate::output::{Output, Sink};

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

/// How `serve` accepts calls.
#[derive(Debug, Clone, clap::Args)]
pub struct Serving {
    /// The port (0 picks a free one, printed when the server is up).
    #[arg(long, default_value_t = 8815)]
    pub port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Answers calls without `authorization: Bearer TOKEN` with Unauthenticated.
    #[arg(long)]
    pub token: Option<String>,
    /// Serves TLS with this certificate chain (PEM); needs --tls-key.
    #[arg(long, requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(long, requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Hands --token out by a basic-auth handshake for `USER:PASSWORD`.
    #[arg(long, value_name = "USER:PASSWORD", requires = "token")]
    pub basic: Option<String>,
    /// Admits only clients with a certificate signed by this CA (PEM); needs --tls-cert.
    #[arg(long, requires = "tls_cert")]
    pub tls_client_ca: Option<PathBuf>,
    /// Users of the basic-auth handshake, one `USER:PASSWORD` per line (blank lines and
    /// lines starting with `#` are skipped): each is handed a token of their own, made at
    /// start. The file may not be readable by other accounts than the server's.
    #[arg(long, value_name = "FILE")]
    pub users: Option<PathBuf>,
    /// Serves Flight SQL instead: every file and subdirectory is a table that ADBC, JDBC
    /// and other Flight SQL clients query, and bulk ingestion adds tables (needs the
    /// `sql` feature). DIR may then be an object-store URL (`s3://bucket/data/`, with
    /// credentials from `AWS_*`, `GOOGLE_*` or `AZURE_*`), whose tables are read-only.
    #[arg(long)]
    pub sql: bool,
    /// With --sql: ends a query still streaming after this many seconds.
    #[arg(long, value_name = "SECONDS", requires = "sql")]
    pub query_time_limit: Option<u64>,
    /// With --sql: the memory each query's sorts, joins and aggregates may hold, in MiB.
    #[arg(long, value_name = "MIB", requires = "sql")]
    pub query_memory_limit: Option<usize>,
}

/// The Flight SQL service over `dir` (a local directory or an object-store URL), with the
/// limits `serving` sets.
#[cfg(feature = "sql")]
fn sql_service(
    dir: &str,
    serving: &Serving,
) -> Result<alkaid_flight_sql::FlightSqlService, Failure> {
    use alkaid_flight_sql::{FlightSqlService, SqlServiceOptions};
    let mut options = SqlServiceOptions::default();
    if let Some(seconds) = serving.query_time_limit {
        options = options.with_query_time_limit(std::time::Duration::from_secs(seconds));
    }
    if let Some(mib) = serving.query_memory_limit {
        options = options.with_query_memory_limit(mib.saturating_mul(1 << 20));
    }
    let service = match crate::location::is_url(dir) {
        true => FlightSqlService::from_url(dir, crate::location::store_options(), options),
        false => FlightSqlService::new(dir, options),
    };
    service.map_err(|e| Failure::new(format!("{dir}: {e}")))
}

/// Without the `sql` feature there is no Flight SQL service to serve.
#[cfg(not(feature = "sql"))]
fn sql_service(_dir: &str, _serving: &Serving) -> Result<DirectoryService, Failure> {
    Err(Failure::new(
        "--sql needs the `sql` feature: cargo install alkaid-cli --features sql",
    ))
}

/// The users of `file` (`USER:PASSWORD` lines), which only the server's account may read.
fn users(file: &Path) -> Result<Vec<(String, String)>, Failure> {
    let shown = file.display();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(file)
            .map_err(|e| Failure::new(format!("{shown}: {e}")))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            return Err(Failure::new(format!(
                "{shown}: other accounts may read or write it (mode {:o}): chmod 600 it",
                mode & 0o777
            )));
        }
    }
    let text = std::fs::read_to_string(file).map_err(|e| Failure::new(format!("{shown}: {e}")))?;
    let mut users = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (user, password) = line
            .split_once(':')
            .filter(|(u, p)| !u.is_empty() && !p.is_empty())
            .ok_or_else(|| {
                Failure::new(format!(
                    "{shown}, line {}: expected USER:PASSWORD",
                    number + 1
                ))
            })?;
        users.push((user.to_string(), password.to_string()));
    }
    if users.is_empty() {
        return Err(Failure::new(format!("{shown}: no USER:PASSWORD line")));
    }
    Ok(users)
}

/// A token no one can guess: 32 bytes from the operating system's generator, in hex.
fn random_token() -> Result<String, Failure> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| Failure::new(format!("making a token: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// `USER:PASSWORD` split.
fn credentials(basic: &str) -> Result<(&str, &str), Failure> {
    basic
        .split_once(':')
        .ok_or_else(|| Failure::new("--basic takes USER:PASSWORD"))
}

fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::new(format!("starting the runtime: {e}")))
}

fn read(path: &PathBuf) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| Failure::new(format!("{}: {e}", path.display())))
}

/// Serves the IPC files of `dir` until interrupted.
pub fn serve_directory(dir: &str, serving: Serving) -> Result<(), Failure> {
    match crate::location::is_url(dir) {
        true if !serving.sql => {
            return Err(Failure::new(format!(
                "{dir}: an object-store URL is served with --sql; without it, DIR is local"
            )));
        }
        true => {}
        false => {
            let metadata =
                std::fs::metadata(dir).map_err(|e| Failure::new(format!("{dir}: {e}")))?;
            if !metadata.is_dir() {
                return Err(Failure::new(format!("{dir}: not a directory")));
            }
        }
    }
    let mut options = ServerOptions::default();
    if let Some(token) = &serving.token {
        options = options.with_token(token.clone());
    }
    if let (Some(cert), Some(key)) = (&serving.tls_cert, &serving.tls_key) {
        options = options.with_tls(read(cert)?, read(key)?);
    }
    if let Some(ca) = &serving.tls_client_ca {
        options = options.with_client_ca(read(ca)?);
    }
    if let Some(basic) = &serving.basic {
        let (user, password) = credentials(basic)?;
        options = options.with_basic_auth(user, password);
    }
    if let Some(file) = &serving.users {
        for (user, password) in users(file)? {
            options = options.with_user(user, password, random_token()?);
        }
    }
    // Made before listening, so that a URL that names no store fails at once.
    let sql = serving
        .sql
        .then(|| sql_service(dir, &serving))
        .transpose()?;
    let runtime = runtime()?;
    runtime.block_on(async {
        let address = format!("{}:{}", serving.host, serving.port);
        let listener = tokio::net::TcpListener::bind(&address)
            .await
            .map_err(|e| Failure::new(format!("listening on {address}: {e}")))?;
        let local = listener
            .local_addr()
            .map_err(|e| Failure::new(e.to_string()))?;
        let scheme = if serving.tls_cert.is_some() {
            "grpc+tls"
        } else {
            "grpc"
        };
        let what = if serving.sql { "Flight SQL over " } else { "" };
        println!("serving {what}{dir} at {scheme}://{local}");
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let stop = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        let served = match sql {
            Some(service) => serve(service, listener, options, stop).await,
            None => serve(DirectoryService::new(dir), listener, options, stop).await,
        };
        served.map_err(|e| Failure::new(format!("serving {dir}: {e}")))
    })
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
                while let Some(batch) = batches.try_next().await.map_err(failed)? {
                    rows += batch.num_rows();
                    count += 1;
                    sink.write(&batch, &Default::default())?;
                }
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
        let upload = stream::iter(batches.into_iter().map(|b| Ok((b, Default::default()))));
        client
            .do_put(FlightDescriptor::path([name]), schema, upload)
            .await
            .map_err(|e| Failure::new(format!("{uri} {name}: {e}")))?;
        println!("{name}: {count} batches, {rows} rows uploaded");
        Ok(())
    })
}
