//! `alkaid`: the command-line tool of the Alkaid columnar format.
//!
//! `alkaid demo` runs every layer on a million-row table; `schema`, `cat`, `validate`,
//! `inspect`, `convert` and `integration` work on IPC files and streams in any supported
//! form (`ALKAID1` or `ARROW1` files, streams with or without the continuation marker,
//! either byte order), and `schema`, `cat`, `validate` and `convert` on Parquet, CSV and
//! newline-delimited JSON too (by extension, or `--from` and `--to`). Exit status:
//! 0 on success, 1 when the input or the work failed (with one line on standard error
//! saying what and where), 2 for a usage error.

mod commands;
mod demo;
mod failure;
#[cfg(feature = "flight")]
mod flight;
mod input;
mod inspect;
mod integration;
mod location;
mod output;
mod progress;
mod recognise;
#[cfg(feature = "object-store")]
mod remote;
mod rows;
#[cfg(feature = "flight")]
mod serve;
mod spooled;
#[cfg(feature = "sql")]
mod sql;
mod tabular;

use std::path::PathBuf;
use std::process::ExitCode;

use alkaid_ipc::Compression;
use clap::{Parser, Subcommand, ValueEnum};

use failure::Failure;
use input::Selection;
use output::{FileMagic, Form, Output};

/// The Alkaid columnar format's tool: a tour of the stack, and IPC files and streams
/// inspected, printed, validated and converted.
#[derive(Parser)]
#[command(name = "alkaid", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build a million-row table, write it as a zstd IPC file, memory-map it back, filter
    /// and take, and print each step with its time.
    Demo {
        /// Where to write `demo.alkaid` (default: the system's temporary directory).
        dir: Option<PathBuf>,
    },
    /// Print the schema of a file or stream (`-` reads standard input).
    Schema {
        /// The input.
        file: String,
        #[command(flatten)]
        selection: Selection,
    },
    /// Print batches as a table.
    Cat {
        /// The input (`-` reads standard input).
        file: String,
        /// Print at most this many rows.
        #[arg(long)]
        limit: Option<usize>,
        /// Print only this batch (counted from 0).
        #[arg(long)]
        batch: Option<usize>,
        #[command(flatten)]
        selection: Selection,
    },
    /// List the messages of a file or stream: kinds, positions, metadata and body sizes,
    /// compression, dictionary ids and deltas, alignment, and a file's footer.
    Inspect {
        /// The input (`-` reads standard input).
        file: String,
    },
    /// Check every value of every batch; on failure, say which batch, column and why.
    Validate {
        /// The input (`-` reads standard input).
        file: String,
        /// `full`: what the format requires (every reader checks it). `strict` adds what
        /// Arrow C++'s full validation checks beyond it: decimals within their precision,
        /// whole-day `Date64`, times within one day, non-nullable map entries, no nulls in
        /// non-nullable fields at any depth, `arrow.json` values that are JSON.
        #[arg(long, value_enum, default_value_t = Level::Strict)]
        level: Level,
        #[command(flatten)]
        selection: Selection,
    },
    /// Arrow's integration-test entry points: compare, convert between the JSON test
    /// format and IPC files, and between IPC streams and files.
    Integration {
        /// The JSON test file.
        #[arg(long)]
        json: Option<String>,
        /// The IPC file (written with the ARROW1 magic).
        #[arg(long)]
        arrow: Option<String>,
        /// What to do: `validate` (the IPC file holds what the JSON describes),
        /// `json-to-arrow`, `arrow-to-json`, `stream-to-file` (standard input to --arrow),
        /// `file-to-stream` (--arrow to standard output).
        #[arg(long, value_enum)]
        mode: IntegrationMode,
    },
    /// Serve the IPC files of a directory as Arrow Flight flights (each named by its file
    /// name), or with --sql a Flight SQL server over the directory's tables. Read-only
    /// unless --allow-writes is given (then uploads become new files, written atomically;
    /// with --sql, INSERT, COPY to new paths inside DIR and bulk ingestion); every limit
    /// below is on by default. Runs until interrupted.
    #[cfg(feature = "flight")]
    Serve {
        /// The directory.
        dir: String,
        #[command(flatten)]
        serving: serve::Serving,
    },
    /// Fetch one flight from a Flight server (`grpc://HOST:PORT`, `grpc+tls://…`) into an
    /// IPC file, or print it.
    #[cfg(feature = "flight")]
    Get {
        /// The server.
        uri: String,
        /// The flight's name (its ticket).
        name: String,
        /// The IPC file to write (`.arrow` and `.feather` with the ARROW1 magic, `.arrows`
        /// as a stream); printed as a table without it.
        out: Option<String>,
        /// The file magic (default: from the extension).
        #[arg(long, value_enum)]
        magic: Option<FileMagic>,
        #[command(flatten)]
        connection: flight::Connection,
    },
    /// Upload an IPC file or stream to a Flight server as a flight.
    #[cfg(feature = "flight")]
    Put {
        /// The server.
        uri: String,
        /// The input (`-` reads standard input).
        file: String,
        /// The flight's name (by default the input's file name).
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        connection: flight::Connection,
    },
    /// Run a SQL query with DataFusion over IPC, Parquet, CSV or JSON files registered as
    /// tables, and print the result (needs the `sql` feature).
    #[cfg(feature = "sql")]
    Sql {
        /// The query.
        query: String,
        /// A table: NAME=PATH, a file, or a directory of files when PATH ends in `/`. The
        /// format by the extension (`.parquet`, `.csv`, `.json`/`.ndjson`; IPC otherwise);
        /// a local directory's by the extension its files share.
        #[arg(long = "table", value_name = "NAME=PATH")]
        tables: Vec<String>,
        /// Write the result to this IPC file instead of printing it (form and magic from
        /// the extension, as for `convert`).
        #[arg(long)]
        output: Option<String>,
        /// Read Parquet tables' INT96 timestamps (Impala's, Hive's, Spark's) in
        /// microseconds rather than nanoseconds, where a value past 2262 is an error.
        #[arg(long)]
        int96_as_microseconds: bool,
    },
    /// Read a file or stream in any supported form and write it again: IPC to IPC loses
    /// nothing (metadata at every level, dictionaries and batch boundaries survive);
    /// Parquet, CSV and JSON keep what their format holds.
    Convert {
        /// The input (`-` reads standard input).
        input: String,
        /// The output (`-` writes standard output).
        output: String,
        /// What to write (default: from the extension: `.arrows` a stream, `.parquet`,
        /// `.csv`, `.json`/`.ndjson` those formats, else an IPC file).
        #[arg(long, value_enum)]
        to: Option<Form>,
        /// Buffer compression.
        #[arg(long, value_enum, default_value_t = Codec::None)]
        compression: Codec,
        /// The file magic (default: from the extension, `arrow` for `.arrow`, `.arrows`,
        /// `.feather` and `.ipc`, else `alkaid`).
        #[arg(long, value_enum)]
        magic: Option<FileMagic>,
        #[command(flatten)]
        selection: Selection,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Codec {
    None,
    Lz4,
    Zstd,
}

#[derive(Clone, Copy, ValueEnum)]
enum IntegrationMode {
    Validate,
    JsonToArrow,
    ArrowToJson,
    StreamToFile,
    FileToStream,
}

#[derive(Clone, Copy, ValueEnum)]
enum Level {
    Full,
    Strict,
}

fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Demo { dir } => {
            demo::run(&dir.unwrap_or_else(|| std::env::temp_dir().join("alkaid-demo")))
        }
        Command::Schema { file, selection } => commands::schema(&file, &selection),
        Command::Cat {
            file,
            limit,
            batch,
            selection,
        } => commands::cat(&file, &selection, limit, batch),
        Command::Validate {
            file,
            level,
            selection,
        } => commands::validate(
            &file,
            &selection,
            match level {
                Level::Full => alkaid_data::ValidationLevel::Full,
                Level::Strict => alkaid_data::ValidationLevel::Strict,
            },
        ),
        Command::Inspect { file } => inspect::inspect(&file),
        #[cfg(feature = "flight")]
        Command::Serve { dir, serving } => serve::serve_directory(&dir, serving),
        #[cfg(feature = "flight")]
        Command::Get {
            uri,
            name,
            out,
            magic,
            connection,
        } => {
            let out = out.map(|path| (Output::for_path(&path, None, magic), path));
            flight::get(&uri, &name, out, connection)
        }
        #[cfg(feature = "flight")]
        Command::Put {
            uri,
            file,
            name,
            connection,
        } => {
            let name = name.unwrap_or_else(|| {
                std::path::Path::new(&file)
                    .file_name()
                    .map_or_else(|| "upload".into(), |n| n.to_string_lossy().into_owned())
            });
            flight::put(&uri, &file, &name, connection)
        }
        #[cfg(feature = "sql")]
        Command::Sql {
            query,
            tables,
            output,
            int96_as_microseconds,
        } => {
            let output = output.map(|path| (Output::for_path(&path, None, None), path));
            sql::run(&query, &tables, output, int96_as_microseconds)
        }
        Command::Integration { json, arrow, mode } => {
            let mode = match mode {
                IntegrationMode::Validate => integration::Mode::Validate,
                IntegrationMode::JsonToArrow => integration::Mode::JsonToArrow,
                IntegrationMode::ArrowToJson => integration::Mode::ArrowToJson,
                IntegrationMode::StreamToFile => integration::Mode::StreamToFile,
                IntegrationMode::FileToStream => integration::Mode::FileToStream,
            };
            integration::run(mode, json.as_deref(), arrow.as_deref())
        }
        Command::Convert {
            input,
            output,
            to,
            compression,
            magic,
            selection,
        } => {
            let options = commands::ConvertOptions {
                output: Output::for_path(&output, to, magic),
                compression: match compression {
                    Codec::None => Compression::None,
                    Codec::Lz4 => Compression::Lz4Frame,
                    Codec::Zstd => Compression::Zstd { level: 3 },
                },
                selection,
            };
            commands::convert(&input, &output, options)
        }
    }
}

fn main() -> ExitCode {
    // Usage errors exit with status 2 (clap's convention), help and version with 0.
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            // One line, whatever the error's own layout (the flatbuffer verifier's spans
            // several).
            let text = failure.to_string();
            let line: Vec<&str> = text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            eprintln!("alkaid: {}", line.join(" "));
            ExitCode::from(1)
        }
    }
}
