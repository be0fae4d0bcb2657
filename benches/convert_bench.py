#!/usr/bin/env python3
"""`alkaid convert` of a stream to a file beside pyarrow's read-and-write loop, as a user
runs them: wall time and peak resident memory of each process.

The input is a one-batch IPC stream of 4 Mi rows shaped like the `ipc` bench's batch
(integers with nulls, floats, booleans, strings, a list, a dictionary, a struct; about
270 MB), written once by pyarrow into `--data`. Each run converts it to a file on the same
disk (page cache), uncompressed and with LZ4:

- alkaid: `alkaid convert IN OUT --to file [--compression lz4]`, the whole process timed;
- pyarrow: a Python process that imports pyarrow, then times its own loop
  (`open_stream` over an `OSFile`, `new_file`, `write_batch` per batch), so Python's start
  and imports are left out of pyarrow's time but not of its memory;
- floor: `cp` of the input file to the output path, the bytes moved by the kernel alone.

Outputs go to /dev/shm where there is one (`--out` to choose): the page cache without
disk writeback, whose throttling made runs to a disk file differ by 3x from one to the
next on the benchmark machine. Runs alternate; the minimum of N is reported, with peak
memory as the kernel's high-water mark of each process (`ru_maxrss`; the mapped input
counts in Alkaid's).

usage: python3 benches/convert_bench.py [--bin target/release/alkaid] [--data target/bench-data] [--runs 5]
"""
import argparse
import pathlib
import resource
import subprocess
import sys
import time

ROWS = 4 << 20

PYARROW_LOOP = r'''
import sys, time, resource
import pyarrow as pa
src, dst, codec = sys.argv[1], sys.argv[2], sys.argv[3]
options = pa.ipc.IpcWriteOptions(compression=None if codec == "none" else codec)
started = time.perf_counter()
with pa.OSFile(src, "rb") as f:
    reader = pa.ipc.open_stream(f)
    with pa.OSFile(dst, "wb") as out:
        with pa.ipc.new_file(out, reader.schema, options=options) as writer:
            for batch in reader:
                writer.write_batch(batch)
print(time.perf_counter() - started)
'''


def make_input(path: pathlib.Path) -> None:
    import numpy as np
    import pyarrow as pa

    rng = np.random.default_rng(42)
    n = ROWS
    ints = pa.array(rng.integers(0, 1 << 40, n), mask=(np.arange(n) % 7 == 0))
    floats = pa.array(rng.integers(0, 1_000_000, n) / 7.0)
    flags = pa.array(rng.integers(0, 2, n) == 0)
    numbers = rng.integers(0, 1 << 30, n)
    repeat = rng.integers(1, 3, n)
    words = pa.array([f"w{v}" * r for v, r in zip(numbers.tolist(), repeat.tolist())])
    lengths = rng.integers(0, 4, n)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    values = np.arange(offsets[-1], dtype=np.int32) - np.repeat(offsets[:-1], lengths)
    lists = pa.ListArray.from_arrays(pa.array(offsets), pa.array(values, pa.int32()))
    keys = pa.array(rng.integers(0, 1000, n).astype(np.int32))
    dictionary = pa.DictionaryArray.from_arrays(keys, pa.array([f"category {i}" for i in range(1000)]))
    struct = pa.StructArray.from_arrays([pa.array(rng.integers(0, 100, n).astype(np.int32)), floats],
                                        ["a", "b"])
    batch = pa.record_batch([ints, floats, flags, words, lists, dictionary, struct],
                            ["ints", "floats", "flags", "words", "lists", "dict", "struct"])
    tmp = path.with_suffix(".tmp")
    with pa.OSFile(str(tmp), "wb") as out, pa.ipc.new_stream(out, batch.schema) as writer:
        writer.write_batch(batch)
    tmp.rename(path)


def run(command) -> tuple[float, float, str]:
    """The command's wall time, its peak resident MB and its standard output, measured by
    a wrapper process of its own (the children's high-water mark is per process), so that
    neither this script's memory nor the wrapper's start is counted."""
    wrapper = [sys.executable, "-c",
               "import resource, subprocess, sys, time\n"
               "started = time.perf_counter()\n"
               "out = subprocess.run(sys.argv[1:], check=True, capture_output=True, text=True).stdout\n"
               "print(time.perf_counter() - started)\n"
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
               "print(out, end='')", *command]
    out = subprocess.run(wrapper, check=True, capture_output=True, text=True).stdout
    seconds, peak_kib, rest = out.split("\n", 2)
    return float(seconds), int(peak_kib) / 1024, rest


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default="target/release/alkaid")
    parser.add_argument("--data", default="target/bench-data", type=pathlib.Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=pathlib.Path, default=None,
                        help="where outputs go (default: /dev/shm where there is one, else --data)")
    args = parser.parse_args()
    args.data.mkdir(parents=True, exist_ok=True)
    source = args.data / "convert_input.arrows"
    if not source.exists():
        make_input(source)
    shm = pathlib.Path("/dev/shm")
    out_dir = args.out or (shm if shm.is_dir() else args.data)
    out = out_dir / "alkaid_convert_bench_output.arrow"
    print(f"input: {source} ({source.stat().st_size / 1e6:.0f} MB, one batch of {ROWS} rows); "
          f"output in {out_dir}")
    for codec in ["none", "lz4"]:
        results = {"alkaid": [], "pyarrow": [], "floor (cp)": []}
        for _ in range(args.runs):
            flags = [] if codec == "none" else ["--compression", codec]
            seconds, peak, _ = run([args.bin, "convert", str(source), str(out), "--to", "file", *flags])
            results["alkaid"].append((seconds, peak))
            out.unlink()
            _, peak, printed = run([sys.executable, "-c", PYARROW_LOOP, str(source), str(out), codec])
            results["pyarrow"].append((float(printed.strip()), peak))
            out.unlink()
            if codec == "none":
                seconds, peak, _ = run(["cp", str(source), str(out)])
                results["floor (cp)"].append((seconds, peak))
                out.unlink()
        print(f"stream to file, compression {codec} (min of {args.runs}, alternating):")
        best = {}
        for name, values in results.items():
            if values:
                best[name] = min(values)
                print(f"  {name:12} {best[name][0] * 1000:7.0f} ms   peak {min(p for _, p in values):5.0f} MB")
        print(f"  pyarrow / alkaid: {best['pyarrow'][0] / best['alkaid'][0]:.2f}")


if __name__ == "__main__":
    sys.exit(main())
