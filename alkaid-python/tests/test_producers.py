"""Bad producers written with ctypes get errors, never crashes, and their release
callbacks run exactly once; a million round trips of a small array leak nothing."""

import ctypes
from ctypes import CFUNCTYPE, POINTER, c_char_p, c_int64, c_void_p

import pyarrow as pa
import pytest

import alkaid


class ArrowArray(ctypes.Structure):
    pass


RELEASE = CFUNCTYPE(None, POINTER(ArrowArray))
ArrowArray._fields_ = [
    ("length", c_int64),
    ("null_count", c_int64),
    ("offset", c_int64),
    ("n_buffers", c_int64),
    ("n_children", c_int64),
    ("buffers", POINTER(c_void_p)),
    ("children", POINTER(POINTER(ArrowArray))),
    ("dictionary", POINTER(ArrowArray)),
    ("release", RELEASE),
    ("private_data", c_void_p),
]

PyCapsule_New = ctypes.pythonapi.PyCapsule_New
PyCapsule_New.restype = ctypes.py_object
PyCapsule_New.argtypes = [c_void_p, c_char_p, c_void_p]
# Capsule names must outlive their capsules.
ARRAY_NAME = b"arrow_array"
WRONG_NAME = b"arrow_arrays"

RELEASED = []


@RELEASE
def count_release(array):
    RELEASED.append(1)
    array.contents.release = RELEASE()


class Producer:
    """An `__arrow_c_array__` producer of a hand-made array under a pyarrow type."""

    def __init__(self, arrow_type: pa.DataType, array: ArrowArray, keep, name=ARRAY_NAME):
        self.type = arrow_type
        self.array = array
        self.keep = keep  # the buffers and pointer arrays the struct points into
        self.name = name

    def __arrow_c_array__(self, requested_schema=None):
        schema = self.type.__arrow_c_schema__()
        return schema, PyCapsule_New(ctypes.addressof(self.array), self.name, None)


def int32_array(values, n_buffers=2, length=None, offset=0, null_data=False):
    data = (ctypes.c_int32 * len(values))(*values)
    wanted = [None, None if null_data else ctypes.addressof(data)] + [None] * n_buffers
    pointers = (c_void_p * max(n_buffers, 1))(*wanted[:max(n_buffers, 1)])
    array = ArrowArray(
        length=len(values) if length is None else length,
        null_count=0,
        offset=offset,
        n_buffers=n_buffers,
        n_children=0,
        buffers=ctypes.cast(pointers, POINTER(c_void_p)),
        release=count_release,
    )
    return array, (data, pointers)


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(n_buffers=3), "takes 2 buffers here, found 3"),
        (dict(length=-1), "the length is -1"),
        (dict(offset=-2), "the offset is -2"),
        (dict(null_data=True), "buffer 1 is null"),
    ],
)
def test_malformed_arrays_are_errors_and_released_once(change, message):
    array, keep = int32_array([1, 2, 3], **change)
    before = len(RELEASED)
    producer = Producer(pa.int32(), array, keep)
    with pytest.raises(alkaid.AlkaidError, match=message):
        alkaid.array(producer)
    assert len(RELEASED) == before + 1
    assert not array.release


def test_a_released_array_and_a_wrong_capsule_are_refused():
    array, keep = int32_array([1, 2, 3])
    array.release = RELEASE()
    before = len(RELEASED)
    with pytest.raises(alkaid.AlkaidError, match="already released"):
        alkaid.array(Producer(pa.int32(), array, keep))
    assert len(RELEASED) == before
    array, keep = int32_array([1, 2, 3])
    with pytest.raises(ValueError):
        alkaid.array(Producer(pa.int32(), array, keep, name=WRONG_NAME))
    assert array.release, "a capsule of the wrong kind is not touched"
    count_release(ctypes.pointer(array))


def test_a_child_count_that_does_not_match_the_type_is_refused():
    array, keep = int32_array([1, 2, 3], n_buffers=1)
    struct_type = pa.struct([("a", pa.int32())])
    before = len(RELEASED)
    with pytest.raises(alkaid.AlkaidError, match="has 1 children, found 0"):
        alkaid.array(Producer(struct_type, array, keep))
    assert len(RELEASED) == before + 1


def test_a_good_hand_made_array_is_shared_and_released_when_the_last_user_goes():
    array, keep = int32_array([7, 8, 9])
    before = len(RELEASED)
    ours = alkaid.array(Producer(pa.int32(), array, keep))
    assert ours.buffer_addresses() == [ctypes.addressof(keep[0])]
    back = pa.array(ours)
    assert back.to_pylist() == [7, 8, 9]
    del ours
    assert len(RELEASED) == before, "pyarrow still holds it"
    del back
    assert len(RELEASED) == before + 1


def resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_a_million_round_trips_leak_nothing():
    small = pa.array([1, None, 3])
    batch = pa.record_batch({"s": pa.array(["a", "b", None])})
    for _ in range(50_000):  # warm up the allocators
        pa.array(alkaid.array(small))
    start = resident_bytes()
    for _ in range(1_000_000):
        pa.array(alkaid.array(small))
    for _ in range(100_000):
        pa.record_batch(alkaid.record_batch(batch))
    grown = resident_bytes() - start
    # A leak of one struct per round trip would be over 80 MB.
    assert grown < 16 << 20, f"resident memory grew by {grown} bytes"


def test_sliced_and_shared_children_are_freed_once_in_any_order():
    inner = pa.array([[{"a": i, "b": str(i)}] for i in range(100)],
                     pa.list_(pa.struct([("a", pa.int64()), ("b", pa.string())])))
    kept = []
    for i in range(2_000):
        ours = alkaid.array(inner.slice(i % 50, 30))
        # Children shared between the whole array, its slices and the batch built on it.
        kept.append(ours if i % 2 else alkaid.array(pa.array(ours)).slice(1, 10))
        if len(kept) > 64:
            kept.pop(i % 64)
    for ours in kept:
        back = pa.array(ours)
        back.validate(full=True)
        assert back.to_pylist()[0][0]["b"] == str(back.to_pylist()[0][0]["a"])
    del kept
