//! `serve`: a directory as an Arrow Flight service (its IPC files, one flight each) or,
//! with `--sql`, as a Flight SQL server over its tables. Read-only unless the operator
//! passes `--allow-writes`, with every limit on by default.

use std::path::{Path, PathBuf};

use alkaid_flight::{DirectoryService, ServerOptions, WriteBudget, serve};
use alkaid_ipc::ReadOptions;

use crate::failure::Failure;
use crate::flight::{credentials, read, runtime};

/// How `serve` accepts calls, and what it lets clients do.
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
    /// The private key of --tls-cert (PEM). Kept outside DIR.
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
    /// start. The file may not be readable by other accounts than the server's, and may
    /// not lie inside DIR.
    #[arg(long, value_name = "FILE")]
    pub users: Option<PathBuf>,
    /// Serves Flight SQL instead: every file and subdirectory is a table that ADBC, JDBC
    /// and other Flight SQL clients query (needs the `sql` feature). DIR may then be an
    /// object-store URL (`s3://bucket/data/`, with credentials from `AWS_*`, `GOOGLE_*` or
    /// `AZURE_*`), whose tables are read-only.
    #[arg(long)]
    pub sql: bool,
    /// Lets clients write; without it the server is read-only and refuses every write
    /// with PermissionDenied. Plain Flight: an upload (DoPut) becomes a new file of DIR.
    /// With --sql: `INSERT INTO` a directory table, `COPY … TO` a new path inside DIR
    /// (relative paths are taken inside DIR), and bulk ingestion that creates a table or
    /// appends to one. No write ever replaces a file, and each becomes visible only once
    /// it is whole.
    #[arg(long)]
    pub allow_writes: bool,
    /// With --sql and --allow-writes: also lets bulk ingestion replace a table (its
    /// `replace` mode), which removes the table's files.
    #[arg(long, requires_all = ["sql", "allow_writes"])]
    pub allow_replace: bool,
    /// The bytes one write (an upload, a statement, an ingestion) may write, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    pub write_limit: u64,
    /// The bytes all writes together may write while the server runs, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 16384)]
    pub total_write_limit: u64,
    /// What each message a client sends may decompress to, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    pub message_limit: usize,
    /// With --sql: ends a statement still running after this many seconds, keeping
    /// nothing it wrote (0: no limit).
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub query_time_limit: u64,
    /// With --sql: the memory each query's sorts, joins and aggregates may hold, in MiB;
    /// past it they spill to temporary files or fail (0: no limit of its own).
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    pub query_memory_limit: usize,
    /// With --sql: the memory all running queries may hold together, in MiB (0: no limit).
    #[arg(long, value_name = "MIB", default_value_t = 4096)]
    pub server_memory_limit: usize,
    /// With --sql: the temporary files all queries may spill together, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 16384)]
    pub spill_limit: u64,
    /// With --sql: the parameters a client may bind to a prepared statement, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 16)]
    pub parameter_limit: usize,
    /// With --sql: the rows of parameters a client may bind to a prepared statement.
    #[arg(long, value_name = "ROWS", default_value_t = 10_000)]
    pub parameter_rows: usize,
    /// With --sql: read Parquet tables' INT96 timestamps (Impala's, Hive's, Spark's) in
    /// microseconds rather than nanoseconds, where a value past 2262 is an error.
    #[arg(long, requires = "sql")]
    pub int96_as_microseconds: bool,
}

impl Serving {
    /// What writes may take: per write and in all.
    fn budget(&self) -> WriteBudget {
        WriteBudget::new(
            self.write_limit.saturating_mul(1 << 20),
            self.total_write_limit.saturating_mul(1 << 20),
        )
    }

    /// How clients' uploads are read.
    fn read_options(&self) -> ReadOptions {
        let bound = self.message_limit.saturating_mul(1 << 20);
        ReadOptions::default().with_max_decompressed_bytes(Some(bound))
    }
}

/// `n` MiB in bytes, `None` for 0 (no limit).
#[cfg(feature = "sql")]
fn mib(n: usize) -> Option<usize> {
    (n > 0).then(|| n.saturating_mul(1 << 20))
}

/// The Flight SQL service over `dir` (a local directory or an object-store URL), with the
/// rights and limits `serving` sets.
#[cfg(feature = "sql")]
fn sql_service(
    dir: &str,
    serving: &Serving,
) -> Result<alkaid_flight_sql::FlightSqlService, Failure> {
    use alkaid_flight_sql::{FlightSqlService, SqlServiceOptions};
    let seconds = serving.query_time_limit;
    let time = (seconds > 0).then(|| std::time::Duration::from_secs(seconds));
    let options = SqlServiceOptions::default()
        .with_writes(serving.allow_writes)
        .with_replace(serving.allow_replace)
        .with_query_time_limit(time)
        .with_query_memory_limit(mib(serving.query_memory_limit))
        .with_server_memory_limit(mib(serving.server_memory_limit))
        .with_spill_limit(serving.spill_limit.saturating_mul(1 << 20))
        .with_write_limits(
            serving.write_limit.saturating_mul(1 << 20),
            serving.total_write_limit.saturating_mul(1 << 20),
        )
        .with_parameter_limits(
            serving.parameter_limit.saturating_mul(1 << 20),
            serving.parameter_rows,
        )
        .with_read_options(serving.read_options())
        .with_int96_as_microseconds(serving.int96_as_microseconds);
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

/// Refuses a secret (the users file, the TLS key) that lies inside the served directory,
/// where a client could read it as a flight or a table.
fn outside_of(dir: &Path, secret: Option<&PathBuf>, what: &str) -> Result<(), Failure> {
    let (Some(secret), Ok(dir)) = (secret, std::fs::canonicalize(dir)) else {
        return Ok(());
    };
    match std::fs::canonicalize(secret) {
        Ok(real) if real.starts_with(&dir) => Err(Failure::new(format!(
            "{}: {what} lies inside the served directory, where clients could read it: \
             keep it elsewhere",
            secret.display()
        ))),
        _ => Ok(()),
    }
}

/// Serves `dir` until interrupted.
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
            outside_of(Path::new(dir), serving.users.as_ref(), "the users file")?;
            outside_of(Path::new(dir), serving.tls_key.as_ref(), "the TLS key")?;
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
        let mode = if serving.allow_writes {
            "writes allowed"
        } else {
            "read-only"
        };
        // The address last: scripts take the line's last word.
        println!("serving {what}{dir} ({mode}) at {scheme}://{local}");
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let stop = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        let served = match sql {
            Some(service) => serve(service, listener, options, stop).await,
            None => {
                let service = DirectoryService::new(dir)
                    .with_read_options(serving.read_options())
                    .with_uploads(serving.allow_writes.then(|| serving.budget()));
                serve(service, listener, options, stop).await
            }
        };
        served.map_err(|e| Failure::new(format!("serving {dir}: {e}")))
    })
}
