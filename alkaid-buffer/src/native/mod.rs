//! Native types: the fixed-width values that the format stores in buffers.
//!
//! [`NativeType`] is implemented for exactly the spec's fixed-width values and is sealed: each
//! implementor is plain data (no padding, every bit pattern valid), which is what makes the
//! zero-copy casts between bytes and typed slices in this crate sound.
//!
//! | type | used by |
//! | --- | --- |
//! | `i8` … `i64`, `u8` … `u64` | integers, dates, times, timestamps, durations, offsets, keys |
//! | [`f16`](struct@f16), `f32`, `f64` | floating point |
//! | `i32`, `i64`, `i128`, [`i256`] | decimals of 32, 64, 128 and 256 bits |
//! | [`IntervalDayTime`], [`IntervalMonthDayNano`] (and `i32` for year-month) | intervals |
//! | [`ByteView`] | the 16-byte views of binary-view and utf8-view arrays |
//!
//! Values are little-endian in memory; [`NativeType::swap_bytes`] converts one value from
//! the other byte order (the IPC reader needs it for big-endian input).

mod decimal256;
mod interval;
mod view;

use std::fmt::Debug;

pub use decimal256::{ParseI256Error, i256};
pub use half::f16;
pub use interval::{IntervalDayTime, IntervalMonthDayNano};
pub use view::ByteView;

use crate::error::BufferError;

mod sealed {
    pub trait Sealed {}
}

/// A fixed-width value that can live in a buffer.
///
/// Sealed: implemented only for the types listed in the [module docs](self), each of which is
/// plain data without padding, valid for every bit pattern.
pub trait NativeType:
    sealed::Sealed + Copy + Default + Debug + PartialEq + Send + Sync + 'static
{
    /// Reverses the byte order of each field of the value.
    fn swap_bytes(self) -> Self;

    /// The value as an `i64`, for the integers whose value fits one; `None` for every
    /// other value (floats, 256-bit integers, intervals, views). Lets code generic over
    /// the native type read dates, times and durations, which are all `i32` or `i64`.
    ///
    /// ```
    /// use alkaid_buffer::NativeType;
    /// assert_eq!(7u8.to_i64(), Some(7));
    /// assert_eq!(u64::MAX.to_i64(), None);
    /// assert_eq!(1.5f64.to_i64(), None);
    /// ```
    fn to_i64(self) -> Option<i64> {
        None
    }
}

macro_rules! native_int {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl NativeType for $t {
            #[inline]
            fn swap_bytes(self) -> Self {
                <$t>::swap_bytes(self)
            }
            #[inline]
            fn to_i64(self) -> Option<i64> {
                i64::try_from(self).ok()
            }
        }
    )*};
}
native_int!(i8, i16, i32, i64, i128, u8, u16, u32, u64);

macro_rules! native_float {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl NativeType for $t {
            #[inline]
            fn swap_bytes(self) -> Self {
                <$t>::from_bits(self.to_bits().swap_bytes())
            }
        }
    )*};
}
native_float!(f16, f32, f64);

/// Reverses the byte order of every value in `values`.
///
/// # Examples
/// ```
/// use alkaid_buffer::native::swap_bytes_in_place;
/// let mut values = [0x0102u16, 0x0304];
/// swap_bytes_in_place(&mut values);
/// assert_eq!(values, [0x0201, 0x0403]);
/// ```
pub fn swap_bytes_in_place<T: NativeType>(values: &mut [T]) {
    for value in values {
        *value = value.swap_bytes();
    }
}

/// The short name of `T` used in error messages ("i32", "IntervalDayTime").
pub(crate) fn short_type_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    full.rsplit("::").next().unwrap_or(full)
}

/// Views bytes as `T`s, checking alignment and length.
pub(crate) fn cast_slice<T: NativeType>(bytes: &[u8]) -> Result<&[T], BufferError> {
    check_cast::<T>(bytes)?;
    // SAFETY: check_cast verified alignment and that the length is a whole number of Ts; T
    // is plain data valid for any bit pattern (NativeType is sealed to such types).
    Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast(), bytes.len() / size_of::<T>()) })
}

/// Views bytes as mutable `T`s, checking alignment and length.
pub(crate) fn cast_slice_mut<T: NativeType>(bytes: &mut [u8]) -> Result<&mut [T], BufferError> {
    check_cast::<T>(bytes)?;
    // SAFETY: as in cast_slice; any bit pattern written through the &mut [T] is also a valid
    // byte sequence.
    Ok(unsafe {
        std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast(), bytes.len() / size_of::<T>())
    })
}

fn check_cast<T>(bytes: &[u8]) -> Result<(), BufferError> {
    let address = bytes.as_ptr() as usize;
    if !address.is_multiple_of(align_of::<T>()) {
        return Err(BufferError::Misaligned {
            type_name: short_type_name::<T>(),
            required: align_of::<T>(),
            address,
        });
    }
    if !bytes.len().is_multiple_of(size_of::<T>()) {
        return Err(BufferError::PartialElement {
            type_name: short_type_name::<T>(),
            element_size: size_of::<T>(),
            byte_len: bytes.len(),
        });
    }
    Ok(())
}

/// The bytes of a slice of native values, without copying (little-endian, as in buffers).
///
/// # Examples
/// ```
/// use alkaid_buffer::native::as_bytes;
/// assert_eq!(as_bytes(&[1u16, 0x0302]), &[1, 0, 2, 3]);
/// ```
pub fn as_bytes<T: NativeType>(values: &[T]) -> &[u8] {
    // SAFETY: T is plain data without padding, so every byte of the slice is initialised;
    // u8 has alignment 1; the length is the slice's size in bytes.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast(), size_of_val(values)) }
}

/// Whether every byte of `value` is zero.
pub(crate) fn is_all_zero_bits<T: NativeType>(value: &T) -> bool {
    as_bytes(std::slice::from_ref(value))
        .iter()
        .all(|&b| b == 0)
}

/// A `Vec<T>` that lends its bytes, so a [`Buffer`](crate::Buffer) can own it without copying.
pub(crate) struct NativeVec<T>(pub(crate) Vec<T>);

impl<T: NativeType> AsRef<[u8]> for NativeVec<T> {
    fn as_ref(&self) -> &[u8] {
        as_bytes(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swap_bytes_round_trips_every_type() {
        fn check<T: NativeType>(value: T) {
            assert_eq!(value.swap_bytes().swap_bytes(), value);
        }
        check(0x0102_0304i32);
        check(-5i8);
        check(u64::MAX - 7);
        check(1.25f32);
        check(f16::from_f32(-2.5));
        check(-0.1f64);
        check(i128::MIN + 3);
        check(i256::from_i128(-12345));
        check(IntervalDayTime::new(3, -4));
        check(IntervalMonthDayNano::new(1, 2, -3));
    }

    #[test]
    fn swap_bytes_reverses_integers_and_floats() {
        assert_eq!(NativeType::swap_bytes(0x0102u16), 0x0201);
        assert_eq!(
            NativeType::swap_bytes(1.0f32).to_bits(),
            1.0f32.to_bits().swap_bytes()
        );
    }

    #[test]
    fn short_names_are_readable() {
        assert_eq!(short_type_name::<i32>(), "i32");
        assert_eq!(short_type_name::<IntervalDayTime>(), "IntervalDayTime");
    }
}
