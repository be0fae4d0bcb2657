//! Kernels that choose slots by a boolean mask: `zip` (one side or the other) and `nullif`
//! (the slot or a null).
//!
//! `zip` is an interleave of its two sides; `nullif` clears validity bits directly where the
//! layout has a validity bitmap, and otherwise (unions, run-end encoded) takes null slots the
//! way `take` makes them, so the mask is honoured for every type.

use alkaid_array::{Array, ArrayRef, BooleanArray, make_array};
use alkaid_buffer::NullBuffer;
use alkaid_data::{ArrayData, layout};

use crate::error::SelectError;
use crate::filter::true_bits;
use crate::interleave::interleave;
use crate::take::take_data;

/// `truthy` where `mask` is true, `falsy` elsewhere (a null mask slot counts as false).
/// Either side may be a scalar: an array of length 1, used for every slot.
///
/// # Errors
/// If a side is neither of the mask's length nor of length 1, or the types differ.
///
/// ```
/// use alkaid_array::{AsArray, BooleanArray, StringArray};
/// use alkaid_select::zip;
/// let mask = BooleanArray::from(vec![Some(true), Some(false), None]);
/// let picked = zip(&mask, &StringArray::from(vec!["a", "b", "c"]), &StringArray::from(vec!["-"]))?;
/// let picked = picked.as_string::<i32>();
/// assert_eq!((picked.value(0), picked.value(1), picked.value(2)), ("a", "-", "-"));
/// # Ok::<(), alkaid_select::SelectError>(())
/// ```
pub fn zip(
    mask: &BooleanArray,
    truthy: &dyn Array,
    falsy: &dyn Array,
) -> Result<ArrayRef, SelectError> {
    let len = mask.len();
    let row = |side: &dyn Array, name: &str| -> Result<Box<dyn Fn(usize) -> usize>, SelectError> {
        match side.len() {
            1 => Ok(Box::new(|_| 0)),
            n if n == len => Ok(Box::new(|i| i)),
            n => Err(SelectError::Mismatch(format!(
                "expected the {name} side to have {len} slots or 1, found {n}"
            ))),
        }
    };
    let (t, f) = (row(truthy, "true")?, row(falsy, "false")?);
    let chosen = true_bits(mask);
    let pairs: Vec<(usize, usize)> = (0..len)
        .map(|i| {
            if chosen.value(i) {
                (0, t(i))
            } else {
                (1, f(i))
            }
        })
        .collect();
    interleave(&[truthy, falsy], &pairs)
}

/// `array` with the slots where `mask` is true made null (a null mask slot leaves the slot
/// as it is). Types without a validity bitmap of their own (unions, run-end encoded) get
/// null slots the way their builders make them.
///
/// # Errors
/// If the lengths differ.
///
/// ```
/// use alkaid_array::{BooleanArray, Int32Array};
/// use alkaid_select::nullif;
/// let cleared = nullif(&Int32Array::from(vec![1, 2, 3]), &BooleanArray::from(vec![false, true, false]))?;
/// assert_eq!((cleared.null_count(), cleared.is_null(1)), (1, true));
/// # Ok::<(), alkaid_select::SelectError>(())
/// ```
pub fn nullif(array: &dyn Array, mask: &BooleanArray) -> Result<ArrayRef, SelectError> {
    let data = array.to_data();
    if mask.len() != data.len() {
        return Err(SelectError::Mismatch(format!(
            "expected a mask of {} slots, found {}",
            data.len(),
            mask.len()
        )));
    }
    let clear = true_bits(mask);
    let spec = layout(data.data_type());
    if spec.has_validity {
        let keep = !&clear;
        let validity = match data.nulls() {
            Some(nulls) => nulls.validity() & &keep,
            None => keep,
        };
        let rebuilt = ArrayData::builder(data.data_type().clone())
            .len(data.len())
            .offset(data.offset())
            .nulls(Some(NullBuffer::new(validity)))
            .buffers(data.buffers().to_vec())
            .children(data.children().to_vec());
        let rebuilt = match data.shared_dictionary() {
            Some(dictionary) => rebuilt.dictionary(dictionary.clone()),
            None => rebuilt,
        };
        return Ok(make_array(rebuilt.build()?));
    }
    let indices: Vec<Option<usize>> = clear
        .iter()
        .enumerate()
        .map(|(i, c)| (!c).then_some(i))
        .collect();
    Ok(make_array(take_data(&data, indices.as_slice())?))
}
