//! A file as the writers' output, with the one slow case of the kernel's copy into the page
//! cache stepped around.
//!
//! A `write` to a file copies the bytes into the file's pages at the write's position. When
//! the destination is a few bytes *after* the source in the low 12 bits of their addresses
//! (the file position minus the source address, modulo the 4 KiB page, from 1 to 63), every
//! load of the copy falls on an address the copy has just stored to modulo the page, and
//! the processor stalls on the false dependency ("4K aliasing"). On the benchmark machine (an
//! AMD EPYC with fast `rep movsb`) a 257 MB `write` from a memory map took 245–310 ms at
//! distances 8, 16 and 24 against 150–200 ms at 0, 32, 40, 64 and beyond.
//!
//! That distance is what converting a stream into a file gives: a file is the stream's
//! messages after an 8-byte magic, so every body lands 8 bytes after where it lies in the
//! mapped input. [`FileOutput`] copies such slices through a small buffer placed half a
//! page away from both ends (one more copy, of a buffer that stays in the cache: 180–210 ms
//! in the same measurement) and passes every other slice to the file as it is. A slice of
//! 4 MiB or more is staged by a second thread (scoped to the call) a chunk ahead of the
//! writes where there is a second core, so that the extra copy runs beside the kernel's:
//! `alkaid convert` of that stream then ran within 4% of `cp` of the file.

use std::io::{ErrorKind, IoSlice, Seek, SeekFrom, Write};
use std::ops::Range;
use std::sync::OnceLock;
use std::sync::mpsc;

/// The page size whose low address bits the processor compares.
const PAGE: usize = 4096;

/// The distances staged: destination minus source, modulo a page. Measured here, 8 to 24
/// stall and 32 and more do not; up to 63 is staged in case another processor's window is
/// wider, at the cost of a cached copy.
const STALLING: Range<usize> = 1..64;

/// Slices shorter than this are written as they are: a stall over a few pages costs less
/// than a look at them.
const WORTH_CHECKING: usize = 16 << 10;

/// How much of a stalling slice goes through the buffer per write: small enough to stay in
/// the processor's cache between the two copies.
const CHUNK: usize = 256 << 10;

/// Stalling slices at least this long are staged by a second thread a chunk ahead of the
/// writes, where the machine has a second core: the staging copy then runs beside the
/// kernel's instead of before it.
const BESIDE_FROM: usize = 4 << 20;

/// A `Write` to a file, for [`FileWriter`](crate::FileWriter) and
/// [`StreamWriter`](crate::StreamWriter): it writes the same bytes as the file itself
/// would, and copies through a buffer of its own the large slices whose copy into the
/// file's pages would stall (see the module's documentation: converting a memory-mapped
/// stream into a file writes every body at such a distance).
///
/// It counts the bytes written to know the file position: [`FileOutput::new`] is for a file
/// written from its start, [`FileOutput::starting_at`] for one written from elsewhere. Any
/// other `Write` works too (the bytes are the same), but the buffer only helps a file.
///
/// ```
/// use std::io::BufWriter;
/// use std::sync::Arc;
/// use alkaid_array::{ArrayRef, Int64Array, RecordBatch};
/// use alkaid_ipc::{FileOutput, FileWriter, WriteOptions};
/// use alkaid_schema::{Field, Schema};
///
/// let schema = Arc::new(Schema::new(vec!["n: Int64".parse::<Field>()?]));
/// let column: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 3]));
/// let batch = RecordBatch::try_new(schema.clone(), vec![column])?;
///
/// let dir = std::env::temp_dir().join(format!("alkaid-file-output-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let file = std::fs::File::create(dir.join("n.alkaid"))?;
/// let out = BufWriter::new(FileOutput::new(file));
/// let mut writer = FileWriter::try_new(out, schema, WriteOptions::default())?;
/// writer.write(&batch)?;
/// writer.finish()?;
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct FileOutput<W: Write> {
    inner: W,
    position: u64,
    /// Room for one chunk anywhere within a page: allocated at the first stalling slice.
    buffer: Vec<u8>,
}

impl<W: Write> FileOutput<W> {
    /// `inner`, written from its start (a file just created or truncated).
    pub fn new(inner: W) -> Self {
        Self::starting_at(inner, 0)
    }

    /// `inner`, whose next byte goes to `position` of the file (a file opened to append, or
    /// after a seek).
    pub fn starting_at(inner: W, position: u64) -> Self {
        Self {
            inner,
            position,
            buffer: Vec::new(),
        }
    }

    /// The file position the next byte goes to.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// The file.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// The file. Writing to it directly leaves the position this output counts behind.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    /// The file back.
    pub fn into_inner(self) -> W {
        self.inner
    }

    /// Whether writing `bytes` at `position` would stall the copy.
    fn stalls(position: u64, bytes: &[u8]) -> bool {
        bytes.len() >= WORTH_CHECKING && STALLING.contains(&distance(position, bytes.as_ptr()))
    }

    /// Writes the start of `bytes` through the buffer, placed half a page away from both the
    /// source and the destination: a chunk, or for a long slice on a machine with a second
    /// core, all of it, staged by a second thread.
    fn write_through_buffer(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if bytes.len() >= BESIDE_FROM && cores() > 1 {
            return self.write_staged_beside(bytes);
        }
        if self.buffer.len() < CHUNK + PAGE {
            self.buffer = vec![0; CHUNK + PAGE];
        }
        let len = bytes.len().min(CHUNK);
        let start = staging_start(self.position, &self.buffer);
        let staged = &mut self.buffer[start..start + len];
        staged.copy_from_slice(&bytes[..len]);
        self.inner.write(staged)
    }

    /// Writes `bytes` chunk by chunk from two buffers that a scoped thread fills, one
    /// ahead of the writes. A failing or short-taking file stops it: the bytes written so
    /// far are reported (an error only if there were none), as `write` does.
    fn write_staged_beside(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.buffer.len() < 2 * (CHUNK + PAGE) {
            self.buffer = vec![0; 2 * (CHUNK + PAGE)];
        }
        let (first, second) = self.buffer.split_at_mut(CHUNK + PAGE);
        let (position, inner) = (self.position, &mut self.inner);
        std::thread::scope(|scope| {
            let (filled, staged) = mpsc::sync_channel::<(&mut [u8], Range<usize>)>(1);
            let (emptied, empty) = mpsc::channel::<&mut [u8]>();
            for buffer in [first, second] {
                emptied.send(buffer).expect("the receiver is here");
            }
            scope.spawn(move || {
                for (i, chunk) in bytes.chunks(CHUNK).enumerate() {
                    // Gone: the writes stopped.
                    let Ok(buffer) = empty.recv() else { return };
                    let start = staging_start(position + (i * CHUNK) as u64, buffer);
                    buffer[start..start + chunk.len()].copy_from_slice(chunk);
                    if filled.send((buffer, start..start + chunk.len())).is_err() {
                        return;
                    }
                }
            });
            let mut written = 0;
            for (buffer, range) in staged {
                let mut done = range.start;
                while done < range.end {
                    match inner.write(&buffer[done..range.end]) {
                        Ok(0) => return Ok(written + done - range.start),
                        Ok(n) => done += n,
                        Err(e) if e.kind() == ErrorKind::Interrupted => {}
                        Err(e) => {
                            let n = written + done - range.start;
                            return if n > 0 { Ok(n) } else { Err(e) };
                        }
                    }
                }
                written += range.len();
                // The thread may have finished: nothing more to fill.
                let _ = emptied.send(buffer);
            }
            Ok(written)
        })
    }

    fn advance(&mut self, written: std::io::Result<usize>) -> std::io::Result<usize> {
        let n = written?;
        self.position += n as u64;
        Ok(n)
    }
}

/// The cores this process may use, asked once (the answer reads cgroup files).
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Where in `buffer` to stage bytes bound for file position `position`: half a page from
/// it, modulo a page (and so from the source too, which is 1 to 63 bytes from it).
fn staging_start(position: u64, buffer: &[u8]) -> usize {
    (distance(position, buffer.as_ptr()) + PAGE / 2) % PAGE
}

/// The file position minus the address, modulo a page.
fn distance(position: u64, address: *const u8) -> usize {
    (position as usize).wrapping_sub(address as usize) % PAGE
}

impl<W: Write> Write for FileOutput<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = if Self::stalls(self.position, bytes) {
            self.write_through_buffer(bytes)
        } else {
            self.inner.write(bytes)
        };
        self.advance(written)
    }

    /// Passes slices on in one vectored write up to the first that would stall, which then
    /// goes through the buffer by itself.
    fn write_vectored(&mut self, slices: &[IoSlice<'_>]) -> std::io::Result<usize> {
        let mut at = self.position;
        let stalling = slices.iter().position(|slice| {
            let stalls = Self::stalls(at, slice);
            at += slice.len() as u64;
            stalls
        });
        let written = match stalling {
            Some(0) => self.write_through_buffer(&slices[0]),
            Some(first) => self.inner.write_vectored(&slices[..first]),
            None => self.inner.write_vectored(slices),
        };
        self.advance(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Moves within the file, and counts from where it lands: a writer that goes back for a
/// message's header ([`FileWriter::write_while_compressing`]) needs it.
///
/// [`FileWriter::write_while_compressing`]: crate::FileWriter::write_while_compressing
impl<W: Write + Seek> Seek for FileOutput<W> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        self.position = self.inner.seek(to)?;
        Ok(self.position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records every slice it is given (where it was) and takes at most `most` bytes a call.
    struct Recording {
        bytes: Vec<u8>,
        sources: Vec<(usize, usize)>,
        most: usize,
    }

    impl Write for Recording {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            let n = bytes.len().min(self.most);
            self.sources.push((bytes.as_ptr() as usize, n));
            self.bytes.extend_from_slice(&bytes[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn recording(most: usize) -> Recording {
        Recording {
            bytes: Vec::new(),
            sources: Vec::new(),
            most,
        }
    }

    /// A file position `behind` bytes past the address of `source`, modulo a page.
    fn position_for(source: &[u8], behind: usize) -> u64 {
        ((source.as_ptr() as usize + behind) % PAGE) as u64 + 10 * PAGE as u64
    }

    fn within(source: &[u8], address: usize) -> bool {
        let start = source.as_ptr() as usize;
        (start..start + source.len()).contains(&address)
    }

    #[test]
    fn stalling_slices_go_through_the_buffer_and_others_do_not() {
        let data: Vec<u8> = (0..1_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
        for (behind, buffered) in [(8, true), (24, true), (63, true), (0, false), (64, false)] {
            let mut out =
                FileOutput::starting_at(recording(usize::MAX), position_for(&data, behind));
            out.write_all(&data).unwrap();
            let inner = out.get_ref();
            assert_eq!(inner.bytes, data, "distance {behind}");
            let from_source = inner.sources.iter().any(|&(at, _)| within(&data, at));
            assert_eq!(from_source, !buffered, "distance {behind}");
            if buffered {
                // Each chunk was staged half a page from both ends.
                let mut position = position_for(&data, behind);
                for &(at, n) in &inner.sources {
                    assert_eq!((position as usize).wrapping_sub(at) % PAGE, PAGE / 2);
                    assert!(n <= CHUNK);
                    position += n as u64;
                }
            }
        }
    }

    /// A long stalling slice, staged by a second thread: every byte, each chunk half a page
    /// from both ends, through a file that takes little per call; and a file that fails
    /// partway gets what it took reported, then the error.
    #[test]
    fn long_slices_are_staged_beside_the_writes() {
        let data: Vec<u8> = (0..10_000_000u32).map(|i| (i * 7 % 253) as u8).collect();
        for most in [usize::MAX, 77_777] {
            let start = position_for(&data, 8);
            let mut out = FileOutput::starting_at(recording(most), start);
            out.write_all(&data).unwrap();
            assert_eq!(out.position(), start + data.len() as u64);
            let inner = out.get_ref();
            assert!(inner.bytes == data, "at most {most} a call");
            let mut position = start;
            for &(at, n) in &inner.sources {
                assert!(!within(&data, at));
                assert_eq!((position as usize).wrapping_sub(at) % PAGE, PAGE / 2);
                position += n as u64;
            }
        }

        struct FailingAfter(usize);
        impl Write for FailingAfter {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                if self.0 == 0 {
                    return Err(std::io::Error::other("disk full"));
                }
                let n = bytes.len().min(self.0).min(100_000);
                self.0 -= n;
                Ok(n)
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let start = position_for(&data, 16);
        let mut out = FileOutput::starting_at(FailingAfter(CHUNK + 1234), start);
        // Staged beside the writes, one call takes all the file took; a chunk at a time
        // (one core), a few calls.
        let mut taken = 0;
        let e = loop {
            match out.write(&data[taken..]) {
                Ok(n) => taken += n,
                Err(e) => break e,
            }
        };
        assert_eq!(e.to_string(), "disk full");
        assert_eq!(taken, CHUNK + 1234);
        assert_eq!(out.position(), start + taken as u64);
    }

    #[test]
    fn short_slices_are_not_looked_at() {
        let data = vec![5u8; WORTH_CHECKING - 1];
        let mut out = FileOutput::starting_at(recording(usize::MAX), position_for(&data, 8));
        out.write_all(&data).unwrap();
        assert!(within(&data, out.get_ref().sources[0].0));
    }

    #[test]
    fn vectored_writes_stop_before_a_stalling_slice_and_keep_every_byte() {
        let data: Vec<u8> = (0..600_000u32).map(|i| (i % 253) as u8).collect();
        let head = &data[..100];
        // The second slice starts 100 bytes on, at a stalling distance once the head is
        // written.
        let body = &data[100..];
        for most in [usize::MAX, 1000, 77_777] {
            let mut out = FileOutput::starting_at(recording(most), position_for(body, 16) - 100);
            let start = out.position();
            let mut slices = [IoSlice::new(head), IoSlice::new(body)];
            let mut slices = &mut slices[..];
            while !slices.is_empty() {
                let n = out.write_vectored(slices).unwrap();
                IoSlice::advance_slices(&mut slices, n);
            }
            assert_eq!(out.get_ref().bytes, data, "at most {most} a call");
            assert_eq!(out.position(), start + data.len() as u64);
            // The head went as it was; of the body, only a last piece too short to look at
            // (when the file took little at a time) came from where it lies.
            let sources = &out.get_ref().sources;
            assert!(within(head, sources[0].0));
            let direct: usize = sources[1..]
                .iter()
                .filter(|&&(at, _)| within(body, at))
                .map(|&(_, n)| n)
                .sum();
            assert!(
                direct < WORTH_CHECKING,
                "{direct} bytes straight from the body"
            );
        }
    }

    #[test]
    fn errors_and_positions_pass_through() {
        struct Failing;
        impl Write for Failing {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk full"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut out = FileOutput::starting_at(Failing, 42);
        let error = out.write(&[1, 2, 3]).unwrap_err();
        assert_eq!(error.to_string(), "disk full");
        assert_eq!(out.position(), 42);
    }

    #[test]
    fn seeks_move_the_position_counted() {
        let mut out = FileOutput::new(std::io::Cursor::new(Vec::new()));
        out.write_all(b"0123456789").unwrap();
        assert_eq!(out.seek(SeekFrom::Start(3)).unwrap(), 3);
        assert_eq!(out.position(), 3);
        out.write_all(b"ab").unwrap();
        assert_eq!(out.position(), 5);
        assert_eq!(out.seek(SeekFrom::End(0)).unwrap(), 10);
        assert_eq!(out.position(), 10);
        // A refused seek leaves the position as it was.
        assert!(out.seek(SeekFrom::Current(-11)).is_err());
        assert_eq!(out.position(), 10);
        assert_eq!(out.into_inner().into_inner(), b"012ab56789");
    }
}
