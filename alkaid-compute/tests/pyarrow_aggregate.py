"""The pyarrow.compute half of the statistical aggregates' differential test
(tests/suite/aggregate_pyarrow.rs).

Reads a JSON file of inputs (float values, integer values and group ids) and writes to
stdout, as JSON, each named result: variance and standard deviation (both `ddof`s),
quantiles in every interpolation, first and last, over the whole columns and per group.
"""

import json
import sys

import pyarrow as pa
import pyarrow.compute as pc

INTERPOLATIONS = ["linear", "lower", "higher", "nearest", "midpoint"]


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        spec = json.load(f)
    floats = pa.array(spec["floats"], pa.float64())
    ints = pa.array(spec["ints"], pa.int64())
    out = {}
    for name, values in [("floats", floats), ("ints", ints)]:
        for ddof in (0, 1):
            out[f"variance {name} {ddof}"] = [pc.variance(values, ddof=ddof).as_py()]
            out[f"stddev {name} {ddof}"] = [pc.stddev(values, ddof=ddof).as_py()]
        for k, q in enumerate(spec["quantiles"]):
            for interpolation in INTERPOLATIONS:
                result = pc.quantile(values, q=q, interpolation=interpolation)
                out[f"quantile {name} {k} {interpolation}"] = [float(v) for v in result.to_pylist()]
        out[f"first {name}"] = [pc.first(values).as_py()]
        out[f"last {name}"] = [pc.last(values).as_py()]
        table = pa.table({"g": pa.array(spec["groups"], pa.int64()), "v": values})
        grouped = table.group_by("g", use_threads=False).aggregate(
            [
                ("v", "variance", pc.VarianceOptions(ddof=1)),
                ("v", "stddev", pc.VarianceOptions(ddof=0)),
                ("v", "first"),
                ("v", "last"),
            ]
        ).sort_by("g")
        out[f"groups {name}"] = grouped["g"].to_pylist()
        for column in ["v_variance", "v_stddev", "v_first", "v_last"]:
            out[f"{column} {name}"] = grouped[column].to_pylist()
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
