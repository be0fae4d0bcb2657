#!/usr/bin/env python3
"""Flight SQL speed: `alkaid serve DIR --sql` answering ADBC's Flight SQL driver, beside
`alkaid serve DIR` answering a plain Flight `DoGet` of the same file.

- fetch: `SELECT * FROM wide` (the table: 4 Mi rows of an int64, a float64, a short
  string and a nullable int32, one IPC file of 64 batches) fetched whole by ADBC's
  driver (`cursor.execute` then `fetch_arrow_table`), against `alkaid get` of the same
  file from the plain server into a file on tmpfs, and against pyarrow's Flight client
  `DoGet` of it (`read_all`), and pyarrow's client fetching the query from the Flight SQL
  server (`GetFlightInfo` then `DoGet`: the server's cost alone, the client being the
  same as the plain `DoGet`'s). Minimum of N alternating runs each; the ratio is ADBC's
  time over `alkaid get`'s (target: at most 1.3).
- load: 32 ADBC clients at once, each fetching a 32nd of the table
  (`SELECT * FROM wide WHERE n % 32 = i`), twice; the wall time and the server's peak
  resident memory (VmHWM), against its resident memory before.
- round trip: a small query with a parameter, prepared, executed and fetched
  (`cursor.execute("SELECT ... WHERE id = ?", parameters=...)` on one connection),
  median of 200 (target: under 2 ms on loopback), with the CPU the server and the client
  process spent per trip; beside it the same calls made by pyarrow's Flight client
  (create, bind, GetFlightInfo, DoGet, close), the statement prepared once and run with
  new parameters (bind, GetFlightInfo, DoGet: JDBC's `PreparedStatement`), and ADBC's
  `SELECT 1` (no table, no parameter), to say where the time goes.

usage: python3 benches/flight_sql_bench.py [--bin target/release/alkaid] [--runs 5]
(build the binary first: cargo build --release -p alkaid-cli --features sql; needs
pyarrow and adbc-driver-flightsql, as in .ci/requirements.txt)
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import adbc_driver_flightsql.dbapi as flight_sql
import pyarrow as pa

# The hand-packed Flight SQL command, shared with alkaid-flight-sql's tests.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "alkaid-flight-sql" / "tests"))
from flight_sql_command import pack_query  # noqa: E402
import pyarrow.flight as flight
import pyarrow.ipc as ipc
from server_process import resident_kib, start as start_server

ROWS = 4 << 20
BATCHES = 64


def table() -> pa.Table:
    n = pa.array(range(ROWS), pa.int64())
    x = pa.array([i * 0.5 for i in range(ROWS)], pa.float64())
    words = pa.array([("w%d" % (i % 1000)) for i in range(ROWS)], pa.string())
    maybe = pa.array([None if i % 7 == 0 else i % 100 for i in range(ROWS)], pa.int32())
    return pa.table({"n": n, "x": x, "word": words, "maybe": maybe})


def start(binary, args):
    """`alkaid serve …` on a free port; the process and its URI."""
    return start_server([binary, "serve", *args, "--port", "0"])


def load(uri):
    """32 clients at once; the wall time."""
    failures = []

    def client(i):
        try:
            with flight_sql.connect(uri, autocommit=True) as conn, conn.cursor() as cur:
                for _ in range(2):
                    cur.execute(f"SELECT * FROM wide WHERE n % 32 = {i}")
                    assert cur.fetch_arrow_table().num_rows == ROWS // 32
        except Exception as e:  # noqa: BLE001 - reported below
            failures.append(repr(e))

    threads = [threading.Thread(target=client, args=(i,)) for i in range(32)]
    start_time = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        raise RuntimeError(failures[0])
    return time.perf_counter() - start_time


def cpu_seconds(pid):
    """User and system CPU time of process `pid` (all its threads), from /proc."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pyarrow_prepared_trips(client, count):
    """The ADBC round trip's calls made by pyarrow's Flight client: create the prepared
    statement, bind its parameter (DoPut), GetFlightInfo, DoGet, close; the times."""
    from flightsql import flightsql_pb2 as sql
    from google.protobuf import any_pb2

    def packed(message):
        holder = any_pb2.Any()
        holder.Pack(message)
        return holder.SerializeToString()

    def prepare():
        create = sql.ActionCreatePreparedStatementRequest(query="SELECT v FROM small WHERE id = $1")
        body = next(iter(client.do_action(flight.Action("CreatePreparedStatement", packed(create)))))
        holder = any_pb2.Any()
        holder.ParseFromString(body.body.to_pybytes())
        prepared = sql.ActionCreatePreparedStatementResult()
        holder.Unpack(prepared)
        return prepared.prepared_statement_handle

    def run(handle, i):
        descriptor = flight.FlightDescriptor.for_command(
            packed(sql.CommandPreparedStatementQuery(prepared_statement_handle=handle)))
        bound = pa.record_batch([pa.array([i], pa.int64())], names=["$1"])
        writer, reader = client.do_put(descriptor, bound.schema)
        writer.write_batch(bound)
        writer.done_writing()
        reader.read()
        writer.close()
        info = client.get_flight_info(descriptor)
        got = client.do_get(info.endpoints[0].ticket).read_all()
        assert got.num_rows == 1

    def close(handle):
        close = sql.ActionClosePreparedStatementRequest(prepared_statement_handle=handle)
        list(client.do_action(flight.Action("ClosePreparedStatement", packed(close))))

    times = []
    for i in range(count):
        start_time = time.perf_counter()
        handle = prepare()
        run(handle, i)
        close(handle)
        times.append(time.perf_counter() - start_time)
    # Prepared once and run again with new parameters, as JDBC's PreparedStatement is:
    # three calls a trip (bind, GetFlightInfo, DoGet).
    handle = prepare()
    rebound = []
    for i in range(count):
        start_time = time.perf_counter()
        run(handle, i)
        rebound.append(time.perf_counter() - start_time)
    close(handle)
    return times, rebound


def best(runs, action):
    times = []
    for _ in range(runs):
        start_time = time.perf_counter()
        action()
        times.append(time.perf_counter() - start_time)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default="target/release/alkaid")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="alkaid-flight-sql-bench-"))
    tables = work / "tables"
    tables.mkdir()
    data = table()
    with ipc.new_file(tables / "wide.arrow", data.schema) as writer:
        for batch in data.to_batches(max_chunksize=ROWS // BATCHES):
            writer.write_batch(batch)
    small = pa.table({"id": pa.array(range(1000), pa.int64()), "v": pa.array([str(i) for i in range(1000)])})
    with ipc.new_file(tables / "small.arrow", small.schema) as writer:
        writer.write_table(small)

    sql, sql_uri = start(args.bin, [str(tables), "--sql"])
    plain, plain_uri = start(args.bin, [str(tables)])
    out = pathlib.Path("/dev/shm") if pathlib.Path("/dev/shm").is_dir() else work
    try:
        conn = flight_sql.connect(sql_uri, autocommit=True)
        cur = conn.cursor()

        def adbc_fetch():
            cur.execute("SELECT * FROM wide")
            got = cur.fetch_arrow_table()
            assert got.num_rows == ROWS

        def alkaid_get():
            target = out / "alkaid-flight-sql-bench.arrow"
            subprocess.run([args.bin, "get", plain_uri, "wide.arrow", str(target)], check=True,
                           stdout=subprocess.DEVNULL)
            target.unlink()

        client = flight.FlightClient(plain_uri)

        def pyarrow_get():
            got = client.do_get(flight.Ticket(b"wide.arrow")).read_all()
            assert got.num_rows == ROWS

        sql_client = flight.FlightClient(sql_uri)
        select_all = flight.FlightDescriptor.for_command(pack_query("SELECT * FROM wide"))

        def pyarrow_sql():
            info = sql_client.get_flight_info(select_all)
            got = sql_client.do_get(info.endpoints[0].ticket).read_all()
            assert got.num_rows == ROWS

        times = {"adbc": [], "alkaid get": [], "pyarrow do_get": [], "pyarrow via SQL": []}
        for _ in range(args.runs):
            times["adbc"].append(best(1, adbc_fetch))
            times["alkaid get"].append(best(1, alkaid_get))
            times["pyarrow do_get"].append(best(1, pyarrow_get))
            times["pyarrow via SQL"].append(best(1, pyarrow_sql))
        fetch = {name: min(values) for name, values in times.items()}

        trips = []
        cpu_before = (cpu_seconds(sql.pid), cpu_seconds(os.getpid()))
        for i in range(200):
            start_time = time.perf_counter()
            cur.execute("SELECT v FROM small WHERE id = $1", parameters=(i,))
            got = cur.fetch_arrow_table()
            trips.append(time.perf_counter() - start_time)
            assert got.num_rows == 1
        server_cpu = (cpu_seconds(sql.pid) - cpu_before[0]) / 200
        client_cpu = (cpu_seconds(os.getpid()) - cpu_before[1]) / 200
        floor = []
        for _ in range(200):
            start_time = time.perf_counter()
            cur.execute("SELECT 1")
            cur.fetch_arrow_table()
            floor.append(time.perf_counter() - start_time)
        raw, rebound = pyarrow_prepared_trips(sql_client, 200)
        cur.close()
        conn.close()
        before = resident_kib(sql.pid, "VmRSS:")
        load_seconds = load(sql_uri)
        peak = resident_kib(sql.pid, "VmHWM:")
    finally:
        for process in (sql, plain):
            process.terminate()
            process.wait()

    print(f"fetch of {ROWS} rows, {BATCHES} batches (min of {args.runs}):")
    for name, seconds in fetch.items():
        print(f"  {name:16} {seconds * 1000:8.1f} ms")
    print(f"  ADBC / alkaid get: {fetch['adbc'] / fetch['alkaid get']:.2f}")
    print(f"  ADBC / pyarrow do_get: {fetch['adbc'] / fetch['pyarrow do_get']:.2f}")
    print(f"  the same client, SQL over plain (pyarrow via SQL / pyarrow do_get): "
          f"{fetch['pyarrow via SQL'] / fetch['pyarrow do_get']:.2f}")
    print(f"load: 32 clients x 2 fetches of {ROWS // 32} rows: {load_seconds * 1000:.0f} ms, "
          f"server resident {before / 1024:.0f} MiB before, peak {peak / 1024:.0f} MiB")
    print(f"round trip (prepare, execute, fetch), median of 200: {statistics.median(trips) * 1000:.2f} ms"
          f" (p90 {sorted(trips)[179] * 1000:.2f} ms); CPU per trip: server {server_cpu * 1000:.2f} ms,"
          f" client (Python and ADBC's Go driver) {client_cpu * 1000:.2f} ms")
    print(f"  the same through pyarrow's Flight client (C++): {statistics.median(raw) * 1000:.2f} ms;"
          f" prepared once and run with new parameters: {statistics.median(rebound) * 1000:.2f} ms;"
          f" ADBC's `SELECT 1`, no table and no parameter: {statistics.median(floor) * 1000:.2f} ms")


if __name__ == "__main__":
    sys.exit(main())
