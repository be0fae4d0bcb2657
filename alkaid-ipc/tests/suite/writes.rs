//! Outputs that take less than they are given: the writers' bytes are the same whatever
//! an output takes per call, and the same as [`SpoolWriter`]'s buffers (the vectored write from the batches' own buffers against a
//! plain output that takes one slice, or a few bytes, per call and is sometimes
//! interrupted), and an output that fails mid-message is an error naming the message, with
//! what was written before kept.

use std::io::{self, IoSlice, Write};

use alkaid_ipc::{FileOutput, FileWriter, IpcErrorKind, SpoolWriter, StreamWriter, WriteOptions};
use alkaid_schema::arbitrary;
use proptest::prelude::*;

use crate::batches::random_batches;
use crate::common::{Rng, dictionary_of_dictionary, generatable};
use crate::support::int_batch;

/// An output without vectored writes (the default: the first non-empty slice per call)
/// that takes at most a random few bytes per call and answers some calls with
/// `Interrupted`.
struct Awkward {
    bytes: Vec<u8>,
    rng: Rng,
    calls: usize,
}

impl Write for Awkward {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.calls += 1;
        if self.rng.chance(0.2) {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = buf.len().min(1 + self.rng.below(100));
        self.bytes.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An output that takes whole slices of a vectored write but stops partway through one.
struct Partial {
    bytes: Vec<u8>,
    rng: Rng,
}

impl Write for Partial {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_vectored(&[IoSlice::new(buf)])
    }

    fn write_vectored(&mut self, slices: &[IoSlice<'_>]) -> io::Result<usize> {
        let total: usize = slices.iter().map(|s| s.len()).sum();
        let take = if total == 0 {
            0
        } else {
            1 + self.rng.below(total)
        };
        let mut left = take;
        for slice in slices {
            let n = slice.len().min(left);
            self.bytes.extend_from_slice(&slice[..n]);
            left -= n;
        }
        Ok(take)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An output that fails once it has taken `limit` bytes.
struct Failing {
    bytes: Vec<u8>,
    limit: usize,
}

impl Write for Failing {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = self.limit - self.bytes.len();
        if room == 0 {
            return Err(io::Error::other("the disk is full"));
        }
        let n = buf.len().min(room);
        self.bytes.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The bytes of `parts`, in order; none of them empty.
fn concat(parts: Vec<alkaid_buffer::Buffer>) -> Vec<u8> {
    assert!(parts.iter().all(|p| !p.is_empty()));
    parts.iter().flat_map(|p| p.iter().copied()).collect()
}

fn options(rng: &mut Rng) -> WriteOptions {
    let compression = match rng.below(3) {
        0 => alkaid_ipc::Compression::None,
        1 => alkaid_ipc::Compression::Lz4Frame,
        _ => alkaid_ipc::Compression::Zstd { level: 1 },
    };
    WriteOptions::default()
        .with_compression(compression)
        .with_alignment(if rng.chance(0.5) { 8 } else { 64 })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn every_output_gets_the_same_bytes(
        types in prop::collection::vec(arbitrary::data_type_with_depth(3), 1..4),
        seed in any::<u64>(),
        lens in prop::collection::vec(0usize..40, 1..4),
    ) {
        prop_assume!(types.iter().all(|t| generatable(t) && !dictionary_of_dictionary(t)));
        let mut rng = Rng::new(seed);
        let (schema, batches) = random_batches(&types, &lens, &mut rng);
        let options = options(&mut rng);

        let mut stream = StreamWriter::try_new(Vec::new(), schema.clone(), options.clone()).unwrap();
        let awkward = Awkward { bytes: Vec::new(), rng: Rng::new(seed ^ 1), calls: 0 };
        let mut awkward = StreamWriter::try_new(awkward, schema.clone(), options.clone()).unwrap();
        let partial = Partial { bytes: Vec::new(), rng: Rng::new(seed ^ 2) };
        let mut partial = StreamWriter::try_new(partial, schema.clone(), options.clone()).unwrap();
        for batch in &batches {
            stream.write(batch).unwrap();
            awkward.write(batch).unwrap();
            partial.write(batch).unwrap();
        }
        let stream = stream.into_inner().unwrap();
        let awkward = awkward.into_inner().unwrap();
        prop_assert!(awkward.calls > 1);
        prop_assert_eq!(&awkward.bytes, &stream);
        prop_assert_eq!(&partial.into_inner().unwrap().bytes, &stream);
        // As buffers (the batches' own, shared), taken after each message.
        let mut spool = SpoolWriter::stream(schema.clone(), options.clone()).unwrap();
        let mut spooled = concat(spool.take());
        for batch in &batches {
            spool.write(batch).unwrap();
            spooled.extend(concat(spool.take()));
        }
        spool.finish().unwrap();
        spooled.extend(concat(spool.take()));
        prop_assert_eq!(spool.position() as usize, stream.len());
        prop_assert_eq!(&spooled, &stream);

        // A file: one dictionary per id, so the first batch only.
        let mut file = FileWriter::try_new(Vec::new(), schema.clone(), options.clone()).unwrap();
        let awkward = Awkward { bytes: Vec::new(), rng: Rng::new(seed ^ 3), calls: 0 };
        let mut awkward = FileWriter::try_new(awkward, schema.clone(), options.clone()).unwrap();
        let mut spool = SpoolWriter::file(schema.clone(), options.clone()).unwrap();
        let mut metadata = alkaid_schema::Metadata::new();
        metadata.insert("k", "v");
        file.set_footer_metadata(metadata.clone());
        awkward.set_footer_metadata(metadata.clone());
        spool.set_footer_metadata(metadata);
        file.write(&batches[0]).unwrap();
        awkward.write(&batches[0]).unwrap();
        spool.write(&batches[0]).unwrap();
        spool.finish().unwrap();
        let file = file.into_inner().unwrap();
        prop_assert_eq!(&awkward.into_inner().unwrap().bytes, &file);
        prop_assert_eq!(&concat(spool.take()), &file);
    }
}

/// An output that fails at every byte of a stream in turn: each failure is an `Io` error
/// that names the message being written and where it started, and the bytes before are
/// what the stream had there.
#[test]
fn a_failure_mid_message_names_the_message() {
    let batches = [int_batch(1000), int_batch(10)];
    let schema = batches[0].schema().clone();
    let whole = {
        let mut writer =
            StreamWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
        for batch in &batches {
            writer.write(batch).unwrap();
        }
        writer.into_inner().unwrap()
    };
    let mut named = std::collections::BTreeSet::new();
    for limit in (0..whole.len()).step_by(7).chain([whole.len() - 1]) {
        let out = Failing {
            bytes: Vec::new(),
            limit,
        };
        let result = StreamWriter::try_new(out, schema.clone(), WriteOptions::default()).and_then(
            |mut writer| {
                for batch in &batches {
                    writer.write(batch)?;
                }
                writer.finish()?;
                Ok(writer)
            },
        );
        let e = match result {
            Ok(_) => panic!("a stream of {} bytes written into {limit}", whole.len()),
            Err(e) => e,
        };
        assert_eq!(e.kind(), IpcErrorKind::Io, "{e}");
        let text = e.to_string();
        assert!(
            text.contains("the disk is full") && text.contains(" at byte "),
            "{text}"
        );
        let which = [
            "the schema message",
            "record batch 0",
            "record batch 1",
            "end-of-stream",
        ]
        .into_iter()
        .find(|w| text.contains(w))
        .unwrap_or_else(|| panic!("{text}"));
        named.insert(which);
    }
    assert_eq!(named.len(), 4, "{named:?}");
}

/// The file's footer too.
#[test]
fn a_failure_in_the_footer_names_it() {
    let batch = int_batch(10);
    let whole = {
        let mut writer =
            FileWriter::try_new(Vec::new(), batch.schema().clone(), WriteOptions::default())
                .unwrap();
        writer.write(&batch).unwrap();
        writer.into_inner().unwrap()
    };
    let out = Failing {
        bytes: Vec::new(),
        limit: whole.len() - 3,
    };
    let mut writer =
        FileWriter::try_new(out, batch.schema().clone(), WriteOptions::default()).unwrap();
    writer.write(&batch).unwrap();
    let e = writer.finish().unwrap_err();
    assert!(e.to_string().contains("writing the footer at byte"), "{e}");
}

/// Counts the bytes it took straight from `watched` (an address range).
struct Watching {
    inner: Partial,
    watched: std::ops::Range<usize>,
    taken: usize,
}

impl Write for Watching {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_vectored(&[IoSlice::new(buf)])
    }

    fn write_vectored(&mut self, slices: &[IoSlice<'_>]) -> io::Result<usize> {
        let n = self.inner.write_vectored(slices)?;
        let mut left = n;
        for slice in slices {
            let took = slice.len().min(left);
            if self.watched.contains(&(slice.as_ptr() as usize)) {
                self.taken += took;
            }
            left -= took;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// [`FileOutput`] writes the file writer's bytes unchanged from every starting position
/// (every distance between a large buffer and its place in the file), through an output
/// that takes part of each call; at some positions the buffer is copied through
/// `FileOutput`'s own buffer and at others not.
#[test]
fn a_file_output_writes_the_same_bytes_from_every_position() {
    let values: Vec<i64> = (0..100_000).map(|i| i * 31 % 1_000_003).collect();
    let column = alkaid_array::Int64Array::from(values);
    let start = column.values().as_ptr() as usize;
    let watched = start..start + 100_000 * 8;
    let schema = std::sync::Arc::new(alkaid_schema::Schema::new(vec![
        "n: Int64".parse::<alkaid_schema::Field>().unwrap(),
    ]));
    let batch = alkaid_array::RecordBatch::try_new(
        schema.clone(),
        vec![std::sync::Arc::new(column) as alkaid_array::ArrayRef],
    )
    .unwrap();
    let whole = {
        let mut writer =
            FileWriter::try_new(Vec::new(), schema.clone(), Default::default()).unwrap();
        writer.write(&batch).unwrap();
        writer.into_inner().unwrap()
    };
    let (mut buffered, mut direct) = (0, 0);
    for position in (0..4096u64).step_by(8) {
        let inner = Watching {
            inner: Partial {
                bytes: Vec::new(),
                rng: Rng::new(position),
            },
            watched: watched.clone(),
            taken: 0,
        };
        let out = FileOutput::starting_at(inner, position);
        let mut writer = FileWriter::try_new(out, schema.clone(), Default::default()).unwrap();
        writer.write(&batch).unwrap();
        let out = writer.into_inner().unwrap();
        assert_eq!(out.position(), position + whole.len() as u64);
        let inner = out.into_inner();
        assert!(inner.inner.bytes == whole, "from position {position}");
        // Where the buffer went through `FileOutput`'s own, at most its last few KiB
        // (too short to look at) came from where it lies.
        if inner.taken < 16 << 10 {
            buffered += 1
        } else {
            direct += 1
        }
    }
    // The stalling distances are 1 to 63 bytes of a page: 7 of the 512 positions.
    assert_eq!((buffered, direct), (7, 505));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Against the plain reference (the slices' bytes in order): whatever the slices, their
    /// sizes (some large enough to be looked at), the starting position and how much the
    /// file takes per call, `FileOutput` passes on every byte once, in order, and counts the
    /// position.
    #[test]
    fn a_file_output_passes_on_every_byte_in_order(
        sizes in prop::collection::vec(prop_oneof![0usize..100, 16_000usize..300_000], 1..6),
        offsets in prop::collection::vec(0usize..64, 6),
        position in 0u64..10_000,
        stall in prop::option::of(1usize..64),
        seed in any::<u64>(),
    ) {
        // The slices lie at assorted offsets into one allocation.
        let total: usize = sizes.iter().sum::<usize>() + 64 * sizes.len();
        let memory: Vec<u8> = (0..total).map(|i| (i * 13 % 251) as u8).collect();
        let mut at = 0;
        let mut slices = Vec::new();
        for (size, offset) in sizes.iter().zip(&offsets) {
            slices.push(&memory[at + offset..at + offset + size]);
            at += offset + size;
        }
        let expected: Vec<u8> = slices.concat();
        // Half the cases put the first large slice at a stalling distance.
        let mut position = position;
        if let Some(distance) = stall {
            let mut written = 0;
            if let Some(large) = slices.iter().find(|s| {
                let large = s.len() >= 16_000;
                if !large {
                    written += s.len();
                }
                large
            }) {
                let address = large.as_ptr() as usize;
                position = ((address + distance).wrapping_sub(written) % 4096) as u64 + 4096;
            }
        }
        let inner = Partial { bytes: Vec::new(), rng: Rng::new(seed) };
        let mut out = FileOutput::starting_at(inner, position);
        let mut io: Vec<IoSlice<'_>> = slices.iter().map(|s| IoSlice::new(s)).collect();
        let mut io = &mut io[..];
        IoSlice::advance_slices(&mut io, 0);
        while !io.is_empty() {
            let n = out.write_vectored(io).unwrap();
            prop_assert!(n > 0);
            IoSlice::advance_slices(&mut io, n);
        }
        prop_assert_eq!(out.position(), position + expected.len() as u64);
        prop_assert_eq!(&out.into_inner().bytes, &expected);
    }
}
