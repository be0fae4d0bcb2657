//! [`SortKey`]: what sorting needs of one column, made once per column of any orderable
//! type. Every row gets a 64-bit word whose order is the requested order of the values
//! (direction folded in); values wider than a word (long strings, 128- and 256-bit
//! decimals, month-day-nano intervals) add a comparison for rows whose words are equal.
//!
//! Encoded and nested columns become dense ranks: a dictionary's values are ranked once
//! and its keys look the rank up, a run's value is ranked once for all its rows, and a
//! struct or list row is ranked by sorting the rows over its children's ranks.

use std::cmp::Ordering;

use alkaid_buffer::{BooleanBuffer, NativeType, NullBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::PhysicalType;

use super::options::SortOptions;
use super::rows::{Column, compare_rows, sort_rows};
use super::word::{SortWord, head_word};
use crate::access::{ByteAccess, BytesVisitor, list_ranges, native_values, visit_bytes};
use crate::encoding::{Runs, dictionary_keys};
use crate::error::ComputeError;
use crate::validity::logical_nulls;
use alkaid_array::with_native;

/// The comparison of two valid rows whose words are equal, in the requested order.
type Tie<'a> = Box<dyn Fn(usize, usize) -> Ordering + 'a>;

/// A byte value's word at a depth (its bytes `8 * depth..8 * depth + 8`, zero-padded) and
/// how many of those bytes it has (up to 8), both in the requested order.
type Deeper<'a> = Box<dyn Fn(usize, usize) -> (u64, u8) + 'a>;

/// One column, ready to be sorted by. Rows are slots of the column's window.
pub(crate) struct SortKey<'a> {
    /// Each row's word, in the requested order (meaningless for null rows).
    words: Vec<u64>,
    /// Breaks ties between equal words; `None` when equal words mean equal values.
    tie: Option<Tie<'a>>,
    /// For byte values: their words further in, for refining runs of equal words.
    deeper: Option<Deeper<'a>>,
    /// The rows that are null, at any level.
    nulls: Option<NullBuffer>,
    /// Whether null rows come before the values.
    nulls_first: bool,
}

impl Column for SortKey<'_> {
    #[inline(always)]
    fn word(&self, row: usize) -> u64 {
        self.words[row]
    }

    #[inline(always)]
    fn is_null(&self, row: usize) -> bool {
        self.nulls.as_ref().is_some_and(|n| n.is_null(row))
    }

    fn nulls_first(&self) -> bool {
        self.nulls_first
    }

    fn has_ties(&self) -> bool {
        self.tie.is_some()
    }

    fn word_at(&self, row: usize, depth: usize) -> Option<(u64, u8)> {
        self.deeper.as_ref().map(|deeper| deeper(row, depth))
    }

    #[inline(always)]
    fn compare_valid(&self, a: usize, b: usize) -> Ordering {
        match self.words[a].cmp(&self.words[b]) {
            Ordering::Equal => self.tie.as_ref().map_or(Ordering::Equal, |tie| tie(a, b)),
            unequal => unequal,
        }
    }
}

impl<'a> SortKey<'a> {
    /// The key of `data` in the order `options` asks for.
    ///
    /// # Errors
    /// If the type has no order (maps, unions) or its buffers are malformed.
    pub fn of(data: &'a ArrayData, options: SortOptions) -> Result<Self, ComputeError> {
        let nulls = logical_nulls(data)?;
        let (words, tie, deeper) = match data.data_type().to_physical() {
            PhysicalType::Null => (vec![0; data.len()], None, None),
            PhysicalType::Boolean => {
                let bits = BooleanBuffer::new(data.buffers()[0].clone(), data.offset(), data.len());
                let words = bits.iter().map(|b| fold(u64::from(b), options)).collect();
                (words, None, None)
            }
            PhysicalType::Primitive(p) => {
                let (words, tie) = with_native!(p, |T| natives::<T>(data, options)?);
                (words, tie, None)
            }
            PhysicalType::Dictionary(_) => (dictionary_words(data, options)?, None, None),
            PhysicalType::RunEndEncoded(_) => (run_words(data, options)?, None, None),
            PhysicalType::Struct => (struct_words(data, options)?, None, None),
            PhysicalType::FixedSizeList(_)
            | PhysicalType::List
            | PhysicalType::LargeList
            | PhysicalType::ListView
            | PhysicalType::LargeListView => (list_words(data, options)?, None, None),
            physical if crate::access::is_binary_like(physical) => {
                let (len, descending) = (data.len(), options.descending);
                visit_bytes(data, ByteWords { len, descending })?
                    .expect("binary-like layouts have byte values")
            }
            _ => {
                return Err(ComputeError::unsupported(
                    "sort",
                    format!("{} has no order to sort by", data.data_type()),
                ));
            }
        };
        Ok(Self {
            words,
            tie,
            deeper,
            nulls,
            nulls_first: options.nulls_first,
        })
    }

    /// Each row's dense rank (0 first) in the order of the key, nulls included where the
    /// key places them.
    pub fn dense_ranks(&self, len: usize) -> Result<Vec<u64>, ComputeError> {
        let order = sort_rows(std::slice::from_ref(self), all_rows(len)?, len);
        Ok(dense_ranks(&order, |a, b| self.compare(a, b)))
    }
}

/// The dense rank (0 first) of each row, given the rows in `order` and how they compare.
fn dense_ranks(order: &[u32], compare: impl Fn(usize, usize) -> Ordering) -> Vec<u64> {
    let mut ranks = vec![0u64; order.len()];
    let mut rank = 0u64;
    for pair in order.windows(2) {
        let (previous, row) = (pair[0] as usize, pair[1] as usize);
        if compare(previous, row) != Ordering::Equal {
            rank += 1;
        }
        ranks[row] = rank;
    }
    ranks
}

/// Rows `0..len` as `u32`s.
///
/// # Errors
/// If `len` does not fit a `u32`, the type of sorted row numbers.
pub(crate) fn all_rows(len: usize) -> Result<Vec<u32>, ComputeError> {
    let count = u32::try_from(len).map_err(|_| {
        ComputeError::unsupported(
            "sort",
            format!("{len} rows do not fit the u32 row numbers sorts return"),
        )
    })?;
    Ok((0..count).collect())
}

/// A word in the requested direction.
#[inline(always)]
fn fold(word: u64, options: SortOptions) -> u64 {
    if options.descending { !word } else { word }
}

/// An order in the requested direction.
#[inline(always)]
fn directed(order: Ordering, descending: bool) -> Ordering {
    if descending { order.reverse() } else { order }
}

/// Fixed-width values: their words, and a tie-break when a word does not hold them whole.
fn natives<T: SortWord>(
    data: &ArrayData,
    options: SortOptions,
) -> Result<(Vec<u64>, Option<Tie<'static>>), ComputeError> {
    let values = native_values::<T>(data)?;
    let words = values.iter().map(|v| fold(v.word(), options)).collect();
    let tie: Option<Tie<'static>> = if T::EXACT {
        None
    } else {
        let descending = options.descending;
        Some(Box::new(move |a, b| {
            directed(T::order(values[a], values[b]), descending)
        }))
    };
    Ok((words, tie))
}

/// Byte values: their first eight bytes as the word, the whole values as the tie-break.
struct ByteWords {
    len: usize,
    descending: bool,
}

impl<'a> BytesVisitor<'a> for ByteWords {
    type Output = (Vec<u64>, Option<Tie<'a>>, Option<Deeper<'a>>);

    fn visit<B: ByteAccess<'a>>(self, values: B) -> Self::Output {
        let descending = self.descending;
        let words = (0..self.len)
            .map(|i| {
                let word = head_word(values.value(i));
                if descending { !word } else { word }
            })
            .collect();
        let tie: Tie<'a> =
            Box::new(move |a, b| directed(values.value(a).cmp(values.value(b)), descending));
        let deeper: Deeper<'a> = Box::new(move |row, depth| {
            let value = values.value(row);
            let rest = value.get(depth * 8..).unwrap_or_default();
            let (word, count) = (head_word(rest), rest.len().min(8) as u8);
            if descending {
                (!word, !count)
            } else {
                (word, count)
            }
        });
        (words, Some(tie), Some(deeper))
    }
}

/// A dictionary's rows: the rank of the entry each key picks (entries ranked once).
fn dictionary_words(data: &ArrayData, options: SortOptions) -> Result<Vec<u64>, ComputeError> {
    let entries = data.dictionary().ok_or_else(|| {
        ComputeError::InvalidArgument("a dictionary array without its dictionary".into())
    })?;
    let ranks = SortKey::of(entries, options)?.dense_ranks(entries.len())?;
    let keys = dictionary_keys(data)?;
    let PhysicalType::Primitive(p) = keys.data_type().to_physical() else {
        return Err(ComputeError::InvalidArgument(
            "dictionary keys are not integers".into(),
        ));
    };
    alkaid_array::with_integer!(p, |T| {
        let keys = native_values::<T>(&keys)?;
        // A null row's key may point anywhere; its word is never read.
        Ok(keys
            .iter()
            .map(|key| {
                let entry = key.to_i64().and_then(|k| usize::try_from(k).ok());
                entry.and_then(|e| ranks.get(e)).copied().unwrap_or(0)
            })
            .collect())
    })
}

/// A run-end encoded array's rows: the rank of their run's value (each run ranked once).
fn run_words(data: &ArrayData, options: SortOptions) -> Result<Vec<u64>, ComputeError> {
    let runs = Runs::of(data)?;
    let ranks = SortKey::of(&runs.values, options)?.dense_ranks(runs.values.len())?;
    let mut words = Vec::with_capacity(data.len());
    for (&rank, &length) in ranks.iter().zip(&runs.lengths) {
        words.extend(std::iter::repeat_n(rank, length));
    }
    Ok(words)
}

/// A struct's rows: ranked by their fields, in order, each in the requested order.
fn struct_words(data: &ArrayData, options: SortOptions) -> Result<Vec<u64>, ComputeError> {
    let fields: Vec<ArrayData> = data
        .children()
        .iter()
        .map(|child| child.slice(data.offset(), data.len()))
        .collect();
    let keys = fields
        .iter()
        .map(|field| SortKey::of(field, options))
        .collect::<Result<Vec<_>, _>>()?;
    let order = sort_rows(&keys, all_rows(data.len())?, data.len());
    Ok(dense_ranks(&order, |a, b| compare_rows(&keys, a, b)))
}

/// A list's rows: ranked element by element, then by length (a list that is a prefix of
/// another comes first when ascending).
fn list_words(data: &ArrayData, options: SortOptions) -> Result<Vec<u64>, ComputeError> {
    let items = &data.children()[0];
    let ranks = SortKey::of(items, options)?.dense_ranks(items.len())?;
    let ranges = list_ranges(data)?;
    let elements = |(start, len): (usize, usize)| ranks.get(start..start + len).unwrap_or(&[]);
    let compare = |a: usize, b: usize| {
        let (x, y) = (elements(ranges[a]), elements(ranges[b]));
        match x.iter().zip(y).map(|(p, q)| p.cmp(q)).find(|o| o.is_ne()) {
            Some(order) => order,
            None => directed(x.len().cmp(&y.len()), options.descending),
        }
    };
    let mut order = all_rows(data.len())?;
    order.sort_by(|&a, &b| compare(a as usize, b as usize));
    Ok(dense_ranks(&order, compare))
}
