"""Tables and chunked arrays against pyarrow's: made from dicts, batches and streams,
read back, and each operation's answer equal to pyarrow's on the same data."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import alkaid


def pyarrow_table():
    return pa.Table.from_batches([
        pa.record_batch({"id": [3, 1, None, 2], "name": ["c", "a", "x", None],
                         "score": [1.5, None, 2.5, 0.5]}),
        pa.record_batch({"id": [5, 4], "name": ["e", "d"], "score": [9.0, -1.0]}),
    ]).replace_schema_metadata({"origin": "test"})


def same(ours, theirs, check_metadata=True):
    assert pa.table(ours).equals(theirs, check_metadata=check_metadata), (pa.table(ours), theirs)
    assert ours.to_pylist() == theirs.to_pylist()


def test_tables_cross_both_ways_and_keep_their_batches():
    theirs = pyarrow_table()
    ours = alkaid.table(theirs)
    same(ours, theirs)
    assert len(ours.to_batches()) == 2 and ours.num_rows == 6 and len(ours) == 6
    assert ours.column_names == ["id", "name", "score"] and ours.num_columns == 3
    assert ours.schema.metadata == {"origin": "test"}
    assert ours == theirs and ours == alkaid.Table.from_arrow(theirs)
    assert ours.to_pydict() == theirs.to_pydict()
    # Polars reads it as a stream, and the readers' read_all returns one.
    assert alkaid.reader(ours).read_all() == ours
    assert alkaid.Table.from_batches(ours.to_batches()) == ours
    assert ours.to_reader().read_all() == ours


def test_from_pydict_takes_every_kind_of_column():
    ours = alkaid.Table.from_pydict({
        "values": [1, None, 3],
        "array": alkaid.array(["a", "b", None]),
        "numpy": np.array([0.5, 1.5, 2.5]),
        "pyarrow": pa.array([True, False, None]),
        "chunked": alkaid.ChunkedArray([[1], [2, 3]]),
    }, metadata={"k": "v"})
    theirs = pa.table({
        "values": [1, None, 3], "array": ["a", "b", None], "numpy": [0.5, 1.5, 2.5],
        "pyarrow": [True, False, None], "chunked": pa.chunked_array([[1], [2, 3]]),
    }).replace_schema_metadata({"k": "v"})
    same(ours, theirs)
    with pytest.raises(alkaid.AlkaidError, match='column "b" has 2 rows'):
        alkaid.table({"a": [1, 2, 3], "b": [1, 2]})


def test_operations_answer_as_pyarrows():
    theirs = pyarrow_table()
    ours = alkaid.table(theirs)
    same(ours.select(["score", 0]), theirs.select(["score", "id"]))
    same(ours.slice(3, 2), theirs.slice(3, 2))
    same(ours.slice(5), theirs.slice(5))
    mask = [True, False, None, True, False, True]
    same(ours.filter(mask), theirs.filter(pa.array(mask)))
    same(ours.take([5, 0, 0]), theirs.take([5, 0, 0]))
    same(ours.sort_by("id"), theirs.sort_by("id"))
    same(ours.sort_by([("name", "descending"), ("id", "ascending")]),
         theirs.sort_by([("name", "descending"), ("id", "ascending")]))
    same(ours.add_column(1, "twice", [2, 4, 6, 8, 10, 12]),
         theirs.add_column(1, "twice", pa.array([2, 4, 6, 8, 10, 12])))
    same(ours.append_column("flag", [True] * 6),
         theirs.append_column("flag", pa.array([True] * 6)))
    same(ours.drop_columns(["name"]), theirs.drop_columns(["name"]))
    # On purpose: pyarrow's rename drops the schema's metadata; Alkaid's keeps it.
    renamed = ours.rename_columns(["a", "b", "c"])
    same(renamed, theirs.rename_columns(["a", "b", "c"]), check_metadata=False)
    assert renamed.schema.metadata == {"origin": "test"}
    same(ours.combine_chunks(), theirs.combine_chunks())
    assert len(ours.combine_chunks().to_batches()) == 1


def test_columns_are_chunked_arrays():
    theirs = pyarrow_table()
    column = alkaid.table(theirs).column("score")
    expected = theirs.column("score")
    assert column.num_chunks == 2 and len(column) == 6 and column.null_count == 1
    assert column.to_pylist() == expected.to_pylist()
    assert column[4].as_py() == 9.0 and column[-1].as_py() == -1.0
    assert column[2:5].to_pylist() == expected[2:5].to_pylist()
    assert column[::-2].to_pylist() == expected.to_pylist()[::-2]
    assert column.combine_chunks().to_pylist() == expected.to_pylist()
    assert [c.to_pylist() for c in column.chunks] == [c.to_pylist() for c in expected.chunks]
    np.testing.assert_array_equal(column.to_numpy(), expected.to_numpy())
    assert column == alkaid.array(expected.to_pylist())
    with pytest.raises(IndexError):
        column[6]
    with pytest.raises(alkaid.AlkaidError, match="row 0: a \\(str\\)"):
        alkaid.ChunkedArray([[1], ["a"]], type="Int64")
    with pytest.raises(alkaid.AlkaidError, match="a chunk of Utf8 in a column of Int64"):
        alkaid.ChunkedArray([[1], ["a"]])


def test_chunked_arrays_cross_as_streams_both_ways():
    # pyarrow's chunked array (nested, with nulls, one chunk sliced at a non-zero offset)
    # read through its stream, chunk for chunk; and ours read by pyarrow the same way.
    kind = pa.list_(pa.struct([("a", pa.int8()), ("b", pa.list_(pa.string()))]))
    chunks = [pa.array([[{"a": 1, "b": ["x", None]}], None, []], kind),
              pa.array([[{"a": None, "b": None}], [{"a": 3, "b": []}], []], kind).slice(1),
              pa.array([], kind)]
    theirs = pa.chunked_array(chunks, kind)
    ours = alkaid.ChunkedArray.from_arrow(theirs)
    assert ours.num_chunks == 3 and ours.to_pylist() == theirs.to_pylist()
    assert str(ours.type) == "List(item: Struct(a: Int8, b: List(item: Utf8)))"
    back = pa.chunked_array(ours)
    assert back.equals(theirs) and back.num_chunks == 3
    assert [len(c) for c in back.chunks] == [3, 2, 0]
    # A column of a dict may be any stream of arrays; a lone array is one chunk.
    table = alkaid.table({"c": theirs})
    assert table.column("c").num_chunks == 3 and table.num_rows == 5
    assert alkaid.ChunkedArray.from_arrow(pa.array([1, 2])).to_pylist() == [1, 2]
    # The consumer may rename it or ask for it non-nullable when it holds no nulls.
    named = pa.field("renamed", pa.int64(), nullable=False)
    plain = alkaid.ChunkedArray([[1, 2], [3]])
    capsule = plain.__arrow_c_stream__(named.__arrow_c_schema__())
    assert alkaid.ChunkedArray.from_arrow(Capsule(capsule)).to_pylist() == [1, 2, 3]
    with pytest.raises(ValueError, match="needs a conversion"):
        plain.__arrow_c_stream__(pa.field("x", pa.string()).__arrow_c_schema__())
    with pytest.raises(ValueError, match="may hold nulls"):
        alkaid.ChunkedArray([[1, None]]).__arrow_c_stream__(named.__arrow_c_schema__())


class Capsule:
    """A producer of a capsule already made."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __arrow_c_stream__(self, requested_schema=None):
        return self.capsule


def test_errors_name_what_is_wrong():
    ours = alkaid.table(pyarrow_table())
    with pytest.raises(KeyError, match='no column "nope"'):
        ours.column("nope")
    with pytest.raises(alkaid.AlkaidError, match="a mask of 2 rows for a table of 6"):
        ours.filter([True, False])
    with pytest.raises(alkaid.AlkaidError, match='sort order "up"'):
        ours.sort_by([("id", "up")])
    with pytest.raises(alkaid.AlkaidError, match="2 names for 3 columns"):
        ours.rename_columns(["a", "b"])
    shown = repr(ours)
    assert shown.startswith("alkaid.Table: 6 rows, 3 columns in 2 batches")
    assert repr(alkaid.table({"a": [1]})).startswith("alkaid.Table: 1 row, 1 column in 1 batch\n")


def test_pandas_both_ways_as_pyarrow():
    pd = pytest.importorskip("pandas")
    theirs = pyarrow_table()
    ours = alkaid.table(theirs)
    frame, expected = ours.to_pandas(), theirs.to_pandas()
    assert list(frame.columns) == list(expected.columns)
    for name in frame.columns:
        got, want = frame[name].tolist(), expected[name].tolist()
        assert [None if v != v else v for v in got] == [None if v != v else v for v in want]
    # pandas' own Arrow export (pyarrow is here) is read whole.
    back = alkaid.Table.from_pandas(expected)
    assert back.to_pydict() == pa.Table.from_pandas(expected).to_pydict()
    assert ours.column("name").to_pandas().tolist()[0] == "c"
