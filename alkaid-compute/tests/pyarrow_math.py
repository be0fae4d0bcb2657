"""The pyarrow.compute half of the math differential test (tests/suite/math_pyarrow.rs).

Reads a JSON file of inputs (floats, integers, decimals as text with their precision and
scale) and writes to stdout, as JSON, each named result that the Rust test computes with
Alkaid. Floats that JSON cannot hold (NaN, the infinities) are written as Python's text
for them; decimals as their text.
"""

import json
import math
import sys
from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc

MODES = ["half_to_even", "half_up", "half_down", "half_towards_infinity"]


def cell(value):
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, Decimal):
        return str(value)
    return value


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        spec = json.load(f)
    floats = pa.array(spec["floats"], pa.float64())
    exponents = pa.array(spec["exponents"], pa.float64())
    ints = pa.array(spec["ints"], pa.int64())
    precision, scale = spec["decimal_type"]
    decimals = pa.array(
        [None if v is None else Decimal(v) for v in spec["decimals"]],
        pa.decimal128(precision, scale),
    )
    out = {}
    for name in ["sqrt", "exp", "ln", "log10", "log2", "sin", "cos", "tan", "asin", "acos", "atan"]:
        out[name] = getattr(pc, name)(floats)
    out["atan2"] = pc.atan2(floats, exponents)
    out["power"] = pc.power(floats, exponents)
    out["sign floats"] = pc.sign(floats)
    out["sign ints"] = pc.sign(ints)
    out["sign decimals"] = pc.sign(decimals)
    for kernel in ["ceil", "floor", "trunc"]:
        out[f"{kernel} floats"] = getattr(pc, kernel)(floats)
        out[f"{kernel} decimals"] = getattr(pc, kernel)(decimals)
    for mode in MODES:
        for digits in spec["digits"]:
            out[f"round floats {digits} {mode}"] = pc.round(floats, digits, mode)
            out[f"round decimals {digits} {mode}"] = pc.round(decimals, digits, mode)
            out[f"round ints {digits} {mode}"] = pc.round(ints, digits, mode)
    json.dump({k: [cell(v) for v in a.to_pylist()] for k, a in out.items()}, sys.stdout)


if __name__ == "__main__":
    main()
