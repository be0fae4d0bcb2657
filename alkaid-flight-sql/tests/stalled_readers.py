"""Clients that start fetching a long result and then stop reading: N pyarrow Flight
clients each fetch the query's first batch, then hold their streams open, unread, until
standard input closes. Prints `stalled` once all N have their first batch.

usage: stalled_readers.py URI N SQL
"""

import sys

import pyarrow.flight as flight

from flight_sql_command import pack_query

uri, n, sql = sys.argv[1], int(sys.argv[2]), sys.argv[3]
readers = []
for _ in range(n):
    client = flight.FlightClient(uri)
    info = client.get_flight_info(flight.FlightDescriptor.for_command(pack_query(sql)))
    reader = client.do_get(info.endpoints[0].ticket)
    reader.read_chunk()
    readers.append((client, reader))
print("stalled", flush=True)
sys.stdin.read()
