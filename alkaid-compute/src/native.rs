//! [`with_native!`]: the one map, in this crate, from a physical fixed-width type to the Rust
//! type of its values, and the packing of slices into bitmaps that comparisons share.
//!
//! Kernels that only read values (comparison, hashing, `min`/`max`) work on the physical
//! type: `Date32`, `Time32` and `Int32` are all `i32`. Kernels whose result depends on the
//! logical type (arithmetic, the sums of decimals) dispatch on it themselves.

use alkaid_buffer::{BooleanBuffer, MutableBuffer};

/// Evaluates `$body` with `$t` naming the native type of `$physical` (an
/// `alkaid_schema::PrimitiveType`).
macro_rules! with_native {
    ($physical:expr, |$t:ident| $body:expr) => {{
        use alkaid_schema::PrimitiveType as P;
        match $physical {
            P::Int8 => {
                type $t = i8;
                $body
            }
            P::Int16 => {
                type $t = i16;
                $body
            }
            P::Int32 => {
                type $t = i32;
                $body
            }
            P::Int64 => {
                type $t = i64;
                $body
            }
            P::UInt8 => {
                type $t = u8;
                $body
            }
            P::UInt16 => {
                type $t = u16;
                $body
            }
            P::UInt32 => {
                type $t = u32;
                $body
            }
            P::UInt64 => {
                type $t = u64;
                $body
            }
            P::Float16 => {
                type $t = alkaid_buffer::native::f16;
                $body
            }
            P::Float32 => {
                type $t = f32;
                $body
            }
            P::Float64 => {
                type $t = f64;
                $body
            }
            P::Int128 => {
                type $t = i128;
                $body
            }
            P::Int256 => {
                type $t = alkaid_buffer::native::i256;
                $body
            }
            P::DayTime => {
                type $t = alkaid_buffer::native::IntervalDayTime;
                $body
            }
            P::MonthDayNano => {
                type $t = alkaid_buffer::native::IntervalMonthDayNano;
                $body
            }
        }
    }};
}
pub(crate) use with_native;

/// Evaluates `$body` with `$t` naming the integer type of `$physical`, which the caller
/// has checked is an integer layout (`Int8` to `UInt64`).
macro_rules! with_integer {
    ($physical:expr, |$t:ident| $body:expr) => {{
        use alkaid_schema::PrimitiveType as P;
        match $physical {
            P::Int8 => {
                type $t = i8;
                $body
            }
            P::Int16 => {
                type $t = i16;
                $body
            }
            P::Int32 => {
                type $t = i32;
                $body
            }
            P::Int64 => {
                type $t = i64;
                $body
            }
            P::UInt8 => {
                type $t = u8;
                $body
            }
            P::UInt16 => {
                type $t = u16;
                $body
            }
            P::UInt32 => {
                type $t = u32;
                $body
            }
            P::UInt64 => {
                type $t = u64;
                $body
            }
            other => unreachable!("{other:?} is not an integer layout; callers check"),
        }
    }};
}
pub(crate) use with_integer;

/// Evaluates `$body` with `$t` naming the float type of `$physical`, which the caller has
/// checked is a float layout.
macro_rules! with_float {
    ($physical:expr, |$t:ident| $body:expr) => {{
        use alkaid_schema::PrimitiveType as P;
        match $physical {
            P::Float16 => {
                type $t = alkaid_buffer::native::f16;
                $body
            }
            P::Float32 => {
                type $t = f32;
                $body
            }
            P::Float64 => {
                type $t = f64;
                $body
            }
            other => unreachable!("{other:?} is not a float layout; callers check"),
        }
    }};
}
pub(crate) use with_float;

/// A bitmap of `f(value)` for each value, packed 64 to a word. Written over whole chunks
/// of 64, so that the loop has no bounds checks and vectorises.
#[inline(always)]
pub(crate) fn map_bits<T: Copy>(values: &[T], f: impl Fn(T) -> bool) -> BooleanBuffer {
    let mut out = MutableBuffer::with_capacity(values.len().div_ceil(64) * 8);
    let chunks = values.chunks_exact(64);
    let rest = chunks.remainder();
    out.extend_counted(
        values.len() / 64,
        chunks.map(|chunk| {
            chunk
                .iter()
                .enumerate()
                .fold(0u64, |word, (bit, &v)| word | (u64::from(f(v)) << bit))
        }),
    );
    if !rest.is_empty() {
        let word = rest
            .iter()
            .enumerate()
            .fold(0u64, |word, (bit, &v)| word | (u64::from(f(v)) << bit));
        out.push(word);
    }
    finish(out, values.len())
}

/// A bitmap of `f(left[i], right[i])` (equal lengths), packed as [`map_bits`] does.
#[inline(always)]
pub(crate) fn zip_bits<A: Copy, B: Copy>(
    left: &[A],
    right: &[B],
    f: impl Fn(A, B) -> bool,
) -> BooleanBuffer {
    debug_assert_eq!(left.len(), right.len());
    let len = left.len().min(right.len());
    let (left, right) = (&left[..len], &right[..len]);
    let mut out = MutableBuffer::with_capacity(len.div_ceil(64) * 8);
    let pairs = left.chunks_exact(64).zip(right.chunks_exact(64));
    out.extend_counted(
        len / 64,
        pairs.map(|(l, r)| {
            l.iter()
                .zip(r)
                .enumerate()
                .fold(0u64, |word, (bit, (&a, &b))| {
                    word | (u64::from(f(a, b)) << bit)
                })
        }),
    );
    let done = len / 64 * 64;
    if done < len {
        let word = left[done..]
            .iter()
            .zip(&right[done..])
            .enumerate()
            .fold(0u64, |word, (bit, (&a, &b))| {
                word | (u64::from(f(a, b)) << bit)
            });
        out.push(word);
    }
    finish(out, len)
}

fn finish(mut out: MutableBuffer, len: usize) -> BooleanBuffer {
    out.truncate(len.div_ceil(8));
    BooleanBuffer::new(out.into(), 0, len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_slices_of_every_length() {
        for len in [0usize, 1, 63, 64, 65, 130] {
            let values: Vec<u32> = (0..len as u32).collect();
            let odd = map_bits(&values, |v| v % 2 == 1);
            let same = zip_bits(&values, &values, |a, b| a == b);
            for i in 0..len {
                assert_eq!(odd.value(i), i % 2 == 1);
                assert!(same.value(i));
            }
            assert_eq!((odd.len(), same.len()), (len, len));
        }
    }

    #[test]
    fn the_macro_names_each_physical_type() {
        use alkaid_schema::PrimitiveType;
        let widths: Vec<usize> = [
            PrimitiveType::Int8,
            PrimitiveType::Int256,
            PrimitiveType::MonthDayNano,
        ]
        .into_iter()
        .map(|p| with_native!(p, |T| size_of::<T>()))
        .collect();
        assert_eq!(widths, [1, 32, 16]);
    }
}
