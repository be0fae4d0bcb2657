"""The pyarrow.compute half of the temporal differential test (tests/suite/temporal_pyarrow.rs).

Reads a JSON file of instants (microseconds since the epoch), zones and dates (days), and
writes to stdout, as JSON, each named result: every field by `pc.year` … `pc.nanosecond`,
`pc.floor_temporal` to each unit, in each zone.
"""

import json
import sys

import pyarrow as pa
import pyarrow.compute as pc

FIELDS = [
    "year", "quarter", "month", "day", "day_of_week", "day_of_year", "iso_week", "iso_year",
    "hour", "minute", "second", "millisecond", "microsecond", "nanosecond",
]
UNITS = ["year", "quarter", "month", "week", "day", "hour", "minute", "second", "millisecond"]


def floor(stamps, unit):
    """`floor_temporal` of each value as an integer; "ambiguous" where pyarrow refuses a
    local time that a daylight-saving change repeats (the whole array fails otherwise)."""
    out = []
    for i in range(len(stamps)):
        try:
            floored = pc.floor_temporal(stamps[i:i + 1], unit=unit, week_starts_monday=True)
            out.append(floored.cast(pa.int64()).to_pylist()[0])
        except pa.ArrowInvalid as error:
            out.append("ambiguous" if "ambiguous" in str(error) else str(error))
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        spec = json.load(f)
    out = {}
    for zone in spec["zones"]:
        stamps = pa.array(spec["micros"], pa.timestamp("us", zone or None))
        for field in FIELDS:
            out[f"{field} {zone}"] = getattr(pc, field)(stamps).to_pylist()
        for unit in UNITS:
            out[f"floor {unit} {zone}"] = floor(stamps, unit)
    days = pa.array(spec["days"], pa.date32())
    for field in FIELDS[:8]:
        out[f"{field} date"] = getattr(pc, field)(days).to_pylist()
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
