#!/usr/bin/env python3
"""Python values to arrays and back: `alkaid.array(list)` and `to_pylist()` against
pyarrow's `pa.array(list)` and `to_pylist()` (and arro3's, when `arro3-core` is
installed: `pip install arro3-core==0.9.1`), one thread, on the same values: 1 Mi ints (a tenth of them None) and 1 Mi
short strings; numpy's 1 Mi int64 both ways (`alkaid.array(ndarray)`, `to_numpy()`: no
copy either way, so microseconds); and three kernels on the same columns: `sum` of the
ints, `sort_indices` of the ints, and a string filter (the strings containing `"w12"`).
Each figure is the fastest of 5 runs; the ratio is Alkaid's time over the faster peer's
(below 1: Alkaid is faster).

Needs the `alkaid` module built in release (`maturin develop --release`, or the release
`libalkaid_python.so` copied beside the package's Python files as `.ci/run` does).
usage: python benches/python_values_bench.py
"""
import random
import time

import numpy as np
import pyarrow as pa

import alkaid
import alkaid.compute as ac
import pyarrow.compute as pc

try:
    import arro3.core as arro3
except ImportError:
    arro3 = None

ROWS = 1 << 20


def fastest(run, samples: int = 5) -> float:
    best = float("inf")
    for _ in range(samples):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    rng = random.Random(7)
    ints = [None if rng.random() < 0.1 else rng.randrange(-2**40, 2**40) for _ in range(ROWS)]
    words = [f"w{rng.randrange(100_000)}" for _ in range(ROWS)]
    pa.set_cpu_count(1)
    print(f"{'operation':<28}{'alkaid ms':>11}{'pyarrow ms':>12}{'arro3 ms':>10}{'ratio':>8}")
    for name, values in (("ints", ints), ("strings", words)):
        ours, theirs = alkaid.array(values), pa.array(values)
        assert ours.to_pylist() == theirs.to_pylist()
        third = arro3 and arro3.Array(theirs)
        # arro3 takes no list without its type: it is compared where the type is given.
        rows = {
            f"array(list of {name})": (lambda: alkaid.array(values), lambda: pa.array(values),
                                       None),
            f"array({name}, type given)": (
                lambda: alkaid.array(values, type=theirs.type),
                lambda: pa.array(values, type=theirs.type),
                arro3 and (lambda: arro3.Array(values, type=theirs.type))),
            f"to_pylist ({name})": (ours.to_pylist, theirs.to_pylist,
                                    arro3 and third.to_pylist),
        }
        for row, (alkaid_run, pyarrow_run, arro3_run) in rows.items():
            a, p = fastest(alkaid_run), fastest(pyarrow_run)
            r = fastest(arro3_run) if arro3_run else float("nan")
            best_peer = min(p, r) if arro3_run else p
            print(f"{row:<28}{a * 1e3:>11.1f}{p * 1e3:>12.1f}{r * 1e3:>10.1f}{a / best_peer:>8.2f}")
    numbers = np.arange(ROWS, dtype="int64")
    ours, theirs = alkaid.array(numbers), pa.array(numbers)
    for row, alkaid_run, pyarrow_run in (
        ("array(numpy int64)", lambda: alkaid.array(numbers), lambda: pa.array(numbers)),
        ("to_numpy (int64)", ours.to_numpy, theirs.to_numpy),
    ):
        a, p = fastest(alkaid_run), fastest(pyarrow_run)
        print(f"{row:<28}{a * 1e3:>11.3f}{p * 1e3:>12.3f}{'nan':>10}{a / p:>8.2f}")
    int_ours, int_theirs = alkaid.array(ints), pa.array(ints)
    word_ours, word_theirs = alkaid.array(words), pa.array(words)
    for row, alkaid_run, pyarrow_run in (
        ("sum (ints)", lambda: ac.sum(int_ours), lambda: pc.sum(int_theirs)),
        ("sort_indices (ints)", lambda: ac.sort_indices(int_ours),
         lambda: pc.sort_indices(int_theirs)),
        ("filter strings by contains",
         lambda: alkaid.filter(word_ours, ac.contains(word_ours, "w12")),
         lambda: word_theirs.filter(pc.match_substring(word_theirs, "w12"))),
    ):
        a, p = fastest(alkaid_run), fastest(pyarrow_run)
        print(f"{row:<28}{a * 1e3:>11.2f}{p * 1e3:>12.2f}{'nan':>10}{a / p:>8.2f}")


if __name__ == "__main__":
    main()
