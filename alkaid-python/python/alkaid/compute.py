"""Kernels over arrays, chunked arrays and scalars, named as ``pyarrow.compute`` names
them, with short names beside (``lower``, ``upper``, ``length``, ``contains``,
``like``, ``replace``). Errors are ``ComputeError`` (an ``AlkaidError``) naming the row that failed."""

from ._alkaid import compute as _compute

ComputeError = _compute.ComputeError
equal = _compute.equal
not_equal = _compute.not_equal
less = _compute.less
less_equal = _compute.less_equal
greater = _compute.greater
greater_equal = _compute.greater_equal
add = _compute.add
subtract = _compute.subtract
multiply = _compute.multiply
divide = _compute.divide
add_wrapping = _compute.add_wrapping
subtract_wrapping = _compute.subtract_wrapping
multiply_wrapping = _compute.multiply_wrapping
and_ = _compute.and_
or_ = _compute.or_
and_kleene = _compute.and_kleene
or_kleene = _compute.or_kleene
xor = _compute.xor
invert = _compute.invert
is_null = _compute.is_null
is_valid = _compute.is_valid
utf8_lower = lower = _compute.utf8_lower
utf8_upper = upper = _compute.utf8_upper
utf8_length = length = _compute.utf8_length
match_substring = contains = _compute.match_substring
match_like = like = _compute.match_like
starts_with = _compute.starts_with
replace_substring = replace = _compute.replace_substring
unique = _compute.unique
value_counts = _compute.value_counts
year = _compute.year
quarter = _compute.quarter
month = _compute.month
day = _compute.day
day_of_year = _compute.day_of_year
hour = _compute.hour
minute = _compute.minute
second = _compute.second
day_of_week = _compute.day_of_week
iso_week = _compute.iso_week
iso_year = _compute.iso_year
millisecond = _compute.millisecond
microsecond = _compute.microsecond
nanosecond = _compute.nanosecond
cast = _compute.cast
sort_indices = _compute.sort_indices
if_else = _compute.if_else
fill_null = _compute.fill_null
is_in = _compute.is_in
sum = _compute.sum
mean = _compute.mean
min = _compute.min
max = _compute.max
count = _compute.count
count_distinct = _compute.count_distinct
