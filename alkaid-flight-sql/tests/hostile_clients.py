"""Well-behaved and hostile clients of one Flight SQL server at once, for the Rust test
`hostile::well_behaved_clients_are_answered_while_hostile_ones_are_refused`.

32 well-behaved clients (ADBC's Flight SQL driver, a connection each) run a fixed list of
queries, prepared ones with parameters among them, and record each answer. In `hostile`
mode, 8 other clients meanwhile, until the well-behaved ones are done:

- send malformed commands, tickets, actions and DoPut descriptors (random bytes, seeded);
- bind oversized parameters (more rows than the server takes);
- upload a decompression bomb (zstd of 128 MiB of zeros);
- drop result streams after their first batch;
- read result streams slowly, then go away;
- write to the read-only server (INSERT, COPY, bulk ingestion);
- ask GetSqlInfo for one id 100,000 times;
- start an endless query and cancel it.

Every hostile attempt must be refused (or, for the readers, end) without a crash; one
that succeeds where it must not is recorded as a violation.

usage: hostile_clients.py URI OUT MODE   (MODE: calm or hostile)
Writes OUT/answers-MODE.json and, in hostile mode, OUT/hostile.json.
"""

import json
import random
import sys
import threading
import time

import adbc_driver_flightsql.dbapi as flight_sql
import pyarrow as pa
import pyarrow.flight as flight

from flight_sql_command import field, pack, pack_query, varint

uri, out, mode = sys.argv[1:4]

QUERIES = [
    "SELECT count(*) AS n, sum(n) AS s FROM wide",
    "SELECT word, count(*) AS c FROM wide GROUP BY word ORDER BY word LIMIT 20",
    "SELECT * FROM trips ORDER BY id",
    "SELECT t.id, c.country FROM trips t JOIN cities c ON t.city = c.city ORDER BY t.id",
    "SELECT city, avg(fare) AS fare FROM trips GROUP BY city ORDER BY city",
    "SELECT * FROM events ORDER BY id",
    "SELECT n, x FROM wide WHERE n % 9973 = 0 ORDER BY n",
    "SELECT id, rank() OVER (ORDER BY fare DESC) AS r FROM trips ORDER BY id",
]
PREPARED = [
    ("SELECT id, fare FROM trips WHERE id > $1 ORDER BY id", (2,)),
    ("SELECT n FROM wide WHERE n BETWEEN $1 AND $2 ORDER BY n", (1000, 1010)),
]
LONG = "SELECT * FROM wide"
ENDLESS = "SELECT value FROM generate_series(1, 1000000000)"


def connect():
    return flight_sql.connect(uri, autocommit=True)


def canonical(table):
    return json.dumps(table.to_pylist(), sort_keys=True, default=str)


def well_behaved(client, answers, failures):
    try:
        with connect() as conn, conn.cursor() as cur:
            for i, sql in enumerate(QUERIES):
                cur.execute(sql)
                answers[f"{client}:{i}"] = canonical(cur.fetch_arrow_table())
            for i, (sql, parameters) in enumerate(PREPARED):
                cur.execute(sql, parameters=parameters)
                answers[f"{client}:p{i}"] = canonical(cur.fetch_arrow_table())
    except Exception as e:  # recorded, and fails the test
        failures.append(f"client {client}: {e}")


class Hostile:
    """The hostile clients' loops and what they saw."""

    def __init__(self, done):
        self.done = done
        self.attempts = {}
        self.violations = []
        self.lock = threading.Lock()

    def count(self, kind):
        with self.lock:
            self.attempts[kind] = self.attempts.get(kind, 0) + 1

    def violation(self, text):
        with self.lock:
            self.violations.append(text)

    def loop(self, kind, attempt):
        while not self.done.is_set():
            try:
                attempt()
            except Exception as e:  # a refusal, as expected; a crash would end the server
                if "Unavailable" in str(e) or "Connection refused" in str(e):
                    self.violation(f"{kind}: the server went away: {e}")
            self.count(kind)

    def malformed(self):
        rng = random.Random(7)
        client = flight.FlightClient(uri)
        actions = ["CreatePreparedStatement", "ClosePreparedStatement", "CancelFlightInfo",
                   "CancelQuery", "BeginTransaction", "Nonsense"]

        def attempt():
            blob = bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 200)))
            which = rng.randrange(5)
            try:
                if which == 0:
                    client.get_flight_info(flight.FlightDescriptor.for_command(blob))
                elif which == 1:
                    client.do_get(flight.Ticket(blob)).read_all()
                elif which == 2:
                    list(client.do_action(flight.Action(rng.choice(actions), blob)))
                elif which == 3:
                    # A valid Any around a random message of a real command type.
                    name = rng.choice(["CommandStatementQuery", "CommandStatementIngest",
                                       "CommandPreparedStatementQuery", "CommandGetTables",
                                       "CommandGetSqlInfo", "TicketStatementQuery"])
                    client.get_flight_info(flight.FlightDescriptor.for_command(pack(name, blob)))
                else:
                    schema = pa.schema([("x", pa.int64())])
                    writer, _ = client.do_put(flight.FlightDescriptor.for_command(blob), schema)
                    writer.write_table(pa.table({"x": [1, 2, 3]}))
                    writer.close()
                self.violation(f"malformed request {which} answered: {blob!r}")
            except flight.FlightError:
                pass

        self.loop("malformed", attempt)

    def oversized_parameters(self):
        client = flight.FlightClient(uri)
        request = field(1, b"SELECT $1 AS x")
        result = list(client.do_action(flight.Action(
            "CreatePreparedStatement", pack("ActionCreatePreparedStatementRequest", request))))
        # ActionCreatePreparedStatementResult in an Any (its field 2): the handle is its
        # field 1.
        body = result[0].body.to_pybytes()
        handle = parse_first_bytes_field(parse_first_bytes_field(body, 2), 1)
        descriptor = flight.FlightDescriptor.for_command(
            pack("CommandPreparedStatementQuery", field(1, handle)))
        rows = pa.table({"$1": pa.array(range(200_000), pa.int64())})

        def attempt():
            writer, _ = client.do_put(descriptor, rows.schema)
            try:
                writer.write_table(rows)
                writer.close()
                self.violation("200,000 parameter rows were bound")
            except flight.FlightError:
                pass

        self.loop("oversized parameters", attempt)

    def bomb(self):
        options = flight.FlightCallOptions(
            write_options=pa.ipc.IpcWriteOptions(compression="zstd"))
        client = flight.FlightClient(uri)
        zeros = pa.table({"z": pa.array([0] * (16 << 20), pa.int64())})
        ingest = pack("CommandStatementIngest", field(2, b"bomb"))

        def attempt():
            writer, _ = client.do_put(flight.FlightDescriptor.for_command(ingest),
                                      zeros.schema, options=options)
            try:
                writer.write_table(zeros)
                writer.close()
                self.violation("a decompression bomb was taken")
            except flight.FlightError:
                pass

        self.loop("decompression bomb", attempt)

    def dropped(self):
        client = flight.FlightClient(uri)

        def attempt():
            info = client.get_flight_info(flight.FlightDescriptor.for_command(pack_query(LONG)))
            reader = client.do_get(info.endpoints[0].ticket)
            reader.read_chunk()
            reader.cancel()

        self.loop("dropped stream", attempt)

    def slow(self):
        client = flight.FlightClient(uri)

        def attempt():
            info = client.get_flight_info(flight.FlightDescriptor.for_command(pack_query(LONG)))
            reader = client.do_get(info.endpoints[0].ticket)
            for _ in range(5):
                reader.read_chunk()
                time.sleep(0.2)
            reader.cancel()

        self.loop("slow reader", attempt)

    def writes(self):
        table = pa.table({"k": pa.array([1, 2], pa.int64())})

        def attempt():
            with connect() as conn, conn.cursor() as cur:
                for sql in ["INSERT INTO events VALUES (9, 'x')",
                            "COPY (SELECT 1 AS x) TO 'copied.csv' STORED AS CSV",
                            "COPY (SELECT 1 AS x) TO 'cities.csv' STORED AS CSV"]:
                    try:
                        cur.execute(sql)
                        cur.fetch_arrow_table()
                        self.violation(f"a write was taken: {sql}")
                    except Exception as e:
                        if "read-only" not in str(e):
                            self.violation(f"{sql}: {e}")
                try:
                    cur.adbc_ingest("uploaded", table, mode="create")
                    self.violation("bulk ingestion was taken")
                except Exception:
                    pass

        self.loop("writes", attempt)

    def sql_info(self):
        client = flight.FlightClient(uri)
        ids = b"".join(varint(508) for _ in range(100_000))
        command = pack("CommandGetSqlInfo", field(1, ids))

        def attempt():
            info = client.get_flight_info(flight.FlightDescriptor.for_command(command))
            table = client.do_get(info.endpoints[0].ticket).read_all()
            if table.num_rows != 1:
                self.violation(f"GetSqlInfo answered {table.num_rows} rows")

        self.loop("sql info", attempt)

    def cancel(self):
        client = flight.FlightClient(uri)

        def attempt():
            info = client.get_flight_info(flight.FlightDescriptor.for_command(pack_query(ENDLESS)))
            reader = client.do_get(info.endpoints[0].ticket)
            reader.read_chunk()
            client.cancel_flight_info(flight.CancelFlightInfoRequest(info))
            try:
                while True:
                    reader.read_chunk()
            except (flight.FlightError, StopIteration):
                pass

        self.loop("cancelled query", attempt)


def parse_first_bytes_field(message, number):
    """The first length-delimited field `number` of a protobuf message."""
    at = 0
    while at < len(message):
        key, at = read_varint(message, at)
        kind = key & 7
        if kind == 2:
            length, at = read_varint(message, at)
            if key >> 3 == number:
                return message[at:at + length]
            at += length
        elif kind == 0:
            _, at = read_varint(message, at)
        else:
            raise ValueError(f"wire type {kind}")
    raise ValueError(f"no field {number}")


def read_varint(data, at):
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def main():
    answers, failures = {}, []
    done = threading.Event()
    hostile = Hostile(done)
    threads = []
    if mode == "hostile":
        for run in [hostile.malformed, hostile.oversized_parameters, hostile.bomb,
                    hostile.dropped, hostile.slow, hostile.writes, hostile.sql_info,
                    hostile.cancel]:
            thread = threading.Thread(target=run, daemon=True)
            thread.start()
            threads.append(thread)
        # Let every hostile client start before the well-behaved ones.
        time.sleep(1.0)
    clients = [threading.Thread(target=well_behaved, args=(i, answers, failures))
               for i in range(32)]
    for client in clients:
        client.start()
    for client in clients:
        client.join()
    done.set()
    for thread in threads:
        thread.join(timeout=60)
    with open(f"{out}/answers-{mode}.json", "w") as f:
        json.dump({"answers": answers, "failures": failures}, f, sort_keys=True)
    if mode == "hostile":
        with open(f"{out}/hostile.json", "w") as f:
            json.dump({"attempts": hostile.attempts, "violations": hostile.violations}, f)


main()
