"""Clients of alkaid-flight-sql that no one here wrote: ADBC's Flight SQL driver (its
DB-API) and pyarrow's Flight client for the raw protocol. Started by the Rust tests with
the server's address and credentials; each check's result goes to OUT (query results as
Arrow IPC files, the rest as JSON) for the Rust side to compare with DataFusion's own
answers, or fails here with a message.

usage: adbc_client.py URI USER PASSWORD OUT
"""

import json
import sys
import threading

import adbc_driver_flightsql.dbapi as flight_sql
import adbc_driver_manager
import pyarrow as pa
import pyarrow.flight as flight
import pyarrow.ipc as ipc

from flight_sql_command import pack_query

uri, user, password, out = sys.argv[1:5]
facts = {}


def connect():
    return flight_sql.connect(
        uri, db_kwargs={"username": user, "password": password}, autocommit=True
    )


def save(name, table):
    with ipc.new_file(f"{out}/{name}.arrow", table.schema) as writer:
        writer.write_table(table)


with connect() as conn:
    with conn.cursor() as cur:
        # Statements, every table format.
        for name, query in [
            ("every_type", "SELECT * FROM every_type ORDER BY i64"),
            ("parquet", "SELECT * FROM trips ORDER BY id"),
            ("csv", "SELECT * FROM cities ORDER BY city"),
            ("dir", "SELECT * FROM events ORDER BY id"),
            ("join", "SELECT t.id, c.city FROM trips t JOIN cities c ON t.city = c.city ORDER BY t.id"),
            ("empty", "SELECT * FROM trips WHERE id < 0"),
        ]:
            cur.execute(query)
            save(name, cur.fetch_arrow_table())

        # Parameters (a prepared statement bound through DoPut).
        cur.execute("SELECT id, fare FROM trips WHERE id > $1 ORDER BY id", parameters=(3,))
        save("parameters", cur.fetch_arrow_table())
        cur.execute("SELECT id FROM trips WHERE city = $1 ORDER BY id", parameters=("Oslo",))
        save("text_parameter", cur.fetch_arrow_table())
        # JDBC's, ODBC's and SQLAlchemy's `?`, numbered in order; a `?` in a string stays.
        cur.execute("SELECT id, fare FROM trips WHERE id > ? AND city <> '?' ORDER BY id", parameters=(3,))
        save("qmark_parameters", cur.fetch_arrow_table())
        cur.execute("SELECT id FROM trips WHERE city = ? AND id >= ? ORDER BY id", parameters=("Oslo", 0))
        save("qmark_two_parameters", cur.fetch_arrow_table())

        # Bulk ingestion: create, append, a second create refused, replace.
        table = pa.table({"k": pa.array([1, 2, 3], pa.int64()), "v": ["a", None, "c"]})
        facts["ingest_create"] = cur.adbc_ingest("ingested", table, mode="create")
        facts["ingest_append"] = cur.adbc_ingest("ingested", table, mode="append")
        try:
            cur.adbc_ingest("ingested", table, mode="create")
            facts["ingest_create_again"] = "accepted"
        except adbc_driver_manager.Error as e:
            facts["ingest_create_again"] = str(e)
        cur.execute("SELECT count(*) AS n, count(v) AS v FROM ingested")
        facts["ingested_counts"] = cur.fetch_arrow_table().to_pylist()
        facts["ingest_replace"] = cur.adbc_ingest("replaced", table, mode="replace")
        facts["ingest_replace_again"] = cur.adbc_ingest("replaced", table.slice(0, 1), mode="replace")
        cur.execute("SELECT count(*) AS n FROM replaced")
        facts["replaced_count"] = cur.fetch_arrow_table().to_pylist()

        # Errors are errors, and the connection goes on.
        try:
            cur.execute("SELECT * FROM no_such_table")
            facts["missing_table"] = "accepted"
        except adbc_driver_manager.Error as e:
            facts["missing_table"] = str(e)
        try:
            cur.execute("CREATE EXTERNAL TABLE x STORED AS CSV LOCATION '/etc/passwd'")
            facts["ddl"] = "accepted"
        except adbc_driver_manager.Error as e:
            facts["ddl"] = str(e)
        cur.execute("SELECT 1 AS one")
        facts["after_errors"] = cur.fetch_arrow_table().to_pylist()

    # Metadata.
    objects = conn.adbc_get_objects(depth="all").read_all().to_pylist()
    facts["catalogs"] = [c["catalog_name"] for c in objects]
    schemas = [s for c in objects for s in c["catalog_db_schemas"]]
    facts["schemas"] = [s["db_schema_name"] for s in schemas]
    facts["tables"] = sorted(t["table_name"] for s in schemas for t in s["db_schema_tables"])
    facts["trips_columns"] = [
        col["column_name"]
        for s in schemas
        for t in s["db_schema_tables"]
        if t["table_name"] == "trips"
        for col in t["table_columns"]
    ]
    facts["trips_schema"] = str(conn.adbc_get_table_schema("trips"))
    facts["table_types"] = conn.adbc_get_table_types()
    info = conn.adbc_get_info()
    facts["vendor_name"] = info.get("vendor_name")
    facts["vendor_version"] = info.get("vendor_version")

# Many clients at once, mixed queries: 32 connections, each running several.
errors = []
MIXED = [
    "SELECT count(*) AS n FROM trips WHERE id > {i}",
    "SELECT c.country, sum(t.fare) AS fares FROM trips t JOIN cities c ON t.city = c.city GROUP BY c.country",
    "SELECT * FROM every_type ORDER BY i64",
    "SELECT kind, count(*) AS n FROM events GROUP BY kind",
    "SELECT value FROM generate_series(1, 200000) WHERE value % 1000 = {i}",
]


def client(i):
    try:
        with connect() as conn, conn.cursor() as cur:
            for j in range(4):
                cur.execute(MIXED[(i + j) % len(MIXED)].format(i=i % 5))
                cur.fetch_arrow_table()
            cur.execute("SELECT id FROM trips WHERE id > $1 ORDER BY id", parameters=(i % 6,))
            got = [r["id"] for r in cur.fetch_arrow_table().to_pylist()]
            if got != list(range(i % 6 + 1, 7)):
                errors.append(f"client {i}: {got}")
    except Exception as e:  # noqa: BLE001 - reported below
        errors.append(repr(e))


threads = [threading.Thread(target=client, args=(i,)) for i in range(32)]
for t in threads:
    t.start()
for t in threads:
    t.join(120)
facts["concurrent_errors"] = errors

# A client that goes away in the middle of a long result.


raw = flight.FlightClient(uri)
token = raw.authenticate_basic_token(user, password)
options = flight.FlightCallOptions(headers=[token])
long_query = flight.FlightDescriptor.for_command(
    pack_query("SELECT value FROM generate_series(1, 100000000)")
)
info = raw.get_flight_info(long_query, options)
reader = raw.do_get(info.endpoints[0].ticket, options)
reader.read_chunk()
reader.cancel()
with connect() as conn, conn.cursor() as cur:
    cur.execute("SELECT count(*) AS n FROM trips")
    facts["after_disconnect"] = cur.fetch_arrow_table().to_pylist()

# Without credentials: Unauthenticated, no data.
try:
    with flight_sql.connect(uri, autocommit=True) as conn, conn.cursor() as cur:
        cur.execute("SELECT * FROM trips")
        cur.fetch_arrow_table()
    facts["anonymous"] = "served"
except adbc_driver_manager.Error as e:
    facts["anonymous"] = str(e)

# The raw protocol through pyarrow's Flight client: a malformed command and ticket.
try:
    raw.get_flight_info(flight.FlightDescriptor.for_command(b"\x01\x02garbage"), options)
    facts["malformed_command"] = "accepted"
except (flight.FlightError, pa.ArrowException) as e:
    facts["malformed_command"] = f"{type(e).__name__}: {e}"
try:
    raw.do_get(flight.Ticket(b"\xff" * 7), options).read_all()
    facts["malformed_ticket"] = "accepted"
except (flight.FlightError, pa.ArrowException) as e:
    facts["malformed_ticket"] = f"{type(e).__name__}: {e}"

with open(f"{out}/facts.json", "w") as f:
    json.dump(facts, f, default=str)
print("ok")
