#!/usr/bin/env python3
"""pyarrow, timed on the same operations and the same bytes as the Rust benchmarks.

The Rust bench binaries write their inputs as IPC files under `target/bench-data/` when they
run (`alkaid_benches::export`): the IPC batch as a file, the three streams Alkaid reads, and
the selection inputs, masks and take indices, and the compute inputs. This script reads those files with pyarrow and
times the operations that have a pyarrow counterpart, under the same `group` and `case` names
as the Rust figures, so that `report.py` can put them side by side. Interleave has none.

Figures are taken as criterion takes them: samples of enough iterations to last about 50 ms
(at least one), the fastest sample and the median, in nanoseconds per iteration. pyarrow
allocates through its own pool (mimalloc in the PyPI wheels), whatever the Rust side used.

Threads: pyarrow's IPC reader and writer use its thread pool by default. The single-threaded
rows turn it off (`use_threads=False`), so that they compare with Alkaid's and arrow-rs's
single-threaded reads and writes; the `_2_threads` rows leave it on (2 threads here).

usage: python3 benches/pyarrow_bench.py [--data target/bench-data] [--out FILE] [FILTER]
FILTER keeps the rows whose `group/case` contains it. The results go to
`target/criterion-pyarrow/results.json` unless `--out` says otherwise; a filtered run
replaces the figures it measured and keeps the others.
"""
import argparse
import io
import json
import pathlib
import statistics
import sys
import time

import pyarrow as pa
import pyarrow.fs
import pyarrow.compute as pc


class Timer:
    """Runs and records the figures that pass the filter."""

    def __init__(self, keep: str, samples: int):
        self.keep = keep
        self.samples = samples
        self.results: list[dict] = []

    def time(self, group: str, case: str, run, samples: int | None = None) -> None:
        name = f"{group}/{case}"
        if self.keep not in name:
            return
        try:
            run()  # warm-up, and a failure is reported before any timing
        except (pa.ArrowException, NotImplementedError, TypeError) as e:
            print(f"{name}: not supported by pyarrow {pa.__version__}: {e}", file=sys.stderr)
            return
        start = time.perf_counter_ns()
        run()
        once = max(time.perf_counter_ns() - start, 1)
        iters = max(1, 50_000_000 // once)
        per_iter = []
        for _ in range(samples or self.samples):
            start = time.perf_counter_ns()
            for _ in range(iters):
                run()
            per_iter.append((time.perf_counter_ns() - start) / iters)
        fastest, median = min(per_iter), statistics.median(per_iter)
        print(f"{name}: fastest {fastest / 1e6:.3f} ms, median {median / 1e6:.3f} ms")
        self.results.append({"group": group, "id": case, "fastest_ns": fastest, "median_ns": median})


def read_file(path: pathlib.Path) -> pa.RecordBatch:
    """The file's one batch, its buffers in memory (not mapped)."""
    reader = pa.ipc.open_file(pa.py_buffer(path.read_bytes()))
    return reader.get_batch(0)


def read_stream(data: bytes, threads: bool) -> int:
    """Reads a stream through a file object, so the bytes are copied as Rust's `Read` does."""
    options = pa.ipc.IpcReadOptions(use_threads=threads)
    reader = pa.ipc.open_stream(pa.PythonFile(io.BytesIO(data), mode="r"), options=options)
    return sum(batch.num_rows for batch in reader)


def read_stream_in_memory(buffer: pa.Buffer) -> int:
    """Reads a stream from a buffer already in memory: bodies are slices of it, no copy."""
    options = pa.ipc.IpcReadOptions(use_threads=False)
    reader = pa.ipc.open_stream(buffer, options=options)
    return sum(batch.num_rows for batch in reader)


def write_options(codec: str) -> pa.ipc.IpcWriteOptions:
    name, _, threads = codec.partition("_2_threads")
    compression = {
        "none": None,
        "lz4": "lz4",
        "zstd": pa.Codec("zstd", compression_level=3),  # as the Rust rows: level 3
    }[name]
    return pa.ipc.IpcWriteOptions(compression=compression, use_threads=codec != name)


def write_stream(sink, batch: pa.RecordBatch, options: pa.ipc.IpcWriteOptions) -> None:
    with pa.ipc.new_stream(sink, batch.schema, options=options) as writer:
        writer.write_batch(batch)


def ipc(timer: Timer, data: pathlib.Path) -> None:
    batch = read_file(data / "ipc_file_4096Ki.arrow")
    uncompressed = (data / "ipc_stream_none.arrows").stat().st_size
    # A reused output buffer, as the Rust rows write into a reused Vec.
    room = pa.allocate_buffer(uncompressed + (16 << 20), resizable=False)
    for codec in ["none", "lz4", "zstd", "lz4_2_threads", "zstd_2_threads"]:
        options = write_options(codec)
        timer.time("ipc_write", f"stream/{codec}",
                   lambda: write_stream(pa.FixedSizeBufferWriter(room), batch, options))

    def new_sink():
        sink = pa.BufferOutputStream()
        write_stream(sink, batch, write_options("none"))
        return sink.getvalue()

    timer.time("ipc_write", "stream/none_new_vec", new_sink)

    for codec in ["none", "lz4", "zstd"]:
        stream = (data / f"ipc_stream_{codec}.arrows").read_bytes()
        timer.time("ipc_read", f"stream/{codec}", lambda: read_stream(stream, False))
        if codec != "none":
            timer.time("ipc_read", f"stream/{codec}_2_threads", lambda: read_stream(stream, True))
            in_memory = pa.py_buffer(stream)
            # pyarrow does not fully validate what it reads, so both Rust rows (with full
            # validation, and `_trusted` without) take the same read here.
            for suffix in ["", "_trusted"]:
                timer.time("ipc_read", f"stream/{codec}_in_memory{suffix}",
                           lambda: read_stream_in_memory(in_memory))
    # pyarrow's own LZ4 stream (linked 64 KiB blocks), left for the Rust bench's
    # `stream/lz4_from_pyarrow` row on its next run.
    sink = pa.BufferOutputStream()
    write_stream(sink, batch, write_options("lz4"))
    own = sink.getvalue().to_pybytes()
    (data / "pyarrow_stream_lz4.arrows").write_bytes(own)
    timer.time("ipc_read", "stream/lz4_from_pyarrow", lambda: read_stream(own, False))

    # To a file in the page cache (truncated by each write) and back with full validation,
    # as the Rust `ipc_io` rows (pyarrow's reads check structure only unless asked).
    path = data / "ipc_io_pyarrow.arrows"

    def write_file():
        with pa.OSFile(str(path), "wb") as sink:
            write_stream(sink, batch, write_options("none"))

    def read_validated():
        with pa.OSFile(str(path), "rb") as source:
            rows = 0
            for read in pa.ipc.open_stream(source):
                read.validate(full=True)
                rows += read.num_rows
            return rows

    timer.time("ipc_io", "write/file", write_file)
    timer.time("ipc_io", "read/file", read_validated)
    path.unlink()

    for rows in ["4096Ki", "64Ki"]:
        buffer = pa.py_buffer((data / f"ipc_file_{rows}.arrow").read_bytes())

        def zero_copy():
            reader = pa.ipc.open_file(buffer)
            return sum(reader.get_batch(i).num_rows for i in range(reader.num_record_batches))

        timer.time("ipc_zero_copy", f"file/{rows}", zero_copy, samples=30)
    timer.time("ipc_validate_full", "batch/4Mi", lambda: batch.validate(full=True))

    # 64 LZ4 batches read through a file object, whole and with one column selected.
    file = (data / "ipc_file_lz4_64.arrow").read_bytes()
    for case, fields in [("whole", None), ("one_column", [1])]:
        options = pa.ipc.IpcReadOptions(use_threads=False, included_fields=fields)

        def projected():
            reader = pa.ipc.open_file(pa.PythonFile(io.BytesIO(file), mode="r"), options=options)
            return sum(reader.get_batch(i).num_rows for i in range(reader.num_record_batches))

        timer.time("ipc_file_projected", f"file/{case}", projected)

    # The same file through pyarrow's own file system layer (the Rust side reads it from a
    # local object store); an OSFile or a memory map reads it in the same time.
    path = data / "object_store" / "ipc_file_lz4_64.arrow"
    local = pyarrow.fs.LocalFileSystem()
    for case, fields in [("whole", None), ("one_column", [1])]:
        options = pa.ipc.IpcReadOptions(use_threads=False, included_fields=fields)

        def from_file():
            with local.open_input_file(str(path.resolve())) as source:
                reader = pa.ipc.open_file(source, options=options)
                return sum(reader.get_batch(i).num_rows for i in range(reader.num_record_batches))

        timer.time("ipc_object_store", f"file/{case}", from_file)


def flight(timer: Timer, data: pathlib.Path) -> None:
    """DoGet and DoPut of the 64 batches over loopback, pyarrow's Flight client and server
    (Arrow C++) in this process, as the Rust side runs both of each library in one."""
    import pyarrow.flight as fl

    path = data / "flight_batches.arrow"
    if not path.exists():
        print(f"{path} is missing: `cargo bench -p alkaid-benches --bench flight` writes it",
              file=sys.stderr)
        return
    reader = pa.ipc.open_file(pa.py_buffer(path.read_bytes()))
    schema = reader.schema
    batches = [reader.get_batch(i) for i in range(reader.num_record_batches)]
    rows = sum(batch.num_rows for batch in batches)

    def count_rows(stream) -> int:
        total = 0
        while True:
            try:
                total += stream.read_chunk().data.num_rows
            except StopIteration:
                return total

    class Memory(fl.FlightServerBase):
        """Serves the batches from memory, encoded with the ticket's codec; counts uploads."""

        def do_get(self, context, ticket):
            source = pa.RecordBatchReader.from_batches(schema, batches)
            return fl.RecordBatchStream(source, options=write_options(ticket.ticket.decode()))

        def do_put(self, context, descriptor, reader, writer):
            writer.write(pa.py_buffer(str(count_rows(reader)).encode()))

    server = Memory("grpc://127.0.0.1:0")
    try:
        client = fl.connect(f"grpc://127.0.0.1:{server.port}")
        for codec in ["none", "lz4"]:
            call = fl.FlightCallOptions(write_options=write_options(codec))

            def get():
                got = count_rows(client.do_get(fl.Ticket(codec.encode())))
                assert got == rows, (got, rows)

            def put():
                descriptor = fl.FlightDescriptor.for_path("bench")
                writer, answers = client.do_put(descriptor, schema, options=call)
                for batch in batches:
                    writer.write_batch(batch)
                writer.done_writing()
                assert answers.read().to_pybytes() == str(rows).encode()
                writer.close()

            timer.time("flight", f"do_get/{codec}", get)
            timer.time("flight", f"do_put/{codec}", put)
        client.close()
    finally:
        server.shutdown()


def select(timer: Timer, data: pathlib.Path) -> None:
    inputs = read_file(data / "select_inputs.arrow")
    masks = read_file(data / "select_masks.arrow")
    indices = read_file(data / "select_take.arrow").column(0)
    names = inputs.schema.names
    for shape in masks.schema.names:
        mask = masks.column(shape)
        for name in names:
            column = inputs.column(name)
            timer.time("filter", f"{name}@{shape}", lambda: pc.filter(column, mask))
    for name in names:
        column = inputs.column(name)
        timer.time("take", f"{name}/1Mi", lambda: pc.take(column, indices))
    eighth = inputs.num_rows // 8
    for name in names:
        parts = [inputs.column(name).slice(k * eighth, eighth) for k in range(8)]
        timer.time("concat", f"{name}/8", lambda: pa.concat_arrays(parts))


def compute(timer: Timer, data: pathlib.Path) -> None:
    """The compute rows of `benches/compute.rs`, on the inputs it wrote."""
    inputs = read_file(data / "compute_inputs.arrow")
    col = inputs.column
    for suffix in ["", "_nulls"]:
        c = lambda name: col(name + suffix)
        timer.time("cmp", f"i32_gt_scalar{suffix}", lambda: pc.greater(c("i32"), pa.scalar(0, pa.int32())))
        timer.time("cmp", f"i64_lt_array{suffix}", lambda: pc.less(c("i64"), c("i64b")))
        timer.time("cmp", f"f64_eq_scalar{suffix}", lambda: pc.equal(c("f64"), c("f64")[17]))
        for kind in ["utf8", "utf8view", "dictionary"]:
            word = pa.scalar("word 1234", pa.string_view() if kind == "utf8view" else pa.string())
            timer.time("cmp", f"{kind}_eq_scalar{suffix}", lambda: pc.equal(c(kind), word))
        timer.time("cmp", f"utf8_lt_array{suffix}", lambda: pc.less(c("utf8"), c("utf8b")))
        timer.time("cmp", f"decimal128_gt_scalar{suffix}",
                   lambda: pc.greater(c("decimal128"), c("decimal128")[17]))
        timer.time("boolean", f"and{suffix}", lambda: pc.and_(c("bool"), c("boolb")))
        timer.time("boolean", f"or_kleene{suffix}", lambda: pc.or_kleene(c("bool"), c("boolb")))
        timer.time("boolean", f"not{suffix}", lambda: pc.invert(c("bool")))
        timer.time("arith", f"i64_add{suffix}", lambda: pc.add_checked(c("i64"), c("i64b")))
        timer.time("arith", f"i64_add_wrapping{suffix}", lambda: pc.add(c("i64"), c("i64b")))
        timer.time("arith", f"i64_div_scalar{suffix}",
                   lambda: pc.divide_checked(c("i64"), pa.scalar(7, pa.int64())))
        timer.time("arith", f"i32_mul_scalar{suffix}",
                   lambda: pc.multiply(c("i32"), pa.scalar(3, pa.int32())))
        timer.time("arith", f"f64_mul{suffix}", lambda: pc.multiply_checked(c("f64"), c("f64")))
        timer.time("arith", f"decimal128_add{suffix}",
                   lambda: pc.add_checked(c("decimal128"), c("decimal128")))
        timer.time("aggregate", f"f64_sum{suffix}", lambda: pc.sum(c("f64")))
        timer.time("aggregate", f"f64_max{suffix}", lambda: pc.max(c("f64")))
        timer.time("aggregate", f"i64_sum{suffix}", lambda: pc.sum(c("i64")))
        timer.time("aggregate", f"i64_min{suffix}", lambda: pc.min(c("i64")))
        timer.time("aggregate", f"i32_sum{suffix}", lambda: pc.sum(c("i32")))
        timer.time("aggregate", f"utf8_max{suffix}", lambda: pc.max(c("utf8")))
        timer.time("aggregate", f"bool_any{suffix}", lambda: pc.any(c("bool_late")))
        for kind in ["i64", "f64", "utf8"]:
            timer.time("sort", f"{kind}_sort{suffix}", lambda: pc.sort_indices(c(kind)))
            timer.time("sort", f"{kind}_top10{suffix}", lambda: pc.bottom_k_unstable(c(kind), 10))
        for kind in ["utf8", "utf8view"]:
            timer.time("string", f"{kind}_like_contains{suffix}", lambda: pc.match_like(c(kind), "%d 12%"))
            timer.time("string", f"{kind}_starts_with{suffix}", lambda: pc.starts_with(c(kind), "word 1"))
            timer.time("string", f"{kind}_like_general{suffix}", lambda: pc.match_like(c(kind), "word _2%"))
        timer.time("string", f"utf8_substring{suffix}",
                   lambda: pc.utf8_slice_codeunits(c("utf8"), 2, 5))
        timer.time("string", f"utf8_octet_length{suffix}", lambda: pc.binary_length(c("utf8")))
        pair = pa.record_batch([c("utf8"), c("i64")], names=["text", "number"])
        timer.time("sort", f"lexsort_utf8_i64{suffix}", lambda: pc.sort_indices(
            pair, sort_keys=[("text", "ascending"), ("number", "ascending")]))
    timer.time("cmp", "is_null", lambda: pc.is_null(col("i32_nulls")))
    numbers = col("i64_nulls")
    digits = pc.cast(numbers, pa.string())
    rows = len(numbers)

    def stamp(i: int) -> str:
        seconds = 1_600_000_000 + i * 7919
        days, rest = divmod(seconds, 86_400)
        year, day = 2020 + days // 365 % 10, days % 365
        return (f"{year}-{1 + day // 31 % 12:02}-{1 + day % 28:02}"
                f"T{rest // 3600:02}:{rest // 60 % 60:02}:{rest % 60:02}")

    stamps = pa.array([stamp(i) for i in range(rows)], pa.string())
    timer.time("cast", "i64_to_f64", lambda: pc.cast(numbers, pa.float64()))
    timer.time("cast", "i64_to_utf8", lambda: pc.cast(numbers, pa.string()))
    timer.time("cast", "utf8_to_i64", lambda: pc.cast(digits, pa.int64()))
    timer.time("cast", "utf8_to_timestamp", lambda: pc.cast(stamps, pa.timestamp("us")))
    timer.time("cast", "dictionary_to_utf8", lambda: pc.cast(col("dictionary"), pa.string()))
    # Issue 51's kernels: the `conditional` rows (arrow-rs is their peer in Rust) and the
    # `compute_alone` rows arrow-rs has no kernel for, the same operation in pyarrow.compute.
    # pyarrow's `extract` fields are int64, as Alkaid's; its `concat_elements` is
    # `binary_join_element_wise` with an empty separator (null if any input is null).
    mask = col("bool")
    for kind, other in [("i32", "i32_nulls"), ("f64", "f64_nulls"), ("utf8", "utf8b"),
                        ("utf8view", "utf8view_nulls")]:
        timer.time("conditional", f"{kind}_if_else",
                   lambda: pc.if_else(mask, col(kind), col(other)))
    timer.time("conditional", "i32_if_else_scalar",
               lambda: pc.if_else(mask, col("i32"), pa.scalar(0, pa.int32())))
    timer.time("conditional", "utf8_concat_elements", lambda: pc.binary_join_element_wise(
        col("utf8_nulls"), col("utf8b_nulls"), "", null_handling="emit_null"))
    micros = pc.cast(col("i64_nulls"), pa.timestamp("us"))
    for zone, label in [(None, "utc"), ("+05:30", "offset")]:
        stamps = micros if zone is None else pc.cast(micros, pa.timestamp("us", tz=zone))
        for part in ["hour", "day", "year", "minute"]:
            timer.time("conditional", f"timestamp_{label}_{part}",
                       lambda: getattr(pc, part)(stamps))
    a, b = col("i32_nulls"), col("i32")
    timer.time("compute_alone", "i32_coalesce", lambda: pc.coalesce(a, b))
    timer.time("compute_alone", "i32_fill_null_scalar",
               lambda: pc.fill_null(a, pa.scalar(0, pa.int32())))
    timer.time("compute_alone", "i32_fill_null_forward", lambda: pc.fill_null_forward(a))
    wanted = pa.array([i * 7919 for i in range(100)], pa.int64())
    timer.time("compute_alone", "i64_is_in_100",
               lambda: pc.is_in(col("i64_nulls"), value_set=wanted))
    words = pa.array([f"word {i}" for i in range(100)], pa.string())
    timer.time("compute_alone", "utf8_is_in_100",
               lambda: pc.is_in(col("utf8_nulls"), value_set=words))
    f = col("f64_nulls")
    timer.time("compute_alone", "f64_sqrt", lambda: pc.sqrt(f))
    timer.time("compute_alone", "f64_round_2",
               lambda: pc.round(f, ndigits=2, round_mode="half_to_even"))
    timer.time("compute_alone", "decimal128_round_0",
               lambda: pc.round(col("decimal128_nulls"), ndigits=0, round_mode="half_to_even"))
    u = col("utf8_nulls")
    timer.time("compute_alone", "utf8_replace",
               lambda: pc.replace_substring(u, pattern="word", replacement="w"))
    timer.time("compute_alone", "utf8_lpad_12", lambda: pc.utf8_lpad(u, width=12, padding=" "))
    timer.time("compute_alone", "f64_variance", lambda: pc.variance(f, ddof=1))
    timer.time("compute_alone", "f64_median",
               lambda: pc.quantile(f, q=0.5, interpolation="linear"))
    timer.time("compute_alone", "i64_approx_count_distinct",
               lambda: pc.count_distinct(col("i64_nulls")))


def formats(timer: Timer, data: pathlib.Path) -> None:
    """Parquet read and written, CSV read: the `formats` bench's bytes, one thread."""
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    parquet = pa.py_buffer((data / "formats_input.parquet").read_bytes())
    batch = read_file(data / "formats_input.arrow")
    table = pa.Table.from_batches([batch])

    def parquet_read():
        return pq.read_table(pa.BufferReader(parquet), use_threads=False).num_rows

    def parquet_write():
        sink = pa.BufferOutputStream()
        # As alkaid-formats writes by default: zstd level 3, dictionaries, page statistics
        # (with the page index, which pyarrow leaves out unless asked).
        pq.write_table(table, sink, compression="zstd", compression_level=3,
                       write_page_index=True)
        return sink.getvalue().size

    timer.time("formats", "parquet_read", parquet_read)
    timer.time("formats", "parquet_write", parquet_write)
    text = pa.py_buffer((data / "formats_input.csv").read_bytes())
    flat = pa.schema([table.schema.field(i) for i in range(4)])
    convert = pcsv.ConvertOptions(column_types=flat)

    def csv_read():
        options = pcsv.ReadOptions(use_threads=False)
        return pcsv.read_csv(pa.BufferReader(text), read_options=options,
                             convert_options=convert).num_rows

    timer.time("formats", "csv_read", csv_read)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="target/bench-data", type=pathlib.Path)
    parser.add_argument("--out", default="target/criterion-pyarrow/results.json",
                        type=pathlib.Path)
    parser.add_argument("filter", nargs="?", default="")
    args = parser.parse_args()
    timer = Timer(args.filter, samples=10)
    # Each part runs on the inputs its Rust bench binary wrote; a part whose inputs are
    # missing is skipped, naming the binary to run first.
    parts = [(ipc, "ipc_file_4096Ki.arrow", "ipc"), (select, "select_inputs.arrow", "select"),
             (flight, "ipc_file_4096Ki.arrow", "ipc"), (compute, "compute_inputs.arrow", "compute"),
             (formats, "formats_input.parquet", "formats")]
    ran = 0
    for part, needs, bench in parts:
        if (args.data / needs).exists():
            part(timer, args.data)
            ran += 1
        else:
            print(f"{part.__name__}: skipped, {args.data / needs} is missing: run "
                  f"`cargo bench -p alkaid-benches --bench {bench}` first", file=sys.stderr)
    if ran == 0:
        sys.exit(f"{args.data} holds no benchmark inputs")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    info = {"pyarrow": pa.__version__, "pool": pa.default_memory_pool().backend_name,
            "cpu_count": pa.cpu_count()}
    # A filtered run replaces only the figures it measured.
    measured = {(r["group"], r["id"]) for r in timer.results}
    kept = []
    if args.out.exists():
        kept = [r for r in json.loads(args.out.read_text())["results"]
                if (r["group"], r["id"]) not in measured]
    results = kept + timer.results
    args.out.write_text(json.dumps({"info": info, "results": results}, indent=1) + "\n")
    print(f"{len(timer.results)} figures written to {args.out} ({len(kept)} kept from before)")


if __name__ == "__main__":
    main()
