//! Writers that write a compressed body while it is compressed and go back for its header
//! (`write_while_compressing`): the bytes are the plain writers', wherever the output
//! starts, for bodies large enough to be written that way (1 MiB of buffers) and small
//! ones beside them, record batches and dictionaries; the files read back; and an output
//! that fails partway is an error naming the message, with what came before kept.

use std::io::{self, Cursor, Seek, SeekFrom, Write};
use std::sync::Arc;

use alkaid_array::types::Int32Type;
use alkaid_array::{
    Array, ArrayRef, BinaryArray, DictionaryArray, Int32Array, Int64Array, RecordBatch,
    StringArray, StructArray,
};
use alkaid_data::equal;
use alkaid_ipc::{
    Compression, FileDictionaries, FileReader, FileWriter, IpcErrorKind, StreamReader,
    StreamWriter, WriteOptions,
};
use alkaid_schema::{DataType, Field, Schema, SchemaRef, arbitrary};
use proptest::prelude::*;

use crate::batches::random_batches;
use crate::common::{Rng, dictionary_of_dictionary, generatable};

/// The plain file writer's bytes and, after `prefix`, the compressing-while-writing one's,
/// and how many batches went in: a batch the plain writer refuses (a file cannot hold an
/// ordered dictionary that changes) is refused by the other with the same error, and ends
/// the file there.
fn both_files(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    options: &WriteOptions,
    prefix: &[u8],
) -> (Vec<u8>, Vec<u8>, usize) {
    let mut plain = FileWriter::try_new(Vec::new(), schema.clone(), options.clone()).unwrap();
    let mut out = Cursor::new(prefix.to_vec());
    out.seek(SeekFrom::End(0)).unwrap();
    let mut seeking = FileWriter::try_new(out, schema.clone(), options.clone())
        .unwrap()
        .write_while_compressing();
    let mut written = 0;
    for batch in batches {
        match plain.write(batch) {
            Ok(()) => seeking.write(batch).unwrap(),
            Err(e) => {
                let other = seeking.write(batch).unwrap_err();
                assert_eq!(other.to_string(), e.to_string());
                break;
            }
        }
        written += 1;
    }
    let seeking = seeking.into_inner().unwrap().into_inner();
    (plain.into_inner().unwrap(), seeking, written)
}

/// As [`both_files`], for streams; and how many seeks the second writer made.
fn both_streams(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    options: &WriteOptions,
    prefix: &[u8],
) -> (Vec<u8>, Vec<u8>, usize) {
    let mut plain = StreamWriter::try_new(Vec::new(), schema.clone(), options.clone()).unwrap();
    let mut out = Counted {
        out: Cursor::new(prefix.to_vec()),
        seeks: 0,
    };
    out.out.seek(SeekFrom::End(0)).unwrap();
    let mut seeking = StreamWriter::try_new(out, schema.clone(), options.clone())
        .unwrap()
        .write_while_compressing();
    for batch in batches {
        plain.write(batch).unwrap();
        seeking.write(batch).unwrap();
    }
    let seeking = seeking.into_inner().unwrap();
    (
        plain.into_inner().unwrap(),
        seeking.out.into_inner(),
        seeking.seeks,
    )
}

/// A cursor that counts the seeks asked of it.
struct Counted {
    out: Cursor<Vec<u8>>,
    seeks: usize,
}

impl Write for Counted {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Seek for Counted {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.seeks += 1;
        self.out.seek(to)
    }
}

/// `rows` random 64-bit integers (a tenth null), sliced `offset` rows in: 8 bytes a row,
/// so that 131,072 rows make a 1 MiB body.
fn integers(rows: usize, offset: usize, rng: &mut Rng) -> ArrayRef {
    let values: Vec<Option<i64>> = (0..rows + offset)
        .map(|_| (!rng.chance(0.1)).then(|| (rng.next_u64() >> rng.below(64)) as i64))
        .collect();
    Int64Array::from(values).slice(offset, rows)
}

/// `rows` random byte strings of up to 128 KiB (a tenth null, half of each repeating one
/// byte), sliced `offset` rows in: about 64 KiB a row, so that some 18 rows make a 1 MiB
/// body. And the bytes of the rows kept.
fn blobs(rows: usize, offset: usize, rng: &mut Rng) -> (ArrayRef, usize) {
    let values: Vec<Option<Vec<u8>>> = (0..rows + offset)
        .map(|_| {
            let len = rng.below(128 << 10);
            let mut bytes = rng.bytes(len / 2);
            bytes.extend(std::iter::repeat_n(b'x', len - len / 2));
            (!rng.chance(0.1)).then_some(bytes)
        })
        .collect();
    let kept = values[offset..].iter().flatten().map(Vec::len).sum();
    (BinaryArray::from(values).slice(offset, rows), kept)
}

/// Whether two batches hold the same rows.
fn same(a: &RecordBatch, b: &RecordBatch) -> bool {
    a.num_rows() == b.num_rows()
        && a.num_columns() == b.num_columns()
        && (0..a.num_columns()).all(|c| equal(&a.column(c).to_data(), &b.column(c).to_data()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random columns beside a column of long byte strings that makes some batches' bodies
    /// large (from about 18 rows; at most 40, as in `writes.rs`, so that the random
    /// dictionaries, nested in fixed-size lists too, fit their 8-bit keys): the same bytes as the plain writers, codecs, threads
    /// and alignments at random, the output starting anywhere.
    #[test]
    fn the_bytes_are_the_plain_writers(
        types in prop::collection::vec(arbitrary::data_type_with_depth(3), 1..3),
        seed in any::<u64>(),
        rows in prop::collection::vec(prop_oneof![Just(0usize), 1usize..10, 24usize..41], 1..4),
    ) {
        prop_assume!(types.iter().all(|t| generatable(t) && !dictionary_of_dictionary(t)));
        let mut rng = Rng::new(seed);
        let (random_schema, random) = random_batches(&types, &rows, &mut rng);
        let mut fields: Vec<Field> = random_schema.fields().iter().map(|f| (**f).clone()).collect();
        fields.push(Field::new("big", DataType::Binary, true));
        let schema = Arc::new(Schema::new(fields));
        let mut large = false;
        let batches: Vec<RecordBatch> = random
            .iter()
            .zip(&rows)
            .map(|(batch, &len)| {
                let mut columns = batch.columns().to_vec();
                let offset = rng.below(9);
                let (column, bytes) = blobs(len, offset, &mut rng);
                large |= bytes >= 1 << 20;
                columns.push(column);
                RecordBatch::try_new(schema.clone(), columns).unwrap()
            })
            .collect();
        let codec = match rng.below(2) {
            0 => Compression::Lz4Frame,
            _ => Compression::Zstd { level: 1 },
        };
        let options = WriteOptions::default()
            .with_compression(codec)
            .with_compression_threads(1 + rng.below(3))
            .with_alignment(if rng.chance(0.5) { 8 } else { 64 });
        let prefix_len = rng.below(100);
        let prefix = rng.bytes(prefix_len);

        let (plain, seeking, seeks) = both_streams(&schema, &batches, &options, &prefix);
        // Two seeks (back to the header, on to the end) per body written while compressed.
        prop_assert!(!large || seeks >= 2, "a body of 1 MiB written without seeking");
        prop_assert_eq!(&seeking[..prefix.len()], &prefix[..]);
        prop_assert!(seeking[prefix.len()..] == plain[..], "stream bytes differ");

        // A file holds one dictionary per id: the writer unifies them (as `alkaid convert`
        // asks), so the batches read back with their values, not their keys.
        let options = options.with_file_dictionaries(FileDictionaries::Unify);
        let (plain, seeking, written) = both_files(&schema, &batches, &options, &prefix);
        prop_assert!(seeking[prefix.len()..] == plain[..], "file bytes differ");
        let mut reader = FileReader::try_new(Cursor::new(plain)).unwrap();
        for (i, batch) in batches[..written].iter().enumerate() {
            prop_assert!(same(&reader.batch(i).unwrap(), batch), "batch {}", i);
        }
    }
}

/// A dictionary large enough to be written while compressed (its message is the large
/// one), nested in a struct beside a small column, then a delta of it in a stream: each
/// message's bytes as the plain writer's, and the batches read back.
#[test]
fn large_dictionaries_and_their_deltas_are_written_while_compressed() {
    let words: Vec<String> = (0..120_000).map(|i| format!("word number {i}")).collect();
    let dictionary = |n: usize, keys: Vec<i32>| -> ArrayRef {
        let values = StringArray::from(words[..n].iter().map(String::as_str).collect::<Vec<_>>());
        Arc::new(
            DictionaryArray::<Int32Type>::try_new(Int32Array::from(keys), Arc::new(values))
                .unwrap(),
        )
    };
    let first = dictionary(100_000, (0..1000).map(|i| i * 97 % 100_000).collect());
    let grown = dictionary(120_000, (0..1000).map(|i| 100_000 + i).collect());
    let inner = Field::new("d", first.data_type().clone(), false);
    let schema = Arc::new(Schema::new(vec![
        Field::new("s", DataType::Struct(vec![inner.clone()].into()), false),
        Field::new("n", DataType::Int32, false),
    ]));
    let batch = |d: ArrayRef| {
        let s = StructArray::try_new(vec![inner.clone()].into(), vec![d], None).unwrap();
        let n: ArrayRef = Arc::new(Int32Array::from((0..1000).collect::<Vec<_>>()));
        RecordBatch::try_new(schema.clone(), vec![Arc::new(s), n]).unwrap()
    };
    let batches = [batch(first), batch(grown)];
    for codec in [Compression::Lz4Frame, Compression::ZSTD] {
        let options = WriteOptions::default()
            .with_compression(codec)
            .with_compression_threads(2)
            .with_dictionary_deltas(true);
        let (plain, seeking, seeks) = both_streams(&schema, &batches, &options, b"");
        // The dictionary's message only: the batches and the delta are small.
        assert_eq!(seeks, 2, "{codec:?}");
        assert!(seeking == plain, "{codec:?} stream");
        let read: Vec<RecordBatch> = StreamReader::try_new(&seeking[..])
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(
            read.len() == 2 && read.iter().zip(&batches).all(|(a, b)| same(a, b)),
            "{codec:?}"
        );
        let (plain, seeking, written) = both_files(&schema, &batches, &options, b"ALKAID");
        assert!(written == 2 && seeking[6..] == plain[..], "{codec:?} file");
    }
}

/// A seekable output that fails once `limit` bytes have been written (counting bytes
/// written over again after a seek back).
struct Failing {
    out: Cursor<Vec<u8>>,
    left: usize,
}

impl Write for Failing {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::other("the disk is full"));
        }
        let n = buf.len().min(self.left);
        self.left -= n;
        self.out.write(&buf[..n])
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Seek for Failing {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.out.seek(to)
    }
}

/// An output that fails at points through a large compressed batch, its padding and the
/// header written last: an `Io` error naming the batch and the byte it started at, and
/// everything before the batch as the plain writer wrote it.
#[test]
fn a_failure_names_the_batch_and_keeps_what_came_before() {
    let mut rng = Rng::new(52);
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Int64, true),
        Field::new("c", DataType::Int64, false),
    ]));
    // Buffers of 4.8 MB: LZ4 frames of two blocks, stored (random) and compressed (`c`,
    // the last buffer, whose frame is written block by block as it is compressed).
    let rows = 600_000;
    let compressible: ArrayRef = Arc::new(Int64Array::from(
        (0..rows as i64)
            .map(|i| i * 7919 % 1_000_003)
            .collect::<Vec<_>>(),
    ));
    let big = RecordBatch::try_new(
        schema.clone(),
        vec![
            integers(rows, 0, &mut rng),
            integers(rows, 3, &mut rng),
            compressible,
        ],
    )
    .unwrap();
    let small = big.slice(0, 10);
    let options = WriteOptions::default()
        .with_compression(Compression::Lz4Frame)
        .with_compression_threads(2);
    let (plain, ..) = both_streams(&schema, &[small.clone(), big.clone()], &options, b"");
    let batch_start = {
        let mut writer =
            StreamWriter::try_new(Vec::new(), schema.clone(), options.clone()).unwrap();
        writer.write(&small).unwrap();
        writer.get_mut().len()
    };
    // Everything the stream holds up to its end-of-stream marker is written once, and the
    // batch's framing (marker, length, header, padding) once more over its room: the last
    // limit fails on that second write.
    let declared = i32::from_le_bytes(plain[batch_start + 4..batch_start + 8].try_into().unwrap());
    let total = plain.len() - 8 + 8 + declared as usize;
    for limit in [
        batch_start,
        batch_start + 1,
        batch_start + 500,
        batch_start + 70_000,
        // Inside the last block of `c`'s frame, the blocks before it written.
        plain.len() - 2000,
        plain.len() - 9,
        total - 1,
    ] {
        let out = Failing {
            out: Cursor::new(Vec::new()),
            left: limit,
        };
        let mut writer = StreamWriter::try_new(out, schema.clone(), options.clone())
            .unwrap()
            .write_while_compressing();
        writer.write(&small).unwrap();
        let e = writer.write(&big).unwrap_err();
        assert_eq!(e.kind(), IpcErrorKind::Io, "{e}");
        let text = e.to_string();
        assert!(
            text.contains(&format!("writing record batch 1 at byte {batch_start}"))
                && text.contains("the disk is full"),
            "{limit}: {text}"
        );
        let written = writer.get_mut().out.get_ref();
        assert_eq!(written[..batch_start], plain[..batch_start], "{limit}");
    }
}

/// Uncompressed, and compressed bodies below 1 MiB, are written as the plain writers write
/// them, without seeking: a `Seek` that refuses every call is never asked.
#[test]
fn small_or_uncompressed_bodies_never_seek() {
    struct NoSeek(Vec<u8>);
    impl Write for NoSeek {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.write(buf)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    impl Seek for NoSeek {
        fn seek(&mut self, _: SeekFrom) -> io::Result<u64> {
            Err(io::Error::other("asked to seek"))
        }
    }
    let mut rng = Rng::new(7);
    let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, true)]));
    let small = RecordBatch::try_new(schema.clone(), vec![integers(100_000, 0, &mut rng)]).unwrap();
    let large = RecordBatch::try_new(schema.clone(), vec![integers(140_000, 0, &mut rng)]).unwrap();
    for (options, batch) in [
        (WriteOptions::default(), &large),
        (
            WriteOptions::default().with_compression(Compression::Lz4Frame),
            &small,
        ),
    ] {
        let mut writer = FileWriter::try_new(NoSeek(Vec::new()), schema.clone(), options)
            .unwrap()
            .write_while_compressing();
        writer.write(batch).unwrap();
        writer.finish().unwrap();
    }
    // And the large compressed one does seek.
    let options = WriteOptions::default().with_compression(Compression::Lz4Frame);
    let mut writer = FileWriter::try_new(NoSeek(Vec::new()), schema, options)
        .unwrap()
        .write_while_compressing();
    let e = writer.write(&large).unwrap_err();
    assert!(e.to_string().contains("asked to seek"), "{e}");
}
