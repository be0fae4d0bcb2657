//! Interleaving flat fixed-width layouts (primitives, booleans, decimals, fixed-size
//! binaries of common widths) straight from their inputs: each value and bit is read from
//! the input a pair names, without joining the inputs first. Joining them cost a copy of
//! every input (1 ms of 7 for four 2 MiB `i64` inputs), and arrow-select does not pay it.

use alkaid_buffer::{BooleanBuffer, Buffer, NullBuffer, bitmap};
use alkaid_data::{ArrayData, BufferSpec, ChildSpec, layout};

use crate::error::SelectError;

/// Widths gathered as whole values; a fixed-size binary of another width takes the
/// general path.
const WIDTHS: [usize; 6] = [1, 2, 4, 8, 16, 32];

/// Whether `arrays` are all of one flat fixed-width type that [`interleave`] handles.
pub(crate) fn applies(arrays: &[ArrayData]) -> bool {
    let Some(first) = arrays.first() else {
        return false;
    };
    let spec = layout(first.data_type());
    // At least one buffer: the walk over a buffer is what checks the pairs (`Null` has
    // none, and takes the general path, which checks them on their own).
    spec.children == ChildSpec::None
        && !spec.buffers.is_empty()
        && !spec.variadic
        && !first.data_type().is_dictionary()
        && spec.buffers.iter().all(|b| match b {
            BufferSpec::Fixed { width, .. } => WIDTHS.contains(width),
            BufferSpec::Bitmap => true,
            _ => false,
        })
        && arrays.iter().all(|a| a.data_type() == first.data_type())
}

/// Slot `i` of the result is row `pairs[i].1` of `arrays[pairs[i].0]`; `arrays` pass
/// [`applies`]. `Ok(None)` when a pair lies outside the inputs (the caller names it).
pub(crate) fn interleave(
    arrays: &[ArrayData],
    pairs: &[(usize, usize)],
) -> Result<Option<ArrayData>, SelectError> {
    let first = &arrays[0];
    let spec = layout(first.data_type());
    let mut outside = false;
    let mut buffers = Vec::with_capacity(spec.buffers.len());
    for (k, buffer) in spec.buffers.iter().enumerate() {
        buffers.push(match *buffer {
            BufferSpec::Fixed { width, .. } => match width {
                1 => values::<1>(arrays, k, pairs, &mut outside),
                2 => values::<2>(arrays, k, pairs, &mut outside),
                4 => values::<4>(arrays, k, pairs, &mut outside),
                8 => values::<8>(arrays, k, pairs, &mut outside),
                16 => values::<16>(arrays, k, pairs, &mut outside),
                _ => values::<32>(arrays, k, pairs, &mut outside),
            },
            _ => {
                let inputs = arrays
                    .iter()
                    .map(|a| (Some((&a.buffers()[k][..], a.offset())), a.len()));
                bits(inputs.collect(), pairs, &mut outside).inner().clone()
            }
        });
    }
    let nulls = (spec.has_validity && arrays.iter().any(|a| a.null_count() > 0)).then(|| {
        let inputs = arrays.iter().map(|a| {
            let validity = a.nulls().map(NullBuffer::validity);
            (validity.map(|v| (&v.inner()[..], v.offset())), a.len())
        });
        NullBuffer::new(bits(inputs.collect(), pairs, &mut outside))
    });
    if outside {
        return Ok(None);
    }
    let builder = ArrayData::builder(first.data_type().clone())
        .len(pairs.len())
        .nulls(nulls)
        .buffers(buffers);
    // SAFETY: every input is a valid array of this flat type (made without `unsafe`), and
    // each slot copies one whole value (or bit) and its validity bit from one of them, so
    // every slot is a value some valid array of the type held.
    Ok(Some(unsafe { builder.build_structural_shallow() }?))
}

/// The `W`-byte values of buffer `k` that the pairs name; `outside` notes a pair outside
/// the inputs (it reads zeros).
fn values<const W: usize>(
    arrays: &[ArrayData],
    k: usize,
    pairs: &[(usize, usize)],
    outside: &mut bool,
) -> Buffer {
    let inputs: Vec<&[[u8; W]]> = arrays
        .iter()
        .map(|a| {
            let (chunks, _) = a.buffers()[k][a.offset() * W..].as_chunks::<W>();
            &chunks[..a.len()]
        })
        .collect();
    let gathered: Vec<[u8; W]> = pairs
        .iter()
        .map(
            |&(a, row)| match inputs.get(a).and_then(|input| input.get(row)) {
                Some(value) => *value,
                None => {
                    *outside = true;
                    [0; W]
                }
            },
        )
        .collect();
    // As in `gather::fixed`: the vector becomes the buffer, realigned in the rare case the
    // allocator gave less than 16 bytes.
    Buffer::from(gathered.into_flattened()).realigned(16)
}

/// One input's bitmap as `(bytes, bit offset)`, or `None` when every bit is set (the
/// validity of an array without nulls), and the input's length.
pub(crate) type Bitmap<'a> = (Option<(&'a [u8], usize)>, usize);

/// The bits the pairs name, from each input's bitmap.
pub(crate) fn bits(
    inputs: Vec<Bitmap<'_>>,
    pairs: &[(usize, usize)],
    outside: &mut bool,
) -> BooleanBuffer {
    let mut words = Vec::with_capacity(pairs.len().div_ceil(64));
    for chunk in pairs.chunks(64) {
        let mut word = 0u64;
        for (j, &(a, row)) in chunk.iter().enumerate() {
            let bit = match inputs.get(a) {
                Some(&(Some((bytes, offset)), len)) if row < len => {
                    bitmap::get_bit(bytes, offset + row)
                }
                Some(&(None, len)) if row < len => true,
                _ => {
                    *outside = true;
                    false
                }
            };
            word |= u64::from(bit) << j;
        }
        words.push(word);
    }
    BooleanBuffer::new(Buffer::from_vec(words), 0, pairs.len())
}

#[cfg(test)]
mod tests {
    use alkaid_array::{Array, BooleanArray, Int64Array, NullArray};

    use crate::interleave;

    #[test]
    fn values_bits_and_validity_come_from_the_named_inputs() {
        let a = Int64Array::from(vec![Some(1), None, Some(3)]);
        let b = Int64Array::from(vec![Some(10), Some(20)]);
        let mixed = interleave(&[&a, &b], &[(1, 1), (0, 1), (0, 2), (1, 0)]).unwrap();
        let mixed = mixed.as_any().downcast_ref::<Int64Array>().unwrap();
        assert_eq!(mixed.len(), 4);
        assert_eq!(
            (mixed.value(0), mixed.value(2), mixed.value(3)),
            (20, 3, 10)
        );
        assert!(mixed.is_null(1) && mixed.null_count() == 1);

        let p = BooleanArray::from(vec![true, false]);
        let q = BooleanArray::from(vec![false, true, true]);
        let bits = interleave(&[&p, &q], &[(1, 2), (0, 1), (0, 0)]).unwrap();
        let bits = bits.as_any().downcast_ref::<BooleanArray>().unwrap();
        assert_eq!(
            (bits.value(0), bits.value(1), bits.value(2)),
            (true, false, true)
        );
    }

    #[test]
    fn a_pair_outside_the_inputs_is_named() {
        let a = Int64Array::from(vec![1, 2]);
        let err = interleave(&[&a], &[(0, 1), (0, 2)]).unwrap_err();
        assert!(err.to_string().contains("pair 1 names row 2"), "{err}");
        let err = interleave(&[&a], &[(1, 0)]).unwrap_err();
        assert!(err.to_string().contains("pair 0 names array 1"), "{err}");
        // No buffers to walk: the general path checks the pairs.
        let nulls = NullArray::new(2);
        assert!(interleave(&[&nulls], &[(0, 5)]).is_err());
    }
}
