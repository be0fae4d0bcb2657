//! Fixed-width values as big-endian bytes whose unsigned order (memcmp) is the crate's
//! total order: integers with the sign bit flipped, floats with the usual bit transform
//! (after `-0.0` becomes `0.0` and every NaN one NaN, so equal values encode alike),
//! intervals field by field.

use alkaid_buffer::NativeType;
use alkaid_buffer::native::{IntervalDayTime, IntervalMonthDayNano, f16, i256};

/// A fixed-width value's row bytes.
pub(super) trait RowBytes: NativeType {
    /// The number of bytes.
    const WIDTH: usize;
    /// Writes the bytes (ascending order) into `out` (`WIDTH` long).
    fn encode(self, out: &mut [u8]);
    /// Reads back what [`encode`](Self::encode) wrote.
    fn decode(bytes: &[u8]) -> Self;
}

macro_rules! unsigned_rows {
    ($($t:ty),*) => {$(
        impl RowBytes for $t {
            const WIDTH: usize = size_of::<$t>();
            #[inline]
            fn encode(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_be_bytes());
            }
            #[inline]
            fn decode(bytes: &[u8]) -> Self {
                <$t>::from_be_bytes(bytes.try_into().expect("WIDTH bytes"))
            }
        }
    )*};
}
unsigned_rows!(u8, u16, u32, u64);

macro_rules! signed_rows {
    ($($t:ty),*) => {$(
        impl RowBytes for $t {
            const WIDTH: usize = size_of::<$t>();
            #[inline]
            fn encode(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_be_bytes());
                out[0] ^= 0x80;
            }
            #[inline]
            fn decode(bytes: &[u8]) -> Self {
                let mut raw: [u8; size_of::<$t>()] = bytes.try_into().expect("WIDTH bytes");
                raw[0] ^= 0x80;
                <$t>::from_be_bytes(raw)
            }
        }
    )*};
}
signed_rows!(i8, i16, i32, i64, i128);

impl RowBytes for i256 {
    const WIDTH: usize = 32;
    fn encode(self, out: &mut [u8]) {
        let mut bytes = self.to_le_bytes();
        bytes.reverse();
        bytes[0] ^= 0x80;
        out.copy_from_slice(&bytes);
    }
    fn decode(bytes: &[u8]) -> Self {
        let mut raw: [u8; 32] = bytes.try_into().expect("32 bytes");
        raw[0] ^= 0x80;
        raw.reverse();
        i256::from_le_bytes(raw)
    }
}

macro_rules! float_rows {
    ($($t:ty => $bits:ty),*) => {$(
        impl RowBytes for $t {
            const WIDTH: usize = size_of::<$t>();
            #[inline]
            fn encode(self, out: &mut [u8]) {
                let canonical = if self.is_nan() { <$t>::NAN } else if self == 0.0 { 0.0 } else { self };
                let bits = canonical.to_bits();
                let sign = 1 << (<$bits>::BITS - 1);
                let ordered = if bits & sign != 0 { !bits } else { bits | sign };
                out.copy_from_slice(&ordered.to_be_bytes());
            }
            #[inline]
            fn decode(bytes: &[u8]) -> Self {
                let ordered = <$bits>::from_be_bytes(bytes.try_into().expect("WIDTH bytes"));
                let sign = 1 << (<$bits>::BITS - 1);
                let bits = if ordered & sign != 0 { ordered ^ sign } else { !ordered };
                <$t>::from_bits(bits)
            }
        }
    )*};
}
float_rows!(f32 => u32, f64 => u64);

impl RowBytes for f16 {
    const WIDTH: usize = 2;
    fn encode(self, out: &mut [u8]) {
        let canonical = if self.is_nan() {
            f16::NAN
        } else if self == f16::ZERO {
            f16::ZERO
        } else {
            self
        };
        let bits = canonical.to_bits();
        let ordered = if bits & 0x8000 != 0 {
            !bits
        } else {
            bits | 0x8000
        };
        out.copy_from_slice(&ordered.to_be_bytes());
    }
    fn decode(bytes: &[u8]) -> Self {
        let ordered = u16::from_be_bytes(bytes.try_into().expect("2 bytes"));
        let bits = if ordered & 0x8000 != 0 {
            ordered ^ 0x8000
        } else {
            !ordered
        };
        f16::from_bits(bits)
    }
}

impl RowBytes for IntervalDayTime {
    const WIDTH: usize = 8;
    fn encode(self, out: &mut [u8]) {
        self.days.encode(&mut out[..4]);
        self.milliseconds.encode(&mut out[4..]);
    }
    fn decode(bytes: &[u8]) -> Self {
        IntervalDayTime::new(i32::decode(&bytes[..4]), i32::decode(&bytes[4..]))
    }
}

impl RowBytes for IntervalMonthDayNano {
    const WIDTH: usize = 16;
    fn encode(self, out: &mut [u8]) {
        self.months.encode(&mut out[..4]);
        self.days.encode(&mut out[4..8]);
        self.nanoseconds.encode(&mut out[8..]);
    }
    fn decode(bytes: &[u8]) -> Self {
        IntervalMonthDayNano::new(
            i32::decode(&bytes[..4]),
            i32::decode(&bytes[4..8]),
            i64::decode(&bytes[8..]),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::order::TotalOrder;

    fn bytes<T: RowBytes>(v: T) -> Vec<u8> {
        let mut out = vec![0; T::WIDTH];
        v.encode(&mut out);
        out
    }

    fn agrees<T: RowBytes + TotalOrder + std::fmt::Debug>(values: &[T]) {
        for &a in values {
            assert!(T::is_eq(T::decode(&bytes(a)), a), "{a:?} decodes back");
            for &b in values {
                assert_eq!(
                    bytes(a).cmp(&bytes(b)),
                    T::order(a, b),
                    "{a:?} against {b:?}"
                );
            }
        }
    }

    #[test]
    fn bytes_order_as_values_at_the_extremes() {
        agrees(&[i8::MIN, -1, 0, 1, i8::MAX]);
        agrees(&[i64::MIN, -1, 0, i64::MAX]);
        agrees(&[0u64, 1, u64::MAX]);
        agrees(&[i128::MIN, -1, 0, i128::MAX]);
        agrees(&[i256::MIN, i256::from_i128(-1), i256::ZERO, i256::MAX]);
        agrees(&[
            f64::NEG_INFINITY,
            -1.5,
            -0.0,
            0.0,
            1e-300,
            f64::INFINITY,
            f64::NAN,
            -f64::NAN,
        ]);
        agrees(&[f32::MIN, -0.0, 0.0, f32::NAN]);
        agrees(&[f16::NEG_INFINITY, f16::ZERO, f16::from_f32(-0.0), f16::NAN]);
        agrees(&[
            IntervalDayTime::new(-1, 5),
            IntervalDayTime::new(0, -5),
            IntervalDayTime::new(0, 5),
        ]);
        agrees(&[
            IntervalMonthDayNano::new(0, 1, -1),
            IntervalMonthDayNano::new(0, 1, 0),
            IntervalMonthDayNano::new(1, -9, 0),
        ]);
    }
}
