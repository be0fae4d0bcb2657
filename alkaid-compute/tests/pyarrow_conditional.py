"""The pyarrow.compute half of the conditional and membership differential test
(tests/suite/conditional_pyarrow.rs).

Reads a JSON file of inputs (a condition, three integer columns, a text column and value
sets) and writes to stdout, as JSON, each named result that the Rust test computes with
Alkaid.
"""

import json
import sys

import pyarrow as pa
import pyarrow.compute as pc


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        spec = json.load(f)
    cond = pa.array(spec["cond"], pa.bool_())
    a, b, c = (pa.array(spec[k], pa.int64()) for k in ("a", "b", "c"))
    text = pa.array(spec["text"], pa.string())
    out = {
        "if_else ints": pc.if_else(cond, a, b),
        "if_else text scalar": pc.if_else(cond, text, pa.scalar("-")),
        "coalesce ints": pc.coalesce(a, b, c),
        "coalesce text scalar": pc.coalesce(text, pa.scalar("?")),
        "fill_null ints": pc.fill_null(a, 0),
        "fill_null_forward ints": pc.fill_null_forward(a),
        "fill_null_backward text": pc.fill_null_backward(text),
    }
    for name, values, probe, kind in [
        ("ints", spec["int_set"], a, pa.int64()),
        ("ints with null", spec["int_set"] + [None], a, pa.int64()),
        ("text", spec["text_set"], text, pa.string()),
        ("text with null", spec["text_set"] + [None], text, pa.string()),
    ]:
        value_set = pa.array(values, kind)
        out[f"is_in {name}"] = pc.is_in(probe, value_set=value_set, skip_nulls=False)
        out[f"index_in {name}"] = pc.index_in(probe, value_set=value_set, skip_nulls=True)
    json.dump({name: array.to_pylist() for name, array in out.items()}, sys.stdout)


if __name__ == "__main__":
    main()
