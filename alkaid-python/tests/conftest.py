"""Shared inputs: pyarrow arrays of every type the libraries share."""

import datetime
import decimal

import pyarrow as pa
import pytest


def every_type() -> dict:
    """One pyarrow array per type, with nulls where the type has them."""
    ints = [1, None, -3, 4]
    words = ["a", None, "a longer string than twelve bytes", ""]
    raw = [b"x", None, b"a longer binary value than twelve", b""]
    nested = pa.array(
        [[{"xs": [1, 2]}, None], None, [{"xs": None}], []],
        pa.list_(pa.struct([("xs", pa.list_(pa.int16()))])),
    )
    arrays = {
        "null": pa.nulls(4),
        "bool": pa.array([True, None, False, True]),
        "int8": pa.array(ints, pa.int8()),
        "int16": pa.array(ints, pa.int16()),
        "int32": pa.array(ints, pa.int32()),
        "int64": pa.array(ints, pa.int64()),
        "uint8": pa.array([1, None, 3, 4], pa.uint8()),
        "uint16": pa.array([1, None, 3, 4], pa.uint16()),
        "uint32": pa.array([1, None, 3, 4], pa.uint32()),
        "uint64": pa.array([1, None, 2**63, 4], pa.uint64()),
        "float32": pa.array([1.5, None, -0.0, float("inf")], pa.float32()),
        "float64": pa.array([1.5, None, -2.25, 2.0], pa.float64()),
        "decimal128": pa.array([decimal.Decimal("1.25"), None, decimal.Decimal("-3.50"),
                                decimal.Decimal("0")], pa.decimal128(10, 2)),
        "decimal256": pa.array([decimal.Decimal("1.25"), None, decimal.Decimal("-3.50"),
                                decimal.Decimal("0")], pa.decimal256(40, 2)),
        "date32": pa.array([datetime.date(2026, 11, 25), None, datetime.date(1970, 1, 1),
                            datetime.date(1900, 3, 1)], pa.date32()),
        "date64": pa.array([0, None, 86_400_000, -86_400_000], pa.date64()),
        "time32": pa.array([1, None, 3, 4], pa.time32("ms")),
        "time64": pa.array([1, None, 3, 4], pa.time64("ns")),
        "timestamp": pa.array([1, None, 3, 4], pa.timestamp("us")),
        "timestamp_tz": pa.array([1, None, 3, 4], pa.timestamp("ns", tz="Europe/Paris")),
        "duration": pa.array([1, None, -3, 4], pa.duration("s")),
        "interval": pa.array([pa.MonthDayNano([1, 2, 3]), None, pa.MonthDayNano([0, 0, -1]),
                              pa.MonthDayNano([-1, 0, 0])], pa.month_day_nano_interval()),
        "utf8": pa.array(words, pa.string()),
        "large_utf8": pa.array(words, pa.large_string()),
        "utf8_view": pa.array(words, pa.string_view()),
        "binary": pa.array(raw, pa.binary()),
        "large_binary": pa.array(raw, pa.large_binary()),
        "binary_view": pa.array(raw, pa.binary_view()),
        "fixed_binary": pa.array([b"ab", None, b"cd", b"ef"], pa.binary(2)),
        "list": pa.array([[1], None, [], [2, None]], pa.list_(pa.int32())),
        "large_list": pa.array([[1], None, [], [2, None]], pa.large_list(pa.int32())),
        "list_view": pa.array([[1], None, [], [2, None]], pa.list_view(pa.int32())),
        "large_list_view": pa.array([[1], None, [], [2, None]], pa.large_list_view(pa.int32())),
        "fixed_list": pa.array([[1, 2], None, [3, None], [5, 6]], pa.list_(pa.int32(), 2)),
        "struct": pa.array([{"a": 1, "b": "x"}, None, {"a": None, "b": "y"}, {"a": 4, "b": None}],
                           pa.struct([("a", pa.int32()), ("b", pa.string())])),
        "map": pa.array([[("k", 1)], None, [], [("a", 2), ("b", None)]],
                        pa.map_(pa.string(), pa.int64())),
        "dictionary": pa.array(["x", None, "y", "x"]).dictionary_encode(),
        "run_end_encoded": pa.RunEndEncodedArray.from_arrays(
            pa.array([2, 3, 4], pa.int32()), pa.array([7, None, 9], pa.int64())),
        "sparse_union": pa.UnionArray.from_sparse(
            pa.array([0, 1, 0, 1], pa.int8()),
            [pa.array([1, 2, 3, 4]), pa.array(["a", "b", None, "d"])]),
        "dense_union": pa.UnionArray.from_dense(
            pa.array([0, 1, 0, 1], pa.int8()), pa.array([0, 0, 1, 1], pa.int32()),
            [pa.array([1, None]), pa.array(["a", "b"])]),
        "nested_three_deep": nested,
    }
    return arrays


EVERY_TYPE = every_type()


@pytest.fixture(params=sorted(EVERY_TYPE), ids=str)
def pa_array(request):
    return EVERY_TYPE[request.param]
