"""The package on its own: run by CI in a virtualenv where pyarrow (and every other
Arrow library) is absent, so nothing here may import one. Making arrays from Python
values, reading them back, indexing, slicing, iterating, comparing and printing."""

import datetime
import decimal
import importlib.util
import os
import zoneinfo

import pytest

import alkaid


def test_no_arrow_library_is_installed_where_ci_says_so():
    if os.environ.get("ALKAID_REQUIRE_NO_PYARROW") == "1":
        for name in ("pyarrow", "polars", "nanoarrow", "duckdb", "arro3"):
            assert importlib.util.find_spec(name) is None, name
        # numpy and pandas are there, to meet them without pyarrow.
        for name in ("numpy", "pandas"):
            assert importlib.util.find_spec(name) is not None, name


PARIS = zoneinfo.ZoneInfo("Europe/Paris")

# (values, type asked or None, the type's text, the values read back when not the same)
ROUND_TRIPS = [
    ([1, None, -3], None, "Int64", None),
    ([1, 2**63], None, "UInt64", None),
    ([1, 2.5, None], None, "Float64", [1.0, 2.5, None]),
    ([True, None], None, "Boolean", None),
    (["a", None, "ü🦀"], None, "Utf8", None),
    ([b"x", bytearray(b"y"), None], None, "Binary", [b"x", b"y", None]),
    ([None, None], None, "Null", None),
    ([], None, "Null", None),
    ([datetime.date(2024, 2, 29), None], None, "Date32", None),
    ([datetime.time(1, 2, 3, 4)], None, "Time64(us)", None),
    ([datetime.datetime(2024, 1, 1, 12, 0, 0, 5)], None, "Timestamp(us)", None),
    ([datetime.datetime(2024, 3, 31, 3, 30, tzinfo=PARIS)], None,
     'Timestamp(us, "Europe/Paris")', None),
    ([datetime.timedelta(days=-1, microseconds=5)], None, "Duration(us)", None),
    ([decimal.Decimal("1.25"), decimal.Decimal("-100.5")], None, "Decimal128(5, 2)",
     [decimal.Decimal("1.25"), decimal.Decimal("-100.50")]),
    ([[1, 2], None, [], [None]], None, "List(item: Int64)", None),
    ([{"a": 1}, None, {"b": "x"}], None, "Struct(a: Int64, b: Utf8)",
     [{"a": 1, "b": None}, None, {"a": None, "b": "x"}]),
    ([1, None], "Int8", "Int8", None),
    ([1, None], "UInt32", "UInt32", None),
    ([0.5, None], "Float32", "Float32", None),
    (["a", None], "LargeUtf8", "LargeUtf8", None),
    (["a", "a string longer than twelve bytes"], "Utf8View", "Utf8View", None),
    ([b"ab", None], "FixedSizeBinary(2)", "FixedSizeBinary(2)", None),
    ([datetime.date(2000, 1, 1)], "Date64", "Date64", None),
    ([datetime.time(0, 0, 1)], "Time32(s)", "Time32(s)", None),
    ([0, 1_000], "Timestamp(ms)", "Timestamp(ms)",
     [datetime.datetime(1970, 1, 1), datetime.datetime(1970, 1, 1, 0, 0, 1)]),
    ([datetime.timedelta(seconds=3)], "Duration(ns)", "Duration(ns)", None),
    ([[1], None], "LargeList(item: Int16)", "LargeList(item: Int16)", None),
    ([[1, 2]], "FixedSizeList(2, item: Int32)", "FixedSizeList(2, item: Int32)", None),
    (["x", None, "x"], "Dictionary(Int32, Utf8)", "Dictionary(Int32, Utf8)", None),
    ([(1, -2), None], alkaid.DataType.day_time_interval(), "Interval(DayTime)", None),
    ([14, None, -1], alkaid.DataType.month_interval(), "Interval(YearMonth)", None),
    ([(1, 2, -3)], alkaid.DataType.month_day_nano_interval(), "Interval(MonthDayNano)", None),
    ([1, "a", None, 7], alkaid.DataType.dense_union([("i", "Int64"), ("s", "Utf8")]),
     "Union(Dense, 0 => i: Int64, 1 => s: Utf8)", None),
]


@pytest.mark.parametrize("values, asked, shown, back", ROUND_TRIPS)
def test_values_round_trip(values, asked, shown, back):
    array = alkaid.array(values, type=asked)
    assert str(array.type) == shown
    assert array.to_pylist() == (values if back is None else back)
    assert len(array) == len(values)
    assert [scalar.as_py() for scalar in array] == array.to_pylist()


def test_an_aware_timestamp_reads_back_in_its_zone():
    value = datetime.datetime(2024, 10, 27, 2, 30, fold=1, tzinfo=PARIS)
    back = alkaid.array([value]).to_pylist()[0]
    assert back == value and back.utcoffset() == value.utcoffset()
    assert back.tzinfo == PARIS


def test_indexing_slicing_iteration_and_equality():
    array = alkaid.array(list(range(10)))
    assert array[3].as_py() == 3 and array[-1].as_py() == 9
    assert array[3].is_valid and not alkaid.array([None])[0].is_valid
    assert array[2:4].to_pylist() == [2, 3]
    assert array[::-3].to_pylist() == [9, 6, 3, 0]
    assert array == alkaid.array(list(range(10)))
    assert array != alkaid.array(list(range(9)))
    with pytest.raises(IndexError, match="index 10 is outside"):
        array[10]
    assert repr(array[0]) == "<alkaid.Scalar Int64: 0>"


def test_printing_shows_values_shortened():
    text = str(alkaid.array(list(range(12))))
    assert "| 9     |" in text and text.endswith("... 2 more rows")
    assert repr(alkaid.array([1, None])).startswith("alkaid.Array Int64, 2 values, 1 null")


def test_bad_values_are_errors_naming_the_row():
    with pytest.raises(alkaid.AlkaidError, match="row 2: x \\(str\\) does not share"):
        alkaid.array([1, 2, "x"])
    with pytest.raises(alkaid.AlkaidError, match="row 0: Int64 1000 is out of the range"):
        alkaid.array([1000], type="Int8")
    with pytest.raises(alkaid.AlkaidError, match="not a str"):
        alkaid.array("abc")
    with pytest.raises(alkaid.AlkaidError, match="row 0: 1 \\(int\\): .* not an instance of 'tuple'"):
        alkaid.array([1], type="Interval(DayTime)")
    with pytest.raises(alkaid.AlkaidError,
                       match="row 1: 2.5 fits none of the members of Union\\(Sparse"):
        alkaid.array([1, 2.5], type=alkaid.DataType.sparse_union([("i", "Int64"), ("s", "Utf8")]))
    with pytest.raises(alkaid.AlkaidError, match="row 0: 3 is not a dict or a list of pairs"):
        alkaid.array([3], type=alkaid.DataType.map_("Utf8", "Int64"))
    maps = alkaid.array([{"a": 1}, None, [("b", 2)]], type=alkaid.DataType.map_("Utf8", "Int64"))
    assert maps.to_pylist() == [[("a", 1)], None, [("b", 2)]]
    intervals = alkaid.array([(1, 2, 3)], type=alkaid.DataType.month_day_nano_interval())
    assert intervals.to_pylist() == [(1, 2, 3)]


def test_buffer_protocol_objects_without_pyarrow():
    import array
    assert alkaid.array(array.array("h", [1, -2])).to_pylist() == [1, -2]
    assert str(alkaid.array(array.array("h", [1])).type) == "Int16"
    assert alkaid.array(b"\x00\x07").to_pylist() == [0, 7]
    assert alkaid.array(memoryview(array.array("d", [0.5, 1.5, 2.5]))[::2]).to_pylist() == [0.5, 2.5]


def test_to_numpy_without_numpy_says_so():
    if importlib.util.find_spec("numpy") is not None:
        pytest.skip("numpy is installed here")
    with pytest.raises(ImportError, match="needs numpy"):
        alkaid.array([1, 2]).to_numpy()


def test_tables_without_pyarrow():
    table = alkaid.table({"id": [3, 1, 2], "name": ["c", "a", None]})
    assert table.num_rows == 3 and table.column_names == ["id", "name"]
    assert table.to_pydict() == {"id": [3, 1, 2], "name": ["c", "a", None]}
    assert table.sort_by("id").column("name").to_pylist() == ["a", None, "c"]
    assert table.filter([True, False, True]).to_pylist() == [
        {"id": 3, "name": "c"}, {"id": 2, "name": None}]
    assert table.take([2]).to_pylist() == [{"id": 2, "name": None}]
    both = alkaid.Table.from_batches(table.to_batches() + table.to_batches())
    assert both.num_rows == 6 and both.column("id").num_chunks == 2
    assert both.slice(2, 2).column("id").to_pylist() == [2, 3]
    assert both.to_reader().read_all() == both
    assert alkaid.table(both) == both
    assert "| id | name |" in repr(table)
    # A column crosses as a stream of its chunks, chunk for chunk.
    column = both.column("name")
    streamed = alkaid.ChunkedArray.from_arrow(column)
    assert streamed == column and streamed.num_chunks == 2
    assert alkaid.table({"n": column}).column("n").num_chunks == 2


def test_compute_without_pyarrow():
    import alkaid.compute as ac
    values = alkaid.array([3, None, 1, 2])
    assert ac.add(values, 1).to_pylist() == [4, None, 2, 3]
    assert ac.greater(values, 1).to_pylist() == [True, None, False, True]
    assert ac.sum(values).as_py() == 6 and ac.mean(values).as_py() == 2.0
    assert ac.count(values).as_py() == 3 and ac.min(values).as_py() == 1
    assert ac.sort_indices(values).to_pylist() == [2, 3, 0, 1]
    assert ac.fill_null(values, 0).to_pylist() == [3, 0, 1, 2]
    assert ac.is_in(values, [1, 3]).to_pylist() == [True, False, True, False]
    assert ac.upper(alkaid.array(["a", None])).to_pylist() == ["A", None]
    assert ac.and_kleene(alkaid.array([False, None]), alkaid.array([None, None])).to_pylist() \
        == [False, None]
    assert ac.add(2, 3).as_py() == 5
    with pytest.raises(ac.ComputeError, match="row 1"):
        ac.divide(alkaid.array([1, 1]), alkaid.array([1, 0]))
    assert issubclass(ac.ComputeError, alkaid.AlkaidError)


def test_numpy_and_pandas_without_pyarrow():
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    values = np.arange(6, dtype="int32")
    array = alkaid.array(values)
    assert array.buffer_addresses() == [values.ctypes.data]
    assert array.to_numpy().ctypes.data == values.ctypes.data
    masked = alkaid.array(np.ma.masked_array([1.5, 2.5], mask=[True, False]))
    assert masked.to_pylist() == [None, 2.5]
    frame = pd.DataFrame({"i": [1, 2, 3], "f": [0.5, float("nan"), 2.0],
                          "s": ["a", None, "c"]})
    table = alkaid.Table.from_pandas(frame)
    assert table.to_pydict() == {"i": [1, 2, 3], "f": [0.5, None, 2.0], "s": ["a", None, "c"]}
    back = table.to_pandas()
    assert back["i"].tolist() == [1, 2, 3] and back["s"].tolist()[0] == "a"
    assert back["f"].isna().tolist() == [False, True, False]
    zoned = alkaid.array([datetime.datetime(2024, 1, 1, 12, tzinfo=PARIS)]).to_pandas()
    assert str(zoned.dt.tz) == "Europe/Paris" and zoned[0].hour == 12


def test_variant_columns_read_as_the_values_they_hold():
    # The Parquet project's shredded Variant files, pinned with alkaid-formats' tests.
    corpus = os.path.join(os.path.dirname(__file__), "..", "..", "alkaid-formats", "tests",
                          "parquet-testing", "shredded_variant")
    read = lambda case: alkaid.read_parquet(os.path.join(corpus, case)).read_all()
    # An object shredded in part: a null, a string, a date.
    assert read("case-134.parquet").column("var").to_pylist() == [
        {"a": None, "b": "iceberg", "d": datetime.date(2024, 1, 30)}]
    # An array of strings shredded per element.
    assert read("case-001.parquet").column("var").to_pylist() == [["comedy", "drama"]]
    # Rows null, objects nested in objects, numbers of several types.
    rows = read("case-083.parquet").to_pylist()
    assert [row["var"] for row in rows] == [
        None,
        {"c": {"b": "iceberg"}},
        {"c": 8, "d": -0.0},
        {"c": {"a": 34, "b": ""}, "d": 0.0},
    ]
    # Every primitive case reads to a Python value of its kind, but for nanoseconds
    # below a microsecond, which Python's datetime cannot hold (an error, as for a
    # column of Arrow timestamps).
    kinds = set()
    for n in range(4, 38):
        try:
            kinds.add(type(read(f"case-{n:03}.parquet").column("var").to_pylist()[0]).__name__)
        except alkaid.AlkaidError as e:
            assert str(e).startswith("row 0: ") and ":33:54.123456789" in str(e), e
            assert "does not fit Python's datetime" in str(e)
            kinds.add("nanoseconds")
    assert kinds == {"bool", "int", "float", "Decimal", "date", "datetime", "time", "str",
                     "bytes", "UUID", "nanoseconds"}, kinds
