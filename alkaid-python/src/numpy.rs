//! numpy arrays both ways through numpy's array interface (`__array_interface__`), which
//! needs no buffer protocol (the stable ABI of Python 3.10 has none) and no numpy at
//! build time. A contiguous one-dimensional array of numbers, booleans aside, or of
//! `datetime64`/`timedelta64` in seconds to nanoseconds is taken without a copy: its
//! memory becomes the array's values buffer, kept alive by a reference to the numpy
//! array. A masked array's mask is the validity, and so is `NaT`. Other dtypes (text,
//! objects, days) go through their Python values. The other way, an array of those types
//! without nulls is handed to numpy without a copy (a read-only view that keeps the
//! array alive); with nulls, or of another type, numpy gets a copy (floats with NaN for
//! nulls, as pyarrow gives, `datetime64` with `NaT`, else objects).

use alkaid_array::types::Int64Type;
use alkaid_array::{ArrayRef, AsArray, BooleanArray, make_array};
use alkaid_buffer::{Buffer, NullBuffer};
use alkaid_compute::CastOptions;
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, TimeUnit};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::error::to_py;
use crate::memory::PythonMemory;
use crate::values::{Modules, build, infer, to_pylist};

/// numpy, if installed.
fn numpy(py: Python<'_>) -> Option<Bound<'_, PyModule>> {
    py.import("numpy").ok()
}

/// Whether `object` is a numpy array (numpy's own class or a subclass such as a masked
/// array): only then is its array interface trusted with a raw address.
pub(crate) fn is_ndarray(object: &Bound<'_, PyAny>) -> PyResult<bool> {
    match numpy(object.py()) {
        Some(numpy) => object.is_instance(&numpy.getattr("ndarray")?),
        None => Ok(false),
    }
}

/// The numpy array `object` as an Alkaid array: without a copy where the dtype allows.
///
/// # Errors
/// For an array of more than one dimension, or values no type holds.
pub(crate) fn from_numpy(object: &Bound<'_, PyAny>) -> PyResult<ArrayRef> {
    let py = object.py();
    let numpy = numpy(py).ok_or_else(|| to_py("numpy is not installed"))?;
    let (values, mask) = match object.is_instance(&numpy.getattr("ma")?.getattr("MaskedArray")?)? {
        true => {
            let mask = numpy
                .getattr("ma")?
                .call_method1("getmaskarray", (object,))?;
            (object.getattr("data")?, Some(mask))
        }
        false => (object.clone(), None),
    };
    let ndim: usize = values.getattr("ndim")?.extract()?;
    if ndim != 1 {
        return Err(to_py(format!(
            "a numpy array of {ndim} dimensions: alkaid.array takes one"
        )));
    }
    let dtype = values.getattr("dtype")?;
    let kind: String = dtype.getattr("kind")?.extract()?;
    let Some(data_type) = data_type_of(&kind, &dtype)? else {
        // Text, objects, days and other units: through the Python values.
        let items: Vec<Bound<'_, PyAny>> = values
            .call_method0("tolist")?
            .try_iter()?
            .collect::<PyResult<_>>()?;
        let items = match &mask {
            Some(mask) => masked(py, items, mask)?,
            None => items,
        };
        let modules = Modules::import(py)?;
        let data_type = infer(&modules, &items)?;
        return build(&modules, &items, &data_type);
    };
    if kind == "b" {
        // Bit-packed in Arrow, a byte each in numpy: copied.
        let bools: Vec<bool> = values.call_method0("tolist")?.extract()?;
        let nulls = mask.as_ref().map(validity_of).transpose()?;
        let valid = |i: usize| nulls.as_ref().is_none_or(|n| n.is_valid(i));
        let array: BooleanArray = bools
            .iter()
            .enumerate()
            .map(|(i, &b)| valid(i).then_some(b))
            .collect();
        return Ok(std::sync::Arc::new(array));
    }
    // Native byte order, contiguous: else a copy that is.
    let values = numpy.call_method1(
        "ascontiguousarray",
        (&values, dtype.call_method1("newbyteorder", ("=",))?),
    )?;
    let interface = values.getattr("__array_interface__")?;
    let interface = interface.cast::<PyDict>()?;
    let (address, _read_only): (usize, bool) = item(interface, "data")?.extract()?;
    let len: usize = values.getattr("shape")?.get_item(0)?.extract()?;
    let width: usize = dtype.getattr("itemsize")?.extract()?;
    // SAFETY: `address` and the byte size are what numpy's array interface gave for
    // `values`, a contiguous numpy array (checked: one dimension, no strides), whose
    // memory numpy neither moves nor frees while a reference to it is held.
    let memory = unsafe { PythonMemory::new(values.clone().unbind(), address, len * width) };
    let buffer = match address % width {
        0 => Buffer::from_owner(memory),
        // numpy may hand out unaligned views; Arrow's buffers are aligned.
        _ => Buffer::from_slice_ref(memory.as_ref()),
    };
    let mut nulls = mask.as_ref().map(validity_of).transpose()?;
    if matches!(kind.as_str(), "M" | "m") {
        nulls = not_a_time(&buffer, nulls);
    }
    let data = ArrayData::builder(data_type)
        .len(len)
        .buffers(vec![buffer])
        .nulls(nulls)
        .build()
        .map_err(to_py)?;
    Ok(make_array(data))
}

/// `dict[key]`, an error naming it when missing.
fn item<'py>(dict: &Bound<'py, PyDict>, key: &str) -> PyResult<Bound<'py, PyAny>> {
    dict.get_item(key)?
        .ok_or_else(|| to_py(format!("numpy's array interface lacks {key:?}")))
}

/// The Alkaid type of a numpy dtype taken without a copy; `None` for one that is not.
fn data_type_of(kind: &str, dtype: &Bound<'_, PyAny>) -> PyResult<Option<DataType>> {
    let width: usize = dtype.getattr("itemsize")?.extract()?;
    Ok(match (kind, width) {
        ("b", 1) => Some(DataType::Boolean),
        ("i", 1) => Some(DataType::Int8),
        ("i", 2) => Some(DataType::Int16),
        ("i", 4) => Some(DataType::Int32),
        ("i", 8) => Some(DataType::Int64),
        ("u", 1) => Some(DataType::UInt8),
        ("u", 2) => Some(DataType::UInt16),
        ("u", 4) => Some(DataType::UInt32),
        ("u", 8) => Some(DataType::UInt64),
        ("f", 2) => Some(DataType::Float16),
        ("f", 4) => Some(DataType::Float32),
        ("f", 8) => Some(DataType::Float64),
        ("M" | "m", 8) => {
            let text: String = dtype.getattr("str")?.extract()?;
            let unit = match text
                .rsplit_once('[')
                .map(|(_, unit)| unit.trim_end_matches(']'))
            {
                Some("s") => TimeUnit::Second,
                Some("ms") => TimeUnit::Millisecond,
                Some("us") => TimeUnit::Microsecond,
                Some("ns") => TimeUnit::Nanosecond,
                _ => return Ok(None),
            };
            Some(match kind {
                "M" => DataType::Timestamp(unit, None),
                _ => DataType::Duration(unit),
            })
        }
        _ => None,
    })
}

/// The validity of a numpy mask (true where masked).
fn validity_of(mask: &Bound<'_, PyAny>) -> PyResult<NullBuffer> {
    let masked: Vec<bool> = mask.call_method0("tolist")?.extract()?;
    Ok(NullBuffer::from(
        masked.iter().map(|m| !m).collect::<Vec<_>>(),
    ))
}

/// `nulls` with numpy's `NaT` (the smallest 64-bit integer) also null.
fn not_a_time(values: &Buffer, nulls: Option<NullBuffer>) -> Option<NullBuffer> {
    let counts = values.typed::<i64>().unwrap_or(&[]);
    if !counts.contains(&i64::MIN) {
        return nulls;
    }
    let valid = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| c != i64::MIN && nulls.as_ref().is_none_or(|n| n.is_valid(i)));
    Some(NullBuffer::from(valid.collect::<Vec<_>>()))
}

/// `items` with `None` where `mask` is true.
fn masked<'py>(
    py: Python<'py>,
    items: Vec<Bound<'py, PyAny>>,
    mask: &Bound<'py, PyAny>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let mask: Vec<bool> = mask.call_method0("tolist")?.extract()?;
    Ok(items
        .into_iter()
        .zip(mask)
        .map(|(item, masked)| {
            if masked {
                py.None().into_bound(py)
            } else {
                item
            }
        })
        .collect())
}

/// numpy's name of a time unit.
fn unit(unit: &TimeUnit) -> &'static str {
    match unit {
        TimeUnit::Second => "s",
        TimeUnit::Millisecond => "ms",
        TimeUnit::Microsecond => "us",
        TimeUnit::Nanosecond => "ns",
    }
}

/// The numpy dtype text of a type numpy takes without a copy, if `array` is one.
fn zero_copy_dtype(data_type: &DataType) -> Option<String> {
    Some(match data_type {
        DataType::Int8 => "|i1".into(),
        DataType::Int16 => "<i2".into(),
        DataType::Int32 => "<i4".into(),
        DataType::Int64 => "<i8".into(),
        DataType::UInt8 => "|u1".into(),
        DataType::UInt16 => "<u2".into(),
        DataType::UInt32 => "<u4".into(),
        DataType::UInt64 => "<u8".into(),
        DataType::Float16 => "<f2".into(),
        DataType::Float32 => "<f4".into(),
        DataType::Float64 => "<f8".into(),
        DataType::Timestamp(u, None) => format!("<M8[{}]", unit(u)),
        DataType::Duration(u) => format!("<m8[{}]", unit(u)),
        _ => return None,
    })
}

/// An Alkaid array's values as numpy sees them through the array interface: a read-only
/// view of its memory that keeps the array alive.
#[pyclass(name = "_NumpyView", module = "alkaid", frozen)]
pub(crate) struct NumpyView {
    array: ArrayRef,
    dtype: String,
}

#[pymethods]
impl NumpyView {
    /// numpy's array interface (version 3) of the values.
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let data = self.array.to_data();
        let width = data.data_type().primitive_byte_width().unwrap_or(1);
        let address = data.buffers()[0].as_ptr() as usize + data.offset() * width;
        let interface = PyDict::new(py);
        interface.set_item("version", 3)?;
        interface.set_item("shape", PyTuple::new(py, [data.len()])?)?;
        interface.set_item("typestr", &self.dtype)?;
        interface.set_item("data", (address, true))?;
        Ok(interface)
    }
}

/// `array` as a numpy array: a view without a copy when its type allows and it has no
/// nulls; else, unless `zero_copy_only`, a copy.
///
/// # Errors
/// When a copy would be needed and `zero_copy_only`; when numpy is not installed.
pub(crate) fn to_numpy<'py>(
    py: Python<'py>,
    array: &ArrayRef,
    zero_copy_only: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let numpy = numpy(py).ok_or_else(|| {
        pyo3::exceptions::PyImportError::new_err("to_numpy needs numpy, which is not installed")
    })?;
    let dtype = zero_copy_dtype(array.data_type());
    if let (Some(dtype), 0) = (&dtype, array.null_count()) {
        let view = NumpyView {
            array: array.clone(),
            dtype: dtype.clone(),
        };
        return numpy.call_method1("asarray", (Py::new(py, view)?,));
    }
    if zero_copy_only {
        return Err(to_py(match dtype {
            Some(_) => format!(
                "an array of {} with {} nulls cannot be handed to numpy without a copy \
                 (to_numpy(zero_copy_only=False) copies)",
                array.data_type(),
                array.null_count()
            ),
            None => format!(
                "an array of {} cannot be handed to numpy without a copy \
                 (to_numpy(zero_copy_only=False) copies)",
                array.data_type()
            ),
        }));
    }
    copied(py, &numpy, array)
}

/// A numpy copy of `array`: numbers with nulls as floats with NaN (pyarrow's rule),
/// timestamps and durations as `datetime64`/`timedelta64` with `NaT`, booleans without
/// nulls as `bool`, anything else as Python objects.
fn copied<'py>(
    py: Python<'py>,
    numpy: &Bound<'py, PyModule>,
    array: &ArrayRef,
) -> PyResult<Bound<'py, PyAny>> {
    let data_type = array.data_type();
    let nulls = array.null_count() > 0;
    if let DataType::Timestamp(u, _) | DataType::Duration(u) = data_type {
        let counts = alkaid_compute::cast(array.as_ref(), &DataType::Int64, CastOptions::STRICT)
            .map_err(to_py)?;
        let counts = counts.as_primitive::<Int64Type>();
        let raw: Vec<i64> = counts.iter().map(|c| c.unwrap_or(i64::MIN)).collect();
        let letter = if matches!(data_type, DataType::Timestamp(..)) {
            "M"
        } else {
            "m"
        };
        let ints = numpy.call_method1("array", (raw, "int64"))?;
        return ints.call_method1("view", (format!("{letter}8[{}]", unit(u)),));
    }
    let numbers = data_type.is_integer() || data_type.is_floating();
    let dtype = match data_type {
        _ if numbers && nulls => "float64",
        _ if numbers => return numpy.call_method1("array", (to_pylist(py, array.as_ref())?,)),
        DataType::Boolean if !nulls => "bool",
        _ => "object",
    };
    let values = to_pylist(py, array.as_ref())?;
    let values = match dtype {
        "float64" => {
            let nan = f64::NAN.into_pyobject(py)?.into_any();
            let filled = values
                .iter()
                .map(|v| if v.is_none() { nan.clone() } else { v });
            PyList::new(py, filled)?
        }
        _ => values,
    };
    numpy.call_method1("array", (values, dtype))
}
