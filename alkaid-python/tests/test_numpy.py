"""numpy arrays both ways: without a copy where promised (checked by address), masked
arrays and NaT as nulls, copies otherwise, against pyarrow's conversions."""

import datetime

import numpy as np
import pyarrow as pa
import pytest

import alkaid

ZERO_COPY_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                    "uint64", "float16", "float32", "float64", "datetime64[s]",
                    "datetime64[ms]", "datetime64[us]", "datetime64[ns]", "timedelta64[ms]",
                    "timedelta64[ns]"]


@pytest.mark.parametrize("dtype", ZERO_COPY_DTYPES)
def test_numbers_and_times_cross_without_a_copy_both_ways(dtype):
    values = np.arange(-3, 5).astype(dtype) if not dtype.startswith("uint") \
        else np.arange(8).astype(dtype)
    ours = alkaid.array(values)
    assert ours.buffer_addresses() == [values.ctypes.data], "not zero-copy"
    theirs = pa.array(values)
    assert pa.array(ours).equals(theirs)
    back = ours.to_numpy()
    assert back.ctypes.data == values.ctypes.data and not back.flags.writeable
    assert np.array_equal(back, values) and back.dtype == values.dtype
    # A slice at a non-zero offset is a view too.
    part = ours[2:6].to_numpy()
    assert part.ctypes.data == values[2:].ctypes.data and np.array_equal(part, values[2:6])
    assert np.array_equal(np.asarray(ours), values)
    assert np.asarray(ours).ctypes.data == values.ctypes.data
    copied = np.array(ours, copy=True)
    assert copied.ctypes.data != values.ctypes.data and np.array_equal(copied, values)


def test_the_view_keeps_the_memory_alive():
    values = np.arange(1_000, dtype="int64")
    view = alkaid.array(values).to_numpy()
    del values
    assert view.sum() == 499_500


def test_masked_arrays_and_nat_are_nulls():
    masked = np.ma.masked_array([1, 2, 3], mask=[False, True, False])
    ours = alkaid.array(masked)
    assert ours.to_pylist() == [1, None, 3]
    assert ours.to_pylist() == pa.array(masked).to_pylist()
    times = np.array(["2024-01-01", "NaT"], dtype="datetime64[s]")
    ours = alkaid.array(times)
    assert ours.to_pylist() == [datetime.datetime(2024, 1, 1), None]
    assert pa.array(ours).equals(pa.array(times))


def test_other_dtypes_go_through_their_values():
    for values in (np.array(["a", "bc"]), np.array([b"x", b"yz"]),
                   np.array(["a", None], dtype=object),
                   np.array([True, False, True]),
                   np.array(["2024-01-02"], dtype="datetime64[D]")):
        ours = alkaid.array(values)
        assert ours.to_pylist() == pa.array(values).to_pylist(), values
    with pytest.raises(alkaid.AlkaidError, match="2 dimensions"):
        alkaid.array(np.zeros((2, 2)))
    # Not contiguous, or not in native byte order: copied, then taken.
    strided = np.arange(10, dtype="int32")[::2]
    assert alkaid.array(strided).to_pylist() == strided.tolist()
    swapped = np.arange(4, dtype=">i4")
    assert alkaid.array(swapped).to_pylist() == [0, 1, 2, 3]


def test_a_type_asked_for_a_numpy_array_is_a_cast():
    assert str(alkaid.array(np.arange(3, dtype="int64"), type="Float32").type) == "Float32"


def test_copies_follow_pyarrows_rules():
    cases = [
        pa.array([1, None, 3]),
        pa.array([1.5, None]),
        pa.array([True, False]),
        pa.array([True, None]),
        pa.array(["a", None]),
        pa.array([datetime.datetime(2024, 1, 1), None], pa.timestamp("us")),
        pa.array([datetime.timedelta(seconds=1), None], pa.duration("ms")),
        pa.array([[1], None]),
    ]
    for theirs in cases:
        ours = alkaid.array(theirs)
        with pytest.raises(alkaid.AlkaidError, match="without a copy"):
            ours.to_numpy()
        expected = theirs.to_numpy(zero_copy_only=False)
        got = ours.to_numpy(zero_copy_only=False)
        assert got.dtype == expected.dtype, theirs.type
        assert got.tolist() == expected.tolist() or (
            got.dtype.kind == "f" and np.array_equal(got, expected, equal_nan=True)), theirs
    assert np.asarray(alkaid.array([1, None])).dtype == "float64"
    assert np.asarray(alkaid.array([1, 2]), dtype="int8").dtype == "int8"
    with pytest.raises(alkaid.AlkaidError, match="without a copy"):
        np.array(alkaid.array([1, None]), copy=False)
