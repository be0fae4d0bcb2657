"""The Flight SQL JDBC driver's calls, replayed with pyarrow's Flight client (no JVM in the
test run): what apache/arrow-java's flight-sql-jdbc-core does on connect, on
`DatabaseMetaData.getTables`/`getColumns` and its other `DatabaseMetaData` answers, and
on a prepared query, as read from its source at commit 16427331 (release 18.x):
`client/ArrowFlightSqlClientHandler.java` (`Builder.build`: cookie middleware always, a
handshake carrying the bearer token; `setSetCatalogInSessionIfPresent`: SetSessionOptions
{"catalog"} when the URL names one; `prepare`: the statement type from whether the result
schema has fields; `close`: CloseSession when a catalog was set) and
`ArrowDatabaseMetadata.java` (every `SqlInfo` fetched once and cast to the Java type of
its accessor; `getTables` as CommandGetTables without schemas, `getColumns` as
CommandGetTables with them, each schema read as an IPC message). Flight SQL's messages
come from flightsql-dbapi's generated module; Flight's session messages are packed here.

usage: jdbc_sequence.py URI TOKEN OUT
"""

import json
import sys

import pyarrow as pa
import pyarrow.flight as flight
import pyarrow.ipc as ipc
from flightsql import flightsql_pb2 as sql
from google.protobuf import any_pb2

uri, token, out = sys.argv[1:4]
facts = {}
calls = []


class Cookies(flight.ClientMiddlewareFactory):
    """The JDBC driver's ClientCookieMiddleware: keeps what set-cookie says, sends it back."""

    def __init__(self):
        self.jar = {}

    def start_call(self, info):
        calls.append(str(info.method).rsplit(".", 1)[-1])
        return CookieCall(self)


class CookieCall(flight.ClientMiddleware):
    def __init__(self, factory):
        self.factory = factory

    def sending_headers(self):
        if not self.factory.jar:
            return {}
        return {"cookie": "; ".join(f"{k}={v}" for k, v in self.factory.jar.items())}

    def received_headers(self, headers):
        for value in headers.get("set-cookie", []):
            name, _, rest = value.partition("=")
            self.factory.jar[name.strip()] = rest.split(";", 1)[0]


class BearerHandshake(flight.ClientAuthHandler):
    """A handshake with nothing in it: the token travels in the call's header."""

    def authenticate(self, outgoing, incoming):
        outgoing.write(b"")
        incoming.read()

    def get_token(self):
        return b""


def varint(n):
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def packed(message):
    holder = any_pb2.Any()
    holder.Pack(message)
    return holder.SerializeToString()


cookies = Cookies()
client = flight.FlightClient(uri, middleware=[cookies])
# Every call bounded, so that a server that never answers fails the test with the call
# named instead of hanging it.
bearer = flight.FlightCallOptions(
    headers=[(b"authorization", f"Bearer {token}".encode())], timeout=30
)

# Connect: a handshake carrying the token, then the URL's catalog as a session option.
print("handshake", flush=True)
client.authenticate(BearerHandshake(), options=bearer)
print("handshake answered", flush=True)
print("session", flush=True)
catalog = field(1, field(1, b"catalog") + field(2, field(1, b"alkaid")))
result = list(client.do_action(flight.Action("SetSessionOptions", catalog), bearer))
facts["set_catalog_errors"] = len(result[0].body.to_pybytes())  # an empty map: no errors
facts["cookie"] = sorted(cookies.jar)


def fetch(command):
    info = client.get_flight_info(flight.FlightDescriptor.for_command(packed(command)), bearer)
    return client.do_get(info.endpoints[0].ticket, bearer).read_all()


print("sql_info", flush=True)
# DatabaseMetaData: every SqlInfo at once, each read as the Java type its accessor casts to.
info = fetch(sql.CommandGetSqlInfo())
values = info.column("value")
members = {}
for chunk_ids, chunk_values in zip(info.column("info_name").chunks, values.chunks):
    for i in range(len(chunk_ids)):
        code = chunk_values.type_codes[i].as_py()
        members[chunk_ids[i].as_py()] = (chunk_values.type.field(code).name, chunk_values[i].as_py())
facts["sql_info_count"] = len(members)
accessors = {
    "getDatabaseProductName": (0, "string_value"),
    "getDatabaseProductVersion": (1, "string_value"),
    "getIdentifierQuoteString": (504, "string_value"),
    "isReadOnly": (3, "bool_value"),
    "getSQLKeywords": (508, "string_list"),
    "getNumericFunctions": (509, "string_list"),
    "getStringFunctions": (510, "string_list"),
    "getSystemFunctions": (511, "string_list"),
    "getTimeDateFunctions": (512, "string_list"),
    "getSearchStringEscape": (513, "string_value"),
    "getExtraNameCharacters": (514, "string_value"),
    "supportsConvert": (517, "int32_to_int32_list_map"),
    "supportsGroupBy": (522, "int32_bitmask"),
    "getMaxColumnNameLength": (543, "bigint_value"),
    "getDefaultTransactionIsolation": (562, "int32_bitmask"),
    "supportsTransactions": (563, "bool_value"),
}
facts["accessors"] = {
    name: members.get(code, ("missing", None))[0] == member
    for name, (code, member) in accessors.items()
}
facts["product"] = members[0][1]
facts["read_only"] = members[3][1]

print("tables", flush=True)
# getTables(null, null, "%", null): CommandGetTables without schemas.
tables = fetch(sql.CommandGetTables(table_name_filter_pattern="%", include_schema=False))
facts["tables"] = sorted(tables.column("table_name").to_pylist())
facts["tables_schema"] = tables.schema.names
# getColumns(null, null, "trips", null): CommandGetTables with schemas, each an IPC message.
columns = fetch(sql.CommandGetTables(table_name_filter_pattern="trips", include_schema=True))
schema = ipc.read_schema(pa.py_buffer(columns.column("table_schema")[0].as_py()))
facts["columns"] = [(f.name, str(f.type), f.nullable) for f in schema]

print("prepared", flush=True)
# A prepared query: create, bind a parameter (DoPut), GetFlightInfo, DoGet, close.
create = sql.ActionCreatePreparedStatementRequest(query="SELECT id FROM trips WHERE id > ? ORDER BY id")
answer = list(client.do_action(flight.Action("CreatePreparedStatement", packed(create)), bearer))
holder = any_pb2.Any()
holder.ParseFromString(answer[0].body.to_pybytes())
prepared = sql.ActionCreatePreparedStatementResult()
holder.Unpack(prepared)
dataset = ipc.read_schema(pa.py_buffer(prepared.dataset_schema))
parameters = ipc.read_schema(pa.py_buffer(prepared.parameter_schema))
facts["statement_type"] = "SELECT" if len(dataset) else "UPDATE"
facts["parameter_schema"] = [(f.name, str(f.type)) for f in parameters]
query = sql.CommandPreparedStatementQuery(prepared_statement_handle=prepared.prepared_statement_handle)
descriptor = flight.FlightDescriptor.for_command(packed(query))
bound = pa.record_batch([pa.array([4], pa.int64())], names=["$1"])
writer, reader = client.do_put(descriptor, bound.schema, bearer)
writer.write_batch(bound)
writer.done_writing()
reader.read()
writer.close()
info = client.get_flight_info(descriptor, bearer)
facts["prepared_rows"] = client.do_get(info.endpoints[0].ticket, bearer).read_all().column("id").to_pylist()
close = sql.ActionClosePreparedStatementRequest(prepared_statement_handle=prepared.prepared_statement_handle)
list(client.do_action(flight.Action("ClosePreparedStatement", packed(close)), bearer))

print("close", flush=True)
# Closing a connection that set a catalog closes its session.
closed = list(client.do_action(flight.Action("CloseSession", b""), bearer))
facts["close_session"] = closed[0].body.to_pybytes().hex()
facts["calls"] = calls

with open(f"{out}/facts.json", "w") as f:
    json.dump(facts, f, default=str)
print("ok")
