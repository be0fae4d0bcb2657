//! Parquet, CSV and newline-delimited JSON in and out of Alkaid record batches.
//!
//! Built on arrow-rs's readers and writers (`parquet`, `arrow-csv`, `arrow-json`), whose
//! batches cross to Alkaid through `alkaid-arrow` without copying a buffer. Each format is
//! a module behind a default feature of its name. Every reader returns [`Batches`], an
//! iterator of Alkaid batches that holds one batch at a time, or from an object store or any
//! alkaid-ipc-async `RangeSource` (each format's `read_source`) a [`BatchStream`]; every
//! error is a [`FormatError`] naming the file and, where the reader knows, the row or
//! batch.
//!
//! ```
//! # #[cfg(all(feature = "parquet", feature = "csv"))]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use alkaid_formats::csv;
//! use alkaid_formats::parquet as pq;
//!
//! let dir = std::env::temp_dir().join(format!("alkaid-formats-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! std::fs::write(dir.join("cities.csv"), "city,people\nLyon,522250\nNîmes,\n")?;
//!
//! // CSV in, with its schema inferred; Parquet out, and back.
//! let batches = csv::read(dir.join("cities.csv"))?;
//! let schema = batches.schema();
//! let rows = batches.collect_all()?;
//! pq::write(dir.join("cities.parquet"), schema, rows, &pq::WriteOptions::default())?;
//! let back = pq::read(dir.join("cities.parquet"))?.collect_all()?;
//! assert_eq!(back[0].num_rows(), 2);
//! assert_eq!(back[0].column(1).null_count(), 1);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! # #[cfg(not(all(feature = "parquet", feature = "csv")))]
//! # fn main() {}
//! ```

mod batches;
#[cfg(feature = "csv")]
pub mod csv;
mod error;
#[cfg(feature = "json")]
pub mod json;
#[cfg(feature = "parquet")]
pub mod parquet;
#[cfg(any(feature = "parquet", feature = "csv", feature = "json"))]
mod stream;
#[cfg(any(feature = "csv", feature = "json"))]
mod text_source;

pub use batches::Batches;
pub use error::{FormatError, Result};
#[cfg(any(feature = "parquet", feature = "csv", feature = "json"))]
pub use stream::BatchStream;
