//! The value set's fast path for fixed-width values of up to 8 bytes (integers, dates,
//! times, timestamps, durations, floats, small decimals): values looked up by their bits
//! in a table of their own, without the generic row hash and row comparison. Floats are
//! looked up canonically (`-0.0` as `0.0`, every NaN as one), as the crate's equality has
//! them.

use alkaid_buffer::BooleanBuffer;
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, PhysicalType};
use hashbrown::HashTable;

use crate::access::native_values;
use crate::bits::collect_bits;
use crate::error::ComputeError;
use crate::hash::{K, fold};

/// Distinct values by their bits, with their first positions.
pub(super) struct BitsTable {
    data_type: DataType,
    table: HashTable<(u64, usize)>,
    /// A bit per 16-bit hash prefix, set where a value of the set has it: most values
    /// that are absent are answered from this 8 KiB (it stays in the first-level cache)
    /// without a probe of the table.
    prefixes: Vec<u64>,
}

/// The bit of `prefixes` for a hash: its top 16 bits.
#[inline(always)]
fn prefix(hash: u64) -> (usize, u64) {
    let top = (hash >> 48) as usize;
    (top / 64, 1 << (top % 64))
}

/// The values' bits, canonical for floats; `None` for types this path does not take.
fn bits(data: &ArrayData) -> Result<Option<Vec<u64>>, ComputeError> {
    let PhysicalType::Primitive(kind) = data.data_type().to_physical() else {
        return Ok(None);
    };
    Ok(Some(match (data.data_type(), kind.byte_width()) {
        (DataType::Float64, _) => {
            let values = native_values::<f64>(data)?;
            values.iter().map(|&v| canonical(v)).collect()
        }
        (DataType::Float32, _) => {
            let values = native_values::<f32>(data)?;
            values.iter().map(|&v| canonical(f64::from(v))).collect()
        }
        (DataType::Float16, _) => {
            let values = native_values::<alkaid_buffer::native::f16>(data)?;
            values
                .iter()
                .map(|&v| canonical(f64::from(v.to_f32())))
                .collect()
        }
        (_, 1) => native_values::<u8>(data)?
            .iter()
            .map(|&v| u64::from(v))
            .collect(),
        (_, 2) => native_values::<u16>(data)?
            .iter()
            .map(|&v| u64::from(v))
            .collect(),
        (_, 4) => native_values::<u32>(data)?
            .iter()
            .map(|&v| u64::from(v))
            .collect(),
        (_, 8) => native_values::<u64>(data)?.to_vec(),
        _ => return Ok(None),
    }))
}

fn canonical(v: f64) -> u64 {
    if v.is_nan() {
        f64::NAN.to_bits()
    } else {
        (v + 0.0).to_bits()
    }
}

#[inline(always)]
fn hash(bits: u64) -> u64 {
    fold(bits ^ K, K)
}

impl BitsTable {
    /// The table of the distinct valid values `data` holds at `positions`, if its type
    /// takes this path.
    pub fn of(data: &ArrayData, positions: &[usize]) -> Result<Option<Self>, ComputeError> {
        let Some(values) = bits(data)? else {
            return Ok(None);
        };
        let mut table = HashTable::with_capacity(positions.len());
        let mut prefixes = vec![0u64; 1 << 10];
        for &position in positions {
            let key = values[position];
            table.insert_unique(hash(key), (key, position), |&(k, _)| hash(k));
            let (word, bit) = prefix(hash(key));
            prefixes[word] |= bit;
        }
        Ok(Some(Self {
            data_type: data.data_type().clone(),
            table,
            prefixes,
        }))
    }

    /// Whether the value `key` (its bits) is in the set.
    #[inline(always)]
    fn holds(&self, key: u64) -> bool {
        let hash = hash(key);
        let (word, bit) = prefix(hash);
        self.prefixes[word] & bit != 0 && self.table.find(hash, |&(k, _)| k == key).is_some()
    }

    /// A bit per row of `probe`: whether its value is in the set (null rows answered on
    /// whatever their slot holds), if the probe's type is the set's (`None` otherwise).
    pub fn contains(&self, probe: &ArrayData) -> Result<Option<BooleanBuffer>, ComputeError> {
        if probe.data_type() != &self.data_type {
            return Ok(None);
        }
        let Some(values) = bits(probe)? else {
            return Ok(None);
        };
        Ok(Some(collect_bits(values.len(), |row| {
            self.holds(values[row])
        })))
    }

    /// For each row of `probe`, the position of its value, if the probe's type is the
    /// set's (`None` otherwise: the caller takes the generic path).
    pub fn find(&self, probe: &ArrayData) -> Result<Option<Vec<Option<usize>>>, ComputeError> {
        if probe.data_type() != &self.data_type {
            return Ok(None);
        }
        let Some(values) = bits(probe)? else {
            return Ok(None);
        };
        Ok(Some(
            values
                .iter()
                .map(|&key| {
                    self.table
                        .find(hash(key), |&(k, _)| k == key)
                        .map(|&(_, position)| position)
                })
                .collect(),
        ))
    }
}
