"""flightsql-dbapi (from PyPI: a DB-API over pyarrow's Flight client, and a SQLAlchemy 1.4
dialect) against alkaid-flight-sql, as pandas and SQLAlchemy users reach a Flight SQL
server: the DB-API with `?` parameters, `pandas.read_sql` over it, and SQLAlchemy's
reflection (tables, schemas, columns, a table loaded by name) and its own SQL with bound
parameters. Started by the Rust test with the server's address and token; the facts go
to OUT/facts.json.

usage: flightsql_dbapi_client.py HOST PORT TOKEN OUT
"""

import json
import sys
import warnings

import pandas as pd
from flightsql import FlightSQLClient, connect
from sqlalchemy import MetaData, Table, create_engine, inspect, select, text

host, port, token, out = sys.argv[1:5]
facts = {}

client = FlightSQLClient(host=host, port=int(port), token=token, insecure=True)
conn = connect(client)
cur = conn.cursor()
cur.execute("SELECT id, city FROM trips WHERE id > ? AND city <> ? ORDER BY id", [2, "Lima"])
facts["dbapi_rows"] = cur.fetchall()
facts["dbapi_description"] = [d[0] for d in cur.description]
with warnings.catch_warnings():
    # pandas names SQLAlchemy 2 and sqlite3 as what it tests; any DB-API works.
    warnings.simplefilter("ignore", UserWarning)
    frame = pd.read_sql("SELECT id, fare FROM trips WHERE city = ? ORDER BY id", conn, params=["Oslo"])
facts["pandas"] = {"columns": list(frame.columns), "ids": [int(i) for i in frame["id"]],
                   "fares": frame["fare"].tolist()}

url = f"datafusion://{host}:{port}?insecure=true&token={token}&feature-sqlalchemy-prepared-statements=on"
engine = create_engine(url)
inspector = inspect(engine)
facts["tables"] = sorted(inspector.get_table_names())
facts["schemas"] = inspector.get_schema_names()
facts["columns"] = [(c["name"], str(c["type"])) for c in inspector.get_columns("trips")]
facts["has_table"] = [inspector.has_table("trips"), inspector.has_table("nope")]
trips = Table("trips", MetaData(), autoload_with=engine)
with engine.connect() as connection:
    bound = connection.execute(
        text("SELECT id FROM trips WHERE fare >= :low AND city = :city ORDER BY id"),
        {"low": 9.0, "city": "Oslo"},
    )
    facts["text_bound"] = [row[0] for row in bound]
    query = select(trips.c.id, trips.c.city).where(trips.c.fare < 10).order_by(trips.c.id)
    facts["core_select"] = [tuple(row) for row in connection.execute(query)]

with open(f"{out}/facts.json", "w") as f:
    json.dump(facts, f, default=str)
print("ok")
