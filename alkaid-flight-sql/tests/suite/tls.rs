//! Flight SQL over mutual TLS with ADBC's driver: a client with a certificate of the
//! server's CA and the basic credentials gets rows; one without a certificate gets no
//! connection, and one without credentials gets `Unauthenticated`.

use std::process::Command;

use alkaid_flight::ServerOptions;
use alkaid_flight_sql::SqlServiceOptions;

use crate::certificates::Certificates;
use crate::python::python_with;
use crate::server::Server;

/// Connects with the TLS options given as `name=path` arguments (the PEM files' paths)
/// and prints the query's rows, or the error's first line.
const CLIENT: &str = r#"
import sys
import adbc_driver_flightsql as f
import adbc_driver_flightsql.dbapi as dbapi
uri, user, password = sys.argv[1:4]
kwargs = {}
for arg in sys.argv[4:]:
    name, path = arg.split("=", 1)
    kwargs[getattr(f.DatabaseOptions, name).value] = open(path).read()
if user:
    kwargs["username"], kwargs["password"] = user, password
try:
    with dbapi.connect(uri, db_kwargs=kwargs, autocommit=True) as conn, conn.cursor() as cur:
        cur.execute("SELECT sum(n) AS total FROM numbers")
        print(cur.fetch_arrow_table().to_pylist())
except Exception as e:
    print("error:", str(e).splitlines()[0])
"#;

#[test]
fn mutual_tls_admits_only_clients_with_a_certificate_and_credentials() {
    let Some(python) = python_with("adbc_driver_flightsql.dbapi") else {
        return;
    };
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("tables");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("numbers.csv"), "n\n1\n2\n3\n").unwrap();
    let certs = Certificates::new();
    let pem = |name: &str, bytes: &[u8]| {
        let path = root.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path.display().to_string()
    };
    let ca = format!("TLS_ROOT_CERTS={}", pem("ca.pem", &certs.ca));
    let chain = format!("MTLS_CERT_CHAIN={}", pem("client.pem", &certs.client.0));
    let key = format!("MTLS_PRIVATE_KEY={}", pem("client.key", &certs.client.1));

    let serving = ServerOptions::default()
        .with_tls(certs.server.0.clone(), certs.server.1.clone())
        .with_client_ca(certs.ca.clone())
        .with_token("tls-t0ken")
        .with_basic_auth("ann", "pw");
    let server = Server::start(&dir, SqlServiceOptions::default(), serving);
    let uri = format!("grpc+tls://localhost:{}", server.port);

    let run = |user: &str, tls: &[&str]| {
        let out = Command::new(&python)
            .args(["-c", CLIENT, &uri, user, "pw"])
            .args(tls)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!(run("ann", &[&ca, &chain, &key]), "[{'total': 6}]");
    let no_certificate = run("ann", &[&ca]);
    assert!(no_certificate.starts_with("error:"), "{no_certificate}");
    let no_credentials = run("", &[&ca, &chain, &key]);
    assert!(
        no_credentials.to_lowercase().contains("unauthenticated"),
        "{no_credentials}"
    );
}
