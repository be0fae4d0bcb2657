#!/usr/bin/env python3
"""Peak resident memory of IPC reads and writes: Alkaid, arrow-rs and pyarrow.

Each figure comes from a process of its own: the `peak_rss` binary of alkaid-benches for
the two Rust libraries, this script (`--child`) for pyarrow. A process takes its resident
size as the baseline, resets the kernel's high-water mark, does the one operation and
reports the mark; the table gives the growth over the baseline, in MiB.

- read: a stream of the IPC benchmark's batch cut into 64 batches of 64 Ki rows (written
  once by pyarrow, so all three read the same bytes) read through a file, each batch dropped
  before the next. A reader that holds one batch at a time grows by about one batch (4 MiB
  here) plus its dictionaries, not by the stream.
- write: the benchmark's 4 Mi-row batch, already in memory, written as one stream message
  to a file. Without compression a writer needs nothing beyond its output buffer; with it,
  the compressed body.
- parquet (`--parquet`): a Parquet file of over 1 GiB (the formats bench's 1 Mi-row batch
  repeated, uncompressed, no dictionaries, row groups of 1 Mi rows) read through a file in
  batches of 64 Ki and of 8 Ki rows, each dropped before the next; the table also gives the
  largest batch's size, since the target is a streaming read within 3 batches.

usage: python3 benches/peak_rss.py [--bin target/release/peak_rss] [--data target/bench-data]
(build the binary first: cargo build --release -p alkaid-benches --bin peak_rss)
"""
import argparse
import pathlib
import subprocess
import sys

CODECS = ["none", "lz4", "zstd"]


def status_kib(key: str) -> int:
    for line in pathlib.Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key):
            return int(line[len(key):].split()[0])
    raise KeyError(key)


def baseline() -> int:
    pathlib.Path("/proc/self/clear_refs").write_text("5")
    return status_kib("VmRSS:")


def child(args: list[str]) -> None:
    """One pyarrow measurement, printed as `baseline_kib peak_kib`."""
    import pyarrow as pa

    if args[0] == "parquet":
        import pyarrow.parquet as pq

        base = baseline()
        rows = sum(b.num_rows for b in pq.ParquetFile(args[1]).iter_batches(
            batch_size=int(args[2]), use_threads=False))
        assert rows > 0
        print(base, status_kib("VmHWM:"))
        return
    if args[0] == "read":
        base = baseline()
        with pa.OSFile(args[1]) as source:
            rows = sum(batch.num_rows for batch in pa.ipc.open_stream(source))
        assert rows > 0
    else:
        codec, path, out = args[1:]
        batch = pa.ipc.open_file(pa.py_buffer(pathlib.Path(path).read_bytes())).get_batch(0)
        compression = None if codec == "none" else codec
        options = pa.ipc.IpcWriteOptions(compression=compression)
        base = baseline()
        with pa.OSFile(out, "wb") as sink, pa.ipc.new_stream(sink, batch.schema,
                                                              options=options) as writer:
            writer.write_batch(batch)
    print(base, status_kib("VmHWM:"))


def measure(command: list[str]) -> float:
    """The growth over the baseline, in MiB."""
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    base, peak = map(int, out.split())
    return (peak - base) / 1024


def parquet(binary: str, data: pathlib.Path, me: list[str]) -> None:
    """Streaming reads of a Parquet file over 1 GiB."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = data / "peak_rss_1gib.parquet"
    if not path.exists() or path.stat().st_size < 1 << 30:
        batch = pa.ipc.open_file(pa.py_buffer((data / "formats_input.arrow").read_bytes())
                                 ).get_batch(0)
        with pq.ParquetWriter(str(path), batch.schema, compression="none",
                              use_dictionary=False) as writer:
            while path.stat().st_size < 1 << 30:
                writer.write_batch(batch, row_group_size=batch.num_rows)
    size = path.stat().st_size / (1 << 30)
    print(f"| Parquet read, {size:.2f} GiB | Alkaid | arrow-rs | pyarrow | largest batch |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for rows in [256 << 10, 64 << 10, 8 << 10]:
        figures, largest = [], 0
        for lib in ["alkaid", "arrow"]:
            out = subprocess.run([binary, "parquet", lib, str(path), str(rows)], check=True,
                                 capture_output=True, text=True).stdout
            base, peak, batch_kib = map(int, out.split())
            figures.append((peak - base) / 1024)
            largest = max(largest, batch_kib)
        figures.append(measure(me + ["parquet", str(path), str(rows)]))
        print(f"| batches of {rows >> 10} Ki rows | "
              + " | ".join(f"{f:.0f} MiB" for f in figures) + f" | {largest / 1024:.1f} MiB |")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return child(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="target/release/peak_rss")
    parser.add_argument("--data", default="target/bench-data", type=pathlib.Path)
    parser.add_argument("--parquet", action="store_true",
                        help="the Parquet reads only (needs the formats bench's inputs)")
    args = parser.parse_args()
    if args.parquet:
        return parquet(args.bin, args.data, [sys.executable, __file__, "--child"])
    import pyarrow as pa

    source = args.data / "ipc_file_4096Ki.arrow"
    batch = pa.ipc.open_file(pa.py_buffer(source.read_bytes())).get_batch(0)
    out = args.data / "peak_rss_out.arrows"
    me = [sys.executable, __file__, "--child"]
    print("| operation | Alkaid | arrow-rs | pyarrow |")
    print("| --- | ---: | ---: | ---: |")
    for codec in CODECS:
        stream = args.data / f"rss_stream_{codec}.arrows"
        options = pa.ipc.IpcWriteOptions(compression=None if codec == "none" else codec)
        with pa.OSFile(str(stream), "wb") as sink, pa.ipc.new_stream(sink, batch.schema,
                                                                      options=options) as w:
            for start in range(0, batch.num_rows, 64 << 10):
                w.write_batch(batch.slice(start, 64 << 10))
        figures = [measure([args.bin, "read", lib, str(stream)]) for lib in ["alkaid", "arrow"]]
        figures.append(measure(me + ["read", str(stream)]))
        print(f"| read, {codec}, 64 batches | " + " | ".join(f"{f:.0f} MiB" for f in figures) + " |")
    for codec in CODECS:
        figures = [measure([args.bin, "write", lib, codec, str(source), str(out)])
                   for lib in ["alkaid", "arrow"]]
        figures.append(measure(me + ["write", codec, str(source), str(out)]))
        print(f"| write, {codec}, 1 batch | " + " | ".join(f"{f:.0f} MiB" for f in figures) + " |")
    out.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
