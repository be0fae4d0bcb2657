#!/usr/bin/env python3
"""Files and streams of the Arrow world's Python writers, and their readings of Alkaid's.

    python_peers.py write OUT     Polars and nanoarrow write into OUT/polars, OUT/nanoarrow
    python_peers.py fixtures OUT  the small Polars files committed under tests/fixtures/peers
    python_peers.py canonical DIR pyarrow's reading of every file in DIR, beside it
    python_peers.py read DIR      Polars and nanoarrow read every file in DIR (written by
                                  Alkaid); prints a line per file and peer: FILE, PEER and
                                  "ok" or the peer's error, separated by tabs

pyarrow is the reference: for each file `x` a peer writes, `canonical` writes
`x.pyarrow.arrows`, an uncompressed stream of what pyarrow reads from `x` (schema,
metadata, batch boundaries, values), and the Rust tests check that Alkaid reads `x` equal
to it. In the other direction each peer's reading of an Alkaid file is compared with
pyarrow's reading of the same file, in the peer's own terms (Polars frames are compared
as Polars frames); what a peer cannot read is reported with its own error, so the tests
can name the limitation.
"""

import datetime
import decimal
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.ipc as ipc

CANONICAL = ".pyarrow.arrows"


def read_with_pyarrow(path):
    """The schema and batches pyarrow reads from a file or stream."""
    data = Path(path).read_bytes()
    if data.startswith(b"ARROW1"):
        reader = ipc.open_file(pa.py_buffer(data))
        batches = [reader.get_batch(i) for i in range(reader.num_record_batches)]
        return reader.schema, batches
    reader = ipc.open_stream(pa.py_buffer(data))
    return reader.schema, list(reader)


def canonical(directory):
    for path in sorted(Path(directory).rglob("*")):
        if path.suffix not in (".arrow", ".arrows") or path.name.endswith(CANONICAL):
            continue
        schema, batches = read_with_pyarrow(path)
        out = path.with_name(path.name + CANONICAL)
        with ipc.new_stream(out, schema) as writer:
            for batch in batches:
                writer.write_batch(batch)


def polars_frame():
    import polars as pl

    return pl.DataFrame(
        {
            "i8": pl.Series([1, None, -128], dtype=pl.Int8),
            "i64": [1, None, 2**62],
            "u32": pl.Series([0, 4_000_000_000, None], dtype=pl.UInt32),
            "f64": [float("nan"), -0.0, float("inf")],
            "f32": pl.Series([1.5, None, float("-inf")], dtype=pl.Float32),
            "b": [True, None, False],
            "s": ["a", None, "ünï ✓ longer than twelve bytes"],
            "bin": [b"\x00\x01", None, b""],
            "date": [datetime.date(1970, 1, 1), None, datetime.date(2024, 2, 29)],
            "ts_tz": pl.Series(
                [datetime.datetime(2024, 1, 1, 12), None, datetime.datetime(1969, 12, 31)],
                dtype=pl.Datetime("us", "Europe/Paris"),
            ),
            "ts_ns": pl.Series(
                [datetime.datetime(2024, 1, 1), None, datetime.datetime(2000, 5, 5)],
                dtype=pl.Datetime("ns"),
            ),
            "time": [datetime.time(1, 2, 3), None, datetime.time(23, 59, 59, 999999)],
            "dur": [datetime.timedelta(days=1), None, datetime.timedelta(microseconds=-5)],
            "dec": pl.Series(
                [decimal.Decimal("1.25"), None, decimal.Decimal("-99.99")],
                dtype=pl.Decimal(10, 2),
            ),
            "list": [[1, 2], None, []],
            "list3": [[[[1]], [[2, None]]], None, [[[]]]],
            "array": pl.Series([[1, 2], None, [3, 4]], dtype=pl.Array(pl.Int16, 2)),
            "struct": [{"x": 1, "y": "a"}, None, {"x": None, "y": "c"}],
            "cat": pl.Series(["red", None, "blue"], dtype=pl.Categorical),
            "enum": pl.Series(["lo", "hi", None], dtype=pl.Enum(["lo", "hi"])),
            "null": pl.Series([None, None, None], dtype=pl.Null),
        }
    )


def write_polars(out):
    import polars as pl

    out.mkdir(parents=True, exist_ok=True)
    frame = polars_frame()
    chunked = pl.concat([frame, frame.slice(1, 2), frame], rechunk=False)
    # Several batches: 3 rows each.
    for compat, suffix in [(pl.CompatLevel.newest(), ""), (pl.CompatLevel.oldest(), "_oldest")]:
        for compression in ["uncompressed", "lz4", "zstd"]:
            name = f"frame{suffix}_{compression}"
            options = dict(compression=compression, compat_level=compat)
            chunked.write_ipc(out / f"{name}.arrow", record_batch_size=3, **options)
            # The stream writer takes no batch size: it writes one batch per chunk.
            chunked.write_ipc_stream(out / f"{name}.arrows", **options)
    chunked.lazy().sink_ipc(out / "sink.arrow", record_batch_size=3)
    chunked.lazy().sink_ipc(out / "sink_zstd.arrow", compression="zstd")
    frame.slice(1, 2).write_ipc(out / "sliced.arrow")
    frame.head(0).write_ipc(out / "empty.arrow")
    pl.DataFrame().write_ipc(out / "no_columns.arrow")
    pl.DataFrame().write_ipc_stream(out / "no_columns.arrows")


def fixtures(out):
    """The smallest files that show how Polars writes: the schema flatbuffer after the
    magic without its length prefix (with and without columns)."""
    import polars as pl

    out.mkdir(parents=True, exist_ok=True)
    pl.DataFrame({"a": [1, 2, None], "s": ["x", None, "z"]}).write_ipc(out / "polars_small.arrow")
    pl.DataFrame().write_ipc(out / "polars_no_columns.arrow")


def pyarrow_table():
    """Every type the format has, nulls included, three rows."""
    import numpy as np

    n = None
    ints = {f"{t}": pa.array([1, n, 3], type=getattr(pa, t)()) for t in
            ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]}
    columns = dict(ints)
    columns.update(
        {
            "f16": pa.array(np.array([1.5, 0, -2], dtype=np.float16), mask=np.array([0, 1, 0], bool)),
            "f32": pa.array([float("nan"), n, -0.0], type=pa.float32()),
            "f64": pa.array([float("inf"), n, float("-inf")]),
            "bool": pa.array([True, n, False]),
            "utf8": pa.array(["a", n, "ünï ✓ longer than twelve"]),
            "large_utf8": pa.array(["a", n, "b"], type=pa.large_string()),
            "binary": pa.array([b"\x00", n, b""]),
            "large_binary": pa.array([b"\x00", n, b""], type=pa.large_binary()),
            "utf8_view": pa.array(["short", n, "a string longer than twelve bytes"], type=pa.string_view()),
            "binary_view": pa.array([b"x", n, b"y" * 20], type=pa.binary_view()),
            "fixed": pa.array([b"ab", n, b"cd"], type=pa.binary(2)),
            "date32": pa.array([0, n, 19000], type=pa.date32()),
            "date64": pa.array([0, n, 86_400_000], type=pa.date64()),
            "time32": pa.array([1, n, 86_399], type=pa.time32("s")),
            "time64": pa.array([1, n, 5], type=pa.time64("ns")),
            "ts": pa.array([1, n, -1], type=pa.timestamp("ms")),
            "ts_tz": pa.array([1, n, 2], type=pa.timestamp("us", tz="America/New_York")),
            "duration": pa.array([1, n, -1], type=pa.duration("s")),
            "interval_mdn": pa.array([(1, 2, 3), n, (-1, 0, 5)], type=pa.month_day_nano_interval()),
            "decimal128": pa.array([decimal.Decimal("1.5"), n, decimal.Decimal("-2.25")], type=pa.decimal128(9, 2)),
            "decimal256": pa.array([decimal.Decimal("1.5"), n, decimal.Decimal("3")], type=pa.decimal256(40, 2)),
            "list": pa.array([[1, 2], n, []], type=pa.list_(pa.int32())),
            "large_list": pa.array([[1], n, [2, 3]], type=pa.large_list(pa.int8())),
            "fixed_list": pa.array([[1, 2], n, [3, 4]], type=pa.list_(pa.int16(), 2)),
            "list_view": pa.array([[1], n, [2]], type=pa.list_view(pa.int32())),
            "struct": pa.array([{"x": 1, "y": "a"}, n, {"x": n, "y": "c"}]),
            "map": pa.array([[("k", 1)], n, []], type=pa.map_(pa.string(), pa.int64())),
            "list3": pa.array([[[[1]]], n, [[[], [2, n]]]], type=pa.list_(pa.list_(pa.list_(pa.int64())))),
            "dict": pa.array(["red", n, "red"]).dictionary_encode(),
            "ree": pa.RunEndEncodedArray.from_arrays([2, 3], pa.array(["a", "b"])),
            "sparse_union": pa.UnionArray.from_sparse(
                pa.array([0, 1, 0], type=pa.int8()), [pa.array([1, n, 3]), pa.array(["a", "b", n])]
            ),
            "dense_union": pa.UnionArray.from_dense(
                pa.array([0, 1, 0], type=pa.int8()), pa.array([0, 0, 1], type=pa.int32()),
                [pa.array([1, 2]), pa.array(["b"])],
            ),
            "null": pa.nulls(3),
        }
    )
    fields = [pa.field(k, v.type, metadata={"field": k}) for k, v in columns.items()]
    schema = pa.schema(fields, metadata={"table": "every type"})
    return pa.Table.from_arrays(list(columns.values()), schema=schema)


def write_nanoarrow(out):
    from nanoarrow.ipc import StreamWriter

    out.mkdir(parents=True, exist_ok=True)
    table = pyarrow_table()
    limits = {}
    # One stream per column: a type nanoarrow cannot write is its limitation alone.
    for name in table.column_names:
        column = table.select([name])
        # Rows 1 and 2 copied (nanoarrow writes no array with an offset).
        try:
            second = column.take([1, 2]).to_batches()
        except pa.ArrowNotImplementedError:
            second = []  # pyarrow's take has no kernel for the type: one batch
        try:
            batches = column.to_batches() + second
            with StreamWriter.from_path(str(out / f"{name}.arrows")) as writer:
                writer.write_stream(pa.RecordBatchReader.from_batches(column.schema, batches))
        except Exception as e:  # noqa: BLE001 - the peer's own error is the report
            (out / f"{name}.arrows").unlink(missing_ok=True)
            limits[name] = f"{type(e).__name__}: {e}".splitlines()[0]
    with StreamWriter.from_path(str(out / "empty.arrows")) as writer:
        writer.write_stream(pa.RecordBatchReader.from_batches(pa.schema([]), []))
    lines = "".join(f"{name}\tnanoarrow\t{why}\n" for name, why in sorted(limits.items()))
    (out / "limitations.tsv").write_text(lines)


def read_peers(directory):
    """Each peer's reading of each file, compared with pyarrow's: "ok" or the error."""
    import nanoarrow as na
    import polars as pl

    def polars_reads(path):
        schema, batches = read_with_pyarrow(path)
        expected = pl.from_arrow(pa.Table.from_batches(batches, schema))
        read = pl.read_ipc(path) if path.suffix != ".arrows" else pl.read_ipc_stream(path)
        if not read.equals(expected):
            raise AssertionError(f"read {read} but pyarrow reads {expected}")

    def nanoarrow_reads(path):
        if path.suffix != ".arrows":
            raise NotImplementedError("nanoarrow reads IPC streams, not files")
        schema, batches = read_with_pyarrow(path)
        stream = na.ArrayStream.from_path(str(path))
        read = pa.table(stream)
        expected = pa.Table.from_batches(batches, schema)
        if not read.equals(expected, check_metadata=True):
            raise AssertionError(f"read {read.schema} but pyarrow reads {expected.schema}")

    for path in sorted(Path(directory).iterdir()):
        if path.suffix not in (".arrow", ".arrows"):
            continue
        for peer, reads in [("polars", polars_reads), ("nanoarrow", nanoarrow_reads)]:
            try:
                reads(path)
                outcome = "ok"
            except (KeyboardInterrupt, SystemExit):
                raise
            # Polars' panics are BaseExceptions (pyo3's PanicException): reported too.
            except BaseException as e:  # noqa: BLE001 - the peer's own error is the report
                outcome = " ".join(f"{type(e).__name__}: {e}".split())[:300]
            print(f"{path.name}\t{peer}\t{outcome}")


def main():
    command, where = sys.argv[1], Path(sys.argv[2])
    if command == "write":
        write_polars(where / "polars")
        write_nanoarrow(where / "nanoarrow")
        canonical(where)
    elif command == "fixtures":
        fixtures(where)
    elif command == "canonical":
        canonical(where)
    elif command == "read":
        read_peers(where)
    else:
        sys.exit(f"unknown command {command!r}")


if __name__ == "__main__":
    main()
