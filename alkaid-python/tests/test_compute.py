"""alkaid.compute against pyarrow.compute on the same inputs: arrays with nulls, sliced,
chunked, and scalars; errors naming the row."""

import datetime

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import alkaid
import alkaid.compute as ac

INTS = pa.array([5, None, -3, 7, 0, 2])
FLOATS = pa.array([1.5, None, -0.25, 8.0, 0.0, 2.0])
TEXT = pa.array(["Apple", None, "banana", "ÉCLAIR", "", "apple pie"])
BOOLS = pa.array([True, None, False, True, False, None])
OTHER_BOOLS = pa.array([None, None, True, True, False, False])
TIMES = pa.array([datetime.datetime(2024, 2, 29, 13, 45, 7, 123456), None,
                  datetime.datetime(1999, 12, 31, 23, 59, 59),
                  datetime.datetime(2021, 1, 3, 0, 0, 0, 1)], pa.timestamp("us"))


def same(ours, theirs):
    assert pa.array(ours).equals(theirs) if not isinstance(ours, alkaid.ChunkedArray) \
        else pa.chunked_array([pa.array(c) for c in ours.chunks]).combine_chunks().equals(
            theirs.combine_chunks()), (ours, theirs)


@pytest.mark.parametrize("name", ["equal", "not_equal", "less", "less_equal", "greater",
                                  "greater_equal", "add", "subtract", "multiply"])
def test_binary_kernels_answer_as_pyarrow(name):
    ours, theirs = getattr(ac, name), getattr(pc, name)
    for left, right in [(INTS, INTS[::-1]), (FLOATS, FLOATS[::-1]),
                        (INTS, 2), (3, INTS), (INTS[2:], INTS[:4])]:
        expected = theirs(left, right)
        got = ours(alkaid.array(left) if isinstance(left, pa.Array) else left,
                   alkaid.array(right) if isinstance(right, pa.Array) else right)
        same(got, expected)
    # Chunked in, chunked out.
    chunked = pa.chunked_array([INTS[:3], INTS[3:]])
    got = ours(alkaid.table(pa.table({"c": chunked})).column("c"), 2)
    assert isinstance(got, alkaid.ChunkedArray) and got.to_pylist() == theirs(chunked, 2).to_pylist()


def test_division_and_overflow_name_the_row():
    assert ac.divide(alkaid.array([7, 9]), 2).to_pylist() == pc.divide(pa.array([7, 9]), 2).to_pylist()
    with pytest.raises(ac.ComputeError, match="row 1"):
        ac.divide(alkaid.array([1, 2]), alkaid.array([1, 0]))
    with pytest.raises(alkaid.AlkaidError, match="row 1"):
        ac.add(alkaid.array([1, 2**63 - 1]), 1)
    assert ac.add_wrapping(alkaid.array([2**63 - 1]), 1).to_pylist() == [-2**63]


def test_logic_is_kleene_where_asked():
    for name in ["and_kleene", "or_kleene", "xor", "and_", "or_"]:
        same(getattr(ac, name)(alkaid.array(BOOLS), alkaid.array(OTHER_BOOLS)),
             getattr(pc, name)(BOOLS, OTHER_BOOLS))
    same(ac.invert(alkaid.array(BOOLS)), pc.invert(BOOLS))
    same(ac.is_null(alkaid.array(INTS)), pc.is_null(INTS))
    same(ac.is_valid(alkaid.array(INTS)), pc.is_valid(INTS))


def test_aggregates_answer_as_pyarrow():
    for values in (INTS, FLOATS, INTS[2:], pa.array([], pa.int64()), pa.array([None], pa.int64())):
        for name in ["sum", "mean", "min", "max", "count", "count_distinct"]:
            ours = getattr(ac, name)(alkaid.array(values)).as_py()
            theirs = getattr(pc, name)(values).as_py()
            assert ours == theirs, (name, values, ours, theirs)
    assert ac.min(alkaid.array(TEXT)).as_py() == pc.min(TEXT).as_py()


def test_text_kernels_answer_as_pyarrow():
    ours = alkaid.array(TEXT)
    same(ac.lower(ours), pc.utf8_lower(TEXT))
    same(ac.upper(ours), pc.utf8_upper(TEXT))
    same(ac.length(ours), pc.utf8_length(TEXT))
    same(ac.contains(ours, "pp"), pc.match_substring(TEXT, "pp"))
    same(ac.like(ours, "%pp%"), pc.match_like(TEXT, "%pp%"))
    same(ac.starts_with(ours, "ap"), pc.starts_with(TEXT, "ap"))
    same(ac.replace(ours, "p", "PP"), pc.replace_substring(TEXT, "p", "PP"))
    same(ac.replace_substring(ours[2:], "an", ""), pc.replace_substring(TEXT[2:], "an", ""))
    for most in (0, 1, 2):
        same(ac.replace(ours, "a", "_", max_replacements=most),
             pc.replace_substring(TEXT, "a", "_", max_replacements=most))
    # On purpose: an empty pattern changes nothing (PostgreSQL's replace); pyarrow
    # inserts the replacement between every byte.
    assert ac.replace(alkaid.array(["ab"]), "", "-").to_pylist() == ["ab"]


def test_selection_and_conversion_kernels_answer_as_pyarrow():
    ints = alkaid.array(INTS)
    assert ac.unique(ints).to_pylist() == pc.unique(INTS).to_pylist()
    assert ac.value_counts(alkaid.array(["a", "b", "a", None])).to_pylist() == \
        pc.value_counts(pa.array(["a", "b", "a", None])).to_pylist()
    for order in ("ascending", "descending"):
        for placement in ("at_end", "at_start"):
            assert ac.sort_indices(ints, order=order, null_placement=placement).to_pylist() == \
                pc.array_sort_indices(INTS, order=order, null_placement=placement).to_pylist()
    same(ac.cast(ints, "Float64"), pc.cast(INTS, pa.float64()))
    same(ac.cast(ints, pa.int8()), pc.cast(INTS, pa.int8()))
    with pytest.raises(ac.ComputeError, match="row 0"):
        ac.cast(alkaid.array([300]), "Int8")
    assert ac.cast(alkaid.array([300, 1]), "Int8", safe=False).to_pylist() == [None, 1]
    same(ac.fill_null(ints, 0), pc.fill_null(INTS, 0))
    same(ac.if_else(alkaid.array(BOOLS), ints, 0), pc.if_else(BOOLS, INTS, 0))
    same(ac.is_in(ints, [0, 7, None]), pc.is_in(INTS, pa.array([0, 7, None])))


def test_temporal_fields_answer_as_pyarrow():
    ours = alkaid.array(TIMES)
    for name in ["year", "quarter", "month", "day", "day_of_year", "hour", "minute", "second",
                 "day_of_week", "iso_week", "iso_year", "millisecond", "microsecond",
                 "nanosecond"]:
        assert getattr(ac, name)(ours).to_pylist() == getattr(pc, name)(TIMES).to_pylist(), name


def test_numbers_of_different_types_meet_as_pyarrows_do():
    # pyarrow casts both sides to a common type before a kernel; so does alkaid.compute.
    pairs = [(pa.array([1, None, -3], pa.int8()), pa.array([200, 7, None], pa.uint8())),
             (pa.array([1, 2, 3], pa.int64()), pa.array([0.5, None, 2.0], pa.float32())),
             (pa.array([2**40, 2, 3], pa.uint64()), pa.array([1, -2, None], pa.int32()))]
    for left, right in pairs:
        for name in ["add", "subtract", "multiply", "less", "equal"]:
            same(getattr(ac, name)(alkaid.array(left), alkaid.array(right)),
                 getattr(pc, name)(left, right))
        same(ac.if_else(alkaid.array([True, False, None]), alkaid.array(left),
                        alkaid.array(right)),
             pc.if_else(pa.array([True, False, None]), left, right))
    same(ac.add(alkaid.array([1.5, None]), 2), pc.add(pa.array([1.5, None]), 2))
    same(ac.fill_null(alkaid.array([1.5, None]), 0), pc.fill_null(pa.array([1.5, None]), 0))
    same(ac.fill_null(alkaid.array([1, None], type="Int8"), 5),
         pc.fill_null(pa.array([1, None], pa.int8()), 5))
    with pytest.raises(alkaid.ComputeError, match="1000"):
        ac.fill_null(alkaid.array([1, None], type="Int8"), 1000)
