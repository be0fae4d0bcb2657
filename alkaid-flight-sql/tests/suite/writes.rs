//! What clients may write, tried as an attacker would: a read-only server refuses every
//! write; where writes are allowed, every way of naming a path outside the directory is
//! refused (each escape form a test row), nothing replaces an existing file, a failed,
//! cancelled or timed-out statement leaves nothing, writes stay within their budget, and
//! symlinks inside the directory lead nowhere. No answer names the server's directory, and
//! the directory's files are byte for byte what they were after each refused attempt.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use alkaid_flight::proto::{CancelFlightInfoRequest, CancelFlightInfoResult, CancelStatus};
use alkaid_flight::{FlightClient, FlightDescriptor, FlightInfo, ServerOptions};
use alkaid_flight_sql::proto::command_statement_ingest::table_definition_options::TableExistsOption;
use alkaid_flight_sql::proto::{ActionCreatePreparedStatementRequest, CommandGetSqlInfo, SqlInfo};
use alkaid_flight_sql::{Packed, SqlServiceOptions};
use futures_util::StreamExt;
use prost::Message;
use tonic::Code;

use crate::measured::files;
use crate::server::Server;
use crate::sql_client::{events, fetch, id_kind, ingest, query, rows, update};

/// A served directory `served` beside a directory `elsewhere` it must never reach: a CSV
/// table `regions` (3 rows), the IPC directory table `events`, a users file, and symlinks
/// that lead out (a directory, a file, a file inside `events`).
struct Layout {
    _root: tempfile::TempDir,
    served: PathBuf,
    elsewhere: PathBuf,
}

impl Layout {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(root.path()).unwrap();
        let (served, elsewhere) = (base.join("served"), base.join("elsewhere"));
        std::fs::create_dir(&served).unwrap();
        std::fs::create_dir(&elsewhere).unwrap();
        std::fs::write(
            served.join("regions.csv"),
            "region,code\nnorth,1\nsouth,2\neast,3\n",
        )
        .unwrap();
        events(&served);
        std::fs::write(served.join("users.txt"), "analyst:s3cret\n").unwrap();
        std::fs::write(elsewhere.join("secret.csv"), "secret\nhunter2\n").unwrap();
        std::fs::copy(
            served.join("events/part-0.arrow"),
            elsewhere.join("stolen.arrow"),
        )
        .unwrap();
        std::os::unix::fs::symlink(&elsewhere, served.join("out")).unwrap();
        std::os::unix::fs::symlink(elsewhere.join("secret.csv"), served.join("secret.csv"))
            .unwrap();
        Self {
            _root: root,
            served,
            elsewhere,
        }
    }

    /// Both directories' files.
    fn snapshot(&self) -> (BTreeMap<PathBuf, Vec<u8>>, BTreeMap<PathBuf, Vec<u8>>) {
        (files(&self.served), files(&self.elsewhere))
    }

    /// What statements left staged (nothing, once each has ended).
    fn staged(&self) -> usize {
        std::fs::read_dir(self.served.join(".alkaid-staging"))
            .map(|entries| entries.count())
            .unwrap_or(0)
    }

    /// Both directories' files once every statement has ended: a failed statement's
    /// client hears of the failure as DataFusion's tasks wind down, and what they staged
    /// goes with the last of them.
    fn settled(&self) -> (BTreeMap<PathBuf, Vec<u8>>, BTreeMap<PathBuf, Vec<u8>>) {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while self.staged() > 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(self.staged(), 0, "a statement left staged files");
        self.snapshot()
    }

    /// Asserts that `status` names no path of the server's.
    fn names_no_path(&self, status: &tonic::Status) {
        let root = self.served.parent().unwrap().display().to_string();
        assert!(
            !status.message().contains(&root),
            "the answer names the server's directory: {status}"
        );
    }
}

/// Bulk ingestion of `rows` small rows into `table`, in `mode`.
async fn ingest_rows(
    client: &mut FlightClient,
    table: &str,
    mode: TableExistsOption,
    rows: usize,
) -> Result<i64, tonic::Status> {
    let ids: Vec<i64> = (0..rows as i64).collect();
    let batch = id_kind(["id", "kind"], ids, vec![Some("x"); rows]);
    ingest(client, table, mode, batch).await
}

/// The one boolean fact `id` of `GetSqlInfo`.
async fn sql_info_flag(client: &mut FlightClient, id: SqlInfo) -> bool {
    use datafusion::arrow::array::{AsArray, UnionArray};
    let command = CommandGetSqlInfo {
        info: vec![id as u32],
    };
    let batches = fetch(client, FlightDescriptor::command(command.pack()))
        .await
        .unwrap();
    let batch = alkaid_arrow::arrow59::batch_to_arrow(&batches[0]);
    let union = batch
        .column(1)
        .as_any()
        .downcast_ref::<UnionArray>()
        .unwrap();
    union.value(0).as_boolean().value(0)
}

#[test]
fn a_read_only_server_refuses_every_write_and_says_so() {
    let layout = Layout::new();
    let before = layout.snapshot();
    let server = Server::start(
        &layout.served,
        SqlServiceOptions::default(),
        ServerOptions::default(),
    );
    let mut client = server.client();
    server.runtime.block_on(async {
        for sql in [
            "INSERT INTO events VALUES (3, 'close')",
            "COPY (SELECT 1 AS x) TO 'new.csv' STORED AS CSV",
            "COPY (SELECT 1 AS x) TO 'regions.csv' STORED AS CSV",
        ] {
            for refused in [
                update(&mut client, sql).await.unwrap_err(),
                rows(&mut client, sql).await.unwrap_err(),
            ] {
                assert_eq!(refused.code(), Code::PermissionDenied, "{sql}: {refused}");
                assert!(refused.message().contains("read-only"), "{refused}");
                layout.names_no_path(&refused);
            }
        }
        // Preparing a write is refused as soon as it is planned.
        let create = ActionCreatePreparedStatementRequest {
            query: "INSERT INTO events VALUES ($1, $2)".into(),
            transaction_id: None,
        };
        let refused = client
            .do_action("CreatePreparedStatement", create.pack())
            .await
            .map_err(tonic::Status::from)
            .unwrap_err();
        assert_eq!(refused.code(), Code::PermissionDenied, "{refused}");
        for mode in [TableExistsOption::Fail, TableExistsOption::Append] {
            let refused = ingest_rows(&mut client, "uploaded", mode, 3)
                .await
                .unwrap_err();
            assert_eq!(refused.code(), Code::PermissionDenied, "{refused}");
            layout.names_no_path(&refused);
        }
        assert!(sql_info_flag(&mut client, SqlInfo::FlightSqlServerReadOnly).await);
        assert!(!sql_info_flag(&mut client, SqlInfo::FlightSqlServerBulkIngestion).await);
        assert_eq!(rows(&mut client, "SELECT * FROM regions").await.unwrap(), 3);
    });
    assert_eq!(layout.settled(), before, "nothing changed");
}

/// COPY targets that lead out of the directory, each a way of spelling `..`, a separator
/// or another place; `{dir}` is the served directory's path.
const ESCAPES: [&str; 14] = [
    "file://{dir}/%2e%2e/elsewhere/x.csv",
    "file://{dir}/%2E%2E/elsewhere/x.csv",
    "file://{dir}/..%2felsewhere%2fx.csv",
    "file://{dir}/%2f..%2f..%2felsewhere%2fx.csv",
    "file:{dir}/../elsewhere/x.csv",
    "{dir}//../elsewhere/x.csv",
    "{dir}/./../elsewhere/x.csv",
    "{dir}\\..\\elsewhere\\x.csv",
    "..\\..\\elsewhere\\x.csv",
    "file://otherhost{dir}/../elsewhere/x.csv",
    "../elsewhere/x.csv",
    "{dir}/../elsewhere/x.csv",
    "out/x.csv",
    "out/sub/x.csv",
];

#[test]
fn every_escape_form_is_refused_and_nothing_is_written_outside() {
    let layout = Layout::new();
    let before = layout.snapshot();
    let options = SqlServiceOptions::default().with_writes(true);
    let server = Server::start(&layout.served, options, ServerOptions::default());
    let mut client = server.client();
    let dir = layout.served.display().to_string();
    server.runtime.block_on(async {
        for escape in ESCAPES {
            let target = escape.replace("{dir}", &dir);
            let sql = format!("COPY (SELECT 1 AS x) TO '{target}' STORED AS CSV");
            for refused in [
                update(&mut client, &sql).await.unwrap_err(),
                rows(&mut client, &sql).await.unwrap_err(),
            ] {
                assert_eq!(
                    refused.code(),
                    Code::PermissionDenied,
                    "{escape}: {refused}"
                );
                layout.names_no_path(&refused);
            }
        }
        // The same attempts as INSERT … SELECT into a new place cannot be spelled: the
        // target is a table, looked up by name.
        let missing = update(&mut client, "INSERT INTO \"../elsewhere\" VALUES (1)")
            .await
            .unwrap_err();
        assert_ne!(missing.code(), Code::Ok);
        assert_eq!(rows(&mut client, "SELECT * FROM regions").await.unwrap(), 3);
    });
    assert_eq!(layout.settled(), before, "nothing written, in or out");
}

#[test]
fn copy_never_replaces_a_file_and_a_failed_copy_leaves_nothing() {
    let layout = Layout::new();
    let before = layout.snapshot();
    let options = SqlServiceOptions::default().with_writes(true);
    let server = Server::start(&layout.served, options, ServerOptions::default());
    let mut client = server.client();
    let dir = layout.served.display().to_string();
    server.runtime.block_on(async {
        for target in [
            "regions.csv".to_string(),
            format!("{dir}/regions.csv"),
            format!("file://{dir}/regions.csv"),
            "events/part-0.arrow".to_string(),
            "events".to_string(),
            "events/".to_string(),
            "users.txt".to_string(),
            "secret.csv".to_string(),
        ] {
            let sql = format!("COPY (SELECT 1 AS x) TO '{target}' STORED AS CSV");
            let refused = update(&mut client, &sql).await.unwrap_err();
            assert_eq!(refused.code(), Code::AlreadyExists, "{target}: {refused}");
            layout.names_no_path(&refused);
        }
        for hidden in [".x.csv", ".alkaid-staging/x.csv", "events/.x.arrow"] {
            let sql = format!("COPY (SELECT 1 AS x) TO '{hidden}' STORED AS CSV");
            let refused = update(&mut client, &sql).await.unwrap_err();
            assert_eq!(
                refused.code(),
                Code::PermissionDenied,
                "{hidden}: {refused}"
            );
        }
        assert_eq!(rows(&mut client, "SELECT * FROM regions").await.unwrap(), 3);

        // Fails at its 100,000th row, after files were written: nothing is left.
        let failing = "COPY (SELECT CASE WHEN value < 100000 THEN value ELSE 1 / (value - value) \
                       END AS v FROM generate_series(1, 200000)) TO 'parts/' STORED AS CSV";
        let failed = update(&mut client, failing).await.unwrap_err();
        assert_ne!(failed.code(), Code::Ok);
        layout.names_no_path(&failed);
        let failed = rows(&mut client, failing).await.unwrap_err();
        assert_ne!(failed.code(), Code::Ok);
    });
    assert_eq!(layout.settled(), before, "nothing replaced, nothing left");
}

#[test]
fn writes_appear_whole_inside_the_directory_and_only_there() {
    let layout = Layout::new();
    let options = SqlServiceOptions::default().with_writes(true);
    let server = Server::start(&layout.served, options, ServerOptions::default());
    let mut client = server.client();
    let outside = files(&layout.elsewhere);
    server.runtime.block_on(async {
        assert!(!sql_info_flag(&mut client, SqlInfo::FlightSqlServerReadOnly).await);
        // Relative targets are taken inside the directory; parents are made.
        let copy = "COPY (SELECT * FROM regions) TO 'copies/2026/regions.parquet'";
        assert_eq!(update(&mut client, copy).await.unwrap(), 3);
        assert!(layout.served.join("copies/2026/regions.parquet").is_file());
        let copy = "COPY (SELECT * FROM regions) TO 'north.csv' STORED AS CSV";
        assert_eq!(rows(&mut client, copy).await.unwrap(), 1, "a count");
        assert_eq!(rows(&mut client, "SELECT * FROM north").await.unwrap(), 3);
        // A directory target, written as several files at once.
        let copy = "COPY (SELECT value FROM generate_series(1, 50000)) TO 'series/' \
                    STORED AS PARQUET";
        assert_eq!(update(&mut client, copy).await.unwrap(), 50000);
        assert_eq!(
            rows(&mut client, "SELECT * FROM series").await.unwrap(),
            50000
        );
        // INSERT adds a file to the table's directory.
        let inserted = update(&mut client, "INSERT INTO events VALUES (3, 'close')")
            .await
            .unwrap();
        assert_eq!(inserted, 1);
        assert_eq!(rows(&mut client, "SELECT * FROM events").await.unwrap(), 3);
        assert_eq!(
            std::fs::read_dir(layout.served.join("events"))
                .unwrap()
                .count(),
            2
        );
        // Bulk ingestion creates and appends; replacing is the operator's choice.
        assert_eq!(
            ingest_rows(&mut client, "ingested", TableExistsOption::Fail, 4)
                .await
                .unwrap(),
            4
        );
        assert_eq!(
            ingest_rows(&mut client, "ingested", TableExistsOption::Append, 2)
                .await
                .unwrap(),
            2
        );
        let replace = ingest_rows(&mut client, "ingested", TableExistsOption::Replace, 1)
            .await
            .unwrap_err();
        assert_eq!(replace.code(), Code::PermissionDenied, "{replace}");
        assert_eq!(
            rows(&mut client, "SELECT * FROM ingested").await.unwrap(),
            6
        );
        // Other operations on tables are refused.
        for sql in ["DELETE FROM events", "UPDATE events SET id = 0"] {
            let refused = update(&mut client, sql).await.unwrap_err();
            assert_ne!(refused.code(), Code::Ok, "{sql}");
        }
    });
    layout.settled();
    assert_eq!(files(&layout.elsewhere), outside);
}

#[test]
fn a_cancelled_or_timed_out_write_leaves_nothing() {
    let layout = Layout::new();
    let before = layout.snapshot();
    let options = SqlServiceOptions::default()
        .with_writes(true)
        .with_query_time_limit(Some(Duration::from_secs(2)));
    let server = Server::start(&layout.served, options, ServerOptions::default());
    let mut client = server.client();
    let endless = "COPY (SELECT value FROM generate_series(1, 1000000000)) TO 'endless.csv' \
                   STORED AS CSV";
    server.runtime.block_on(async {
        // Cancelled by CancelFlightInfo while it writes (its DoGet waits for the count).
        let info: FlightInfo = client.get_flight_info(query(endless)).await.unwrap();
        let ticket = info.endpoint[0].ticket.clone().unwrap().ticket;
        let mut answer = client.do_get(&ticket).await.unwrap();
        let waiting = tokio::spawn(async move { answer.next().await });
        tokio::time::sleep(Duration::from_millis(300)).await;
        let mut other = FlightClient::connect(&server.uri).await.unwrap();
        let request = CancelFlightInfoRequest { info: Some(info) };
        let cancelled = other
            .do_action("CancelFlightInfo", request.encode_to_vec().into())
            .await
            .unwrap();
        let result = CancelFlightInfoResult::decode(cancelled[0].as_ref()).unwrap();
        assert_eq!(result.status, CancelStatus::Cancelled as i32);
        let ended = tokio::time::timeout(Duration::from_secs(30), waiting)
            .await
            .expect("the cancelled COPY ends")
            .unwrap();
        let ended = ended.expect("an answer").unwrap_err();
        assert_eq!(tonic::Status::from(ended).code(), Code::Cancelled);

        // Out of time, through DoPut and through a query.
        let late = update(&mut client, endless).await.unwrap_err();
        assert_eq!(late.code(), Code::DeadlineExceeded, "{late}");
        assert!(late.message().contains("nothing it wrote"), "{late}");
        let late = rows(&mut client, endless).await.unwrap_err();
        assert_eq!(late.code(), Code::DeadlineExceeded, "{late}");

        // A client that goes away while its COPY runs: the update's future is dropped.
        let mut gone = FlightClient::connect(&server.uri).await.unwrap();
        let abandoned = tokio::spawn(async move { update(&mut gone, endless).await });
        tokio::time::sleep(Duration::from_millis(300)).await;
        abandoned.abort();
        assert_eq!(rows(&mut client, "SELECT 1").await.unwrap(), 1);
    });
    // What the statements staged goes with them (the last one's within its time limit).
    assert_eq!(layout.settled(), before);
}

#[test]
fn writes_stay_within_their_budget_per_statement_and_in_all() {
    let layout = Layout::new();
    let before = layout.snapshot();
    let options = SqlServiceOptions::default()
        .with_writes(true)
        .with_write_limits(64 << 10, 200 << 10);
    let service = alkaid_flight_sql::FlightSqlService::new(&layout.served, options).unwrap();
    let server = Server::serve(service.clone(), ServerOptions::default());
    let mut client = server.client();
    server.runtime.block_on(async {
        // About 700 kB of CSV in one statement.
        let big = "COPY (SELECT value FROM generate_series(1, 100000)) TO 'big.csv' STORED AS CSV";
        let refused = update(&mut client, big).await.unwrap_err();
        assert_eq!(refused.code(), Code::ResourceExhausted, "{refused}");
        assert!(refused.message().contains("65536 bytes"), "{refused}");
        let refused = ingest_rows(&mut client, "huge", TableExistsOption::Fail, 20_000)
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::ResourceExhausted, "{refused}");
        assert_eq!(service.written_bytes(), 0, "what failed is given back");
        // Small statements add up to the limit in all.
        let mut written = 0;
        let mut refused = None;
        for i in 0..20 {
            let copy = format!(
                "COPY (SELECT value FROM generate_series(1, 5000)) TO 'small-{i}.csv' STORED AS CSV"
            );
            match update(&mut client, &copy).await {
                Ok(_) => written += 1,
                Err(e) => {
                    refused = Some(e);
                    break;
                }
            }
        }
        let refused = refused.expect("the limit in all is reached");
        assert_eq!(refused.code(), Code::ResourceExhausted, "{refused}");
        assert!(refused.message().contains("in all"), "{refused}");
        assert!((3..=8).contains(&written), "{written} statements fitted");
        assert!(service.written_bytes() <= 200 << 10);
        assert_eq!(
            rows(&mut client, "SELECT * FROM \"small-0\"")
                .await
                .unwrap(),
            5000
        );
    });
    layout.settled();
    let after = files(&layout.served);
    let added: Vec<_> = after
        .keys()
        .filter(|p| !before.0.contains_key(*p))
        .collect();
    assert!(
        added.iter().all(|p| p
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("small-")),
        "{added:?}"
    );
}

#[test]
fn symlinks_inside_the_directory_lead_nowhere() {
    let layout = Layout::new();
    // A file of the `events` table that is a symlink to a file outside.
    std::os::unix::fs::symlink(
        layout.elsewhere.join("stolen.arrow"),
        layout.served.join("events/stolen.arrow"),
    )
    .unwrap();
    let before = layout.snapshot();
    let options = SqlServiceOptions::default().with_writes(true);
    let server = Server::start(&layout.served, options, ServerOptions::default());
    let mut client = server.client();
    server.runtime.block_on(async {
        // The symlinked file and directory are not tables.
        for sql in ["SELECT * FROM secret", "SELECT * FROM out"] {
            let missing = rows(&mut client, sql).await.unwrap_err();
            assert_eq!(missing.code(), Code::NotFound, "{sql}: {missing}");
        }
        // A table whose directory holds a symlink out is refused, not read through it.
        let refused = rows(&mut client, "SELECT * FROM events").await.unwrap_err();
        assert_eq!(refused.code(), Code::PermissionDenied, "{refused}");
        assert!(refused.message().contains("leads outside"), "{refused}");
        layout.names_no_path(&refused);
        // Nor written into, nor ingested over.
        let refused = update(&mut client, "INSERT INTO out VALUES (1)")
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::NotFound, "{refused}");
        let refused = ingest_rows(&mut client, "out", TableExistsOption::Append, 1)
            .await
            .unwrap_err();
        assert_ne!(refused.code(), Code::Ok);
        let refused = ingest_rows(&mut client, "out", TableExistsOption::Fail, 1)
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::AlreadyExists, "{refused}");
    });
    assert_eq!(layout.settled(), before);
}
