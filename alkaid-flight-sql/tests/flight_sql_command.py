"""A Flight SQL command packed by hand, as a client without Flight SQL's protobuf classes
(pyarrow's raw Flight client) sends it: `CommandStatementQuery{query}` in a
`google.protobuf.Any`."""


def varint(n):
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def field(number, payload):
    """A length-delimited protobuf field."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def pack_query(sql):
    """CommandStatementQuery{query} in a google.protobuf.Any, as the driver packs it."""
    url = b"type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery"
    return field(1, url) + field(2, field(1, sql.encode()))
