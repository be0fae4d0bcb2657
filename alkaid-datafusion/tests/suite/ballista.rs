//! Alkaid tables on a Ballista cluster: a scheduler and two executors (`alkaid-ballista`,
//! started here as processes on 127.0.0.1 and stopped when the test ends) run the SQL
//! tests' queries over Alkaid files, with the same results as one process reading the
//! same rows with DataFusion's own Arrow reader.
#![cfg(feature = "ballista")]

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use alkaid_datafusion::AlkaidContextExt;
use alkaid_datafusion::ballista::{remote_context, session_config};
use datafusion::execution::options::ArrowReadOptions;
use datafusion::prelude::SessionContext;

use crate::tables;
use tables::{FILTERS, QUERIES, dirs, runtime, table, url};

/// How long the cluster may take to start: two executors registering with a scheduler
/// takes a second or two; a loaded CI machine, more.
const START_TIMEOUT: Duration = Duration::from_secs(120);

/// A scheduler and two executors, killed when dropped.
struct Cluster {
    processes: Vec<Child>,
    scheduler: SocketAddr,
    root: tempfile::TempDir,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for process in &mut self.processes {
            let _ = process.kill();
            let _ = process.wait();
        }
    }
}

impl Cluster {
    /// The work directories of the executors.
    fn work_dirs(&self) -> [PathBuf; 2] {
        [0, 1].map(|i| self.root.path().join(format!("executor-{i}")))
    }

    /// What the processes wrote to stderr so far, for a failure message.
    fn logs(&self) -> String {
        let mut logs = String::new();
        for name in ["scheduler", "executor-0", "executor-1"] {
            let log = std::fs::read_to_string(self.root.path().join(format!("{name}.log")));
            logs += &format!("--- {name}:\n{}\n", log.unwrap_or_default());
        }
        logs
    }
}

/// Lines of a child's stdout, read on a thread.
fn lines(child: &mut Child) -> Receiver<String> {
    let stdout = child.stdout.take().expect("stdout is piped");
    let (send, receive) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

/// The first line of `lines` that starts with `prefix`, before `deadline`.
fn wait_for(lines: &Receiver<String>, prefix: &str, deadline: Instant) -> Option<String> {
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match lines.recv_timeout(left) {
            Ok(line) if line.starts_with(prefix) => return Some(line),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
}

/// Ports free on 127.0.0.1 now (all held at once, so that they differ).
fn free_ports<const N: usize>() -> [u16; N] {
    let held: Vec<TcpListener> = (0..N)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    std::array::from_fn(|i| held[i].local_addr().unwrap().port())
}

fn spawn(root: &Path, name: &str, args: &[&str]) -> Child {
    let log = std::fs::File::create(root.join(format!("{name}.log"))).unwrap();
    Command::new(env!("CARGO_BIN_EXE_alkaid-ballista"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .unwrap()
}

fn start_cluster() -> Cluster {
    let root = tempfile::tempdir().unwrap();
    let deadline = Instant::now() + START_TIMEOUT;
    let mut scheduler = spawn(
        root.path(),
        "scheduler",
        &["scheduler", "--port", "0", "--executors", "2"],
    );
    let scheduler_lines = lines(&mut scheduler);
    let mut cluster = Cluster {
        processes: vec![scheduler],
        scheduler: SocketAddr::from(([127, 0, 0, 1], 0)),
        root,
    };
    let Some(listening) = wait_for(&scheduler_lines, "listening on ", deadline) else {
        panic!("the scheduler did not start:\n{}", cluster.logs());
    };
    cluster.scheduler = listening["listening on ".len()..].parse().unwrap();
    let scheduler_port = cluster.scheduler.port().to_string();
    let [a, b, c, d] = free_ports::<4>();
    for (i, (flight, grpc)) in [(a, b), (c, d)].into_iter().enumerate() {
        let work = cluster.work_dirs()[i].clone();
        std::fs::create_dir_all(&work).unwrap();
        let executor = spawn(
            cluster.root.path(),
            &format!("executor-{i}"),
            &[
                "executor",
                "--port",
                &flight.to_string(),
                "--grpc-port",
                &grpc.to_string(),
                "--scheduler-port",
                &scheduler_port,
                "--work-dir",
                work.to_str().unwrap(),
                "--slots",
                "2",
            ],
        );
        cluster.processes.push(executor);
    }
    if wait_for(&scheduler_lines, "ready", deadline).is_none() {
        panic!(
            "two executors did not register within {START_TIMEOUT:?}:\n{}",
            cluster.logs()
        );
    }
    cluster
}

/// Every file under `dir`, at any depth.
fn files_under(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map_while(Result::ok)
                .map(|entry| match entry.path().is_dir() {
                    true => files_under(&entry.path()),
                    false => 1,
                })
                .sum()
        })
        .unwrap_or(0)
}

#[test]
fn queries_on_a_ballista_cluster_agree_with_one_process_and_bad_files_are_named() {
    let cluster = start_cluster();
    let dirs = dirs();
    runtime().block_on(async {
        let url_of_scheduler = format!("df://{}", cluster.scheduler);
        // Four partitions with two task slots per executor: each stage keeps both busy.
        let config = session_config().with_target_partitions(4);
        let remote = remote_context(&url_of_scheduler, config).await.unwrap();
        remote
            .register_alkaid("t", &url(&dirs.mixed))
            .await
            .unwrap();
        let local = SessionContext::new();
        local
            .register_arrow("t", &url(&dirs.arrow), ArrowReadOptions::default())
            .await
            .unwrap();
        for query in QUERIES.iter().chain(&FILTERS) {
            let (ours, theirs) = (table(&remote, query).await, table(&local, query).await);
            assert_eq!(ours, theirs, "{query}\n{}", cluster.logs());
        }
        // The scan ran on the executors, with the filter inside it.
        let plan = table(&remote, "EXPLAIN SELECT id FROM t WHERE g = 3").await;
        assert!(plan.contains("alkaid_filters=[g@"), "{plan}");

        // A file gone bad is an error that names it, raised on an executor and carried
        // back through the scheduler.
        let victim = dirs.mixed.join("part-1.alkaid");
        let bytes = std::fs::read(&victim).unwrap();
        std::fs::write(&victim, &bytes[..bytes.len() / 2]).unwrap();
        let error = match remote.sql("SELECT sum(id) FROM t").await {
            Err(e) => e.to_string(),
            Ok(frame) => frame.collect().await.unwrap_err().to_string(),
        };
        assert!(error.contains("part-1.alkaid"), "{error}");
    });
    for dir in cluster.work_dirs() {
        assert!(
            files_under(&dir) > 0,
            "{} holds no shuffle files: that executor ran no task",
            dir.display()
        );
    }
}
