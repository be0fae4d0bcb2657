"""Property tests against pyarrow (hypothesis): random columns of values of one random
shape, nested up to three deep (lists and structs of any leaf kind, nulls at every level),
built by both libraries and read back; random slices; random compute over random numbers.

Runs are derandomized (the same examples each run, so CI is repeatable); set
HYPOTHESIS_PROFILE=explore for fresh random examples and more of them."""

import datetime
import decimal
import os
import zoneinfo

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import alkaid
import alkaid.compute as ac

settings.register_profile(
    "ci", derandomize=True, database=None, deadline=None, max_examples=300,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile(
    "explore", database=None, deadline=None, max_examples=3000,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

PARIS = zoneinfo.ZoneInfo("Europe/Paris")

LEAVES = {
    "int": st.integers(-2**63, 2**63 - 1),
    "float": st.floats(allow_nan=False),
    "bool": st.booleans(),
    "text": st.text(max_size=8),
    "bytes": st.binary(max_size=8),
    "date": st.dates(),
    "time": st.times(),
    "datetime": st.datetimes(),
    "zoned": st.datetimes(min_value=datetime.datetime(1900, 1, 1),
                          max_value=datetime.datetime(2200, 1, 1),
                          timezones=st.just(PARIS)),
    "timedelta": st.timedeltas(min_value=datetime.timedelta(days=-10**6),
                               max_value=datetime.timedelta(days=10**6)),
    "decimal": st.decimals(min_value=-10**9, max_value=10**9, places=3,
                           allow_nan=False, allow_infinity=False),
}

# A column's shape: a leaf kind, ("list", shape) or ("struct", ((name, shape), ...)).
SHAPES = st.recursive(
    st.sampled_from(sorted(LEAVES)),
    lambda inner: st.one_of(
        st.tuples(st.just("list"), inner),
        st.tuples(st.just("struct"),
                  st.lists(st.tuples(st.sampled_from("abc"), inner), min_size=1, max_size=3,
                           unique_by=lambda field: field[0]).map(tuple))),
    max_leaves=3)


def depth(shape):
    if isinstance(shape, str):
        return 0
    if shape[0] == "list":
        return 1 + depth(shape[1])
    return 1 + max(depth(inner) for _, inner in shape[1])


def values_of(shape):
    """Values of `shape`, or None, at every level."""
    if isinstance(shape, str):
        made = LEAVES[shape]
    elif shape[0] == "list":
        made = st.lists(values_of(shape[1]), max_size=4)
    else:
        made = st.fixed_dictionaries({name: values_of(inner) for name, inner in shape[1]})
    return st.one_of(st.none(), made)


@given(st.data())
def test_random_nested_columns_build_and_read_back_as_pyarrows(data):
    shape = data.draw(SHAPES.filter(lambda s: depth(s) <= 3), label="shape")
    values = data.draw(st.lists(values_of(shape), max_size=20), label="values")
    theirs = pa.array(values)
    ours = alkaid.array(values)
    assert pa.array(ours).equals(theirs), (pa.array(ours), theirs)
    expected = theirs.to_pylist()
    assert ours.to_pylist() == expected
    assert alkaid.array(theirs).to_pylist() == expected
    # Built with the type pyarrow inferred, the same array.
    assert pa.array(alkaid.array(values, type=theirs.type)).equals(theirs)
    # Any slice, read back alone and slot by slot.
    start = data.draw(st.integers(0, len(values)), label="start")
    stop = data.draw(st.integers(start, len(values)), label="stop")
    assert ours[start:stop].to_pylist() == expected[start:stop]
    assert [ours[i].as_py() for i in range(start, stop)] == expected[start:stop]
    assert ours[start:stop] == alkaid.array(theirs[start:stop])


INTEGER_TYPES = [pa.int8(), pa.int16(), pa.int32(), pa.uint8(), pa.uint16(), pa.uint32(),
                 pa.uint64()]


@given(st.lists(st.one_of(st.none(), st.integers(-2**64, 2**64)), max_size=20),
       st.sampled_from(INTEGER_TYPES))
def test_integers_fit_a_type_asked_exactly_when_pyarrows_do(values, kind):
    try:
        theirs = pa.array(values, type=kind)
    except (pa.ArrowInvalid, OverflowError):
        theirs = None
    try:
        ours = alkaid.array(values, type=kind)
    except alkaid.AlkaidError:
        ours = None
    assert (ours is None) == (theirs is None), (values, kind)
    if ours is not None:
        assert pa.array(ours).equals(theirs)


# Numbers of one kind, at least one not null (pyarrow has no kernels for the null type).
NUMBERS = st.one_of(
    st.lists(st.one_of(st.none(), st.integers(-10**6, 10**6)), min_size=1, max_size=40),
    st.lists(st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False)), min_size=1,
             max_size=40)).filter(lambda vs: any(v is not None for v in vs))


@given(NUMBERS, st.data())
def test_random_compute_answers_as_pyarrow(values, data):
    theirs = pa.array(values)
    ours = alkaid.array(values)
    for name in ["min", "max", "count"]:
        assert getattr(ac, name)(ours).as_py() == getattr(pc, name)(theirs).as_py(), name
    # Floats are added in another order (both exact for integers): equal to rounding.
    scale = max(1.0, sum(abs(v) for v in values if v is not None))
    for name in ["sum", "mean"]:
        answer, expected = getattr(ac, name)(ours).as_py(), getattr(pc, name)(theirs).as_py()
        assert type(answer) is type(expected), name
        assert answer == expected or abs(answer - expected) <= 1e-12 * scale, name
    assert ac.count_distinct(ours).as_py() == pc.count_distinct(theirs).as_py()
    assert sorted(ac.unique(ours).to_pylist(), key=repr) == sorted(
        pc.unique(theirs).to_pylist(), key=repr)
    for order in ["ascending", "descending"]:
        assert ac.sort_indices(ours, order).to_pylist() == pc.sort_indices(
            theirs, sort_keys=[("", order)]).to_pylist(), order
    mask = data.draw(st.lists(st.one_of(st.none(), st.booleans()), min_size=len(values),
                              max_size=len(values)), label="mask")
    assert alkaid.filter(ours, alkaid.array(mask, type="Boolean")).to_pylist() == \
        theirs.filter(pa.array(mask, pa.bool_())).to_pylist()
    indices = data.draw(st.lists(st.integers(0, len(values) - 1), max_size=30), label="take")
    assert alkaid.take(ours, alkaid.array(indices, type="Int64")).to_pylist() == \
        theirs.take(pa.array(indices, pa.int64())).to_pylist()
    other = pa.array(data.draw(st.lists(st.one_of(st.none(), st.integers(-10**6, 10**6)),
                                        min_size=len(values), max_size=len(values))))
    for name in ["add", "subtract", "multiply", "less", "equal", "greater_equal"]:
        answer = getattr(ac, name)(ours, alkaid.array(other))
        assert pa.array(answer).to_pylist() == getattr(pc, name)(theirs, other).to_pylist(), name
    assert ac.is_null(ours).to_pylist() == pc.is_null(theirs).to_pylist()
    assert ac.fill_null(ours, 0).to_pylist() == pc.fill_null(theirs, 0).to_pylist()
