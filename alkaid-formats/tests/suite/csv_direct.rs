//! Alkaid's own CSV reader (integers, floats, booleans, text; standard quoting) against
//! arrow-csv, which it stands in for: random text, with quoted fields holding delimiters,
//! quotes and line breaks, bytes after a closing quote, `\r\n` and `\r` line ends, empty
//! lines, null spellings, values that do not parse and rows of the wrong width, read in
//! pieces of random sizes so that records are cut anywhere. Both read the same rows, or
//! both fail.

use std::io::{Cursor, Read, Seek, SeekFrom};
use std::sync::Arc;

use alkaid_array::RecordBatch;
use alkaid_array::display::pretty_format_batches;
use alkaid_arrow::arrow60::{batch_from_arrow, schema_to_arrow};
use alkaid_formats::csv;
use alkaid_schema::{DataType, Field, Schema, SchemaRef};
use proptest::prelude::*;

/// A reader that hands out at most `piece` bytes per read.
struct Trickle {
    inner: Cursor<Vec<u8>>,
    piece: usize,
}

impl Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.piece);
        self.inner.read(&mut buf[..n])
    }
}

impl Seek for Trickle {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(to)
    }
}

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("i", DataType::Int64, true),
        Field::new("f", DataType::Float64, true),
        Field::new("b", DataType::Boolean, true),
        Field::new("s", DataType::Utf8, true),
        Field::new("u", DataType::UInt8, true),
    ]))
}

/// A field's text as written: plain, or quoted (a quote inside doubled), now and then with
/// bytes after the closing quote.
fn field(column: usize) -> impl Strategy<Value = String> {
    let value = match column {
        0 => prop_oneof![
            any::<i64>().prop_map(|v| v.to_string()),
            Just(String::new()),
        ]
        .boxed(),
        1 => prop_oneof![
            any::<f64>().prop_map(|v| v.to_string()),
            Just("1e5".to_string()),
            Just("-inf".to_string()),
            Just("NaN".to_string()),
            Just(String::new()),
        ]
        .boxed(),
        2 => prop_oneof![
            Just("true".to_string()),
            Just("FALSE".to_string()),
            Just("True".to_string()),
            Just(String::new()),
        ]
        .boxed(),
        3 => prop_oneof![
            "[a-zé日🦀 ]{0,6}",
            Just("a,b".to_string()),
            Just("two\nlines".to_string()),
            Just("cr\r\nlf".to_string()),
            Just("say \"hi\"".to_string()),
            Just("NULL".to_string()),
            Just(String::new()),
        ]
        .boxed(),
        _ => prop_oneof![(0u16..300).prop_map(|v| v.to_string()), Just(String::new())].boxed(),
    };
    (value, 0..10u8).prop_map(|(value, how)| {
        let needs_quotes = value.contains([',', '"', '\n', '\r']);
        match how {
            _ if needs_quotes || how < 2 => format!("\"{}\"", value.replace('"', "\"\"")),
            2 if !value.is_empty() => format!("\"{value}\"x"),
            _ => value,
        }
    })
}

fn row() -> impl Strategy<Value = Vec<String>> {
    (0..5usize).map(field).collect::<Vec<_>>()
}

/// One fault put into a row: a number or a boolean that does not parse, a field too few or
/// too many.
fn corrupt(rows: &mut [Vec<String>], at: prop::sample::Index, kind: u8) {
    if rows.is_empty() {
        return;
    }
    let row = &mut rows[at.index(rows.len())];
    match kind {
        0 => row[0] = "12x".into(),
        1 => row[2] = "yes".into(),
        2 => {
            row.pop();
        }
        _ => row.push("9".into()),
    }
}

fn text(rows: &[Vec<String>], header: bool, ends: &[&str]) -> Vec<u8> {
    let mut text = String::new();
    if header {
        text.push_str("i,f,b,s,u\n");
    }
    for (n, row) in rows.iter().enumerate() {
        text.push_str(&row.join(","));
        text.push_str(ends[n % ends.len()]);
    }
    text.into_bytes()
}

fn shown(batches: &[RecordBatch]) -> String {
    pretty_format_batches(batches, None).to_string()
}

/// What Alkaid reads, and what arrow-csv reads, or their failures.
fn both(
    text: Vec<u8>,
    header: bool,
    piece: usize,
    nulls: &[&str],
) -> (Result<String, String>, Result<String, String>) {
    let options = csv::CsvReadOptions::default()
        .with_schema(schema())
        .with_header(header)
        .with_batch_size(7)
        .with_nulls(nulls.iter().copied());
    let input = Trickle {
        inner: Cursor::new(text.clone()),
        piece,
    };
    let ours = csv::reader(input, "t.csv".into(), options)
        .and_then(|b| b.collect_all())
        .map(|b| shown(&b))
        .map_err(|e| e.to_string());
    let spellings: Vec<String> = nulls.iter().map(|s| regex::escape(s)).collect();
    let null_regex = regex::Regex::new(&format!("^(?:{})$", spellings.join("|"))).unwrap();
    let theirs = arrow_csv::ReaderBuilder::new(Arc::new(schema_to_arrow(&schema())))
        .with_header(header)
        .with_batch_size(7)
        .with_null_regex(null_regex)
        .build(Cursor::new(text))
        .map_err(|e| e.to_string())
        .and_then(|reader| {
            reader
                .map(|b| {
                    b.map_err(|e| e.to_string())
                        .and_then(|b| batch_from_arrow(&b).map_err(|e| e.to_string()))
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .map(|b| shown(&b));
    (ours, theirs)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn alkaid_reads_csv_as_arrow_csv_does(
        mut rows in prop::collection::vec(row(), 0..30),
        fault in prop::option::weighted(0.25, (any::<prop::sample::Index>(), 0..4u8)),
        header in any::<bool>(),
        ends in prop::sample::select(vec![
            vec!["\n"], vec!["\r\n"], vec!["\r"], vec!["\n", "\n\n", "\r\n\r\n"],
        ]),
        last_line_break in any::<bool>(),
        piece in 1usize..40,
        nulls in prop::sample::select(vec![vec![""], vec!["", "NULL"], vec!["NULL"]]),
    ) {
        if let Some((at, kind)) = fault {
            corrupt(&mut rows, at, kind);
        }
        let mut text = text(&rows, header, &ends);
        if !last_line_break {
            while text.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                text.pop();
            }
        }
        let (ours, theirs) = both(text.clone(), header, piece, &nulls);
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b, "{}", String::from_utf8_lossy(&text)),
            (Err(_), Err(_)) => {}
            _ => prop_assert!(
                false,
                "Alkaid {:?}\narrow-csv {:?}\ntext {:?}",
                ours,
                theirs,
                String::from_utf8_lossy(&text)
            ),
        }
    }
}

#[test]
fn errors_name_the_line_and_the_column() {
    let text = b"i,f,b,s,u\n1,2,true,x,3\n4,oops,false,y,5\n".to_vec();
    let (ours, _) = both(text, true, 1 << 20, &[""]);
    let error = ours.unwrap_err();
    assert!(
        error.contains("line 3") && error.contains("\"f\"") && error.contains("oops"),
        "{error}"
    );
    let text = b"i,f,b,s,u\n1,2,true,x\n".to_vec();
    let (ours, _) = both(text, true, 1 << 20, &[""]);
    let error = ours.unwrap_err();
    assert!(
        error.contains("line 2") && error.contains("expected 5 got 4"),
        "{error}"
    );
    // Text that is not UTF-8 in a text column.
    let text = b"1,2,true,\xff\xfe,3\n".to_vec();
    let (ours, theirs) = both(text, false, 1 << 20, &[""]);
    assert!(ours.is_err() && theirs.is_err(), "{ours:?} {theirs:?}");
}

#[test]
fn empty_lines_of_every_kind_are_skipped_as_arrow_csv_skips_them() {
    let text = b"1,2,true,x,3\r\n\r\n\n\r4,5,false,\"y\"\"\",6\r\r\n".to_vec();
    for piece in [1, 2, 3, 1 << 20] {
        let (ours, theirs) = both(text.clone(), false, piece, &[""]);
        assert_eq!(ours, theirs, "pieces of {piece}");
        assert!(ours.unwrap().contains("y\""));
    }
}

#[test]
fn a_long_quoted_field_of_many_lines_read_a_byte_at_a_time_reads_whole() {
    // 64 KiB inside quotes, a line break every other byte, handed over one byte per read:
    // the reader goes on from where it stopped in the field, rather than looking at the
    // record again from its start at every line break.
    let inner = "a\n".repeat(32 << 10);
    let text = format!("1,2,true,\"{inner}\",3\n4,5,false,x,6\n").into_bytes();
    let (ours, theirs) = both(text, false, 1, &[""]);
    assert_eq!(ours, theirs);
    assert!(ours.unwrap().contains("| 4 "));
}
