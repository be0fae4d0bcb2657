//! The server each test starts.

use std::path::Path;

use alkaid_flight::{FlightClient, ServerOptions, serve};
use alkaid_flight_sql::{FlightSqlService, SqlServiceOptions};
use tokio::runtime::Runtime;

/// A Flight SQL server over `dir` with `options`, served with `serving`, on a free port
/// of 127.0.0.1; stopped when dropped.
pub struct Server {
    pub runtime: Runtime,
    /// `grpc://127.0.0.1:PORT`.
    pub uri: String,
    pub port: u16,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Server {
    pub fn start(dir: &Path, options: SqlServiceOptions, serving: ServerOptions) -> Self {
        Self::serve(FlightSqlService::new(dir, options).unwrap(), serving)
    }

    /// A read-only server over `dir` with every default, no token.
    pub fn plain(dir: &Path) -> Self {
        Self::start(dir, SqlServiceOptions::default(), ServerOptions::default())
    }

    /// `service`, served with `serving`.
    pub fn serve(service: FlightSqlService, serving: ServerOptions) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let port = listener.local_addr().unwrap().port();
        let uri = format!("grpc://127.0.0.1:{port}");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        runtime.spawn(serve(service, listener, serving, async {
            let _ = stopped.await;
        }));
        Self {
            runtime,
            uri,
            port,
            stop: Some(stop),
        }
    }

    pub fn client(&self) -> FlightClient {
        self.runtime
            .block_on(FlightClient::connect(&self.uri))
            .unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
