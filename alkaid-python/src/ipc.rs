//! IPC streams and files from Python: read from bytes, a path (memory-mapped on request,
//! then zero-copy) or a file object; write to bytes, a path or a file object.

use std::fs::File;
use std::io::{BufWriter, Cursor};
use std::path::PathBuf;

use alkaid_array::RecordBatch;
use alkaid_buffer::Buffer;
use alkaid_ipc::{
    BufferStreamReader, Compression, FileMap, FileOutput, FileReader, FileWriter, ReadOptions,
    StreamWriter, WriteOptions,
};
use alkaid_schema::SchemaRef;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::batch::PyRecordBatch;
use crate::error::to_py;
use crate::reader::{Batches, PyRecordBatchReader};

/// The bytes of `source`: a bytes-like object (copied), a path (read, or mapped when
/// `memory_map`, through alkaid-ipc's guarded [`FileMap`]: a file truncated while mapped is
/// an error from its `check`, not a crash), or a file object (read whole).
fn source_bytes(source: &Bound<'_, PyAny>, memory_map: bool) -> PyResult<FileMap> {
    if let Ok(bytes) = source.extract::<Vec<u8>>() {
        return Ok(FileMap::from(Buffer::from(bytes)));
    }
    if source.hasattr("read")? && !source.is_instance_of::<pyo3::types::PyString>() {
        let bytes: Vec<u8> = source.call_method0("read")?.extract()?;
        return Ok(FileMap::from(Buffer::from(bytes)));
    }
    let path: PathBuf = source.extract()?;
    if !memory_map {
        let bytes = std::fs::read(&path).map_err(|e| to_py(format!("{}: {e}", path.display())))?;
        return Ok(FileMap::from(Buffer::from(bytes)));
    }
    FileMap::open(&path).map_err(|e| to_py(format!("{}: {e}", path.display())))
}

/// Reads the IPC stream in `source` (bytes, a path or a file object), lazily: each batch
/// is decoded and checked as it is read, sharing the source's memory.
#[pyfunction]
pub fn read_ipc_stream(source: &Bound<'_, PyAny>) -> PyResult<PyRecordBatchReader> {
    let bytes = source_bytes(source, false)?;
    let reader = BufferStreamReader::try_new(bytes.buffer().clone()).map_err(to_py)?;
    let schema = reader.schema();
    let batches: Batches = Box::new(reader.map(|b| b.map_err(|e| e.to_string())));
    Ok(PyRecordBatchReader::new(schema, batches))
}

/// Reads the IPC file in `source` (bytes, a path or a file object): with `memory_map`, a
/// path is mapped and its batches share the mapping (no copy; a file truncated while
/// batches are read is an error naming the shrinking, and batches still held from it read
/// zeros where its bytes are gone). `columns` selects columns by index; the others are
/// neither decoded nor checked.
#[pyfunction]
#[pyo3(signature = (source, memory_map = false, columns = None))]
pub fn read_ipc_file(
    source: &Bound<'_, PyAny>,
    memory_map: bool,
    columns: Option<Vec<usize>>,
) -> PyResult<PyRecordBatchReader> {
    let bytes = source_bytes(source, memory_map)?;
    let options = match columns {
        Some(columns) => ReadOptions::default().with_columns(columns),
        None => ReadOptions::default(),
    };
    let reader = FileReader::open(bytes.buffer().clone(), options).map_err(to_py)?;
    let schema = reader.schema();
    // A file that shrank under its map is the cause of whatever else went wrong.
    let batches: Batches =
        Box::new(reader.map(move |b| bytes.check().and(b).map_err(|e| e.to_string())));
    Ok(PyRecordBatchReader::new(schema, batches))
}

/// The schema and batches of `data`: an Alkaid batch or reader, or any stream or batch
/// producer.
pub(crate) fn batches_of(data: &Bound<'_, PyAny>) -> PyResult<(SchemaRef, Batches)> {
    if let Ok(batch) = data.cast::<PyRecordBatch>() {
        let batch: RecordBatch = batch.get().0.clone();
        return Ok((batch.schema().clone(), Box::new(std::iter::once(Ok(batch)))));
    }
    let reader = match data.cast::<PyRecordBatchReader>() {
        Ok(reader) => reader.get().take_batches()?,
        Err(_)
            if data.hasattr("__arrow_c_stream__")?
                || data.hasattr("__arrow_c_device_stream__")? =>
        {
            PyRecordBatchReader::import(data)?.take_batches()?
        }
        Err(_) => {
            let batch = PyRecordBatch::import(data)?.0;
            return Ok((batch.schema().clone(), Box::new(std::iter::once(Ok(batch)))));
        }
    };
    Ok(reader)
}

/// The write options of a compression name.
fn write_options(compression: Option<&str>) -> PyResult<WriteOptions> {
    let compression = match compression {
        None | Some("none") => Compression::None,
        Some("lz4") => Compression::Lz4Frame,
        Some("zstd") => Compression::ZSTD,
        Some(other) => {
            return Err(to_py(format!(
                "unknown compression {other:?} (lz4, zstd or None)"
            )));
        }
    };
    Ok(WriteOptions::default().with_compression(compression))
}

/// Where written bytes go.
enum Sink<'py> {
    /// Returned as bytes.
    Bytes,
    /// A file at the path.
    Path(PathBuf),
    /// A Python file object's `write`.
    Object(Bound<'py, PyAny>),
}

fn sink_of<'py>(sink: Option<Bound<'py, PyAny>>) -> PyResult<Sink<'py>> {
    match sink {
        None => Ok(Sink::Bytes),
        Some(s) if s.hasattr("write")? && !s.is_instance_of::<pyo3::types::PyString>() => {
            Ok(Sink::Object(s))
        }
        Some(s) => Ok(Sink::Path(s.extract()?)),
    }
}

/// Which IPC format to write.
#[derive(Clone, Copy)]
enum Format {
    Stream,
    File,
}

/// Writes `batches` in `format` into `out`, and returns it. Large compressed bodies are
/// written while they are compressed, with a seek back for each header
/// (`write_while_compressing`), so `out` seeks: a file, or a cursor over a vector.
fn written<W: std::io::Write + std::io::Seek>(
    format: Format,
    out: W,
    schema: SchemaRef,
    options: WriteOptions,
    batches: Batches,
) -> Result<W, String> {
    let text = |e: alkaid_ipc::IpcError| e.to_string();
    match format {
        Format::Stream => {
            let mut writer = StreamWriter::try_new(out, schema, options)
                .map_err(text)?
                .write_while_compressing();
            for batch in batches {
                writer.write(&batch?).map_err(text)?;
            }
            writer.into_inner().map_err(text)
        }
        Format::File => {
            let options = options.with_magic(alkaid_ipc::Magic::Arrow);
            let mut writer = FileWriter::try_new(out, schema, options)
                .map_err(text)?
                .write_while_compressing();
            for batch in batches {
                writer.write(&batch?).map_err(text)?;
            }
            writer.into_inner().map_err(text)
        }
    }
}

/// Writes `data` in `format` to `sink`, with the interpreter released while encoding.
fn write_ipc<'py>(
    py: Python<'py>,
    format: Format,
    data: &Bound<'py, PyAny>,
    sink: Option<Bound<'py, PyAny>>,
    compression: Option<&str>,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let (schema, batches) = batches_of(data)?;
    let options = write_options(compression)?;
    match sink_of(sink)? {
        Sink::Path(path) => {
            let file =
                File::create(&path).map_err(|e| to_py(format!("{}: {e}", path.display())))?;
            let out = py
                .detach(|| {
                    let out = BufWriter::new(FileOutput::new(file));
                    written(format, out, schema, options, batches)
                })
                .map_err(to_py)?;
            out.into_inner()
                .map_err(|e| to_py(format!("{}: {}", path.display(), e.error())))?;
            Ok(None)
        }
        sink => {
            let bytes = py
                .detach(|| written(format, Cursor::new(Vec::new()), schema, options, batches))
                .map_err(to_py)?
                .into_inner();
            let bytes = PyBytes::new(py, &bytes);
            match sink {
                Sink::Object(object) => {
                    object.call_method1("write", (bytes,))?;
                    Ok(None)
                }
                _ => Ok(Some(bytes)),
            }
        }
    }
}

/// Writes `data` (a batch, a reader, or any batch or stream producer) as an IPC stream,
/// compressed with `compression` (None, "lz4" or "zstd"), to `sink`: returned as bytes
/// when None, written to a path, or to a file object's `write`.
#[pyfunction]
#[pyo3(signature = (data, sink = None, compression = None))]
pub fn write_ipc_stream<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    sink: Option<Bound<'py, PyAny>>,
    compression: Option<&str>,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    write_ipc(py, Format::Stream, data, sink, compression)
}

/// Writes `data` as an IPC file (magic `ARROW1`, which every Arrow reader opens), as
/// [`write_ipc_stream`] writes a stream.
#[pyfunction]
#[pyo3(signature = (data, sink = None, compression = None))]
pub fn write_ipc_file<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    sink: Option<Bound<'py, PyAny>>,
    compression: Option<&str>,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    write_ipc(py, Format::File, data, sink, compression)
}
