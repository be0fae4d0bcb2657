"""IPC streams and files between Alkaid and pyarrow (bytes, paths, file objects, memory
maps, compression, column selection), and the select kernels against pyarrow.compute."""

import io

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import alkaid


def table() -> pa.Table:
    batch = pa.record_batch({
        "n": pa.array(range(1000), pa.int64()),
        "s": pa.array([f"w{i}" if i % 7 else None for i in range(1000)]),
        "d": pa.array([f"k{i % 5}" for i in range(1000)]).dictionary_encode(),
        "l": pa.array([[i, i + 1] if i % 3 else [] for i in range(1000)], pa.list_(pa.int32())),
    })
    return pa.Table.from_batches([batch, batch.slice(10, 300)])


@pytest.mark.parametrize("compression", [None, "lz4", "zstd"])
def test_streams_alkaid_writes_pyarrow_reads_and_back(compression):
    source = table()
    data = alkaid.write_ipc_stream(alkaid.reader(source), compression=compression)
    assert pa.ipc.open_stream(data).read_all().equals(source)
    own = pa.BufferOutputStream()
    with pa.ipc.new_stream(own, source.schema, options=pa.ipc.IpcWriteOptions(compression=compression)) as w:
        w.write_table(source)
    back = alkaid.read_ipc_stream(own.getvalue().to_pybytes())
    assert pa.Table.from_batches([pa.record_batch(b) for b in back]).equals(source)


@pytest.mark.parametrize("compression", ["lz4", "zstd"])
def test_large_compressed_writes_read_back_in_pyarrow(tmp_path, compression):
    # Batches of over 1 MiB of buffers, written while compressed (a seek back for each
    # header), beside a small one; to a path and to bytes, as a stream and as a file. The
    # first batch's integers take 4.8 MB: LZ4 frames of two blocks, written block by block.
    n = 600_000
    big = pa.record_batch({
        "n": pa.array(range(n), pa.int64()),
        "s": pa.array([f"row {i}" if i % 9 else None for i in range(n)]),
    })
    source = pa.Table.from_batches([big, big.slice(5, 10), big.slice(1000)])
    path = tmp_path / "big.arrow"
    alkaid.write_ipc_file(alkaid.reader(source), str(path), compression=compression)
    assert pa.ipc.open_file(str(path)).read_all().equals(source)
    data = alkaid.write_ipc_stream(alkaid.reader(source), compression=compression)
    assert pa.ipc.open_stream(data).read_all().equals(source)
    stream_path = tmp_path / "big.arrows"
    alkaid.write_ipc_stream(alkaid.reader(source), str(stream_path), compression=compression)
    assert stream_path.read_bytes() == data


def test_files_on_disk_memory_mapped_and_by_file_object(tmp_path):
    source = table()
    path = tmp_path / "data.arrow"
    with pa.ipc.new_file(str(path), source.schema) as w:
        w.write_table(source)
    for reader in [alkaid.read_ipc_file(path, memory_map=True),
                   alkaid.read_ipc_file(str(path)),
                   alkaid.read_ipc_file(open(path, "rb")),
                   alkaid.read_ipc_file(path.read_bytes())]:
        got = pa.Table.from_batches([pa.record_batch(b) for b in reader])
        assert got.equals(source)
    # One column, the others never decoded.
    only = alkaid.read_ipc_file(path, memory_map=True, columns=[1]).read_all()
    assert only.schema.names == ["s"] and only.to_batches()[0].schema.names == ["s"]
    # Alkaid's files, by path and by file object, open in pyarrow.
    out = tmp_path / "ours.arrow"
    alkaid.write_ipc_file(alkaid.reader(source), str(out), compression="lz4")
    assert pa.ipc.open_file(str(out)).read_all().equals(source)
    sink = io.BytesIO()
    alkaid.write_ipc_file(alkaid.record_batch(source.to_batches()[0]), sink)
    assert pa.ipc.open_file(sink.getvalue()).read_all().equals(pa.Table.from_batches(source.to_batches()[:1]))


def test_a_memory_mapped_file_truncated_while_read_is_an_error_not_a_crash(tmp_path):
    # Large enough that the batches after the first lie on pages past the cut.
    batch = pa.record_batch({"n": pa.array(range(200_000), pa.int64())})
    path = tmp_path / "shrinks.arrow"
    with pa.ipc.new_file(str(path), batch.schema) as w:
        for _ in range(4):
            w.write_batch(batch)
    reader = alkaid.read_ipc_file(path, memory_map=True)
    first = pa.record_batch(reader.read_next_batch())
    assert first.equals(batch)
    with open(path, "r+b") as f:
        f.truncate(path.stat().st_size // 3)
    with pytest.raises(alkaid.AlkaidError, match="shrank"):
        for _ in reader:
            pass


def test_broken_ipc_bytes_are_errors_naming_the_problem(tmp_path):
    data = alkaid.write_ipc_stream(alkaid.reader(table()))
    with pytest.raises(alkaid.AlkaidError):
        alkaid.read_ipc_stream(data[: len(data) // 2]).read_all()
    with pytest.raises(alkaid.AlkaidError, match="ARROW1|ALKAID1"):
        alkaid.read_ipc_file(b"not a file at all, not even close")
    with pytest.raises(alkaid.AlkaidError, match="compression"):
        alkaid.write_ipc_stream(alkaid.reader(table()), compression="brotli")
    with pytest.raises(alkaid.AlkaidError, match="missing.arrow"):
        alkaid.read_ipc_file(tmp_path / "missing.arrow")


def test_select_kernels_match_pyarrow_compute(pa_array):
    mask = pa.array([True, None, False, True][: len(pa_array)])
    indices = pa.array([3, None, 0, 0], pa.int32())
    try:
        expected = pc.filter(pa_array, mask)
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid):
        expected = None
    if expected is not None:
        assert pa.array(alkaid.filter(pa_array, mask)).equals(expected)
    try:
        expected = pc.take(pa_array, indices)
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid):
        expected = None
    if expected is not None:
        assert pa.array(alkaid.take(pa_array, indices)).equals(expected)
    parts = [pa_array.slice(0, 1), pa_array.slice(1)]
    try:
        expected = pa.concat_arrays(parts)
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid):
        expected = None
    if expected is not None:
        assert pa.array(alkaid.concat(parts)).equals(expected)


def test_select_errors_are_clear():
    with pytest.raises(alkaid.AlkaidError, match="Boolean"):
        alkaid.filter(pa.array([1, 2]), pa.array([1, 0]))
    with pytest.raises(alkaid.AlkaidError):
        alkaid.take(pa.array([1, 2]), pa.array([5], pa.int32()))
    with pytest.raises(alkaid.AlkaidError, match="at least one"):
        alkaid.concat([])
