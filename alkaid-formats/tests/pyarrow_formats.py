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
    pyarrow_formats.py text DIR                   pyarrow.csv and pyarrow.json read every
        .csv and .ndjson file in DIR with the schema in NAME.schema.arrows, and write their
        reading as NAME.pyarrow.arrows, or the error as NAME.pyarrow.error.
"""

import sys
from pathlib import Path

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
    elif command == "text":
        text(sys.argv[2])
    else:
        sys.exit(f"unknown command {command!r}")
