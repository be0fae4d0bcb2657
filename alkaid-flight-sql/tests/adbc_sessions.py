"""What ADBC's Flight SQL driver (from PyPI) asks of a server beyond statements:
current catalog and schema (get and set, through session options), DataFusion settings
as session options, with and without the driver's cookie middleware, `adbc_get_info`,
`adbc_get_objects` at every depth, and `adbc_execute_schema`. Started by the Rust test
with the server's address; the facts go to OUT/facts.json for it to check.

usage: adbc_sessions.py URI OUT
"""

import json
import sys

import adbc_driver_flightsql.dbapi as flight_sql
import adbc_driver_manager

uri, out = sys.argv[1:3]
facts = {}
ZONE = "adbc.flight.sql.session.option.datafusion.execution.time_zone"
TYPED = "SELECT arrow_typeof(now()) AS t"


def one(cur, sql):
    cur.execute(sql)
    return cur.fetch_arrow_table().to_pylist()[0]


def connect(cookies):
    kwargs = {"adbc.flight.sql.rpc.with_cookie_middleware": "true"} if cookies else {}
    return flight_sql.connect(uri, db_kwargs=kwargs, autocommit=True)


for cookies in [False, True]:
    key = "cookies" if cookies else "connection"
    with connect(cookies) as conn, connect(cookies) as other:
        facts[f"{key}_catalog"] = conn.adbc_current_catalog
        facts[f"{key}_schema"] = conn.adbc_current_db_schema
        conn.adbc_current_catalog = "alkaid"
        conn.adbc_current_db_schema = "public"
        try:
            conn.adbc_current_db_schema = "elsewhere"
            facts[f"{key}_other_schema"] = "accepted"
        except adbc_driver_manager.Error as e:
            facts[f"{key}_other_schema"] = str(e)
        conn.adbc_connection.set_options(**{ZONE: "+05:30"})
        facts[f"{key}_zone"] = conn.adbc_connection.get_option(ZONE)
        with conn.cursor() as cur, other.cursor() as other_cur:
            facts[f"{key}_typed"] = one(cur, TYPED)["t"]
            facts[f"{key}_other_typed"] = one(other_cur, TYPED)["t"]
            # Prepared statements (how the driver binds parameters) run in the session.
            cur.execute("SELECT arrow_typeof(now()) AS t, $1 AS p", parameters=(1,))
            facts[f"{key}_prepared_typed"] = cur.fetch_arrow_table().to_pylist()[0]["t"]
        try:
            conn.adbc_connection.set_options(
                **{"adbc.flight.sql.session.option.datafusion.runtime.temp_directory": "/"}
            )
            facts[f"{key}_forbidden"] = "accepted"
        except adbc_driver_manager.Error as e:
            facts[f"{key}_forbidden"] = str(e)

with connect(False) as conn:
    info = conn.adbc_get_info()
    # The driver asks for the facts ADBC names (its answer keeps those it knows).
    facts["info"] = {k: info.get(k) for k in ["vendor_name", "vendor_version", "vendor_arrow_version"]}
    depths = {}
    for depth in ["catalogs", "db_schemas", "tables", "columns", "all"]:
        objects = conn.adbc_get_objects(depth=depth).read_all().to_pylist()
        catalog = objects[0]
        schemas = catalog["catalog_db_schemas"] or []
        tables = [t for s in schemas for t in (s["db_schema_tables"] or [])]
        columns = [c["column_name"] for t in tables for c in (t["table_columns"] or [])]
        depths[depth] = {
            "catalogs": [c["catalog_name"] for c in objects],
            "schemas": [s["db_schema_name"] for s in schemas],
            "tables": sorted(t["table_name"] for t in tables),
            "columns": len(columns),
        }
    facts["depths"] = depths
    filtered = conn.adbc_get_objects(depth="columns", table_name_filter="tr%", column_name_filter="f%")
    filtered = filtered.read_all().to_pylist()
    facts["filtered"] = [
        (t["table_name"], [c["column_name"] for c in t["table_columns"]])
        for s in filtered[0]["catalog_db_schemas"]
        for t in s["db_schema_tables"]
    ]
    with conn.cursor() as cur:
        # An integer bound where the plan compares a float: cast to the plan's type.
        cur.execute("SELECT id FROM trips WHERE fare < ? ORDER BY id", parameters=(10,))
        facts["int_for_float"] = [r["id"] for r in cur.fetch_arrow_table().to_pylist()]
        schema = cur.adbc_execute_schema("SELECT id, fare FROM trips WHERE id > 2")
        facts["execute_schema"] = [(f.name, str(f.type)) for f in schema]

# A Substrait plan (made by DataFusion's producer, when the server takes them): ADBC's
# DB-API sends bytes given to execute as a Substrait plan.
try:
    with open(f"{out}/plan.substrait", "rb") as f:
        plan = f.read()
except FileNotFoundError:
    plan = None
if plan is not None:
    with connect(False) as conn, conn.cursor() as cur:
        cur.execute(plan)
        facts["substrait"] = [r["id"] for r in cur.fetch_arrow_table().to_pylist()]

with open(f"{out}/facts.json", "w") as f:
    json.dump(facts, f, default=str)
print("ok")
