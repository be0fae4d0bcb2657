"""The pyarrow.compute half of alkaid-compute's differential test (tests/suite/pyarrow_compute.rs).

Reads a JSON file of inputs (text values, integers, floats, days, seconds) and writes to
stdout, as JSON, each named result that the Rust test computes with Alkaid: string kernels
on the text, parses of each text value as each type (one value at a time, so that a value
that does not parse is a null rather than the whole array's error), and numbers and dates
written as text.
"""

import json
import math
import sys

import pyarrow as pa
import pyarrow.compute as pc


def parse_each(values, to, raw=None):
    out = []
    for value in values:
        if value is None:
            out.append(None)
            continue
        try:
            parsed = pc.cast(pa.array([value], pa.string()), to)
            if raw is not None:
                parsed = parsed.cast(raw)
            parsed = parsed.to_pylist()[0]
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            parsed = None
        out.append(parsed)
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        spec = json.load(f)
    text = pa.array(spec["text"], pa.string())
    out = {
        "length": pc.utf8_length(text),
        "octet_length": pc.binary_length(text),
        "lower": pc.utf8_lower(text),
        "upper": pc.utf8_upper(text),
        "trim": pc.utf8_trim(text, characters=" x"),
        "ltrim": pc.utf8_ltrim(text, characters=" x"),
        "rtrim": pc.utf8_rtrim(text, characters=" x"),
        "starts_with": pc.starts_with(text, pattern="wo"),
        "ends_with": pc.ends_with(text, pattern="é"),
        "contains": pc.match_substring(text, pattern="o"),
        "split": pc.split_pattern(text, pattern=" "),
        "regexp_is_match": pc.match_substring_regex(text, pattern=r"^[a-z]+ [0-9]$"),
        "replace": pc.replace_substring(text, pattern="o", replacement="0é"),
        "regexp_replace": pc.replace_substring_regex(text, pattern=r"[0-9]+|é", replacement="#"),
        "regexp_extract": pc.struct_field(
            pc.extract_regex(text, pattern=r"(?P<word>[a-zé]+) (?P<digit>[0-9])"), [0]
        ),
        "lpad": pc.utf8_lpad(text, width=6, padding="·"),
        "rpad": pc.utf8_rpad(text, width=6, padding="·"),
        "repeat": pc.binary_repeat(text, 3),
        "reverse": pc.utf8_reverse(text),
        "strpos": pc.find_substring(text, pattern="o"),
        "concat": pc.binary_join_element_wise(
            text, pc.utf8_upper(text), "", null_handling="replace", null_replacement=""
        ),
        "concat_ws": pc.binary_join_element_wise(
            text, pa.scalar("|"), text, "/", null_handling="skip"
        ),
    }
    for i, pattern in enumerate(spec["like"]):
        out[f"like {i}"] = pc.match_like(text, pattern=pattern)
        out[f"ilike {i}"] = pc.match_like(text, pattern=pattern, ignore_case=True)
    for start, length in spec["substring"]:
        stop = None if length is None else start + length
        out[f"substring {start} {length}"] = pc.utf8_slice_codeunits(text, start, stop)
    out = {name: array.to_pylist() for name, array in out.items()}

    types = {
        "int64": pa.int64(),
        "float64": pa.float64(),
        "bool": pa.bool_(),
        "date32": pa.date32(),
        "timestamp_s": pa.timestamp("s"),
        "timestamp_ms_utc": pa.timestamp("ms", "UTC"),
    }
    for name, to in types.items():
        if name.startswith("timestamp") or name == "date32":
            # Dates and timestamps as their stored integers: no text form to agree on.
            raw = pa.int32() if name == "date32" else pa.int64()
            parsed = parse_each(spec["text"], to, raw)
        else:
            parsed = parse_each(spec["text"], to)
        if name == "float64":
            # JSON has no NaN or infinities: those as Python writes them.
            parsed = [v if v is None or math.isfinite(v) else str(v) for v in parsed]
        out[f"parse {name}"] = parsed

    formats = {
        "int64": pa.array(spec["integers"], pa.int64()),
        "float64": pa.array(spec["floats"], pa.float64()),
        "date32": pa.array(spec["days"], pa.date32()),
        "timestamp_s_zoned": pa.array(spec["seconds"], pa.timestamp("s", "+05:30")),
        "bool": pa.array([None if v is None else v % 2 == 0 for v in spec["integers"]]),
    }
    for name, array in formats.items():
        out[f"format {name}"] = pc.cast(array, pa.string()).to_pylist()
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
