//! `alkaid.compute`: alkaid-compute's kernels from Python, over arrays, chunked arrays
//! and scalars, named as `pyarrow.compute` names them (with the short names beside:
//! `lower`, `contains`, `like`, `length`). An argument is an Alkaid array, chunked array
//! or scalar, any array producer, a numpy array, a list of values, or one Python value
//! (a scalar). A chunked argument gives a chunked answer, computed chunk by chunk beside
//! a scalar and on the joined values beside another column. Errors are
//! `alkaid.ComputeError`, an `AlkaidError` that names the row that failed.

use std::sync::Arc;

use alkaid_array::{Array, ArrayRef, Scalar};
use alkaid_compute::{CastOptions, DatePart, SortOptions, ValueSet};
use alkaid_schema::{DataType, Field};
use pyo3::create_exception;
use pyo3::prelude::*;

use crate::array::{PyArray, array_from};
use crate::chunked::PyChunkedArray;
use crate::datatype::data_type_of;
use crate::error::AlkaidError;
use crate::promote::common_type;
use crate::scalar::PyScalar;

create_exception!(
    alkaid,
    ComputeError,
    AlkaidError,
    "A kernel refused its input or failed on a row (the message names it)."
);

/// `error` as an `alkaid.ComputeError`.
fn failed(error: impl std::fmt::Display) -> PyErr {
    ComputeError::new_err(error.to_string())
}

/// An argument of a kernel.
enum Input {
    Array(ArrayRef),
    Chunked(PyChunkedArray),
    Scalar(Scalar),
}

impl Input {
    /// The argument `object` stands for.
    fn of(py: Python<'_>, object: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Ok(array) = object.cast::<PyArray>() {
            return Ok(Self::Array(array.get().array.clone()));
        }
        if let Ok(chunked) = object.cast::<PyChunkedArray>() {
            return Ok(Self::Chunked(chunked.get().clone()));
        }
        if let Ok(scalar) = object.cast::<PyScalar>() {
            return Ok(Self::Scalar(scalar.get().0.clone()));
        }
        let sequence = object.hasattr("__arrow_c_array__")?
            || crate::numpy::is_ndarray(object)?
            || object.is_instance_of::<pyo3::types::PyList>()
            || object.is_instance_of::<pyo3::types::PyTuple>();
        if sequence {
            return Ok(Self::Array(array_from(py, object, None)?.array));
        }
        // One Python value: the scalar of the type pyarrow infers for it.
        let one = pyo3::types::PyList::new(py, [object])?;
        let array = array_from(py, one.as_any(), None)?.array;
        Ok(Self::Scalar(Scalar::try_new(array).map_err(failed)?))
    }

    /// The argument as one array (a chunked one joined); `None` for a scalar.
    fn joined(&self) -> PyResult<Option<ArrayRef>> {
        match self {
            Self::Array(array) => Ok(Some(array.clone())),
            Self::Chunked(chunked) => chunked.combined().map(Some),
            Self::Scalar(_) => Ok(None),
        }
    }

    /// The argument's type.
    fn data_type(&self) -> &DataType {
        match self {
            Self::Array(array) => array.data_type(),
            Self::Chunked(chunked) => chunked.field.data_type(),
            Self::Scalar(scalar) => scalar.data_type(),
        }
    }

    /// The argument cast to `to` (strictly: a value that does not fit is an error).
    fn cast_to(self, to: &DataType) -> PyResult<Self> {
        if self.data_type() == to {
            return Ok(self);
        }
        let cast = |array: &ArrayRef| {
            alkaid_compute::cast(array.as_ref(), to, CastOptions::STRICT).map_err(failed)
        };
        Ok(match self {
            Self::Array(array) => Self::Array(cast(&array)?),
            Self::Scalar(scalar) => {
                Self::Scalar(Scalar::try_new(cast(scalar.array())?).map_err(failed)?)
            }
            Self::Chunked(chunked) => {
                let chunks = chunked
                    .chunks
                    .iter()
                    .map(cast)
                    .collect::<PyResult<Vec<_>>>()?;
                let field = chunked.field.clone().with_data_type(to.clone());
                Self::Chunked(PyChunkedArray { field, chunks })
            }
        })
    }

    /// The array of a unary kernel's argument.
    fn array(&self, kernel: &str) -> PyResult<ArrayRef> {
        self.joined()?
            .ok_or_else(|| failed(format!("{kernel} takes an array, not a scalar")))
    }
}

/// What a kernel gives back to Python: an array, or a chunked array when an argument was
/// one, or a scalar.
fn answer(py: Python<'_>, array: ArrayRef, chunked: bool) -> PyResult<Py<PyAny>> {
    Ok(match chunked {
        true => {
            let field = Field::new("", array.data_type().clone(), true);
            PyChunkedArray {
                field,
                chunks: vec![array],
            }
            .into_pyobject(py)?
            .into_any()
            .unbind()
        }
        false => PyArray::from(array).into_pyobject(py)?.into_any().unbind(),
    })
}

/// `kernel` of one argument, chunk by chunk for a chunked one.
fn unary(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    kernel: impl Fn(&dyn Array) -> Result<ArrayRef, alkaid_compute::ComputeError>,
) -> PyResult<Py<PyAny>> {
    match Input::of(py, value)? {
        Input::Chunked(chunked) => {
            let chunks = chunked
                .chunks
                .iter()
                .map(|c| kernel(c.as_ref()).map_err(failed))
                .collect::<PyResult<Vec<_>>>()?;
            let data_type = match chunks.first() {
                Some(first) => first.data_type().clone(),
                // No chunk to learn the answer's type from: of an empty one.
                None => kernel(chunked.combined()?.as_ref())
                    .map_err(failed)?
                    .data_type()
                    .clone(),
            };
            let field = Field::new("", data_type, true);
            Ok(PyChunkedArray { field, chunks }
                .into_pyobject(py)?
                .into_any()
                .unbind())
        }
        Input::Array(array) => answer(py, kernel(array.as_ref()).map_err(failed)?, false),
        Input::Scalar(scalar) => {
            let one = kernel(scalar.array().as_ref()).map_err(failed)?;
            Ok(PyScalar(Scalar::try_new(one).map_err(failed)?)
                .into_pyobject(py)?
                .into_any()
                .unbind())
        }
    }
}

/// `kernel` of two arguments, arrays or scalars.
fn binary(
    py: Python<'_>,
    left: &Bound<'_, PyAny>,
    right: &Bound<'_, PyAny>,
    kernel: impl Fn(
        &dyn alkaid_array::Datum,
        &dyn alkaid_array::Datum,
    ) -> Result<ArrayRef, alkaid_compute::ComputeError>,
) -> PyResult<Py<PyAny>> {
    let (left, right) = (Input::of(py, left)?, Input::of(py, right)?);
    let (left, right) = match common_type(left.data_type(), right.data_type()) {
        Some(common) => (left.cast_to(&common)?, right.cast_to(&common)?),
        None => (left, right),
    };
    let chunked = matches!(left, Input::Chunked(_)) || matches!(right, Input::Chunked(_));
    let result = match (&left, &right) {
        (Input::Scalar(a), Input::Scalar(b)) => {
            let one = kernel(a, b).map_err(failed)?;
            let scalar = Scalar::try_new(one).map_err(failed)?;
            return Ok(PyScalar(scalar).into_pyobject(py)?.into_any().unbind());
        }
        (Input::Scalar(a), _) => kernel(a, &right.joined()?.expect("an array")),
        (_, Input::Scalar(b)) => kernel(&left.joined()?.expect("an array"), b),
        _ => kernel(
            &left.joined()?.expect("an array"),
            &right.joined()?.expect("an array"),
        ),
    };
    answer(py, result.map_err(failed)?, chunked)
}

/// A boolean kernel's answer as an array reference.
fn boolean(
    result: Result<alkaid_array::BooleanArray, alkaid_compute::ComputeError>,
) -> Result<ArrayRef, alkaid_compute::ComputeError> {
    result.map(|array| Arc::new(array) as ArrayRef)
}

/// An aggregate of an argument's values, as a scalar.
fn aggregate(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    name: &str,
    kernel: impl Fn(&dyn Array) -> Result<Scalar, alkaid_compute::ComputeError>,
) -> PyResult<PyScalar> {
    let array = Input::of(py, value)?.array(name)?;
    kernel(array.as_ref()).map(PyScalar).map_err(failed)
}

macro_rules! binary_kernels {
    ($($(#[$doc:meta])* $name:ident => |$l:ident, $r:ident| $body:expr;)*) => {$(
        $(#[$doc])*
        #[pyfunction]
        pub fn $name(py: Python<'_>, left: &Bound<'_, PyAny>, right: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
            binary(py, left, right, |$l, $r| $body)
        }
    )*};
}

binary_kernels! {
    /// `left == right`, row by row; null where either is null.
    equal => |l, r| boolean(alkaid_compute::eq(l, r));
    /// `left != right`.
    not_equal => |l, r| boolean(alkaid_compute::neq(l, r));
    /// `left < right`.
    less => |l, r| boolean(alkaid_compute::lt(l, r));
    /// `left <= right`.
    less_equal => |l, r| boolean(alkaid_compute::lt_eq(l, r));
    /// `left > right`.
    greater => |l, r| boolean(alkaid_compute::gt(l, r));
    /// `left >= right`.
    greater_equal => |l, r| boolean(alkaid_compute::gt_eq(l, r));
    /// `left + right`; an overflow is an error naming its row.
    add => |l, r| alkaid_compute::add(l, r);
    /// `left - right`; an overflow is an error naming its row.
    subtract => |l, r| alkaid_compute::sub(l, r);
    /// `left * right`; an overflow is an error naming its row.
    multiply => |l, r| alkaid_compute::mul(l, r);
    /// `left / right`; division by zero is an error naming its row.
    divide => |l, r| alkaid_compute::div(l, r);
    /// `left + right`, wrapping on overflow.
    add_wrapping => |l, r| alkaid_compute::add_wrapping(l, r);
    /// `left - right`, wrapping on overflow.
    subtract_wrapping => |l, r| alkaid_compute::sub_wrapping(l, r);
    /// `left * right`, wrapping on overflow.
    multiply_wrapping => |l, r| alkaid_compute::mul_wrapping(l, r);
    /// Both true; null where either is null.
    and_ => |l, r| boolean(alkaid_compute::and(l, r));
    /// Either true; null where either is null.
    or_ => |l, r| boolean(alkaid_compute::or(l, r));
    /// Both true, in Kleene logic (false and null is false).
    and_kleene => |l, r| boolean(alkaid_compute::and_kleene(l, r));
    /// Either true, in Kleene logic (true or null is true).
    or_kleene => |l, r| boolean(alkaid_compute::or_kleene(l, r));
    /// Exactly one true.
    xor => |l, r| boolean(alkaid_compute::xor(l, r));
}

macro_rules! unary_kernels {
    ($($(#[$doc:meta])* $name:ident => |$v:ident| $body:expr;)*) => {$(
        $(#[$doc])*
        #[pyfunction]
        pub fn $name(py: Python<'_>, values: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
            unary(py, values, |$v| $body)
        }
    )*};
}

unary_kernels! {
    /// Not, row by row.
    invert => |v| boolean(alkaid_compute::not(v));
    /// Whether each value is null.
    is_null => |v| boolean(alkaid_compute::is_null(v));
    /// Whether each value is not null.
    is_valid => |v| boolean(alkaid_compute::is_not_null(v));
    /// Text in lower case (Unicode).
    utf8_lower => |v| alkaid_compute::lower(v);
    /// Text in upper case (Unicode).
    utf8_upper => |v| alkaid_compute::upper(v);
    /// The number of characters of each text.
    utf8_length => |v| alkaid_compute::length(v);
    /// The distinct values, in order of first appearance.
    unique => |v| alkaid_compute::unique(v);
    /// The distinct values and how often each appears: a struct of `values` and
    /// `counts`.
    value_counts => |v| alkaid_compute::value_counts(v).map(|s| Arc::new(s) as ArrayRef);
    /// The calendar year of each date or timestamp (in its zone).
    year => |v| alkaid_compute::extract(v, DatePart::Year);
    /// The quarter (1 to 4).
    quarter => |v| alkaid_compute::extract(v, DatePart::Quarter);
    /// The month (1 to 12).
    month => |v| alkaid_compute::extract(v, DatePart::Month);
    /// The day of the month.
    day => |v| alkaid_compute::extract(v, DatePart::Day);
    /// The day of the year (1 to 366).
    day_of_year => |v| alkaid_compute::extract(v, DatePart::DayOfYear);
    /// The hour (0 to 23).
    hour => |v| alkaid_compute::extract(v, DatePart::Hour);
    /// The minute (0 to 59).
    minute => |v| alkaid_compute::extract(v, DatePart::Minute);
    /// The second (0 to 59).
    second => |v| alkaid_compute::extract(v, DatePart::Second);
    /// The day of the week, Monday 0 to Sunday 6.
    day_of_week => |v| alkaid_compute::extract(v, DatePart::DayOfWeek);
    /// The ISO 8601 week (1 to 53).
    iso_week => |v| alkaid_compute::extract(v, DatePart::IsoWeek);
    /// The year the ISO week belongs to.
    iso_year => |v| alkaid_compute::extract(v, DatePart::IsoYear);
    /// The millisecond within the second (0 to 999).
    millisecond => |v| alkaid_compute::extract(v, DatePart::Millisecond);
    /// The microsecond within the millisecond (0 to 999).
    microsecond => |v| alkaid_compute::extract(v, DatePart::Microsecond);
    /// The nanosecond within the microsecond (0 to 999).
    nanosecond => |v| alkaid_compute::extract(v, DatePart::Nanosecond);
}

/// Whether each text contains `pattern`.
#[pyfunction]
pub fn match_substring(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    pattern: &str,
) -> PyResult<Py<PyAny>> {
    unary(py, values, |v| {
        boolean(alkaid_compute::contains(v, pattern))
    })
}

/// Whether each text matches the SQL `LIKE` pattern (`%`, `_`).
#[pyfunction]
pub fn match_like(py: Python<'_>, values: &Bound<'_, PyAny>, pattern: &str) -> PyResult<Py<PyAny>> {
    unary(py, values, |v| boolean(alkaid_compute::like(v, pattern)))
}

/// Whether each text starts with `pattern`.
#[pyfunction]
pub fn starts_with(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    pattern: &str,
) -> PyResult<Py<PyAny>> {
    unary(py, values, |v| {
        boolean(alkaid_compute::starts_with(v, pattern))
    })
}

/// Each text with every occurrence of `pattern` (at most the first `max_replacements` in
/// each, when given) replaced by `replacement`, left to right, not overlapping. An empty
/// pattern leaves the values as they are (pyarrow's `replace_substring` inserts the
/// replacement between every byte instead).
#[pyfunction]
#[pyo3(signature = (values, pattern, replacement, max_replacements = None))]
pub fn replace_substring(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    pattern: &str,
    replacement: &str,
    max_replacements: Option<usize>,
) -> PyResult<Py<PyAny>> {
    let most = max_replacements.unwrap_or(usize::MAX);
    unary(py, values, |v| {
        alkaid_compute::string::replace_at_most(v, pattern, replacement, most)
    })
}

/// The values cast to `target_type` (an `alkaid.DataType`, its text, or a pyarrow type):
/// with `safe` a value that does not convert is an error naming its row, else null.
#[pyfunction]
#[pyo3(signature = (values, target_type, safe = true))]
pub fn cast(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    target_type: &Bound<'_, PyAny>,
    safe: bool,
) -> PyResult<Py<PyAny>> {
    let to = data_type_of(target_type)?;
    let options = if safe {
        CastOptions::STRICT
    } else {
        CastOptions::SAFE
    };
    unary(py, values, |v| alkaid_compute::cast(v, &to, options))
}

/// The positions that sort the values: `order` "ascending" or "descending", nulls
/// `null_placement` "at_end" or "at_start"; ties keep their order.
#[pyfunction]
#[pyo3(signature = (values, order = "ascending", null_placement = "at_end"))]
pub fn sort_indices(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    order: &str,
    null_placement: &str,
) -> PyResult<PyArray> {
    let descending = match order {
        "ascending" => false,
        "descending" => true,
        other => return Err(failed(format!("order {other:?}: ascending or descending"))),
    };
    let nulls_first = match null_placement {
        "at_end" => false,
        "at_start" => true,
        other => {
            return Err(failed(format!(
                "null_placement {other:?}: at_end or at_start"
            )));
        }
    };
    let array = Input::of(py, values)?.array("sort_indices")?;
    let options = SortOptions {
        descending,
        nulls_first,
    };
    let indices = alkaid_compute::sort_to_indices(array.as_ref(), options, None).map_err(failed)?;
    let indices =
        alkaid_compute::cast(&indices, &DataType::UInt64, CastOptions::STRICT).map_err(failed)?;
    Ok(PyArray::from(indices))
}

/// `left` where `condition` is true, else `right` (each an array or a scalar); null where
/// the condition is.
#[pyfunction]
pub fn if_else(
    py: Python<'_>,
    condition: &Bound<'_, PyAny>,
    left: &Bound<'_, PyAny>,
    right: &Bound<'_, PyAny>,
) -> PyResult<PyArray> {
    let [condition, left, right] = [condition, left, right].map(|o| Input::of(py, o));
    let (condition, left, right) = (condition?, left?, right?);
    let (left, right) = match common_type(left.data_type(), right.data_type()) {
        Some(common) => (left.cast_to(&common)?, right.cast_to(&common)?),
        None => (left, right),
    };
    let datum = |input: &Input| -> PyResult<Box<dyn alkaid_array::Datum>> {
        Ok(match input {
            Input::Scalar(s) => Box::new(s.clone()),
            other => Box::new(other.joined()?.expect("an array")),
        })
    };
    let (c, l, r) = (datum(&condition)?, datum(&left)?, datum(&right)?);
    alkaid_compute::if_else(c.as_ref(), l.as_ref(), r.as_ref())
        .map(PyArray::from)
        .map_err(failed)
}

/// The values with each null replaced by `fill_value` (a scalar, or an array of the
/// same length).
#[pyfunction]
pub fn fill_null(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    fill_value: &Bound<'_, PyAny>,
) -> PyResult<PyArray> {
    let array = Input::of(py, values)?.array("fill_null")?;
    // The fill value takes the values' type, as pyarrow casts it (strictly).
    let filled = match Input::of(py, fill_value)?.cast_to(array.data_type())? {
        Input::Scalar(s) => alkaid_compute::fill_null(array.as_ref(), &s),
        other => alkaid_compute::fill_null(array.as_ref(), &other.joined()?.expect("an array")),
    };
    filled.map(PyArray::from).map_err(failed)
}

/// Whether each value is one of `value_set` (an array, or values), as pyarrow answers:
/// a null is one when the set holds a null, and the answer is never null (SQL's `IN`,
/// alkaid-compute's `is_in`, would be null there).
#[pyfunction]
pub fn is_in(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    value_set: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let set = Input::of(py, value_set)?.array("is_in's value_set")?;
    let holds_null = set.null_count() > 0;
    let present = alkaid_compute::is_not_null(set.as_ref()).map_err(failed)?;
    let set = alkaid_select::filter(set.as_ref(), &present).map_err(failed)?;
    let set = ValueSet::new(set.as_ref()).map_err(failed)?;
    let null_answer = Scalar::from(holds_null);
    unary(py, values, |v| {
        let found = alkaid_compute::is_in(v, &set)?;
        alkaid_compute::fill_null(&found, &null_answer)
    })
}

macro_rules! aggregates {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[pyfunction]
        pub fn $name(py: Python<'_>, values: &Bound<'_, PyAny>) -> PyResult<PyScalar> {
            aggregate(py, values, stringify!($name), |v| alkaid_compute::$name(v))
        }
    )*};
}

aggregates! {
    /// The sum of the values that are not null (null if there are none); an overflow is
    /// an error.
    sum;
    /// The mean of the values that are not null, as a float.
    mean;
    /// The smallest value.
    min;
    /// The largest value.
    max;
    /// The number of values that are not null.
    count;
    /// The number of distinct values that are not null.
    count_distinct;
}

/// The submodule `alkaid._alkaid.compute`.
pub fn module(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    let m = PyModule::new(py, "compute")?;
    m.setattr(
        "__doc__",
        "alkaid-compute's kernels over arrays, chunked arrays and scalars.",
    )?;
    m.add("ComputeError", py.get_type::<ComputeError>())?;
    macro_rules! add {
        ($($f:ident),*) => {$( m.add_function(wrap_pyfunction!($f, &m)?)?; )*};
    }
    add!(
        equal,
        not_equal,
        less,
        less_equal,
        greater,
        greater_equal,
        add,
        subtract,
        multiply,
        divide,
        add_wrapping,
        subtract_wrapping,
        multiply_wrapping,
        and_,
        or_,
        and_kleene,
        or_kleene,
        xor,
        invert,
        is_null,
        is_valid,
        utf8_lower,
        utf8_upper,
        utf8_length,
        unique,
        value_counts,
        year,
        quarter,
        month,
        day,
        day_of_year,
        hour,
        minute,
        second,
        day_of_week,
        iso_week,
        iso_year,
        millisecond,
        microsecond,
        nanosecond,
        match_substring,
        match_like,
        starts_with,
        replace_substring,
        cast,
        sort_indices,
        if_else,
        fill_null,
        is_in,
        sum,
        mean,
        min,
        max,
        count,
        count_distinct
    );
    Ok(m)
}
