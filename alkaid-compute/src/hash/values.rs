//! The value hash of every row of an array, per the algorithm in the [module docs](super).

use alkaid_buffer::native::{IntervalDayTime, IntervalMonthDayNano, f16, i256};
use alkaid_buffer::{BooleanBuffer, NativeType, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, PhysicalType, UnionMode};

use super::{K, LIST, NULL, STRUCT, UNION, fold};
use crate::access::{ByteAccess, BytesVisitor, list_ranges, native_values, visit_bytes};
use crate::encoding::{Runs, dictionary_keys};
use crate::error::ComputeError;
use alkaid_array::with_native;

/// A fixed-width value's hash: its bytes as little-endian words.
pub(crate) trait HashValue: NativeType {
    /// The value hash.
    fn value_hash(self) -> u64;
}

/// The hash of `n` bytes that make up the single word `word` (`n <= 8`).
#[inline(always)]
fn one_word(n: u64, word: u64) -> u64 {
    fold(K ^ n ^ word, K)
}

/// The hash of `n` bytes given as whole words.
#[inline(always)]
fn words(n: u64, words: &[u64]) -> u64 {
    words.iter().fold(K ^ n, |x, &word| fold(x ^ word, K))
}

/// The hash of a byte string.
#[inline]
pub(crate) fn bytes_hash(bytes: &[u8]) -> u64 {
    let mut x = K ^ bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in chunks.by_ref() {
        let word = u64::from_le_bytes(chunk.try_into().expect("chunks of 8"));
        x = fold(x ^ word, K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut padded = [0u8; 8];
        padded[..rest.len()].copy_from_slice(rest);
        x = fold(x ^ u64::from_le_bytes(padded), K);
    }
    x
}

macro_rules! hash_int {
    ($($t:ty => $unsigned:ty),*) => {$(
        impl HashValue for $t {
            #[inline(always)]
            fn value_hash(self) -> u64 {
                one_word(size_of::<$t>() as u64, u64::from(self as $unsigned))
            }
        }
    )*};
}
hash_int!(i8 => u8, i16 => u16, i32 => u32, i64 => u64, u8 => u8, u16 => u16, u32 => u32, u64 => u64);

impl HashValue for i128 {
    #[inline(always)]
    fn value_hash(self) -> u64 {
        words(16, &[self as u64, (self >> 64) as u64])
    }
}

impl HashValue for i256 {
    fn value_hash(self) -> u64 {
        let bytes = self.to_le_bytes();
        let mut parts = [0u64; 4];
        for (part, chunk) in parts.iter_mut().zip(bytes.chunks_exact(8)) {
            *part = u64::from_le_bytes(chunk.try_into().expect("chunks of 8"));
        }
        words(32, &parts)
    }
}

impl HashValue for f16 {
    #[inline(always)]
    fn value_hash(self) -> u64 {
        let bits = if self.is_nan() {
            f16::NAN.to_bits()
        } else if self == f16::ZERO {
            0
        } else {
            self.to_bits()
        };
        one_word(2, u64::from(bits))
    }
}

impl HashValue for f32 {
    #[inline(always)]
    fn value_hash(self) -> u64 {
        let bits = if self.is_nan() {
            f32::NAN.to_bits()
        } else if self == 0.0 {
            0
        } else {
            self.to_bits()
        };
        one_word(4, u64::from(bits))
    }
}

impl HashValue for f64 {
    #[inline(always)]
    fn value_hash(self) -> u64 {
        let bits = if self.is_nan() {
            f64::NAN.to_bits()
        } else if self == 0.0 {
            0
        } else {
            self.to_bits()
        };
        one_word(8, bits)
    }
}

impl HashValue for IntervalDayTime {
    #[inline(always)]
    fn value_hash(self) -> u64 {
        let word = u64::from(self.days as u32) | u64::from(self.milliseconds as u32) << 32;
        one_word(8, word)
    }
}

impl HashValue for IntervalMonthDayNano {
    #[inline(always)]
    fn value_hash(self) -> u64 {
        let first = u64::from(self.months as u32) | u64::from(self.days as u32) << 32;
        words(16, &[first, self.nanoseconds as u64])
    }
}

/// The value hash of each row of `data` (`NULL` for null rows, at any level).
pub(crate) fn value_hashes(data: &ArrayData) -> Result<Vec<u64>, ComputeError> {
    let mut hashes = match data.data_type().to_physical() {
        PhysicalType::Null => return Ok(vec![NULL; data.len()]),
        PhysicalType::Dictionary(_) => return dictionary(data),
        PhysicalType::RunEndEncoded(_) => return runs(data),
        PhysicalType::SparseUnion | PhysicalType::DenseUnion => return union(data),
        PhysicalType::Boolean => {
            let bits = BooleanBuffer::new(data.buffers()[0].clone(), data.offset(), data.len());
            bits.iter().map(|b| one_word(1, u64::from(b))).collect()
        }
        PhysicalType::Primitive(p) => with_native!(p, |T| {
            let values = native_values::<T>(data)?;
            values.iter().map(|v| v.value_hash()).collect::<Vec<u64>>()
        }),
        PhysicalType::Struct => {
            let mut hashes = vec![STRUCT; data.len()];
            for child in data.children() {
                let child = value_hashes(child)?;
                let child = &child[data.offset()..data.offset() + data.len()];
                for (x, c) in hashes.iter_mut().zip(child) {
                    *x = fold(*x ^ c, K);
                }
            }
            hashes
        }
        PhysicalType::FixedSizeList(size) => {
            let size = usize::try_from(size).unwrap_or(0);
            let items = value_hashes(&data.children()[0])?;
            (0..data.len())
                .map(|i| list_hash(&items, (data.offset() + i) * size, size))
                .collect()
        }
        PhysicalType::List
        | PhysicalType::LargeList
        | PhysicalType::ListView
        | PhysicalType::LargeListView => {
            let items = value_hashes(&data.children()[0])?;
            let ranges = list_ranges(data)?;
            ranges
                .iter()
                .map(|&(start, len)| list_hash(&items, start, len))
                .collect()
        }
        _ => visit_bytes(data, ByteHashes { len: data.len() })?.ok_or_else(|| {
            ComputeError::unsupported("hash", format!("cannot hash {}", data.data_type()))
        })?,
    };
    if let Some(nulls) = data.nulls() {
        for row in (0..data.len()).filter(|&row| nulls.is_null(row)) {
            hashes[row] = NULL;
        }
    }
    Ok(hashes)
}

fn list_hash(items: &[u64], start: usize, len: usize) -> u64 {
    let x = fold(LIST ^ len as u64, K);
    items[start..start + len]
        .iter()
        .fold(x, |x, &item| fold(x ^ item, K))
}

struct ByteHashes {
    len: usize,
}

impl<'a> BytesVisitor<'a> for ByteHashes {
    type Output = Vec<u64>;

    fn visit<B: ByteAccess<'a>>(self, values: B) -> Vec<u64> {
        (0..self.len).map(|i| bytes_hash(values.value(i))).collect()
    }
}

/// Dictionary rows hash as their values: each entry hashed once, then looked up by key.
fn dictionary(data: &ArrayData) -> Result<Vec<u64>, ComputeError> {
    let values = data.dictionary().ok_or_else(|| {
        ComputeError::InvalidArgument("a dictionary array without its dictionary".into())
    })?;
    let entries = value_hashes(values)?;
    let keys = dictionary_keys(data)?;
    let PhysicalType::Primitive(p) = keys.data_type().to_physical() else {
        return Err(ComputeError::InvalidArgument(
            "dictionary keys are not integers".into(),
        ));
    };
    alkaid_array::with_integer!(p, |T| {
        let positions = native_values::<T>(&keys)?;
        Ok(positions
            .iter()
            .enumerate()
            .map(|(row, key)| {
                let entry = key.to_i64().and_then(|k| usize::try_from(k).ok());
                match entry.and_then(|e| entries.get(e)) {
                    Some(&hash) if keys.is_valid(row) => hash,
                    _ => NULL,
                }
            })
            .collect())
    })
}

/// Run-end encoded rows hash as their run's value: each run hashed once.
fn runs(data: &ArrayData) -> Result<Vec<u64>, ComputeError> {
    let runs = Runs::of(data)?;
    let values = value_hashes(&runs.values)?;
    let mut hashes = Vec::with_capacity(data.len());
    for (hash, &length) in values.iter().zip(&runs.lengths) {
        hashes.extend(std::iter::repeat_n(*hash, length));
    }
    Ok(hashes)
}

/// Union rows hash as their type id and their child's value.
fn union(data: &ArrayData) -> Result<Vec<u64>, ComputeError> {
    let DataType::Union(union) = data.data_type() else {
        return Err(ComputeError::unsupported("hash", "expected a union"));
    };
    let children = data
        .children()
        .iter()
        .map(value_hashes)
        .collect::<Result<Vec<_>, _>>()?;
    let (offset, len) = (data.offset(), data.len());
    let ids = &data.buffers()[0][offset..offset + len];
    let dense = match union.mode() {
        UnionMode::Dense => Some(
            ScalarBuffer::<i32>::new_realigned(data.buffers()[1].clone(), offset, len)
                .map_err(|e| ComputeError::Data(e.into()))?,
        ),
        UnionMode::Sparse => None,
    };
    Ok((0..len)
        .map(|i| {
            let id = ids[i] as i8;
            let slot = dense.as_ref().map_or(offset + i, |o| o[i] as usize);
            let value = union
                .child_index(id)
                .and_then(|c| children[c].get(slot).copied())
                .unwrap_or(NULL);
            // A null member is a null union value (as equality sees it), whatever its type.
            if value == NULL {
                NULL
            } else {
                fold(fold(UNION ^ u64::from(id as u8), K) ^ value, K)
            }
        })
        .collect())
}
