// apache-arrow (JavaScript) as a peer of the Alkaid tests.
//
//   node peers.cjs write OUT   writes files and streams into OUT
//   node peers.cjs fixtures OUT  writes the small files committed under tests/fixtures/peers
//   node peers.cjs read DIR    reads every .arrow/.arrows file in DIR (written by Alkaid),
//                              writes what it read as DIR/js/FILE.arrows, and prints a line
//                              per file: FILE, "js" and "ok" or the error, tab-separated
//
// The Rust tests compare Alkaid's reading of each written file with pyarrow's, and each
// stream written back here with the file Alkaid wrote: a peer that read it wrong writes
// back something else.
'use strict';
const fs = require('fs');
const path = require('path');
const arrow = require('apache-arrow');
const lz4 = require('lz4js');
const zstd = require('fzstd');

// apache-arrow JS reads compressed bodies only with codecs the application registers;
// these are pure-JS decoders (reading is all the tests ask of them).
arrow.compressionRegistry.set(arrow.CompressionType.LZ4_FRAME, {
  encode: null,
  decode: (bytes) => Uint8Array.from(lz4.decompress(bytes)),
});
arrow.compressionRegistry.set(arrow.CompressionType.ZSTD, {
  encode: null,
  // A copy: fzstd may return a view at an offset that typed arrays cannot start at.
  decode: (bytes) => Uint8Array.from(zstd.decompress(bytes)),
});

function column(type, values) {
  return arrow.vectorFromArray(values, type);
}

function everyType() {
  const n = null;
  const { Field } = arrow;
  const struct = new arrow.Struct([new Field('x', new arrow.Int32(), true), new Field('y', new arrow.Utf8(), true)]);
  const columns = {
    i8: column(new arrow.Int8(), [1, n, -128]),
    i16: column(new arrow.Int16(), [1, n, 3]),
    i32: column(new arrow.Int32(), [1, n, 3]),
    i64: column(new arrow.Int64(), [1n, n, -(2n ** 62n)]),
    u8: column(new arrow.Uint8(), [1, n, 255]),
    u16: column(new arrow.Uint16(), [1, n, 3]),
    u32: column(new arrow.Uint32(), [1, n, 4000000000]),
    u64: column(new arrow.Uint64(), [1n, n, 2n ** 63n]),
    f32: column(new arrow.Float32(), [NaN, n, -0]),
    f64: column(new arrow.Float64(), [Infinity, n, -Infinity]),
    bool: column(new arrow.Bool(), [true, n, false]),
    utf8: column(new arrow.Utf8(), ['a', n, 'ünï ✓']),
    large_utf8: column(new arrow.LargeUtf8(), ['a', n, 'b']),
    binary: column(new arrow.Binary(), [Uint8Array.of(0, 1), n, new Uint8Array()]),
    large_binary: column(new arrow.LargeBinary(), [Uint8Array.of(0), n, new Uint8Array()]),
    fixed: column(new arrow.FixedSizeBinary(2), [Uint8Array.of(1, 2), n, Uint8Array.of(3, 4)]),
    date_day: column(new arrow.DateDay(), [new Date(0), n, new Date(86400000 * 19000)]),
    date_ms: column(new arrow.DateMillisecond(), [new Date(0), n, new Date(86400000)]),
    time_s: column(new arrow.TimeSecond(), [1, n, 86399]),
    time_us: column(new arrow.TimeMicrosecond(), [1n, n, 5n]),
    ts_ms: column(new arrow.TimestampMillisecond(), [1, n, -1]),
    ts_tz: column(new arrow.TimestampMicrosecond('UTC'), [1, n, 2]),
    duration: column(new arrow.DurationSecond(), [1n, n, -1n]),
    list: column(new arrow.List(new Field('item', new arrow.Int32(), true)), [[1, 2], n, []]),
    fixed_list: column(new arrow.FixedSizeList(2, new Field('item', new arrow.Int16(), true)), [[1, 2], n, [3, 4]]),
    struct: column(struct, [{ x: 1, y: 'a' }, n, { x: n, y: 'c' }]),
    list3: column(
      new arrow.List(new Field('item', new arrow.List(new Field('item', new arrow.List(new Field('item', new arrow.Int64(), true)), true)), true)),
      [[[[1n]]], n, [[[], [2n, n]]]]),
    dict: column(new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32()), ['red', n, 'red']),
    null: column(new arrow.Null(), [n, n, n]),
  };
  const table = new arrow.Table(columns);
  table.schema.metadata.set('table', 'every type');
  return table;
}

function write(out) {
  fs.mkdirSync(out, { recursive: true });
  const table = everyType();
  // Several batches: the table, then a slice of it (JS writes a sliced Null column with
  // null count -1), then the table again.
  const batches = new arrow.Table([...table.batches, ...table.slice(1, 3).batches, ...table.batches]);
  batches.schema.metadata.set('table', 'every type');
  fs.writeFileSync(path.join(out, 'every_type.arrow'), arrow.tableToIPC(batches, 'file'));
  fs.writeFileSync(path.join(out, 'every_type.arrows'), arrow.tableToIPC(batches, 'stream'));
  const sliced = table.slice(1, 3);
  fs.writeFileSync(path.join(out, 'sliced.arrow'), arrow.tableToIPC(sliced, 'file'));
  const empty = table.slice(0, 0);
  fs.writeFileSync(path.join(out, 'empty.arrow'), arrow.tableToIPC(empty, 'file'));
  fs.writeFileSync(path.join(out, 'no_columns.arrow'), arrow.tableToIPC(new arrow.Table(), 'file'));
  fs.writeFileSync(path.join(out, 'no_columns.arrows'), arrow.tableToIPC(new arrow.Table(), 'stream'));
}

// The smallest files that show how JS writes: no schema message in a file (its first
// block at byte 8), an end-of-stream marker as a file's whole stream, and a Null column
// sliced, whose field node says null count -1.
function fixtures(out) {
  fs.mkdirSync(out, { recursive: true });
  const table = new arrow.Table({
    n: column(new arrow.Int32(), [1, 2, 3]),
    d: column(new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32()), ['a', null, 'a']),
  });
  fs.writeFileSync(path.join(out, 'js_no_schema_message.arrow'), arrow.tableToIPC(table, 'file'));
  fs.writeFileSync(path.join(out, 'js_no_columns.arrow'), arrow.tableToIPC(new arrow.Table(), 'file'));
  const nulls = new arrow.Table({ z: column(new arrow.Null(), [null, null, null, null]) });
  fs.writeFileSync(path.join(out, 'js_sliced_null.arrows'), arrow.tableToIPC(nulls.slice(1, 3), 'stream'));
}

function read(dir) {
  const back = path.join(dir, 'js');
  fs.mkdirSync(back, { recursive: true });
  for (const name of fs.readdirSync(dir).sort()) {
    if (!name.endsWith('.arrow') && !name.endsWith('.arrows')) continue;
    try {
      const table = arrow.tableFromIPC(fs.readFileSync(path.join(dir, name)));
      fs.writeFileSync(path.join(back, `${name}.arrows`), arrow.tableToIPC(table, 'stream'));
      console.log(`${name}\tjs\tok`);
    } catch (e) {
      console.log(`${name}\tjs\t${`${e.name}: ${e.message}`.split(/\s+/).join(' ').slice(0, 300)}`);
    }
  }
}

const [command, where] = process.argv.slice(2);
if (command === 'write') write(where);
else if (command === 'fixtures') fixtures(where);
else if (command === 'read') read(where);
else { console.error(`unknown command ${command}`); process.exit(2); }
