//! Variant values into a column of one Arrow type, by the cast kernel's rules: each value
//! is gathered with the others of its Variant type into a column of that type's Arrow
//! type (`int8` into Int8, `decimal4` of scale 2 into `Decimal(38, 2)`, `timestamp` into
//! `Timestamp(µs, "UTC")`, …), each such column is cast to the type asked for, and the
//! answers are put back in row order. So a Variant converts exactly as a value of its
//! Arrow type does, and the rules are written once, in `cast`.

use std::collections::HashMap;
use std::sync::Arc;

use alkaid_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, Time64MicrosecondType, TimestampMicrosecondType, TimestampNanosecondType,
};
use alkaid_array::variant::Variant;
use alkaid_array::{
    Array, ArrayBuilder, ArrayRef, BooleanBuilder, FixedSizeBinaryBuilder, GenericBinaryType,
    GenericByteBuilder, GenericStringType, PrimitiveBuilder, Scalar, make_builder,
};
use alkaid_schema::{DataType, DecimalType, DecimalWidth, TimeUnit};
use alkaid_select::interleave;

use crate::{CastOptions, ComputeError, can_cast, cast};

/// The Arrow type a Variant type's values are gathered in; `None` for objects and arrays.
fn arrow_type(value: &Variant<'_, '_>) -> Option<DataType> {
    let decimal = |scale: u8| {
        let scale = i8::try_from(scale).unwrap_or(i8::MAX);
        DecimalType::try_new(DecimalWidth::W128, 38, scale)
            .map(DataType::Decimal)
            .ok()
    };
    let utc = || Some(Arc::from("UTC"));
    Some(match value {
        Variant::Boolean(_) => DataType::Boolean,
        Variant::Int8(_) => DataType::Int8,
        Variant::Int16(_) => DataType::Int16,
        Variant::Int32(_) => DataType::Int32,
        Variant::Int64(_) => DataType::Int64,
        Variant::Float(_) => DataType::Float32,
        Variant::Double(_) => DataType::Float64,
        Variant::Decimal4(_, s) | Variant::Decimal8(_, s) | Variant::Decimal16(_, s) => {
            return decimal(*s);
        }
        Variant::Date(_) => DataType::Date32,
        Variant::TimestampMicros(_) => DataType::Timestamp(TimeUnit::Microsecond, utc()),
        Variant::TimestampNtzMicros(_) => DataType::Timestamp(TimeUnit::Microsecond, None),
        Variant::TimestampNanos(_) => DataType::Timestamp(TimeUnit::Nanosecond, utc()),
        Variant::TimestampNtzNanos(_) => DataType::Timestamp(TimeUnit::Nanosecond, None),
        Variant::Time(_) => DataType::Time(TimeUnit::Microsecond),
        Variant::Binary(_) => DataType::Binary,
        Variant::String(_) => DataType::Utf8,
        Variant::Uuid(_) => DataType::FixedSizeBinary(16),
        _ => return None,
    })
}

/// Appends `value` to `builder`, made by `make_builder` for `value`'s Arrow type.
fn append(builder: &mut dyn ArrayBuilder, value: &Variant<'_, '_>) -> Result<(), ComputeError> {
    fn typed<B: 'static>(builder: &mut dyn ArrayBuilder) -> Result<&mut B, ComputeError> {
        builder.as_any_mut().downcast_mut::<B>().ok_or_else(|| {
            ComputeError::InvalidArgument("a Variant gathered with values of another type".into())
        })
    }
    let any = builder;
    match value {
        Variant::Boolean(v) => typed::<BooleanBuilder>(any)?.append_value(*v),
        Variant::Int8(v) => typed::<PrimitiveBuilder<Int8Type>>(any)?.append_value(*v),
        Variant::Int16(v) => typed::<PrimitiveBuilder<Int16Type>>(any)?.append_value(*v),
        Variant::Int32(v) => typed::<PrimitiveBuilder<Int32Type>>(any)?.append_value(*v),
        Variant::Int64(v) => typed::<PrimitiveBuilder<Int64Type>>(any)?.append_value(*v),
        Variant::Float(v) => typed::<PrimitiveBuilder<Float32Type>>(any)?.append_value(*v),
        Variant::Double(v) => typed::<PrimitiveBuilder<Float64Type>>(any)?.append_value(*v),
        Variant::Decimal4(v, _) => {
            typed::<PrimitiveBuilder<Decimal128Type>>(any)?.append_value((*v).into())
        }
        Variant::Decimal8(v, _) => {
            typed::<PrimitiveBuilder<Decimal128Type>>(any)?.append_value((*v).into())
        }
        Variant::Decimal16(v, _) => {
            typed::<PrimitiveBuilder<Decimal128Type>>(any)?.append_value(*v)
        }
        Variant::Date(v) => typed::<PrimitiveBuilder<Date32Type>>(any)?.append_value(*v),
        Variant::Time(v) => typed::<PrimitiveBuilder<Time64MicrosecondType>>(any)?.append_value(*v),
        Variant::TimestampMicros(v) | Variant::TimestampNtzMicros(v) => {
            typed::<PrimitiveBuilder<TimestampMicrosecondType>>(any)?.append_value(*v)
        }
        Variant::TimestampNanos(v) | Variant::TimestampNtzNanos(v) => {
            typed::<PrimitiveBuilder<TimestampNanosecondType>>(any)?.append_value(*v)
        }
        Variant::Binary(v) => {
            typed::<GenericByteBuilder<GenericBinaryType<i32>>>(any)?.append_value(v)
        }
        Variant::String(v) => {
            typed::<GenericByteBuilder<GenericStringType<i32>>>(any)?.append_value(v)
        }
        Variant::Uuid(v) => typed::<FixedSizeBinaryBuilder>(any)?.append_value(v)?,
        _ => {
            return Err(ComputeError::InvalidArgument(
                "an object or array has no Arrow type to gather it in".into(),
            ));
        }
    }
    Ok(())
}

/// A column of `target` being made from Variant values, row by row.
pub(super) struct Column {
    target: DataType,
    options: CastOptions,
    /// Each Arrow type met, its values, and the rows they came from.
    groups: Vec<(Box<dyn ArrayBuilder>, Vec<usize>, DataType)>,
    by_type: HashMap<DataType, usize>,
    /// The group of the last value.
    last_group: Option<usize>,
    /// For each row: its group and place in it, or `None` for null.
    rows: Vec<Option<(usize, usize)>>,
}

impl Column {
    /// A column for values cast to `target` with `options`.
    ///
    /// # Errors
    /// When no Variant value converts to `target` (a nested type, an interval, …).
    pub(super) fn for_type(target: &DataType, options: CastOptions) -> Result<Self, ComputeError> {
        let reachable = [
            DataType::Int64,
            DataType::Utf8,
            DataType::Boolean,
            DataType::Binary,
        ]
        .iter()
        .any(|from| can_cast(from, target));
        if !reachable || !target.children().is_empty() {
            return Err(ComputeError::Unsupported {
                kernel: "variant_get",
                message: format!("a Variant value does not convert to {target}"),
            });
        }
        Ok(Self {
            target: target.clone(),
            options,
            groups: Vec::new(),
            by_type: HashMap::new(),
            last_group: None,
            rows: Vec::new(),
        })
    }

    /// Appends a null.
    pub(super) fn push_null(&mut self) {
        self.rows.push(None);
    }

    /// Appends `value` (Variant null is a null); returns `false` for a value no Arrow
    /// type holds (an object or an array), which is not appended.
    pub(super) fn push(&mut self, value: &Variant<'_, '_>) -> Result<bool, ComputeError> {
        if matches!(value, Variant::Null) {
            self.push_null();
            return Ok(true);
        }
        let Some(data_type) = arrow_type(value) else {
            return Ok(false);
        };
        // Rows of one column are mostly of one type: the last group is tried first.
        let group = match self.last_group.filter(|&g| self.groups[g].2 == data_type) {
            Some(g) => g,
            None => match self.by_type.get(&data_type) {
                Some(&g) => g,
                None => {
                    let builder = make_builder(&data_type, 0)?;
                    self.groups.push((builder, Vec::new(), data_type.clone()));
                    self.by_type
                        .insert(data_type.clone(), self.groups.len() - 1);
                    self.groups.len() - 1
                }
            },
        };
        self.last_group = Some(group);
        let (builder, rows, _) = &mut self.groups[group];
        append(builder.as_mut(), value)?;
        self.rows.push(Some((group, rows.len())));
        rows.push(self.rows.len() - 1);
        Ok(true)
    }

    /// The values, each group cast to the target, in row order.
    ///
    /// # Errors
    /// A value that does not convert, when the options are strict (naming its row).
    pub(super) fn finish(self) -> Result<ArrayRef, ComputeError> {
        let mut casts = Vec::with_capacity(self.groups.len() + 1);
        for (mut builder, rows, _) in self.groups {
            let values = builder.try_finish()?;
            let cast = cast(values.as_ref(), &self.target, self.options).map_err(|e| match e {
                ComputeError::Cast { row, message } => ComputeError::Cast {
                    row: rows.get(row).copied().unwrap_or(row),
                    message,
                },
                other => other,
            })?;
            casts.push(cast);
        }
        let null_group = casts.len();
        casts.push(Scalar::new_null(&self.target)?.into_array());
        let pairs: Vec<(usize, usize)> = self
            .rows
            .iter()
            .map(|row| row.unwrap_or((null_group, 0)))
            .collect();
        let arrays: Vec<&dyn Array> = casts.iter().map(AsRef::as_ref).collect();
        Ok(interleave(&arrays, &pairs)?)
    }
}
