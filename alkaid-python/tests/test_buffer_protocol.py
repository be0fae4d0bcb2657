"""Objects of Python's buffer protocol as arrays of their items' type: each format's
values equal to pyarrow's reading of the same memory, a whole `bytes` object taken
without a copy (checked by address), other exporters copied once."""

import array
import ctypes
import mmap

import numpy as np
import pyarrow as pa
import pytest

import alkaid

# (struct-module format, pyarrow's type of that item)
FORMATS = [("b", pa.int8()), ("B", pa.uint8()), ("h", pa.int16()), ("H", pa.uint16()),
           ("i", pa.int32()), ("I", pa.uint32()), ("q", pa.int64()), ("Q", pa.uint64()),
           ("f", pa.float32()), ("d", pa.float64())]


@pytest.mark.parametrize("code, kind", FORMATS)
def test_every_format_reads_as_pyarrow_reads_the_same_memory(code, kind):
    values = array.array(code, [0, 1, 2, 3, 100, 7])
    ours = alkaid.array(values)
    theirs = pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(values)])
    assert pa.array(ours).equals(theirs)
    assert ours.to_pylist() == values.tolist()
    # Sliced and strided views are read as they show, not as the memory lies.
    view = memoryview(values)[1::2]
    assert alkaid.array(view).to_pylist() == values.tolist()[1::2]


def test_byte_orders_and_booleans():
    big = np.array([1, -2, 300], dtype=">i4")
    assert memoryview(big).format == ">i"
    assert alkaid.array(memoryview(big)).to_pylist() == [1, -2, 300]
    little = memoryview(np.array([1.5, -2.0], dtype="<f8"))
    assert alkaid.array(little).to_pylist() == [1.5, -2.0]
    assert alkaid.array(memoryview(b"\x01\x00\x02").cast("?")).to_pylist() == [True, False, True]
    halves = memoryview(np.array([1.5, -0.25], dtype=np.float16))
    assert halves.format == "e"
    assert pa.array(alkaid.array(halves)).equals(pa.array(np.array([1.5, -0.25], np.float16)))


def test_bytes_are_taken_without_a_copy_and_others_are_copied_once():
    data = bytes(range(64))
    ours = alkaid.array(data)
    address = ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value
    assert ours.type == alkaid.DataType.uint8()
    assert ours.buffer_addresses() == [address], "not zero-copy"
    assert ours.to_pylist() == list(data)
    del data
    assert ours.to_pylist()[:3] == [0, 1, 2]
    # A bytearray may change after the call: the array keeps its own copy.
    changing = bytearray(b"abc")
    copied = alkaid.array(changing)
    changing[0] = ord("z")
    assert copied.to_pylist() == [97, 98, 99]
    with mmap.mmap(-1, 16) as mapped:
        mapped.write(b"\x05" * 16)
        assert alkaid.array(mapped).to_pylist() == [5] * 16
    # With a type asked, cast strictly as any input is.
    assert alkaid.array(b"\x01\xff", type="Int16").to_pylist() == [1, 255]


def test_buffers_no_type_holds_are_refused_naming_the_format():
    with pytest.raises(alkaid.AlkaidError, match="a buffer of 2 dimensions"):
        alkaid.array(memoryview(bytes(8)).cast("B", (2, 4)))
    with pytest.raises(alkaid.AlkaidError, match='format "T{'):
        alkaid.array(memoryview(np.zeros(2, dtype=[("a", "i4"), ("b", "f8")])))
    with pytest.raises(alkaid.AlkaidError, match='format "P"'):
        alkaid.array(memoryview(array.array("q", [0])).cast("B").cast("P"))
