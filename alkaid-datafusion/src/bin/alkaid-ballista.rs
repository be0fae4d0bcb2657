//! `alkaid-ballista`: a Ballista scheduler or executor that reads Alkaid tables (Alkaid's
//! plan codecs around Ballista's). See `alkaid_datafusion::ballista`.
//!
//! ```text
//! alkaid-ballista scheduler [--bind 127.0.0.1] [--port 50050] [--executors N]
//! alkaid-ballista executor --port P --grpc-port G --scheduler-port S
//!                          [--bind 127.0.0.1] [--scheduler-host 127.0.0.1]
//!                          [--work-dir DIR] [--slots N]
//! ```
//!
//! The scheduler prints `listening on HOST:PORT` once it is bound (`--port 0` picks a free
//! port) and `ready` once `--executors` executors have registered.

use std::collections::HashMap;
use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::process::ExitCode;

use alkaid_datafusion::ballista::{ExecutorOptions, run_executor, run_scheduler};

const USAGE: &str = "usage: alkaid-ballista scheduler [--bind IP] [--port P] [--executors N]
       alkaid-ballista executor --port P --grpc-port G --scheduler-port S [--bind IP]
                                [--scheduler-host IP] [--work-dir DIR] [--slots N]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("alkaid-ballista: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let Some((role, rest)) = args.split_first() else {
        return Err(USAGE.into());
    };
    let flags = flags(rest)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let bind: IpAddr = parse(&flags, "bind", "127.0.0.1")?;
    match role.as_str() {
        "scheduler" => {
            check_known(&flags, &["bind", "port", "executors"])?;
            let port: u16 = parse(&flags, "port", "50050")?;
            let executors: usize = parse(&flags, "executors", "1")?;
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind((bind, port))
                    .await
                    .map_err(|e| format!("cannot listen on {bind}:{port}: {e}"))?;
                let address = listener.local_addr().map_err(|e| e.to_string())?;
                say(&format!("listening on {address}"));
                run_scheduler(listener, executors, || say("ready"))
                    .await
                    .map_err(|e| e.to_string())
            })
        }
        "executor" => {
            check_known(
                &flags,
                &[
                    "bind",
                    "port",
                    "grpc-port",
                    "scheduler-host",
                    "scheduler-port",
                    "work-dir",
                    "slots",
                ],
            )?;
            let scheduler_host: IpAddr = parse(&flags, "scheduler-host", "127.0.0.1")?;
            let options = ExecutorOptions {
                flight: SocketAddr::new(bind, parse(&flags, "port", "")?),
                grpc_port: parse(&flags, "grpc-port", "")?,
                scheduler: SocketAddr::new(scheduler_host, parse(&flags, "scheduler-port", "")?),
                work_dir: flags.get("work-dir").cloned(),
                slots: parse(&flags, "slots", "0")?,
            };
            runtime
                .block_on(run_executor(options))
                .map_err(|e| e.to_string())
        }
        other => Err(format!("unknown role {other:?}\n{USAGE}")),
    }
}

/// Prints one line to stdout at once (a test waits for it).
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// `--name value` pairs.
fn flags(args: &[String]) -> Result<HashMap<String, String>, String> {
    let mut flags = HashMap::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let Some(name) = arg.strip_prefix("--") else {
            return Err(format!("unexpected argument {arg:?}\n{USAGE}"));
        };
        let Some(value) = args.next() else {
            return Err(format!("--{name} needs a value"));
        };
        flags.insert(name.to_string(), value.clone());
    }
    Ok(flags)
}

fn check_known(flags: &HashMap<String, String>, known: &[&str]) -> Result<(), String> {
    match flags.keys().find(|name| !known.contains(&name.as_str())) {
        Some(name) => Err(format!("unknown option --{name}\n{USAGE}")),
        None => Ok(()),
    }
}

/// The value of `--name`, or `default` (none when empty: the option is required).
fn parse<T: std::str::FromStr>(
    flags: &HashMap<String, String>,
    name: &str,
    default: &str,
) -> Result<T, String>
where
    T::Err: std::fmt::Display,
{
    let value = match flags.get(name) {
        Some(value) => value.as_str(),
        None if !default.is_empty() => default,
        None => return Err(format!("--{name} is required\n{USAGE}")),
    };
    value
        .parse()
        .map_err(|e| format!("--{name} {value:?}: {e}"))
}
