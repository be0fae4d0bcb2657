#!/usr/bin/env python3
"""The PyCapsule interface with 1,000 columns: Alkaid's export and import against pyarrow's.

A record batch of 1,000 Int64 columns, once with 128 rows per column (1 MiB in all) and
once with 131,072 rows per column (1 GiB in all; the columns share one buffer, so the
machine holds 1 MiB either way: what is measured is what the interface does per
column, and any work per byte would show as a thousandfold difference). Rows:

- `alkaid import`: `alkaid.record_batch(pyarrow_batch)` (checked in full, as every
  import from Python is);
- `alkaid export to pyarrow`: `pyarrow.record_batch(alkaid_batch)`;
- `alkaid export to Polars` against `pyarrow export to Polars`: `polars.DataFrame(batch)`
  of the same batch held by Alkaid and by pyarrow.

Figures are the fastest of 7 samples of enough runs to last about 50 ms.
Needs the `alkaid` module built with `maturin develop --release` (a debug build measures
Rust's debug code). usage: python benches/python_capsule_bench.py
"""
import time

import polars as pl
import pyarrow as pa

import alkaid


def fastest(run, samples: int = 7) -> float:
    run()
    start = time.perf_counter_ns()
    run()
    iters = max(1, 50_000_000 // max(time.perf_counter_ns() - start, 1))
    best = float("inf")
    for _ in range(samples):
        start = time.perf_counter_ns()
        for _ in range(iters):
            run()
        best = min(best, (time.perf_counter_ns() - start) / iters)
    return best


def main() -> None:
    print("| rows per column | batch | alkaid import | alkaid export to pyarrow "
          "| alkaid export to Polars | pyarrow export to Polars | pyarrow / alkaid (Polars) |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for rows in [128, 131_072]:
        column = pa.array(range(rows), pa.int64())
        source = pa.RecordBatch.from_arrays([column] * 1000, [f"c{i}" for i in range(1000)])
        ours = alkaid.record_batch(source)
        assert ours.column(999).buffer_addresses() == [column.buffers()[1].address]
        figures = [
            fastest(lambda: alkaid.record_batch(source)),
            fastest(lambda: pa.record_batch(ours)),
            fastest(lambda: pl.DataFrame(ours)),
            fastest(lambda: pl.DataFrame(source)),
        ]
        size = "1 MiB" if rows == 128 else "1 GiB"
        cells = " | ".join(f"{f / 1e6:.2f} ms" for f in figures)
        print(f"| {rows:,} | {size} | {cells} | {figures[3] / figures[2]:.2f}× |")


if __name__ == "__main__":
    main()
