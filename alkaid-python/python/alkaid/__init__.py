"""Alkaid: Arrow-format columns in Rust, shared with pyarrow, Polars and DuckDB without a copy.

Every class here is a producer of the Arrow PyCapsule interface, so ``pyarrow.array(a)``,
``pyarrow.record_batch(b)``, ``polars.DataFrame(b)`` or a DuckDB query over a reader take
Alkaid data in place; ``alkaid.array``, ``alkaid.record_batch``, ``alkaid.reader`` and
``alkaid.schema`` take theirs the same way, checked before use.
"""

from ._alkaid import (
    AlkaidError,
    Array,
    ChunkedArray,
    DataType,
    Field,
    RecordBatch,
    RecordBatchReader,
    Scalar,
    Schema,
    Table,
    array,
    concat,
    filter,
    read_csv,
    read_ipc_file,
    read_ipc_stream,
    read_json,
    read_parquet,
    reader,
    record_batch,
    schema,
    table,
    take,
    validate,
    write_csv,
    write_ipc_file,
    write_ipc_stream,
    write_json,
    write_parquet,
)

__all__ = [
    "AlkaidError",
    "Array",
    "ChunkedArray",
    "DataType",
    "Field",
    "RecordBatch",
    "RecordBatchReader",
    "Scalar",
    "Schema",
    "Table",
    "array",
    "concat",
    "filter",
    "read_csv",
    "read_ipc_file",
    "read_ipc_stream",
    "read_json",
    "read_parquet",
    "reader",
    "record_batch",
    "schema",
    "table",
    "take",
    "validate",
    "write_csv",
    "write_ipc_file",
    "write_ipc_stream",
    "write_json",
    "write_parquet",
]

from . import compute  # noqa: E402 (the kernels: ``alkaid.compute``)
from .compute import ComputeError  # noqa: E402

__all__ += ["ComputeError", "compute"]
