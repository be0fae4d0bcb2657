#!/usr/bin/env python3
"""Turn the benchmarks' latest results into the tables of a run (benches/HISTORY.md keeps them;
benches/README.md keeps their ratios).

Inputs (each optional but the first):
- criterion's results with the system allocator (`target/criterion`);
- criterion's results with mimalloc (`target/criterion-mimalloc`, from
  `CRITERION_HOME=target/criterion-mimalloc cargo bench -p alkaid-benches --features mimalloc`);
- pyarrow's figures (`target/criterion-pyarrow/results.json`, from `pyarrow_bench.py`).

Every Rust benchmark id is `group/impl/parameter`, with impl `alkaid` or `arrow` for the
compared rows and anything else (`memcpy`, `alone`) for floors. The first table pairs the
libraries; its ratio columns are the faster peer's time over Alkaid's (above 1: Alkaid is
faster), one per allocator. Against arrow-rs the ratio is the paired one that
`alkaid_benches::VersusGroup::versus` records under `paired/` (both libraries timed in
alternation, so both saw the same machine); against pyarrow, which runs in another process
at another moment, it is the ratio of the fastest samples.

Each figure is the fastest of its samples (time per iteration), not the median: the
benchmark machines are shared virtual machines where other tenants add noise of 10-20% in
either direction, and the fastest sample is the figure least disturbed by it.

usage: python3 benches/report.py [--system DIR] [--mimalloc DIR] [--pyarrow FILE]
                                 [--groups G,G,...]

With `--groups`, only those groups' rows, and after the table the compute issues' target
figures: against arrow-rs alone, the geometric mean of Alkaid's time over arrow-rs's and the
slowest row, per allocator.
"""
import argparse
import json
import math
import pathlib

Figures = dict[tuple[str, str], dict[str, float]]


def fmt(ns: float | None) -> str:
    """Three significant digits in the largest unit that keeps the number at least 1."""
    if ns is None:
        return "–"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3), ("ns", 1.0)):
        if ns >= scale or unit == "ns":
            value = ns / scale
            decimals = 0 if value >= 100 else 1 if value >= 10 else 2
            return f"{value:.{decimals}f} {unit}"
    raise AssertionError("unreachable")


def criterion(root: pathlib.Path) -> tuple[Figures, dict[tuple[str, str], float]]:
    """The fastest sample of every figure by (group, case) and impl, and the paired ratios."""
    rows: Figures = {}
    for sample_file in sorted(root.glob("*/*/*/new/sample.json")):
        bench = json.loads((sample_file.parent / "benchmark.json").read_text())
        group, impl, param = bench["group_id"], bench["function_id"], bench["value_str"]
        sample = json.loads(sample_file.read_text())
        fastest = min(t / n for t, n in zip(sample["times"], sample["iters"]))
        rows.setdefault((group, param), {})[impl] = fastest
    paired = {}
    for paired_file in sorted(root.glob("paired/*/*.json")):
        record = json.loads(paired_file.read_text())
        paired[(record["group"], record["id"])] = record["arrow_ns"] / record["alkaid_ns"]
    return rows, paired


def peer_ratio(key, times, paired, python) -> float | None:
    """The faster peer's time over Alkaid's, or None without Alkaid or any peer."""
    ours = times.get("alkaid")
    if ours is None:
        return None
    ratios = []
    if "arrow" in times:
        ratios.append(paired.get(key, times["arrow"] / ours))
    if key in python:
        ratios.append(python[key] / ours)
    return min(ratios) if ratios else None


def summary(label: str, ratios: list[float]) -> str:
    if not ratios:
        return f"- {label}: no rows"
    geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    behind = sum(r < 1.0 for r in ratios)
    return (f"- {label}: {len(ratios)} rows, geometric mean {geomean:.2f}×, "
            f"{behind} below 1.00×, lowest {min(ratios):.2f}×")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", default="target/criterion", type=pathlib.Path)
    parser.add_argument("--mimalloc", default="target/criterion-mimalloc", type=pathlib.Path)
    parser.add_argument("--pyarrow", default="target/criterion-pyarrow/results.json",
                        type=pathlib.Path)
    parser.add_argument("--groups", default="", help="comma-separated groups to show")
    args = parser.parse_args()
    groups = set(filter(None, args.groups.split(",")))
    system, system_paired = criterion(args.system)
    mimalloc, mimalloc_paired = criterion(args.mimalloc) if args.mimalloc.exists() else ({}, {})
    python = {}
    if args.pyarrow.exists():
        for r in json.loads(args.pyarrow.read_text())["results"]:
            python[(r["group"], r["id"])] = r["fastest_ns"]

    print("| group | case | Alkaid | arrow-rs | pyarrow | peer / Alkaid "
          "| Alkaid, mimalloc | arrow-rs, mimalloc | peer / Alkaid, mimalloc |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    system_ratios, mimalloc_ratios = [], []
    keys = sorted(k for k in set(system) | set(mimalloc)
                  if ("alkaid" in system.get(k, {}) or "alkaid" in mimalloc.get(k, {}))
                  and (not groups or k[0] in groups))
    for key in keys:
        plain, mi = system.get(key, {}), mimalloc.get(key, {})
        r_plain = peer_ratio(key, plain, system_paired, python)
        r_mi = peer_ratio(key, mi, mimalloc_paired, python)
        if r_plain is None and r_mi is None:
            continue
        if r_plain is not None:
            system_ratios.append(r_plain)
        if r_mi is not None:
            mimalloc_ratios.append(r_mi)
        ratio = lambda r: "–" if r is None else f"{r:.2f}×"
        print(f"| {key[0]} | {key[1]} | {fmt(plain.get('alkaid'))} | {fmt(plain.get('arrow'))} "
              f"| {fmt(python.get(key))} | {ratio(r_plain)} | {fmt(mi.get('alkaid'))} "
              f"| {fmt(mi.get('arrow'))} | {ratio(r_mi)} |")
    print()
    print(summary("system allocator", system_ratios))
    print(summary("mimalloc", mimalloc_ratios))
    if groups:
        for label, figures, paired in (("system allocator", system, system_paired),
                                       ("mimalloc", mimalloc, mimalloc_paired)):
            # Alkaid's time over arrow-rs's (below 1: Alkaid is faster), paired.
            times = {k: 1 / paired.get(k, f["arrow"] / f["alkaid"]) for k, f in figures.items()
                     if k in keys and "alkaid" in f and "arrow" in f}
            if times:
                geomean = math.exp(sum(map(math.log, times.values())) / len(times))
                slowest = max(times, key=times.get)
                print(f"- against arrow-rs alone, {label}: {len(times)} rows, Alkaid/arrow-rs "
                      f"time geometric mean {geomean:.2f}, slowest {times[slowest]:.2f} "
                      f"({slowest[0]}/{slowest[1]})")

    # Floors are the figures of any other impl, beside a compared row or on their own.
    floors = sorted((key, impl) for figures in (system, mimalloc) for key, times in figures.items()
                    for impl in times if impl not in ("alkaid", "arrow"))
    if floors:
        print()
        print("| floor | case | system allocator | mimalloc |")
        print("| --- | --- | ---: | ---: |")
        for key, impl in dict.fromkeys(floors):
            plain, mi = system.get(key, {}), mimalloc.get(key, {})
            print(f"| {key[0]} {impl} | {key[1]} | {fmt(plain.get(impl))} | {fmt(mi.get(impl))} |")

if __name__ == "__main__":
    main()
