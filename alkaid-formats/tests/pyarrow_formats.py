#!/usr/bin/env python3
"""pyarrow as the reference for alkaid-formats' tests.

    pyarrow_formats.py parquet-write SOURCE OUT   pyarrow writes SOURCE (an IPC stream) as
        Parquet with each codec, two rows a row group, into OUT/NAME.parquet, and beside each
        NAME.parquet.pyarrow.arrows, an IPC stream of pyarrow's reading of it. Columns
        pyarrow cannot write to Parquet are left out and listed in OUT/unsupported.tsv.
    pyarrow_formats.py parquet-read DIR           for each NAME.parquet in DIR (written by
        Alkaid) and NAME.expected.arrows (the same rows as an IPC stream), prints NAME, then
        "ok" or what differs, tab-separated. The reference is what pyarrow reads of the
        same rows written to Parquet by pyarrow itself: Parquet has no seconds unit and no
        date64, so no writer round-trips those, and pyarrow reads a dictionary of
        large_string back as one of string.
    pyarrow_formats.py parquet-peers OUT         Parquet as pyarrow (data page v2 with every
        codec, dictionary fallback, byte-stream-split, delta encodings), Polars and DuckDB
        write it, into OUT/NAME.parquet, each with NAME.parquet.pyarrow.arrows beside it,
        pyarrow's reading of it. Each file is checked to use the encodings it is named for.
    pyarrow_formats.py parquet-peers-read DIR    for each NAME.parquet in DIR (one column,
        written by Alkaid), prints NAME, the peer (polars, duckdb), then "ok", "the same
        values as TYPE" (the peer's type for it), or what differs from pyarrow's reading of
        the file, tab-separated.
    pyarrow_formats.py text-peers DIR             pyarrow and DuckDB infer the schema of, and
        read, every .csv and .ndjson file in DIR, into NAME.PEER.arrows or NAME.PEER.error.
    pyarrow_formats.py text DIR                   pyarrow.csv and pyarrow.json read every
        .csv and .ndjson file in DIR with the schema in NAME.schema.arrows, and write their
        reading as NAME.pyarrow.arrows, or the error as NAME.pyarrow.error.
"""

import sys
from pathlib import Path

import datetime
import decimal

import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.ipc as ipc
import pyarrow.json as pjson
import pyarrow.parquet as pq

CODECS = ["none", "snappy", "gzip", "brotli", "lz4", "zstd"]


def write_stream(path, table):
    with ipc.new_stream(path, table.schema) as writer:
        for batch in table.to_batches():
            writer.write_batch(batch)


def parquet_write(source, out):
    out.mkdir(parents=True, exist_ok=True)
    table = ipc.open_stream(pa.py_buffer(Path(source).read_bytes())).read_all()
    kept, refused = [], []
    for name in table.column_names:
        try:
            pq.write_table(table.select([name]), pa.BufferOutputStream())
            kept.append(name)
        except Exception as e:  # noqa: BLE001 - pyarrow's own error is the record
            refused.append(f"{name}\t{' '.join(str(e).split())}\n")
    (out / "unsupported.tsv").write_text("".join(refused))
    table = table.select(kept)
    for codec in CODECS:
        path = out / f"all_{codec}.parquet"
        pq.write_table(table, path, compression=codec, row_group_size=2)
        write_stream(f"{path}.pyarrow.arrows", pq.read_table(path))


def has_dictionary(data_type):
    if pa.types.is_dictionary(data_type):
        return True
    return any(has_dictionary(data_type.field(i).type) for i in range(data_type.num_fields))


def same_values(read, expected):
    """Whether two columns hold the same values: dictionary columns by their values,
    whatever dictionaries the chunks were cut into."""
    if has_dictionary(expected.type):
        return read.to_pylist() == expected.to_pylist()
    return read.combine_chunks().equals(expected.combine_chunks())


def parquet_read(directory):
    for path in sorted(Path(directory).glob("*.parquet")):
        source = ipc.open_stream(
            pa.py_buffer(path.with_suffix(".expected.arrows").read_bytes())
        ).read_all()
        own = pa.BufferOutputStream()
        pq.write_table(source, own)
        expected = pq.read_table(pa.BufferReader(own.getvalue()))
        try:
            read = pq.read_table(path)
            file_metadata = pq.read_metadata(path).metadata or {}
            if file_metadata.get(b"written_by") != b"alkaid":
                outcome = f"the file's key-value metadata is lost: {file_metadata}"
            elif read.equals(expected):
                outcome = "ok"
            else:
                # Column by column: the types, then the values as Python sees them (two
                # dictionary columns are equal when their values are, whatever the
                # dictionaries they were cut into).
                differs = []
                for n in expected.column_names:
                    if n not in read.column_names:
                        differs.append(f"{n} missing")
                    elif read.schema.field(n).type != expected.schema.field(n).type:
                        differs.append(f"{n}: {read.schema.field(n).type} for {expected.schema.field(n).type}")
                    elif not same_values(read[n], expected[n]):
                        differs.append(f"{n}: values")
                outcome = "ok" if not differs else f"columns differ: {differs}"
        except Exception as e:  # noqa: BLE001 - pyarrow's own error is the report
            outcome = " ".join(f"{type(e).__name__}: {e}".split())
        print(f"{path.stem}\t{outcome}"[:400])


def encodings(path, column):
    """The encodings of `column`'s chunks in the Parquet file at `path`."""
    metadata = pq.ParquetFile(path).metadata
    paths = [metadata.schema.column(i).path for i in range(metadata.num_columns)]
    c = paths.index(column)
    return {
        e
        for g in range(metadata.num_row_groups)
        for e in metadata.row_group(g).column(c).encodings
    }


def peer_table(rows):
    """Columns of every kind the writers encode differently, nulls among them."""
    return pa.table(
        {
            "i": pa.array([None if i % 7 == 0 else (i * 7919) % 100003 - 50000 for i in range(rows)], pa.int64()),
            "i32": pa.array(range(rows), pa.int32()),
            "f": pa.array([None if i % 11 == 0 else i * 0.25 - 3.5 for i in range(rows)], pa.float64()),
            "f32": pa.array([i * 0.5 for i in range(rows)], pa.float32()),
            "s": pa.array([None if i % 13 == 0 else f"value {i * 31 % 997}" for i in range(rows)]),
            "d": pa.array([f"distinct {i} " + "x" * (i % 40) for i in range(rows)]),
            "b": pa.array([bytes([i % 256]) * (i % 5) for i in range(rows)], pa.binary()),
        }
    )


def parquet_peers(out):
    import duckdb
    import polars as pl

    out.mkdir(parents=True, exist_ok=True)
    table = peer_table(1000)
    written = {
        "pyarrow_dictionary_fallback": (dict(dictionary_pagesize_limit=256, row_group_size=400), "d", "PLAIN"),
        "pyarrow_byte_stream_split": (
            dict(use_dictionary=False, use_byte_stream_split=["f", "f32", "i", "i32"]), "f", "BYTE_STREAM_SPLIT"),
        "pyarrow_delta_binary_packed": (
            dict(use_dictionary=False, column_encoding={"i": "DELTA_BINARY_PACKED", "i32": "DELTA_BINARY_PACKED"}),
            "i", "DELTA_BINARY_PACKED"),
        "pyarrow_delta_byte_array": (
            dict(use_dictionary=False, column_encoding={"s": "DELTA_BYTE_ARRAY", "b": "DELTA_BYTE_ARRAY"}),
            "s", "DELTA_BYTE_ARRAY"),
        "pyarrow_delta_length_byte_array": (
            dict(use_dictionary=False, column_encoding={"d": "DELTA_LENGTH_BYTE_ARRAY"}), "d", "DELTA_LENGTH_BYTE_ARRAY"),
    }
    for codec in CODECS:
        written[f"pyarrow_v2_{codec}"] = (
            dict(data_page_version="2.0", compression=codec, row_group_size=300, data_page_size=512), "i", "RLE_DICTIONARY")
        written[f"pyarrow_v1_{codec}"] = (
            dict(data_page_version="1.0", compression=codec, row_group_size=300, data_page_size=512), "i", "RLE_DICTIONARY")
    for name, (options, column, encoding) in written.items():
        path = out / f"{name}.parquet"
        pq.write_table(table, path, **options)
        assert encoding in encodings(path, column), (name, encodings(path, column))
    frame = pl.DataFrame(
        {
            "i": [1, None, -3, 2**40],
            "f": [0.5, None, float("nan"), -0.0],
            "s": ["a", "ünï ✓", None, ""],
            "flag": [True, False, None, True],
            "day": [datetime.date(2024, 1, 1), None, datetime.date(1969, 12, 31), datetime.date(9999, 12, 31)],
            "at": [datetime.datetime(2024, 1, 1, 12, 30), None, datetime.datetime(1970, 1, 1), datetime.datetime(2262, 4, 11)],
            "span": [datetime.timedelta(days=1), None, datetime.timedelta(microseconds=-5), datetime.timedelta(0)],
            "money": [decimal.Decimal("1.25"), None, decimal.Decimal("-3.50"), decimal.Decimal("0.00")],
            "l": [[1, 2], None, [], [None, 4]],
            "st": [{"x": 1, "y": "a"}, None, {"x": None, "y": "c"}, {"x": 4, "y": None}],
            "cat": pl.Series(["red", "blue", None, "red"], dtype=pl.Categorical),
        }
    ).with_columns(pl.col("at").dt.replace_time_zone("Europe/Paris").alias("at_paris"))
    frame.write_parquet(out / "polars.parquet", row_group_size=2)
    frame.write_parquet(out / "polars_uncompressed.parquet", compression="uncompressed", statistics=False)
    duckdb.sql(
        """COPY (SELECT i::INTEGER AS i, i::BIGINT * 1000000007 AS big, i::HUGEINT * 100000000000000000000 AS huge,
                 (i * 1.25)::DECIMAL(9, 2) AS d9, (i * -1.125)::DECIMAL(18, 3) AS d18,
                 (i * 1000000000000.0000000001)::DECIMAL(38, 10) AS d38,
                 i / 3.0 AS f, 'text ' || i AS s, ('\\x' || printf('%02x', i))::BLOB AS blob, i % 2 = 0 AS flag,
                 DATE '2024-01-01' + i::INTEGER AS day, TIMESTAMP '2024-01-01 00:00:00' + INTERVAL (i) MINUTE AS at,
                 TIMESTAMPTZ '2024-01-01 00:00:00+00' + INTERVAL (i) HOUR AS at_utc, TIME '01:02:03' AS t,
                 ('12345678-1234-5678-1234-56781234567' || (i % 10))::UUID AS id,
                 [i, i + 1, NULL] AS l, {'a': i, 'b': 'x' || i} AS st, MAP {'k' || i: i} AS m,
                 CASE WHEN i % 5 = 0 THEN NULL ELSE i END AS sometimes
               FROM range(100) r(i)) TO '"""
        + str(out / "duckdb.parquet")
        + "' (FORMAT PARQUET, ROW_GROUP_SIZE 40)"
    )
    for path in sorted(out.glob("*.parquet")):
        write_stream(f"{path}.pyarrow.arrows", pq.read_table(path))


def python_values(values):
    """Values as Python compares them: NaN equal to NaN."""
    if isinstance(values, float) and values != values:
        return "NaN"
    if isinstance(values, dict):
        return {k: python_values(v) for k, v in values.items()}
    if isinstance(values, (list, tuple)):
        return [python_values(v) for v in values]
    return values


def parquet_peers_read(directory):
    import duckdb
    import polars as pl

    for path in sorted(Path(directory).glob("*.parquet")):
        expected = pq.read_table(path).column(0)
        readers = {
            "polars": lambda: pl.read_parquet(path).to_arrow(),
            "duckdb": lambda: duckdb.sql(f"SELECT * FROM read_parquet('{path}')").to_arrow_table(),
        }
        for peer, read in readers.items():
            try:
                got = read().column(0).combine_chunks()
                want = expected.combine_chunks()
                if got.type == want.type:
                    outcome = "ok" if got.equals(want) else "values differ"
                else:
                    # Another type: the same values once cast to it (a duration read as
                    # its integers), else as Python sees them.
                    try:
                        same = want.cast(got.type).equals(got)
                    except Exception:  # noqa: BLE001 - no cast: compared as Python values
                        same = False
                    same = same or python_values(got.to_pylist()) == python_values(want.to_pylist())
                    verdict = "the same values" if same else "other values"
                    outcome = f"{verdict} as {got.type}, for {want.type}"
            except BaseException as e:  # noqa: BLE001 - Polars panics as PanicException
                outcome = " ".join(f"{type(e).__name__}: {e}".split())
            print(f"{path.stem}\t{peer}\t{outcome}"[:400])


def text_peers(directory):
    """pyarrow and DuckDB infer and read every .csv and .ndjson file in `directory`."""
    import duckdb

    for path in sorted(Path(directory).iterdir()):
        if path.suffix == ".csv":
            readers = {
                "pyarrow": lambda: pcsv.read_csv(
                    path, parse_options=pcsv.ParseOptions(newlines_in_values=True)),
                "duckdb": lambda: duckdb.sql(f"SELECT * FROM read_csv('{path}')").to_arrow_table(),
            }
        elif path.suffix == ".ndjson":
            readers = {
                "pyarrow": lambda: pjson.read_json(path),
                "duckdb": lambda: duckdb.sql(
                    f"SELECT * FROM read_json('{path}', format = 'newline_delimited')").to_arrow_table(),
            }
        else:
            continue
        for peer, read in readers.items():
            try:
                write_stream(f"{path}.{peer}.arrows", read())
            except Exception as e:  # noqa: BLE001 - the peer's own error is the record
                Path(f"{path}.{peer}.error").write_text(" ".join(str(e).split()))


def text(directory):
    for path in sorted(Path(directory).iterdir()):
        if path.suffix not in (".csv", ".ndjson"):
            continue
        schema_path = path.with_suffix(".schema.arrows")
        schema = ipc.open_stream(pa.py_buffer(schema_path.read_bytes())).schema
        try:
            if path.suffix == ".csv":
                table = pcsv.read_csv(
                    path,
                    parse_options=pcsv.ParseOptions(newlines_in_values=True),
                    convert_options=pcsv.ConvertOptions(
                        column_types=schema, strings_can_be_null=True,
                        null_values=["", "NA"]),
                )
            else:
                table = pjson.read_json(
                    path, parse_options=pjson.ParseOptions(explicit_schema=schema))
            write_stream(path.with_suffix(".pyarrow.arrows"), table.select(schema.names))
        except Exception as e:  # noqa: BLE001 - pyarrow's own error is the record
            path.with_suffix(".pyarrow.error").write_text(" ".join(str(e).split()))


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "parquet-write":
        parquet_write(sys.argv[2], Path(sys.argv[3]))
    elif command == "parquet-read":
        parquet_read(sys.argv[2])
    elif command == "parquet-peers":
        parquet_peers(Path(sys.argv[2]))
    elif command == "parquet-peers-read":
        parquet_peers_read(sys.argv[2])
    elif command == "text-peers":
        text_peers(sys.argv[2])
    elif command == "text":
        text(sys.argv[2])
    else:
        sys.exit(f"unknown command {command!r}")
