"""Polars and DuckDB take Alkaid data and give theirs back, through the PyCapsule
interface alone."""

import duckdb
import polars as pl
import pyarrow as pa
import pytest

import alkaid


def alkaid_batch() -> alkaid.RecordBatch:
    source = pa.record_batch({
        "id": pa.array([1, 2, 3, 4], pa.int64()),
        "name": pa.array(["ann", None, "cy", "dee"]),
        "score": pa.array([1.5, 2.5, None, 4.0]),
        "tags": pa.array([["a"], [], None, ["b", "c"]], pa.list_(pa.string())),
        "point": pa.array([{"x": 1, "y": 2}, None, {"x": 3, "y": None}, {"x": 5, "y": 6}],
                          pa.struct([("x", pa.int32()), ("y", pa.int32())])),
        "day": pa.array([0, 1, None, 3], pa.date32()),
    })
    return alkaid.record_batch(source)


def test_polars_builds_a_dataframe_from_an_alkaid_batch_and_hands_it_back():
    batch = alkaid_batch()
    frame = pl.DataFrame(batch)
    assert frame.shape == (4, 6)
    assert frame["name"].to_list() == ["ann", None, "cy", "dee"]
    assert frame["tags"].to_list() == [["a"], [], None, ["b", "c"]]
    # Polars computes on it, then hands the result back as a stream.
    doubled = frame.with_columns((pl.col("id") * 2).alias("id"))
    back = alkaid.reader(doubled).read_all()
    table = pa.table(back)
    assert table.column("id").to_pylist() == [2, 4, 6, 8]
    assert table.column("point").to_pylist()[2] == {"x": 3, "y": None}
    # A Polars series is an array producer.
    series = alkaid.reader(pl.DataFrame({"v": ["x", None, "zz"]})).read_all().to_batches()[0].column(0)
    assert pa.array(series).to_pylist() == ["x", None, "zz"]


def test_polars_series_of_every_shared_type_round_trip(pa_array):
    try:
        series = pl.Series(pa_array)
    # A type Polars does not have (unions, REE, ...); Polars 2.1 panics (a
    # BaseException) on some it cannot convert from pyarrow, Decimal256 among them.
    except BaseException as e:
        pytest.skip(f"Polars has no {pa_array.type}: {type(e).__name__}")
    ours = alkaid.reader(pl.DataFrame({"c": series})).read_all()
    assert len(ours) == len(pa_array)
    back = pl.DataFrame(ours.to_batches()[0])
    assert back["c"].to_list() == series.to_list()


def test_duckdb_runs_sql_over_an_alkaid_stream_and_returns_one():
    batch = alkaid_batch()
    stream = alkaid.reader(pa.Table.from_batches([pa.record_batch(batch)] * 3))
    rows = duckdb.sql(
        "select name, count(*) as n, sum(id) as total from stream "
        "where name is not null group by name order by name"
    ).fetchall()
    assert rows == [("ann", 3, 3), ("cy", 3, 9), ("dee", 3, 12)]
    # DuckDB's result, as a stream Alkaid reads (the relation is the producer).
    result = duckdb.sql("select range as n, range::varchar as s from range(5)")
    back = alkaid.reader(result).read_all()
    assert pa.table(back).column("n").to_pylist() == [0, 1, 2, 3, 4]
    assert back.column("n").to_pylist() == [0, 1, 2, 3, 4]


def test_duckdb_reads_an_alkaid_batch_directly():
    batch = alkaid_batch()
    rows = duckdb.sql("select max(score), min(day) from batch").fetchall()
    assert rows[0][0] == 4.0
