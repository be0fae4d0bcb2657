//! An IPC stream or file written one message behind its encoding: the caller's thread
//! encodes each batch (compressing on every core) into a [`SpoolWriter`], and a thread of
//! its own writes the messages before it meanwhile, so that the write of one batch overlaps
//! the reading, validation and compression of the next.
//!
//! Used for uncompressed outputs and for standard output; a compressed output into a file
//! the command creates is written by the library's writers on the command's thread, each
//! large body while it is compressed (`write_while_compressing`, in output.rs), which
//! overlaps more than one message behind can for a single large batch.
//!
//! Memory: one message waits for the writing thread and one is being written, besides the
//! one being encoded. Uncompressed, their parts are slices of the batches (of the input's
//! map, for `convert`), not copies; compressed, each holds its compressed buffers.

use std::io::{IoSlice, Write};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::JoinHandle;

use alkaid_array::RecordBatch;
use alkaid_buffer::Buffer;
use alkaid_ipc::SpoolWriter;
use alkaid_schema::Metadata;

/// What the writing thread is asked to do.
enum Job {
    /// Write `parts`, which start at byte `at` and are `what` (for errors).
    Write {
        what: String,
        at: u64,
        parts: Vec<Buffer>,
    },
    /// Answer once everything sent before is written.
    Drained(mpsc::Sender<()>),
}

type Written = Result<Box<dyn Write + Send>, String>;

/// A [`SpoolWriter`]'s messages written to `out` by a thread of their own.
pub struct Spooled {
    spool: SpoolWriter,
    jobs: Option<SyncSender<Job>>,
    writer: Option<JoinHandle<Written>>,
    batches: usize,
}

impl Spooled {
    /// Starts writing `spool` (its schema message, and a file's magic) to `out`.
    pub fn new(out: Box<dyn Write + Send>, mut spool: SpoolWriter) -> Result<Self, String> {
        let (jobs, queue) = mpsc::sync_channel(1);
        let writer = std::thread::Builder::new()
            .name("alkaid-write".into())
            .spawn(move || write_jobs(out, queue))
            .map_err(|e| format!("starting the writing thread: {e}"))?;
        let first = spool.take();
        let mut spooled = Self {
            spool,
            jobs: Some(jobs),
            writer: Some(writer),
            batches: 0,
        };
        spooled.send("the schema message".into(), 0, first)?;
        Ok(spooled)
    }

    /// Encodes `batch` (and the dictionaries it needs) and hands it to the writing thread.
    pub fn write(&mut self, batch: &RecordBatch, metadata: &Metadata) -> Result<(), String> {
        let at = self.spool.position();
        self.spool
            .write_with_metadata(batch, metadata)
            .map_err(|e| e.to_string())?;
        let parts = self.spool.take();
        let what = format!("record batch {}", self.batches);
        self.batches += 1;
        self.send(what, at, parts)
    }

    /// Waits until every message handed over so far is written.
    pub fn drain(&mut self) -> Result<(), String> {
        let (done, answer) = mpsc::channel();
        self.send_job(Job::Drained(done))?;
        match answer.recv() {
            Ok(()) => Ok(()),
            Err(_) => Err(self.writer_error()),
        }
    }

    /// Writes the end of the stream (and a file's footer, with `footer` as its metadata),
    /// waits for every write, and gives the output back.
    pub fn finish(mut self, footer: Option<Metadata>) -> Written {
        if let Some(footer) = footer {
            self.spool.set_footer_metadata(footer);
        }
        let at = self.spool.position();
        self.spool.finish().map_err(|e| e.to_string())?;
        let parts = self.spool.take();
        self.send("the end of the stream".into(), at, parts)?;
        self.jobs = None;
        self.join()
    }

    fn send(&mut self, what: String, at: u64, parts: Vec<Buffer>) -> Result<(), String> {
        self.send_job(Job::Write { what, at, parts })
    }

    fn send_job(&mut self, job: Job) -> Result<(), String> {
        let sent = match &self.jobs {
            Some(jobs) => jobs.send(job).is_ok(),
            None => false,
        };
        match sent {
            true => Ok(()),
            // The thread stopped: a write failed.
            false => Err(self.writer_error()),
        }
    }

    /// The writing thread's error, once it has stopped.
    fn writer_error(&mut self) -> String {
        self.jobs = None;
        match self.join() {
            Ok(_) => "the writing thread stopped".into(),
            Err(e) => e,
        }
    }

    fn join(&mut self) -> Written {
        let writer = self.writer.take().ok_or("the output was already closed")?;
        // A panic while writing is a bug: pass it on.
        writer
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e))
    }
}

impl Drop for Spooled {
    /// Stops the writing thread after what it has (a command that failed meanwhile).
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

/// The writing thread: every job in turn, until the sender goes or a write fails.
fn write_jobs(mut out: Box<dyn Write + Send>, queue: Receiver<Job>) -> Written {
    for job in queue {
        match job {
            Job::Write { what, at, parts } => write_parts(&mut out, &parts)
                .map_err(|e| format!("writing {what} at byte {at}: {e}"))?,
            Job::Drained(done) => {
                let _ = done.send(());
            }
        }
    }
    out.flush().map_err(|e| format!("flushing: {e}"))?;
    Ok(out)
}

/// Writes every part in vectored writes (as many as the output takes per call), resuming
/// short ones.
fn write_parts(out: &mut dyn Write, parts: &[Buffer]) -> std::io::Result<()> {
    let mut slices: Vec<IoSlice<'_>> = parts.iter().map(|p| IoSlice::new(p)).collect();
    let mut slices = &mut slices[..];
    while !slices.is_empty() {
        match out.write_vectored(slices) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut slices, n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use alkaid_array::{ArrayRef, Int64Array};
    use alkaid_ipc::{Compression, FileWriter, StreamWriter, WriteOptions};
    use alkaid_schema::{Field, Schema, SchemaRef};

    use super::*;

    fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec!["n: Int64".parse::<Field>().unwrap()]))
    }

    fn batch(start: i64, rows: i64) -> RecordBatch {
        let column: ArrayRef =
            Arc::new(Int64Array::from((start..start + rows).collect::<Vec<_>>()));
        RecordBatch::try_new(schema(), vec![column]).unwrap()
    }

    /// Shared bytes, and how many more it takes before failing.
    #[derive(Clone)]
    struct Shared {
        bytes: Arc<Mutex<Vec<u8>>>,
        room: usize,
    }

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.room == 0 {
                return Err(std::io::Error::other("the disk is full"));
            }
            // A little at a time: short writes are resumed.
            let n = buf.len().min(self.room).min(1000);
            self.bytes.lock().unwrap().extend_from_slice(&buf[..n]);
            self.room -= n;
            Ok(n)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn shared(room: usize) -> Shared {
        Shared {
            bytes: Arc::default(),
            room,
        }
    }

    #[test]
    fn the_bytes_are_the_writers_for_streams_and_files() {
        let batches = [batch(0, 5000), batch(5000, 3), batch(0, 0)];
        for compression in [Compression::None, Compression::Lz4Frame] {
            let options = WriteOptions::default().with_compression(compression);
            let mut footer = Metadata::new();
            footer.insert("k", "v");

            let out = shared(usize::MAX);
            let spool = SpoolWriter::file(schema(), options.clone()).unwrap();
            let mut spooled = Spooled::new(Box::new(out.clone()), spool).unwrap();
            let mut file = FileWriter::try_new(Vec::new(), schema(), options.clone()).unwrap();
            for b in &batches {
                spooled.write(b, &Metadata::new()).unwrap();
                file.write(b).unwrap();
            }
            spooled.drain().unwrap();
            spooled.finish(Some(footer.clone())).unwrap();
            file.set_footer_metadata(footer);
            let file = file.into_inner().unwrap();
            assert!(*out.bytes.lock().unwrap() == file, "{compression:?} file");

            let out = shared(usize::MAX);
            let spool = SpoolWriter::stream(schema(), options.clone()).unwrap();
            let mut spooled = Spooled::new(Box::new(out.clone()), spool).unwrap();
            let mut stream = StreamWriter::try_new(Vec::new(), schema(), options).unwrap();
            for b in &batches {
                spooled.write(b, &Metadata::new()).unwrap();
                stream.write(b).unwrap();
            }
            spooled.finish(None).unwrap();
            let stream = stream.into_inner().unwrap();
            assert!(
                *out.bytes.lock().unwrap() == stream,
                "{compression:?} stream"
            );
        }
    }

    /// An output that fails partway through a batch: the error names the batch and where
    /// it started, from whichever call comes next, and what came before is written.
    #[test]
    fn a_failed_write_is_named_by_the_next_call() {
        let full = {
            let mut stream =
                StreamWriter::try_new(Vec::new(), schema(), WriteOptions::default()).unwrap();
            stream.write(&batch(0, 100)).unwrap();
            stream.into_inner().unwrap()
        };
        // Room for the schema message and the first batch's start.
        let room = full.len() - 500;
        let out = shared(room);
        let spool = SpoolWriter::stream(schema(), WriteOptions::default()).unwrap();
        let mut spooled = Spooled::new(Box::new(out.clone()), spool).unwrap();
        spooled.write(&batch(0, 100), &Metadata::new()).unwrap();
        let error = loop {
            // Later calls find the thread stopped (the first may still be queued).
            if let Err(e) = spooled.write(&batch(0, 100), &Metadata::new()) {
                break e;
            }
        };
        assert!(
            error.starts_with("writing record batch 0 at byte ")
                && error.ends_with("the disk is full"),
            "{error}"
        );
        assert_eq!(*out.bytes.lock().unwrap(), full[..room]);
        // Finishing a writer whose thread stopped is an error too, not a hang.
        assert!(spooled.finish(None).is_err());
    }
}
