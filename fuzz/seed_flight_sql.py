#!/usr/bin/env python3
"""Writes the `flight_sql` target's seeds into fuzz/seeds/flight_sql/: one input for each
call the target makes (its first byte: the call in bits 0-6, the writable service in bit
7), each carrying a well-formed Flight SQL command, so that fuzzing starts from requests
the server takes rather than from bytes it refuses at once. Needs pyarrow (the parameter
and ingestion batches); the seeds are committed, so this runs only when they change.

usage: python3 fuzz/seed_flight_sql.py
"""

import pathlib
import sys

import pyarrow as pa

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "alkaid-flight-sql" / "tests"))
from flight_sql_command import field, pack, pack_query, varint  # noqa: E402

GET_INFO, GET, ACTION, SCHEMA, PUT_RAW, PUT, POLL = range(7)
WRITABLE = 0x80


def flight_data(descriptor_cmd=None, header=b"", body=b""):
    """A FlightData message, gRPC-framed: descriptor (1), data_header (2), data_body (1000)."""
    message = b""
    if descriptor_cmd is not None:
        # FlightDescriptor { type: CMD (2), cmd }.
        message += field(1, varint(1 << 3 | 0) + varint(2) + field(2, descriptor_cmd))
    if header:
        message += field(2, header)
    if body:
        message += field(1000, body)
    return b"\x00" + len(message).to_bytes(4, "big") + message


def ipc_messages(table):
    """The IPC messages of `table`'s stream (schema, then batches): (metadata, body) each."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    reader = pa.ipc.MessageReader.open_stream(sink.getvalue())
    messages = []
    for message in reader:
        body = message.body.to_pybytes() if message.body is not None else b""
        messages.append((message.metadata.to_pybytes(), body))
    return messages


def upload(cmd, table):
    """A DoPut body: the command's descriptor with the schema, then the batches."""
    (schema, _), *batches = ipc_messages(table)
    body = flight_data(cmd, schema)
    for header, data in batches:
        body += flight_data(None, header, data)
    return body


def main():
    out = HERE / "seeds" / "flight_sql"
    out.mkdir(parents=True, exist_ok=True)
    parameters = pa.table({"$1": pa.array([1, 2, None], pa.int64())})
    rows = pa.table({"id": pa.array([7], pa.int64()), "kind": pa.array(["x"])})
    seeds = {
        "query": bytes([GET_INFO]) + pack_query("SELECT kind, count(*) FROM events GROUP BY kind"),
        "join": bytes([GET_INFO]) + pack_query(
            "SELECT e.id, c.city FROM events e JOIN cities c ON e.id = 1 ORDER BY 1"),
        "copy": bytes([GET_INFO | WRITABLE]) + pack_query(
            "COPY (SELECT * FROM events) TO 'copied.csv' STORED AS CSV"),
        "insert": bytes([GET_INFO | WRITABLE]) + pack_query("INSERT INTO events VALUES (3, 'x')"),
        "tables": bytes([GET_INFO]) + pack("CommandGetTables", field(3, b"%") + b"\x28\x01"),
        "sql_info": bytes([GET_INFO]) + pack("CommandGetSqlInfo", field(1, varint(0) + varint(508))),
        "catalogs": bytes([GET_INFO]) + pack("CommandGetCatalogs", b""),
        "schemas": bytes([GET_INFO]) + pack("CommandGetDbSchemas", b""),
        "types": bytes([GET_INFO]) + pack("CommandGetXdbcTypeInfo", b""),
        "keys": bytes([GET_INFO]) + pack("CommandGetPrimaryKeys", field(3, b"events")),
        "ticket": bytes([GET]) + pack("TicketStatementQuery", field(1, b"\x00" * 16)),
        "metadata_ticket": bytes([GET]) + pack("CommandGetTableTypes", b""),
        "prepare": bytes([ACTION, 0]) + pack(
            "ActionCreatePreparedStatementRequest", field(1, b"SELECT * FROM events WHERE id > $1")),
        "close": bytes([ACTION, 1]) + pack(
            "ActionClosePreparedStatementRequest", field(1, b"\x00" * 16)),
        "cancel": bytes([ACTION, 2]) + field(1, field(2, b"")),
        "schema": bytes([SCHEMA]) + pack_query("SELECT id FROM events"),
        "poll": bytes([POLL]) + pack_query("SELECT 1"),
        "update_raw": bytes([PUT_RAW | WRITABLE]) + flight_data(
            pack("CommandStatementUpdate", field(1, b"INSERT INTO events VALUES (4, 'y')"))),
        "ingest_raw": bytes([PUT_RAW | WRITABLE]) + upload(
            pack("CommandStatementIngest", field(2, b"uploaded")), rows),
        "bind_raw": bytes([PUT_RAW]) + upload(
            pack("CommandPreparedStatementQuery", field(1, b"\x00" * 16)), parameters),
    }
    # A Substrait plan of `SELECT * FROM events`, packed by hand (Plan.relations[3] ->
    # PlanRel.root[2] -> RelRoot{input[1]: Rel.read[1], names[2]}; ReadRel's base_schema[2]
    # and named_table[7]), sent as a statement and prepared.
    nullable = b"\x10\x01"  # nullability: NULLABLE
    types = field(1, field(7, nullable)) + field(1, field(12, nullable))  # i64, string
    schema = field(1, b"id") + field(1, b"kind") + field(2, types + b"\x18\x02")
    read = field(2, schema) + field(7, field(1, b"events"))
    root = field(1, field(1, read)) + field(2, b"id") + field(2, b"kind")
    plan = field(3, field(2, root))
    substrait = field(1, plan) + field(2, b"0.63")
    seeds["substrait"] = bytes([GET_INFO]) + pack("CommandStatementSubstraitPlan", field(1, substrait))
    seeds["substrait_prepare"] = bytes([ACTION, 6]) + pack(
        "ActionCreatePreparedSubstraitPlanRequest", field(1, substrait))
    # Session options (Flight's own messages, not in an Any): set a time zone, get, close.
    zone = field(1, b"datafusion.execution.time_zone") + field(2, field(1, b"+05:30"))
    seeds["session_set"] = bytes([ACTION, 7]) + field(1, zone)
    seeds["session_get"] = bytes([ACTION, 8])
    seeds["session_close"] = bytes([ACTION, 9])
    # PUT: the first byte after the call is the command's length, then the frames.
    bind = pack("CommandPreparedStatementQuery", field(1, b"\x00" * 16))
    (_, _), *batches = ipc_messages(parameters)
    frames = b"".join(flight_data(None, h, b) for h, b in batches)
    seeds["bind"] = bytes([PUT, len(bind) + 1]) + bind + frames
    update = pack("CommandPreparedStatementUpdate", field(1, b"\x00" * 16))
    seeds["prepared_update"] = bytes([PUT | WRITABLE, len(update) + 1]) + update + frames
    for name, seed in seeds.items():
        (out / name).write_bytes(seed)
    print(f"{len(seeds)} seeds in {out}")


main()
