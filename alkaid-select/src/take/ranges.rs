//! Copying variable-length slots (strings, binaries, the flat children of lists) whole,
//! slot by slot, in one pass over the positions: new offsets and the copied items.
//!
//! Short slots (most) copy a fixed number of items whatever their length, with no branch
//! on it; the next slot overwrites the excess. The items go into room guessed up front
//! from the input's average length ([`guess`]), which never grows inside the loop: a call
//! that may reallocate made the compiler keep the loop's state in memory, and growing by
//! doubling cost a tenth of the time. When the guess falls short (a take that repeats long
//! slots), the loop goes on only counting, and a second pass copies into room of the
//! counted size.
//!
//! Filters at selectivity 0.5, in loops alternating with arrow-select: 1 Mi lists of 0 to
//! 3 `i32`, 2.23 ms before this shape, 1.46 ms with it (arrow-select: 10 ms); 1 Mi strings
//! of 6 to 9 bytes, 2.47 ms before (three passes, as a take), 1.45 ms (arrow-select:
//! 4.3 ms).

use std::mem::MaybeUninit;

use alkaid_buffer::OffsetSize;

use super::gather::{self, Positions};

/// Offsets of the copied slots (from 0) and their items.
pub(crate) struct Copied<O, T> {
    pub offsets: Vec<O>,
    pub items: Vec<T>,
}

/// How many items the slots of `offsets` (one more than the slots) span.
pub(crate) fn span<O: OffsetSize>(offsets: &[O]) -> usize {
    match (offsets.first(), offsets.last()) {
        (Some(first), Some(last)) => last.as_usize().saturating_sub(first.as_usize()),
        _ => 0,
    }
}

/// Room for the items of `count` slots taken from `offsets` (one more than the slots),
/// guessed from their average length with an eighth to spare, plus `short` so that the
/// last fixed-size copy fits. Saturates at `usize::MAX` (a float cast does).
pub(crate) fn guess<O: OffsetSize>(offsets: &[O], count: usize, short: usize) -> usize {
    let slots = offsets.len().saturating_sub(1);
    if slots == 0 || count == 0 {
        return short;
    }
    let average = span(offsets) as f64 / slots as f64;
    (count as f64 * average * 1.125) as usize + short
}

/// The slots at `positions` of the variable-length array with `offsets` (one more than
/// its slots, each an index into `items`); `None` gives an empty slot. `None` when the
/// copied items overflow `O`.
///
/// Slots of at most `SHORT` items are copied as `SHORT` items when the input has them.
/// The guessed room is written without being filled first (filling it cost 8% of a filter
/// of short strings); `zero` fills the counted room of the second pass.
pub(crate) fn copy<O, T, P, const SHORT: usize>(
    offsets: &[O],
    items: &[T],
    positions: &P,
    zero: T,
) -> Option<Copied<O, T>>
where
    O: OffsetSize,
    T: Copy,
    P: Positions + ?Sized,
{
    let mut new_offsets: Vec<O> = Vec::with_capacity(positions.len() + 1);
    new_offsets.push(O::ZERO);
    // Only a guess: when the taken slots are much shorter than the average (many takes of
    // an empty list beside a huge one), it can be far more than the result needs, even
    // more than memory. Room that cannot be had is no room: every slot then goes to the
    // counted second pass, whose room is what the result really holds (a refused
    // reservation leaves the vector empty).
    let mut out: Vec<T> = Vec::new();
    let _ = out.try_reserve_exact(guess(offsets, positions.len(), SHORT));
    let room = out.spare_capacity_mut();
    // The running total and whether the room still holds every slot so far: state handed
    // from slot to slot, so that it stays in registers.
    let (total, fits) = gather::extend_in_place_with(
        &mut new_offsets,
        positions,
        (0usize, true),
        |(total, fits), position| {
            if let Some(i) = position {
                let (start, end) = (offsets[i].as_usize(), offsets[i + 1].as_usize());
                let len = end.saturating_sub(start);
                let at = *total;
                if len <= SHORT && start + SHORT <= items.len() && at + SHORT <= room.len() {
                    // Checks that short-circuit, and a slice copy of constant length (two
                    // moves): testing `first_chunk` options for all three at once and
                    // copying the chunk as a value cost a quarter more per slot.
                    write(&mut room[at..at + SHORT], &items[start..start + SHORT]);
                } else if *fits && at + len <= room.len() {
                    write(&mut room[at..at + len], &items[start..end]);
                } else {
                    *fits = false;
                }
                *total += len;
            }
            O::usize_as(*total)
        },
    );
    O::from_usize(total)?;
    if !fits {
        out = vec![zero; total];
        copy_again(&mut out, &new_offsets, items, offsets, positions);
    } else {
        // SAFETY: the room holds `total` items (each slot was written only where it fit),
        // and every one of them was written: the slots were copied in order, each to where
        // the one before ended, each at least its own length.
        unsafe { out.set_len(total) };
    }
    Some(Copied {
        offsets: new_offsets,
        items: out,
    })
}

/// Writes `items` into `room`, which is as long: what `<[MaybeUninit<T>]>::write_copy_of_slice`
/// does from Rust 1.93, past this workspace's minimum. (A loop writing item by item
/// doubled the time of a filter of short strings: it did not become one move.)
#[inline(always)]
fn write<T: Copy>(room: &mut [MaybeUninit<T>], items: &[T]) {
    assert_eq!(room.len(), items.len(), "room for every item");
    // SAFETY: both slices hold `items.len()` elements (asserted), and they cannot overlap:
    // `room` is borrowed mutably. `MaybeUninit<T>` has the layout of `T`.
    unsafe {
        std::ptr::copy_nonoverlapping(items.as_ptr(), room.as_mut_ptr().cast::<T>(), items.len());
    }
}

/// The second pass of [`copy`]: the slots at `positions` into `out`, where `new_offsets`
/// (counted from the same slots) says they go.
fn copy_again<O: OffsetSize, T: Copy, P: Positions + ?Sized>(
    out: &mut [T],
    new_offsets: &[O],
    items: &[T],
    offsets: &[O],
    positions: &P,
) {
    let mut slot = 0;
    positions.for_each(|position| {
        if let Some(i) = position {
            let (to, to_end) = (
                new_offsets[slot].as_usize(),
                new_offsets[slot + 1].as_usize(),
            );
            let from = offsets[i].as_usize();
            out[to..to_end].copy_from_slice(&items[from..from + (to_end - to)]);
        }
        slot += 1;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guess_past_memory_sends_every_slot_to_the_counted_pass() {
        // Slot 2 claims 2^50 items, so the average guesses petabytes for a take of the
        // empty slot 0, many times, and of slot 1: the room is refused, nothing aborts or
        // panics, and slot 1's items arrive through the counted second pass. (The items
        // are not all there: the copy reads only the slots it takes.)
        let offsets = [0i64, 0, 3, 3 + (1 << 50)];
        let mut positions: Vec<Option<usize>> = vec![Some(0); 1000];
        positions.extend([Some(1), None, Some(1)]);
        assert!(guess(&offsets, positions.len(), 16) > 1 << 58);
        let copied = copy::<i64, u8, _, 16>(&offsets, &[1, 2, 3], positions.as_slice(), 0)
            .expect("no overflow");
        let mut expected = vec![0i64; 1001];
        expected.extend([3, 3, 6]);
        assert_eq!(copied.offsets, expected);
        assert_eq!(copied.items, vec![1, 2, 3, 1, 2, 3]);
    }
}
