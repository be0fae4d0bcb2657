#!/usr/bin/env python3
"""pyarrow's reading of the Parquet project's test corpus, kept as the expectation of
alkaid-formats' corpus test (tests/suite/parquet_corpus.rs).

    parquet_corpus.py CORPUS    for each F.parquet under CORPUS (data/, bad_data/,
        shredded_variant/), writes CORPUS/expected/F.arrows, pyarrow's reading of the file as
        a zstd-compressed IPC stream, or CORPUS/expected/F.error, pyarrow's error. Files that
        hold INT96 timestamps are read a second time with INT96 as microseconds, into
        F.us.arrows. CORPUS/expected/VERSION names the pyarrow that wrote them.

Run once when the corpus or the pinned pyarrow changes; the outputs are committed, so the
test needs no Python.
"""

import shutil
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq


def write_stream(path, table):
    options = ipc.IpcWriteOptions(compression="zstd")
    with ipc.new_stream(path, table.schema, options=options) as writer:
        for batch in table.combine_chunks().to_batches():
            writer.write_batch(batch)


def has_int96(path):
    schema = pq.ParquetFile(path).schema
    return any(schema.column(i).physical_type == "INT96" for i in range(len(schema)))


def expect(corpus):
    out = corpus / "expected"
    shutil.rmtree(out, ignore_errors=True)
    files = sorted(p for p in corpus.rglob("*.parquet") if out not in p.parents)
    for path in files:
        rel = path.relative_to(corpus)
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            table = pq.read_table(path)
        except Exception as e:  # noqa: BLE001 - pyarrow's own error is the record
            Path(f"{target}.error").write_text(" ".join(str(e).split()) + "\n")
            continue
        write_stream(f"{target}.arrows", table)
        if has_int96(path):
            micros = pq.read_table(path, coerce_int96_timestamp_unit="us")
            write_stream(f"{target}.us.arrows", micros)
    (out / "VERSION").write_text(f"pyarrow {pa.__version__}\n")


if __name__ == "__main__":
    expect(Path(sys.argv[1]))
