#!/usr/bin/env python3
"""Turn criterion's latest results into the markdown table of benches/README.md.

Every benchmark id is `group/impl/parameter` with impl `alkaid` or `arrow`; the table pairs
the two and gives the ratio arrow-rs / Alkaid (above 1: Alkaid is faster).

Rows measured with `alkaid_benches::VersusGroup::versus` (select and ipc) take that ratio from the paired
runs it records under `criterion/paired/`: both libraries' total times over runs that
alternated one with the other, so that both saw the same machine at each moment. Other rows
divide the two fastest samples.

Each figure is the fastest of criterion's samples (time per iteration), not the median: the
benchmark machines are shared virtual machines where other tenants add noise of 10-20% in
either direction, and the fastest sample is the figure least disturbed by it. The median is
printed after it for reference.

usage: python3 benches/report.py [target/criterion]
"""
import json
import pathlib
import sys


def fmt(ns: float) -> str:
    """Three significant digits in the largest unit that keeps the number at least 1."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3), ("ns", 1.0)):
        if ns >= scale or unit == "ns":
            value = ns / scale
            decimals = 0 if value >= 100 else 1 if value >= 10 else 2
            return f"{value:.{decimals}f} {unit}"
    raise AssertionError("unreachable")


def main() -> None:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")
    rows: dict[tuple[str, str], dict[str, tuple[float, float]]] = {}
    for sample_file in sorted(root.glob("*/*/*/new/sample.json")):
        bench = json.loads((sample_file.parent / "benchmark.json").read_text())
        group, impl, param = bench["group_id"], bench["function_id"], bench["value_str"]
        if impl not in ("alkaid", "arrow"):
            continue
        sample = json.loads(sample_file.read_text())
        fastest = min(t / n for t, n in zip(sample["times"], sample["iters"]))
        estimates = json.loads((sample_file.parent / "estimates.json").read_text())
        rows.setdefault((group, param), {})[impl] = (fastest, estimates["median"]["point_estimate"])
    paired: dict[tuple[str, str], float] = {}
    for paired_file in sorted(root.glob("paired/*/*.json")):
        record = json.loads(paired_file.read_text())
        paired[(record["group"], record["id"])] = record["arrow_ns"] / record["alkaid_ns"]
    print("| group | case | Alkaid | arrow-rs | arrow-rs / Alkaid | medians |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for (group, param), times in sorted(rows.items()):
        ours, theirs = times.get("alkaid"), times.get("arrow")
        if not (ours and theirs):
            continue
        ratio = paired.get((group, param), theirs[0] / ours[0])
        print(f"| {group} | {param} | {fmt(ours[0])} | {fmt(theirs[0])} | "
              f"{ratio:.2f}× | {fmt(ours[1])} / {fmt(theirs[1])} |")


if __name__ == "__main__":
    main()
