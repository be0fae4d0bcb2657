"""The crate documentation's example of a user's own pyo3 extension
(`examples/extension.rs`), as Python loads it: `cargo test` builds it (`.ci/run` does
so before pytest), and its batch reaches pyarrow and Polars without a copy."""

import os
import shutil

import pyarrow as pa
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
BUILT = os.path.join(TARGET, "debug", "examples", "libextension.so")


@pytest.fixture(scope="module")
def extension(tmp_path_factory):
    if not os.path.exists(BUILT):
        pytest.skip(f"{BUILT} is not built (cargo test -p alkaid-python builds it)")
    # Python finds an extension by its module name; cargo names the library after it.
    folder = tmp_path_factory.mktemp("extension")
    shutil.copy(BUILT, folder / "extension.abi3.so")
    import importlib.util

    spec = importlib.util.spec_from_file_location("extension", folder / "extension.abi3.so")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_examples_batch_reaches_pyarrow_and_polars(extension):
    batch = pa.record_batch(extension.squares(5))
    assert batch.schema == pa.schema([pa.field("square", pa.int64(), nullable=False)])
    assert batch.column(0).to_pylist() == [0, 1, 4, 9, 16]
    polars = pytest.importorskip("polars")
    frame = polars.DataFrame(extension.squares(3))
    assert frame["square"].to_list() == [0, 1, 4]
    assert pa.record_batch(extension.squares(0)).num_rows == 0
