"""Parquet, CSV and JSON through alkaid, against pyarrow's readers and writers."""

from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

import alkaid


@pytest.fixture
def table():
    return pa.table(
        {
            "n": pa.array([1, None, 3, 4], type=pa.int64()),
            "s": pa.array(["a", "ünï ✓", None, "quote \" and, comma"]),
            "f": pa.array([0.5, -0.0, None, float("inf")]),
            "d": pa.array(["x", "y", "x", None]).dictionary_encode(),
            "l": pa.array([[1, 2], None, [], [3]], type=pa.list_(pa.int32())),
            "t": pa.array([1, 2, None, 4], type=pa.timestamp("us", tz="Europe/Paris")),
        }
    )


def test_parquet_that_pyarrow_writes_reads_as_pyarrow_reads_it(tmp_path, table):
    path = tmp_path / "t.parquet"
    pq.write_table(table, path, row_group_size=2)
    read = pa.table(alkaid.read_parquet(path))
    expected = pq.read_table(path)
    assert read.schema.equals(expected.schema)
    # As values: the two readers cut dictionaries and chunks differently.
    assert read.to_pydict() == expected.to_pydict()
    some = pa.table(alkaid.read_parquet(path, columns=["s", "n"], row_groups=[1], limit=1))
    assert some.column_names == ["n", "s"]  # the file's order
    assert some.to_pydict() == {"n": [3], "s": [None]}
    with pytest.raises(alkaid.AlkaidError, match="no column \"nope\""):
        alkaid.read_parquet(path, columns=["nope"])


CORPUS = Path(__file__).parents[2] / "alkaid-formats/tests/parquet-testing/data"


def test_parquet_key_value_metadata_and_int96_from_spark():
    path = CORPUS / "int96_from_spark.parquet"
    reader = alkaid.read_parquet(path)
    # The schema, with the footer's key-value metadata, reads; the values past the
    # nanosecond range are an error naming the column, row group and value.
    schema = pa.schema(reader.schema)
    assert schema.metadata[b"org.apache.spark.version"] == b"3.4.3"
    with pytest.raises(alkaid.AlkaidError, match="column \"a\", row group 0, value 2"):
        reader.read_next_batch()
    read = pa.table(alkaid.read_parquet(path, int96_as_microseconds=True))
    assert read.schema.metadata == pq.read_metadata(path).metadata
    micros = read.column("a").cast(pa.int64()).to_pylist()
    assert micros == [1704141296123456, 1704070800000000, 253402225200000000, 1735599600000000, None, 9089380393200000000]


def test_parquet_that_alkaid_writes_reads_in_pyarrow(tmp_path, table):
    path = tmp_path / "t.parquet"
    batch = alkaid.record_batch(table.to_batches()[0])
    alkaid.write_parquet(batch, path, compression="snappy", row_group_size=3, metadata=[("by", "alkaid")])
    read = pq.read_table(path)
    assert read.to_pydict() == table.to_pydict()
    assert read.schema.field("d").type == table.schema.field("d").type
    assert read.schema.field("t").type == table.schema.field("t").type
    assert pq.read_metadata(path).metadata[b"by"] == b"alkaid"
    assert pq.read_metadata(path).num_row_groups == 2
    with pytest.raises(alkaid.AlkaidError, match="unknown compression"):
        alkaid.write_parquet(batch, path, compression="lzo")


def test_csv_and_json_both_ways(tmp_path, table):
    flat = table.select(["n", "s", "f"])
    path = tmp_path / "t.csv"
    alkaid.write_csv(flat, path)
    nulls = pcsv.ConvertOptions(strings_can_be_null=True)
    assert pcsv.read_csv(path, convert_options=nulls).column("s").to_pylist() == flat.column("s").to_pylist()
    read = pa.table(alkaid.read_csv(path))
    assert read.column("n").to_pylist() == [1, None, 3, 4]
    assert read.column("s").to_pylist() == flat.column("s").to_pylist()
    semicolons = tmp_path / "semi.csv"
    semicolons.write_text("a;b\n1;NA\n2;x\n")
    read = pa.table(alkaid.read_csv(semicolons, delimiter=";", nulls=["NA"]))
    assert read.to_pydict() == {"a": [1, 2], "b": [None, "x"]}
    lines = tmp_path / "t.ndjson"
    alkaid.write_json(flat, lines)
    read = pa.table(alkaid.read_json(lines))
    assert read.column("n").to_pylist() == [1, None, 3, 4]
    with pytest.raises(alkaid.AlkaidError, match="not one ASCII character"):
        alkaid.read_csv(path, delimiter="ab")


def test_polars_and_duckdb_read_the_parquet_alkaid_writes(tmp_path, table):
    polars = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    flat = table.select(["n", "s", "f", "t"])
    path = tmp_path / "t.parquet"
    alkaid.write_parquet(alkaid.record_batch(flat.to_batches()[0]), path, row_group_size=2)
    frame = polars.read_parquet(path)
    assert frame.to_arrow().to_pydict() == flat.to_pydict()
    rows = duckdb.sql(f"SELECT n, s FROM read_parquet('{path}') ORDER BY n NULLS FIRST").fetchall()
    assert rows == [(None, "ünï ✓"), (1, "a"), (3, None), (4, 'quote " and, comma')]
