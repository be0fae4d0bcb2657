"""Alkaid and pyarrow exchange every type through the PyCapsule interface, both ways,
whole and sliced, without copying data buffers; the device variants too."""

import pyarrow as pa
import pytest

import alkaid


def test_every_type_round_trips(pa_array):
    ours = alkaid.array(pa_array)
    assert len(ours) == len(pa_array)
    assert ours.null_count == pa_array.null_count
    ours.validate(full=True)
    back = pa.array(ours)
    back.validate(full=True)
    assert back.equals(pa_array)
    assert back.type == pa_array.type


def test_every_type_round_trips_sliced(pa_array):
    sliced = pa_array.slice(1, 2)
    back = pa.array(alkaid.array(sliced))
    assert back.equals(sliced)
    # And sliced on Alkaid's side.
    ours = alkaid.array(pa_array).slice(1, 2)
    assert pa.array(ours).equals(sliced)


def test_every_type_crosses_the_device_interface(pa_array):
    class DeviceOnly:
        """A producer that offers only the device variant (as a GPU library would)."""

        def __init__(self, inner):
            self.inner = inner

        def __arrow_c_device_array__(self, requested_schema=None, **kwargs):
            return self.inner.__arrow_c_device_array__(requested_schema, **kwargs)

    ours = alkaid.array(DeviceOnly(pa_array))
    schema, array = ours.__arrow_c_device_array__()
    back = pa.Array._import_from_c_device_capsule(schema, array)
    assert back.equals(pa_array)


def test_data_buffers_are_shared_not_copied():
    source = pa.array([1, 2, None, 4], pa.int64())
    ours = alkaid.array(source)
    validity, values = ours.buffer_addresses()
    assert values == source.buffers()[1].address
    assert validity == source.buffers()[0].address
    back = pa.array(ours)
    assert back.buffers()[1].address == values
    words = pa.array(["shared", "bytes"])
    ours = alkaid.array(words)
    assert ours.buffer_addresses() == [b.address for b in words.buffers() if b is not None]


def test_batches_and_streams_round_trip():
    batch = pa.record_batch(
        {name: arr for name, arr in [("n", pa.array([1, 2, None])), ("s", pa.array(["a", None, "c"]))]},
    )
    batch = batch.replace_schema_metadata({"origin": "test"})
    ours = alkaid.record_batch(batch)
    assert (ours.num_rows, ours.num_columns) == (3, 2)
    assert ours.schema.names == ["n", "s"]
    assert ours.schema.metadata == {"origin": "test"}
    assert pa.record_batch(ours).equals(batch, check_metadata=True)
    assert pa.array(ours.column("s")).equals(batch.column(1))
    table = pa.Table.from_batches([batch, batch.slice(1)])
    reader = alkaid.reader(table)
    assert pa.schema(reader.schema).equals(batch.schema)
    back = pa.RecordBatchReader.from_stream(reader).read_all()
    assert back.equals(table)
    with pytest.raises(alkaid.AlkaidError, match="already consumed"):
        reader.read_all()


def test_streams_cross_the_device_interface():
    # pyarrow 26 has no device streams in Python: Alkaid's device stream is read back by
    # Alkaid (through a producer that offers only the device variant), then by pyarrow.
    batch = pa.record_batch({"n": pa.array([1, 2, 3])})
    ours = alkaid.reader(pa.Table.from_batches([batch, batch]))

    class DeviceOnly:
        def __arrow_c_device_stream__(self, requested_schema=None, **kwargs):
            return ours.__arrow_c_device_stream__(requested_schema, **kwargs)

    again = alkaid.reader(DeviceOnly())
    back = pa.RecordBatchReader.from_stream(again).read_all()
    assert back.equals(pa.Table.from_batches([batch, batch]))


def test_nan_bits_cross_unchanged():
    source = pa.array([float("nan"), -float("nan"), 1.0], pa.float64())
    back = pa.array(alkaid.array(source))
    assert back.buffers()[1].to_pybytes() == source.buffers()[1].to_pybytes()


def test_device_keywords_other_than_none_are_refused():
    ours = alkaid.array(pa.array([1]))
    ours.__arrow_c_device_array__(None, future_option=None)
    with pytest.raises(NotImplementedError, match="future_option"):
        ours.__arrow_c_device_array__(None, future_option=True)


def test_requested_schema_is_honoured_or_refused():
    ours = alkaid.array(pa.array([1, 2], pa.int64()))
    same = pa.array(ours, type=pa.int64())
    assert same.equals(pa.array([1, 2], pa.int64()))
    with pytest.raises(ValueError, match="without copying"):
        ours.__arrow_c_array__(pa.int32().__arrow_c_schema__())
    # Renaming at any depth changes nothing in memory: honoured.
    nested = alkaid.array(pa.array([[{"a": 1}], None], pa.list_(pa.struct([("a", pa.int32())]))))
    renamed = pa.list_(pa.field("element", pa.struct([("x", pa.int32())])))
    back = pa.array(nested, type=renamed)
    assert back.type == renamed and back.to_pylist() == [[{"x": 1}], None]
    # A batch's columns renamed, and said to be non-nullable where they have no nulls.
    batch = alkaid.record_batch(pa.record_batch({"n": [1, 2], "s": ["a", None]}))
    wanted = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])
    got = pa.RecordBatch._import_from_c_capsule(*batch.__arrow_c_array__(wanted.__arrow_c_schema__()))
    assert got.schema == wanted
    assert got.column("name").to_pylist() == ["a", None]
    tighter = pa.schema([pa.field("id", pa.int64()), pa.field("name", pa.string(), nullable=False)])
    with pytest.raises(ValueError, match="column 1 .*may hold nulls"):
        batch.__arrow_c_array__(tighter.__arrow_c_schema__())
    # A stream renamed likewise.
    stream = alkaid.reader(pa.table({"n": [1, 2]}))
    table = pa.RecordBatchReader._import_from_c_capsule(
        stream.__arrow_c_stream__(pa.schema([pa.field("m", pa.int64())]).__arrow_c_schema__())).read_all()
    assert table.column_names == ["m"]
    # A column with nulls cannot be called non-nullable.
    with_nulls = alkaid.array(pa.array([1, None]))
    with pytest.raises(ValueError, match="may hold nulls"):
        with_nulls.__arrow_c_array__(pa.field("v", pa.int64(), nullable=False).__arrow_c_schema__())


def test_schema_types_cross_both_ways():
    schema = pa.schema([pa.field("a", pa.list_(pa.int8()), nullable=False)], metadata={"k": "v"})
    ours = alkaid.schema(schema)
    assert ours.names == ["a"]
    assert ours.field(0).nullable is False
    assert ours.metadata == {"k": "v"}
    assert pa.schema(ours).equals(schema, check_metadata=True)
    dt = alkaid.DataType.from_arrow(pa.timestamp("us", tz="UTC"))
    assert pa.DataType._import_from_c_capsule(dt.__arrow_c_schema__()) == pa.timestamp("us", tz="UTC")
    field = alkaid.Field("x", pa.string(), nullable=False)
    assert pa.field(field) == pa.field("x", pa.string(), nullable=False)


def offsets(*values: int) -> pa.Buffer:
    return pa.py_buffer(b"".join(v.to_bytes(4, "little", signed=True) for v in values))


def test_imported_values_are_checked():
    # Offsets that run backwards: structurally whole, invalid values.
    backwards = pa.Array.from_buffers(pa.string(), 2, [None, offsets(0, 3, 1), pa.py_buffer(b"abc")])
    with pytest.raises(alkaid.AlkaidError, match="offset"):
        alkaid.array(backwards)
    # Bytes that are not UTF-8 behind sound offsets, alone, in a batch and in a stream.
    not_utf8 = pa.Array.from_buffers(pa.string(), 1, [None, offsets(0, 2), pa.py_buffer(b"\xff\xfe")])
    with pytest.raises(alkaid.AlkaidError, match="UTF-8"):
        alkaid.array(not_utf8)
    with pytest.raises(alkaid.AlkaidError, match="UTF-8"):
        alkaid.validate(not_utf8)
    batch = pa.RecordBatch.from_arrays([not_utf8], ["s"])
    with pytest.raises(alkaid.AlkaidError, match="UTF-8"):
        alkaid.record_batch(batch)
    reader = alkaid.reader(pa.RecordBatchReader.from_batches(batch.schema, [batch]))
    with pytest.raises(alkaid.AlkaidError, match="UTF-8"):
        reader.read_all()
