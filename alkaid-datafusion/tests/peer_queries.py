"""The peers of alkaid-datafusion's SQL tests.

    peer_queries.py ARROW_DIR PYARROW_DIR QUERIES_JSON

1. pyarrow writes its own IPC files (ARROW1; one uncompressed, one LZ4, several batches
   each) into PYARROW_DIR, for the Rust side to read with Alkaid's provider.
2. DuckDB runs every query of QUERIES_JSON over the files of ARROW_DIR (written by Alkaid
   with the ARROW1 magic), read with pyarrow, and prints the results as JSON: one list of
   rows per query, each cell a number, a string, a boolean or null.
"""
import decimal
import glob
import json
import os
import sys

import duckdb
import pyarrow as pa
import pyarrow.ipc as ipc


def write_pyarrow_files(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for part, compression in enumerate([None, "lz4"]):
        rows = 3000
        start = part * rows
        ids = list(range(start, start + rows))
        table = pa.table({
            "id": pa.array(ids, pa.int64()),
            "g": pa.array([None if i % 11 == 0 else i % 7 for i in ids], pa.int32()),
            "x": pa.array([None if i % 13 == 0 else (i * 37 % 1000) / 1000.0 for i in ids]),
            "s": pa.array(["name-%d" % (i % 50) for i in ids]),
        })
        options = ipc.IpcWriteOptions(compression=compression)
        path = os.path.join(out_dir, "part-%d.arrow" % part)
        with ipc.new_file(path, table.schema, options=options) as writer:
            for batch in table.to_batches(max_chunksize=700):
                writer.write_batch(batch)


def cell(value):
    if isinstance(value, decimal.Decimal):
        return float(value)
    return value


def main():
    arrow_dir, pyarrow_dir, queries_path = sys.argv[1:4]
    write_pyarrow_files(pyarrow_dir)
    tables = [ipc.open_file(p).read_all() for p in sorted(glob.glob(os.path.join(arrow_dir, "*")))]
    t = pa.concat_tables(tables)
    con = duckdb.connect()
    con.register("t", t)
    results = []
    with open(queries_path) as f:
        queries = json.load(f)
    for query in queries:
        rows = con.execute(query).fetchall()
        results.append([[cell(v) for v in row] for row in rows])
    print(json.dumps(results))


if __name__ == "__main__":
    main()
