"""Flight SQL commands packed by hand, as a client without Flight SQL's protobuf classes
(pyarrow's raw Flight client) sends them: each message in a `google.protobuf.Any`."""


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


def pack(message, payload):
    """The Flight SQL message `message` (its name) whose fields are `payload`, in an Any."""
    url = b"type.googleapis.com/arrow.flight.protocol.sql." + message.encode()
    return field(1, url) + field(2, payload)


def pack_query(sql):
    """CommandStatementQuery{query} in a google.protobuf.Any, as the driver packs it."""
    return pack("CommandStatementQuery", field(1, sql.encode()))
