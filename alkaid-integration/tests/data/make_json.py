"""Writes integration JSON files and pyarrow's IPC files of the same data.

Run from anywhere: python3 make_json.py (needs pyarrow). For each group of types it builds a
pyarrow table, writes it with pyarrow as NAME.arrow_file, and writes NAME.json with the
encoder below: a second, independent reading of Arrow's "JSON test data format" (Python
here, Rust in alkaid-integration), so that the Rust tests compare two implementations and
pyarrow's own bytes. The files are small and committed.
"""

import decimal
import json
import os

import pyarrow as pa
import pyarrow.ipc as ipc

HERE = os.path.dirname(os.path.abspath(__file__))
decimal.getcontext().prec = 100

UNITS = {"s": "SECOND", "ms": "MILLISECOND", "us": "MICROSECOND", "ns": "NANOSECOND"}


def type_json(t):
    if pa.types.is_null(t):
        return {"name": "null"}
    if pa.types.is_boolean(t):
        return {"name": "bool"}
    if pa.types.is_integer(t):
        return {"name": "int", "bitWidth": t.bit_width, "isSigned": pa.types.is_signed_integer(t)}
    if pa.types.is_floating(t):
        return {"name": "floatingpoint",
                "precision": {16: "HALF", 32: "SINGLE", 64: "DOUBLE"}[t.bit_width]}
    if pa.types.is_decimal(t):
        return {"name": "decimal", "precision": t.precision, "scale": t.scale,
                "bitWidth": t.bit_width}
    if pa.types.is_date32(t):
        return {"name": "date", "unit": "DAY"}
    if pa.types.is_date64(t):
        return {"name": "date", "unit": "MILLISECOND"}
    if pa.types.is_time(t):
        return {"name": "time", "unit": UNITS[t.unit], "bitWidth": t.bit_width}
    if pa.types.is_timestamp(t):
        out = {"name": "timestamp", "unit": UNITS[t.unit]}
        if t.tz is not None:
            out["timezone"] = t.tz
        return out
    if pa.types.is_duration(t):
        return {"name": "duration", "unit": UNITS[t.unit]}
    if t == pa.month_day_nano_interval():
        return {"name": "interval", "unit": "MONTH_DAY_NANO"}
    if pa.types.is_fixed_size_binary(t):
        return {"name": "fixedsizebinary", "byteWidth": t.byte_width}
    simple = [(pa.types.is_binary, "binary"), (pa.types.is_string, "utf8"),
              (pa.types.is_large_binary, "largebinary"), (pa.types.is_large_string, "largeutf8"),
              (pa.types.is_binary_view, "binaryview"), (pa.types.is_string_view, "utf8view"),
              (pa.types.is_large_list, "largelist"), (pa.types.is_list_view, "listview"),
              (pa.types.is_large_list_view, "largelistview"), (pa.types.is_struct, "struct"),
              (pa.types.is_run_end_encoded, "runendencoded")]
    if pa.types.is_map(t):
        return {"name": "map", "keysSorted": t.keys_sorted}
    if pa.types.is_fixed_size_list(t):
        return {"name": "fixedsizelist", "listSize": t.list_size}
    if pa.types.is_list(t):
        return {"name": "list"}
    for test, name in simple:
        if test(t):
            return {"name": name}
    if pa.types.is_union(t):
        return {"name": "union", "mode": t.mode.upper(), "typeIds": list(t.type_codes)}
    raise TypeError(t)


def children_of(t):
    if pa.types.is_map(t):
        entries = pa.struct([pa.field(t.key_field.name, t.key_type, False), t.item_field])
        return [pa.field("entries", entries, False)]
    if pa.types.is_run_end_encoded(t):
        return [pa.field("run_ends", t.run_end_type, False), pa.field("values", t.value_type)]
    if hasattr(t, "value_field"):
        return [t.value_field]
    if pa.types.is_struct(t) or pa.types.is_union(t):
        return [t.field(i) for i in range(t.num_fields)]
    return []


def metadata_json(metadata):
    return [{"key": k.decode(), "value": v.decode()} for k, v in (metadata or {}).items()]


def field_json(f, ids):
    t = f.type
    out = {"name": f.name, "nullable": f.nullable}
    if pa.types.is_dictionary(t):
        dict_id = len(ids)
        ids.append(t)
        out["type"] = type_json(t.value_type)
        out["children"] = [field_json(c, ids) for c in children_of(t.value_type)]
        out["dictionary"] = {"id": dict_id, "indexType": type_json(t.index_type),
                             "isOrdered": t.ordered}
    else:
        out["type"] = type_json(t)
        out["children"] = [field_json(c, ids) for c in children_of(t)]
    if f.metadata:
        out["metadata"] = metadata_json(f.metadata)
    return out


def wide(t):
    return (pa.types.is_integer(t) and t.bit_width == 64) or pa.types.is_date64(t) or \
        pa.types.is_timestamp(t) or pa.types.is_duration(t) or \
        (pa.types.is_time(t) and t.bit_width == 64)


def scalar_json(t, v):
    if pa.types.is_boolean(t):
        return int(bool(v))
    if pa.types.is_floating(t):
        return float(v)
    if pa.types.is_decimal(t):
        return str(int(v.scaleb(t.scale))) if v is not None else "0"
    if pa.types.is_fixed_size_binary(t) or pa.types.is_binary(t) or \
            pa.types.is_large_binary(t):
        return (v or b"").hex().upper()
    if t == pa.month_day_nano_interval():
        return {"months": v.months, "days": v.days, "nanoseconds": str(v.nanoseconds)}
    return str(v) if wide(t) else v


def raw_values(arr):
    """Slot values as integers for temporal types (no Python datetime conversion)."""
    t = arr.type
    if pa.types.is_date(t) or pa.types.is_time(t) or pa.types.is_timestamp(t) or \
            pa.types.is_duration(t):
        storage = pa.int32() if t.bit_width == 32 else pa.int64()
        return arr.view(storage).to_pylist()
    return arr.to_pylist()


def column_json(name, arr, ids_by_type, dictionaries):
    t = arr.type
    n = len(arr)
    out = {"name": name, "count": n}
    has_validity = not (pa.types.is_null(t) or pa.types.is_union(t) or
                        pa.types.is_run_end_encoded(t))
    if has_validity:
        out["VALIDITY"] = [int(v) for v in arr.is_valid().to_pylist()]
    if pa.types.is_null(t):
        return out
    if pa.types.is_dictionary(t):
        dict_id = ids_by_type.index(t)
        out["DATA"] = [scalar_json(t.index_type, v or 0) for v in arr.indices.to_pylist()]
        if dict_id not in dictionaries:
            dictionaries[dict_id] = None  # reserve before nested dictionaries
            values = column_json("DICT%d" % dict_id, arr.dictionary, ids_by_type, dictionaries)
            dictionaries[dict_id] = {"id": dict_id,
                                     "data": {"count": len(arr.dictionary), "columns": [values]}}
        return out
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) or \
            pa.types.is_large_binary(t):
        values = arr.to_pylist()
        data = [scalar_json(t, v) if not pa.types.is_string(t) and not
                pa.types.is_large_string(t) else (v or "") for v in values]
        lengths = [len((v or "").encode()) if isinstance(v or "", str) else len(v or b"")
                   for v in values]
        offsets = [0]
        for length in lengths:
            offsets.append(offsets[-1] + length)
        large = pa.types.is_large_string(t) or pa.types.is_large_binary(t)
        out["OFFSET"] = [str(o) for o in offsets] if large else offsets
        out["DATA"] = data
        return out
    if pa.types.is_binary_view(t) or pa.types.is_string_view(t):
        views, buffers = [], []
        for v in arr.to_pylist():
            raw = (v.encode() if isinstance(v, str) else v) if v is not None else b""
            view = {"SIZE": len(raw)}
            if len(raw) <= 12:
                view["INLINED"] = raw.decode() if pa.types.is_string_view(t) else raw.hex().upper()
            else:
                view["PREFIX_HEX"] = raw[:4].hex().upper()
                view["BUFFER_INDEX"] = 0
                view["OFFSET"] = sum(len(b) for b in buffers)
                buffers.append(raw)
            views.append(view)
        out["VIEWS"] = views
        out["VARIADIC_DATA_BUFFERS"] = [b"".join(buffers).hex().upper()] if buffers else []
        return out
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_map(t):
        offsets = arr.offsets.to_pylist()
        rebased = [o - offsets[0] for o in offsets]
        out["OFFSET"] = [str(o) for o in rebased] if pa.types.is_large_list(t) else rebased
        child = arr.values.slice(offsets[0], offsets[-1] - offsets[0])
        if pa.types.is_map(t):
            child = pa.StructArray.from_arrays([arr.keys, arr.items],
                                               fields=[children_of(t)[0].type.field(0),
                                                       children_of(t)[0].type.field(1)])
        out["children"] = [column_json(children_of(t)[0].name, child, ids_by_type, dictionaries)]
        return out
    if pa.types.is_list_view(t) or pa.types.is_large_list_view(t):
        large = pa.types.is_large_list_view(t)
        out["OFFSET"] = [str(o) if large else o for o in arr.offsets.to_pylist()]
        out["SIZE"] = [str(s) if large else s for s in arr.sizes.to_pylist()]
        out["children"] = [column_json(t.value_field.name, arr.values, ids_by_type, dictionaries)]
        return out
    if pa.types.is_fixed_size_list(t):
        out["children"] = [column_json(t.value_field.name, arr.flatten() if arr.null_count == 0
                                       else arr.values.slice(arr.offset * t.list_size,
                                                             n * t.list_size),
                                       ids_by_type, dictionaries)]
        return out
    if pa.types.is_struct(t):
        out["children"] = [column_json(t.field(i).name, arr.field(i), ids_by_type, dictionaries)
                           for i in range(t.num_fields)]
        return out
    if pa.types.is_union(t):
        out["TYPE_ID"] = arr.type_codes.to_pylist()
        if t.mode == "dense":
            out["OFFSET"] = arr.offsets.to_pylist()
        out["children"] = [column_json(t.field(i).name, arr.field(i), ids_by_type, dictionaries)
                           for i in range(t.num_fields)]
        return out
    if pa.types.is_run_end_encoded(t):
        out["children"] = [column_json("run_ends", arr.run_ends, ids_by_type, dictionaries),
                           column_json("values", arr.values, ids_by_type, dictionaries)]
        return out
    out["DATA"] = [scalar_json(t, v if v is not None else zero(t)) for v in raw_values(arr)]
    return out


def zero(t):
    if pa.types.is_decimal(t):
        return decimal.Decimal(0)
    if pa.types.is_fixed_size_binary(t):
        return bytes(t.byte_width)
    if t == pa.month_day_nano_interval():
        return pa.MonthDayNano([0, 0, 0])
    if pa.types.is_floating(t):
        return 0.0
    return 0


def write(name, table):
    ids = []
    fields = [field_json(f, ids) for f in table.schema]
    schema = {"fields": fields}
    if table.schema.metadata:
        schema["metadata"] = metadata_json(table.schema.metadata)
    dictionaries = {}
    batches = []
    for batch in table.to_batches():
        columns = [column_json(f.name, batch.column(i), ids, dictionaries)
                   for i, f in enumerate(table.schema)]
        batches.append({"count": batch.num_rows, "columns": columns})
    doc = {"schema": schema, "batches": batches}
    if dictionaries:
        doc["dictionaries"] = [dictionaries[k] for k in sorted(dictionaries)]
    with open(os.path.join(HERE, name + ".json"), "w") as f:
        json.dump(doc, f, indent=1)
    with ipc.new_file(os.path.join(HERE, name + ".arrow_file"), table.schema) as w:
        for batch in table.to_batches():
            w.write_batch(batch)


def nulled(values, every=3):
    return [None if i % every == 1 else v for i, v in enumerate(values)]


def tables():
    r = range(7)
    yield "primitive", pa.table({
        "null": pa.nulls(7),
        "bool": pa.array(nulled([i % 2 == 0 for i in r])),
        "int8": pa.array(nulled([i * 30 - 100 for i in r]), pa.int8()),
        "int16": pa.array(nulled([i * 9000 - 30000 for i in r]), pa.int16()),
        "int32": pa.array(nulled([i * 10**9 // 3 - 2 * 10**9 for i in r]), pa.int32()),
        "int64": pa.array(nulled([i * 3 * 10**18 - 9 * 10**18 for i in r]), pa.int64()),
        "uint8": pa.array(nulled([i * 40 for i in r]), pa.uint8()),
        "uint16": pa.array(nulled([i * 10000 for i in r]), pa.uint16()),
        "uint32": pa.array(nulled([i * 7 * 10**8 for i in r]), pa.uint32()),
        "uint64": pa.array(nulled([i * 3 * 10**18 for i in r]), pa.uint64()),
        "float16": pa.array(nulled([i * 0.5 - 1 for i in r]), pa.float32()).cast(pa.float16()),
        "float32": pa.array(nulled([i * 1.25 - 3 for i in r]), pa.float32()),
        "float64": pa.array(nulled([i / 8 - 0.375 for i in r]), pa.float64()),
    }, metadata={"group": "primitive"})
    yield "decimal", pa.table({
        "d32": pa.array(nulled([decimal.Decimal(i * 111 - 300).scaleb(-2) for i in r]),
                        pa.decimal32(6, 2)),
        "d64": pa.array(nulled([decimal.Decimal(i * 10**12 - 1).scaleb(-3) for i in r]),
                        pa.decimal64(16, 3)),
        "d128": pa.array(nulled([decimal.Decimal(i * 10**30 - 7).scaleb(-5) for i in r]),
                         pa.decimal128(38, 5)),
        "d256": pa.array(nulled([decimal.Decimal(-i * 10**60 + 3).scaleb(-10) for i in r]),
                         pa.decimal256(76, 10)),
    })
    yield "temporal", pa.table({
        "date32": pa.array(nulled([18000 + i for i in r]), pa.int32()).cast(pa.date32()),
        "date64": pa.array(nulled([(18000 + i) * 86400000 for i in r]), pa.int64())
        .cast(pa.date64()),
        "time32s": pa.array(nulled([i * 3000 for i in r]), pa.int32()).cast(pa.time32("s")),
        "time32ms": pa.array(nulled([i * 3000000 for i in r]), pa.int32())
        .cast(pa.time32("ms")),
        "time64us": pa.array(nulled([i * 10**9 for i in r]), pa.int64()).cast(pa.time64("us")),
        "time64ns": pa.array(nulled([i * 10**13 for i in r]), pa.int64()).cast(pa.time64("ns")),
        "ts_ns": pa.array(nulled([i * 10**17 - 3 for i in r]), pa.int64())
        .cast(pa.timestamp("ns")),
        "ts_s_tz": pa.array(nulled([i * 10**8 for i in r]), pa.int64())
        .cast(pa.timestamp("s", "Europe/Paris")),
        "dur_s": pa.array(nulled([i * -10**10 for i in r]), pa.int64()).cast(pa.duration("s")),
        "dur_ms": pa.array(nulled([i * -10**10 for i in r]), pa.int64())
        .cast(pa.duration("ms")),
        "dur_us": pa.array(nulled([i * 10**12 for i in r]), pa.int64()).cast(pa.duration("us")),
        "dur_ns": pa.array(nulled([i * 7 for i in r]), pa.int64()).cast(pa.duration("ns")),
        "ts_ms": pa.array(nulled([i * 10**12 for i in r]), pa.int64())
        .cast(pa.timestamp("ms", "UTC")),
        "ts_us": pa.array(nulled([-i * 10**12 for i in r]), pa.int64())
        .cast(pa.timestamp("us")),
        "interval_mdn": pa.array(nulled([pa.MonthDayNano([i, -i, i * 10**15]) for i in r]),
                                 pa.month_day_nano_interval()),
    })
    words = ["", "a", "hé", "longer than twelve bytes", "ü" * 7, "x", "tail"]
    yield "binary", pa.table({
        "utf8": pa.array(nulled(words), pa.utf8()),
        "large_utf8": pa.array(nulled(words), pa.large_utf8()),
        "binary": pa.array(nulled([w.encode() + bytes([i]) for i, w in enumerate(words)]),
                           pa.binary()),
        "large_binary": pa.array(nulled([bytes([i] * i) for i in r]), pa.large_binary()),
        "fixed": pa.array(nulled([bytes([i, 255 - i, 7]) for i in r]), pa.binary(3)),
        "utf8_view": pa.array(nulled(words), pa.string_view()),
        "binary_view": pa.array(nulled([w.encode() for w in words]), pa.binary_view()),
    })
    ints = pa.array(nulled(list(range(20)), 5), pa.int32())
    offsets = pa.array([0, 2, 2, 5, 9, 9, 14, 20], pa.int32())
    yield "nested", pa.table({
        "list": pa.ListArray.from_arrays(offsets, ints,
                                         mask=pa.array([False, True, False, False, False,
                                                        False, False])),
        "large_list": pa.LargeListArray.from_arrays(offsets.cast(pa.int64()), ints),
        "fixed_list": pa.FixedSizeListArray.from_arrays(pa.array(range(14), pa.int16()), 2),
        "list_view": pa.ListViewArray.from_arrays(pa.array([0, 5, 2, 0, 9, 1, 3], pa.int32()),
                                                  pa.array([2, 0, 3, 1, 4, 2, 0], pa.int32()),
                                                  ints),
        "large_list_view": pa.LargeListViewArray.from_arrays(
            pa.array([0, 5, 2, 0, 9, 1, 3], pa.int64()), pa.array([2, 0, 3, 1, 4, 2, 0], pa.int64()),
            pa.array(words + words + words)),
        "struct": pa.StructArray.from_arrays(
            [pa.array(nulled(words)), pa.array(range(7), pa.int64())],
            fields=[pa.field("s", pa.utf8()), pa.field("n", pa.int64(), False)],
            mask=pa.array([False, False, True, False, False, False, False])),
        "map": pa.MapArray.from_arrays(pa.array([0, 1, 1, 3, 4, 4, 6, 7], pa.int32()),
                                       pa.array(["a", "b", "c", "d", "e", "f", "g"]),
                                       pa.array(nulled(list(range(7))), pa.int16())),
        "list_of_struct": pa.ListArray.from_arrays(
            pa.array([0, 1, 3, 3, 4, 6, 6, 7], pa.int32()),
            pa.StructArray.from_arrays([pa.array(range(7), pa.int8())], names=["v"])),
    })
    yield "union", pa.table({
        "sparse": pa.UnionArray.from_sparse(pa.array([0, 1, 0, 1, 1, 0, 0], pa.int8()),
                                            [pa.array(nulled(list(range(7))), pa.int32()),
                                             pa.array(words)]),
        "dense": pa.UnionArray.from_dense(pa.array([5, 9, 5, 5, 9, 9, 5], pa.int8()),
                                          pa.array([0, 0, 1, 2, 1, 2, 3], pa.int32()),
                                          [pa.array([1.5, None, 2.5, 3.5]),
                                           pa.array(["p", None, "r"])],
                                          field_names=["f", "s"], type_codes=[5, 9]),
    })
    yield "dictionary", pa.table({
        "words": pa.DictionaryArray.from_arrays(pa.array(nulled([0, 1, 2, 0, 1, 2, 2]),
                                                         pa.int8()),
                                                pa.array(["x", "y", "z"])),
        "ordered": pa.DictionaryArray.from_arrays(pa.array([3, 2, 1, 0, 3, 2, 1], pa.uint32()),
                                                  pa.array([10, 20, 30, 40], pa.int64()),
                                                  ordered=True),
        "list_of_dict": pa.ListArray.from_arrays(
            pa.array([0, 2, 3, 3, 5, 6, 7, 8], pa.int32()),
            pa.DictionaryArray.from_arrays(pa.array([0, 1, 1, 0, 1, 0, 0, 1], pa.int16()),
                                           pa.array(["on", "off"]))),
    })
    yield "run_end_encoded", pa.table({
        "ree": pa.RunEndEncodedArray.from_arrays(pa.array([2, 3, 7], pa.int32()),
                                                 pa.array(["a", None, "c"])),
        "ree16": pa.RunEndEncodedArray.from_arrays(pa.array([7], pa.int16()),
                                                   pa.array([1.5], pa.float64())),
        "ree64": pa.RunEndEncodedArray.from_arrays(pa.array([1, 4, 5, 7], pa.int64()),
                                                   pa.array([True, False, None, True])),
    })
    uuid = pa.field("id", pa.binary(16), metadata={"ARROW:extension:name": "arrow.uuid",
                                                  "ARROW:extension:metadata": ""})
    yield "extension", pa.Table.from_arrays(
        [pa.array([bytes([i] * 16) for i in r], pa.binary(16))], schema=pa.schema([uuid]))
    yield "empty", pa.table({"x": pa.array([], pa.int32()), "s": pa.array([], pa.utf8())})


def main():
    for name, table in tables():
        write(name, table)


if __name__ == "__main__":
    main()
