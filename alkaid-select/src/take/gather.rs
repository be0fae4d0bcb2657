//! Gathering slots by position, shared by `filter` (selected indices), `take` and `nullif`:
//! the loops that copy fixed-width values, bits, and variable-width bytes one slot at a
//! time.
//!
//! Positions come in several shapes (a mask's set bits, typed indices read in place, plain
//! lists); each shape walks itself in its fastest way ([`Positions::for_each`]) and the
//! gathers are written once against that. `None` positions (null indices of `take`) produce
//! zeroed values, unset bits and empty byte strings; the caller marks them null.

use std::cell::Cell;

use alkaid_buffer::native::ByteView;
use alkaid_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetSize, bitmap};

use alkaid_data::{ArrayData, ArrayDataBuilder};

use crate::error::SelectError;

/// Where each slot of a result comes from: a position of the input, or `None` for a null
/// slot. Every position is below the length of the array it is applied to: whoever makes a
/// `Positions` checks that (an out-of-range position panics in the gathers, it is never
/// read).
pub(crate) trait Positions {
    /// Number of slots.
    fn len(&self) -> usize;
    /// Which slots have a position; `None` when all do.
    fn nulls(&self) -> Option<NullBuffer>;
    /// Calls `f` with each slot's position, in order.
    fn for_each(&self, f: impl FnMut(Option<usize>));

    /// Whether positions only grow, so that the CPU's own prefetcher sees where gathers go
    /// next.
    const ASCENDING: bool = false;

    /// The `W`-byte values at these positions of `chunks`; `None` gives zeros.
    fn gather_fixed<const W: usize>(&self, chunks: &[[u8; W]]) -> Vec<[u8; W]> {
        let mut gathered = Vec::new();
        extend_in_place(&mut gathered, self, |p| p.map_or([0; W], |i| chunks[i]));
        gathered
    }

    /// The bits at these positions of the bitmap starting at bit `offset` of `bytes`,
    /// packed from bit 0; `None` gives an unset bit.
    fn gather_bits(&self, bytes: &[u8], offset: usize) -> Buffer {
        walk_bits(self, bytes, offset)
    }
}

impl Positions for [Option<usize>] {
    fn len(&self) -> usize {
        <[Option<usize>]>::len(self)
    }
    fn nulls(&self) -> Option<NullBuffer> {
        self.iter()
            .any(Option::is_none)
            .then(|| NullBuffer::from(self.iter().map(Option::is_some).collect::<Vec<_>>()))
    }
    fn for_each(&self, f: impl FnMut(Option<usize>)) {
        self.iter().copied().for_each(f);
    }
}

/// Positions, all present (the child positions a list take covers).
pub(crate) struct Present<'a>(pub &'a [usize]);

impl Positions for Present<'_> {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn nulls(&self) -> Option<NullBuffer> {
        None
    }
    #[inline(always)]
    fn for_each(&self, mut f: impl FnMut(Option<usize>)) {
        self.0.iter().for_each(|&i| f(Some(i)));
    }
}

/// The set bits of a mask, ascending (a filter's scattered slots), walked a word at a time.
pub(crate) struct SetBits<'a> {
    pub bits: &'a BooleanBuffer,
    /// How many bits are set.
    pub count: usize,
}

impl Positions for SetBits<'_> {
    const ASCENDING: bool = true;
    fn len(&self) -> usize {
        self.count
    }
    fn nulls(&self) -> Option<NullBuffer> {
        None
    }
    #[inline(always)]
    fn for_each(&self, mut f: impl FnMut(Option<usize>)) {
        self.bits.set_indices().for_each(|i| f(Some(i)));
    }

    /// A word at a time, with the mask as the selector; a bit at a time when fewer bits
    /// are set than the mask has words.
    fn gather_bits(&self, bytes: &[u8], offset: usize) -> Buffer {
        let mask = self.bits;
        if self.count < mask.len() / 64 {
            return walk_bits(self, bytes, offset);
        }
        bitmap::compress(bytes, offset, mask.inner(), mask.offset(), mask.len()).0
    }
}

/// The integer types indices come in.
pub(crate) trait Index: Copy {
    /// The index as an unsigned position; a negative index sign-extends to at least 2^63,
    /// which no array length reaches, so one unsigned comparison checks both ends.
    fn as_u64(self) -> u64;
}

macro_rules! index {
    ($($t:ty),*) => {$(
        impl Index for $t {
            #[inline]
            fn as_u64(self) -> u64 {
                // Signed types sign-extend, unsigned ones zero-extend.
                self as i64 as u64
            }
        }
    )*};
}
index!(i8, i16, i32, i64, u8, u16, u32, u64);

/// Indices of an integer array, read in place.
///
/// They are checked as they are walked rather than in a pass of their own, which cost 13%
/// of a 1 Mi `i32` take. A walk clamps a position past the array to its last slot, so the
/// gathers never read out of bounds, and notes that it did; `take` then reports the error
/// and throws the result away.
pub(crate) struct Typed<'a, T> {
    values: &'a [T],
    /// The indices' validity, slot `k` for `values[k]`; `None` when all are valid.
    nulls: Option<&'a NullBuffer>,
    /// The number of slots of the array taken from.
    len: usize,
    /// Whether a walk met an index out of range; `None` until a walk.
    out_of_range: Cell<Option<bool>>,
}

impl<'a, T: Index> Typed<'a, T> {
    /// Indices `values` (valid where `nulls` says) into an array of `len` slots, `len > 0`.
    pub fn new(values: &'a [T], nulls: Option<&'a NullBuffer>, len: usize) -> Self {
        debug_assert!(len > 0, "nothing can be taken from an empty array");
        Self {
            values,
            nulls: nulls.filter(|n| n.null_count() > 0),
            len,
            out_of_range: Cell::new(None),
        }
    }

    /// Whether a walk met a valid index out of range, or `None` if nothing walked them (a
    /// layout with no buffers to gather, or no indices).
    pub fn out_of_range(&self) -> Option<bool> {
        self.out_of_range.get()
    }

    fn note(&self, out_of_range: bool) {
        let before = self.out_of_range.get().unwrap_or(false);
        self.out_of_range.set(Some(before | out_of_range));
    }

    /// The position of index `v`; `usize::MAX` when it does not fit (negative, or past a
    /// 32-bit address space).
    #[inline]
    fn position(v: T) -> usize {
        usize::try_from(v.as_u64()).unwrap_or(usize::MAX)
    }
}

impl<T: Index> Positions for Typed<'_, T> {
    fn len(&self) -> usize {
        self.values.len()
    }
    fn nulls(&self) -> Option<NullBuffer> {
        self.nulls.cloned()
    }
    #[inline(always)]
    fn for_each(&self, mut f: impl FnMut(Option<usize>)) {
        let mut past = false;
        let last = self.len - 1;
        let mut at = |v: T| {
            let position = Self::position(v);
            past |= position > last;
            position.min(last)
        };
        // One call of `f`, so that it is inlined once (two call sites made the compiler
        // keep it out of line, a call per slot).
        let validity = self.nulls.map(NullBuffer::validity);
        for (k, &v) in self.values.iter().enumerate() {
            let valid = validity.is_none_or(|bits| bits.value(k));
            f(valid.then(|| at(v)));
        }
        self.note(past);
    }

    /// Without null indices, a plain map over the indices: with nothing but the load, the
    /// bounds check and the store in the loop, more iterations fit in the CPU's window, and
    /// more cache misses overlap (1 Mi random `i32`s: 1.7 ms through `for_each`, 1.1 ms
    /// here, as fast as arrow-select's take, which checks nothing). Values of 16 bytes and
    /// more (views, 128- and 256-bit decimals) are also asked for [`AHEAD`] slots early:
    /// 1 Mi random views from 1 Mi, medians 6.3 to 5.2 ms in a standalone loop (arrow-select
    /// 5.9); narrower values got slower that way (`f64` went from arrow-select's time to
    /// 1.3 times it), their loop being short enough to keep as many misses in flight.
    fn gather_fixed<const W: usize>(&self, chunks: &[[u8; W]]) -> Vec<[u8; W]> {
        if self.nulls.is_some() {
            let mut gathered = Vec::new();
            extend_in_place(&mut gathered, self, |p| p.map_or([0; W], |i| chunks[i]));
            return gathered;
        }
        let mut flag = false;
        let mut one = |v: T| match chunks.get(Self::position(v)) {
            Some(value) => *value,
            None => {
                past_the_end(&mut flag);
                [0; W]
            }
        };
        let values = self.values;
        // Two loops, not one with a test on `W` inside: the enumeration alone slowed the
        // narrow gathers (`i32`: 0.98 to 1.25 ms).
        let gathered = if W >= 16 {
            let ahead = |k: usize| {
                if let Some(&next) = values.get(k + AHEAD) {
                    prefetch(chunks, Self::position(next));
                }
            };
            values
                .iter()
                .enumerate()
                .map(|(k, &v)| {
                    ahead(k);
                    one(v)
                })
                .collect()
        } else {
            values.iter().map(|&v| one(v)).collect()
        };
        self.note(flag);
        gathered
    }

    /// Without null indices, eight indices to an output byte, unrolled. Bytes beat 64-bit
    /// words (1 Mi random indices into a 1 Mi-bit bitmap: 1.03 ms against 1.25 ms); reading
    /// the bitmap without a second bounds check, the position being checked already, took
    /// 1.33 ms to 1.17 ms; and writing each byte into zeroed memory rather than pushing it
    /// (a capacity check and a length store per byte, and registers spilled for them) took
    /// 1.03 ms to 0.92 ms, arrow-select's time.
    fn gather_bits(&self, bytes: &[u8], offset: usize) -> Buffer {
        if self.nulls.is_some() {
            return walk_bits(self, bytes, offset);
        }
        // Locals, not fields: stores to `out` could alias fields, which would be reloaded at
        // every slot.
        let (len, values, mut flag) = (self.len, self.values, false);
        assert!(
            offset + len <= bytes.len() * 8,
            "the bitmap covers the array"
        );
        let bit = |v: T, flag: &mut bool| -> u8 {
            let position = Self::position(v);
            if position >= len {
                past_the_end(flag);
                return 0;
            }
            let i = offset + position;
            // SAFETY: `position < len` (checked just above) and `offset + len` bits lie in
            // `bytes` (asserted before the loop), so `i / 8 < bytes.len()`.
            let byte = unsafe { *bytes.get_unchecked(i / 8) };
            byte >> (i % 8) & 1
        };
        // Whole 64-bit words, so that the buffer is as long as other bitmaps of as many bits.
        let mut out = vec![0u8; values.len().div_ceil(64) * 8];
        let (eights, rest) = values.as_chunks::<8>();
        for (byte, e) in out.iter_mut().zip(eights) {
            *byte = bit(e[0], &mut flag)
                | bit(e[1], &mut flag) << 1
                | bit(e[2], &mut flag) << 2
                | bit(e[3], &mut flag) << 3
                | bit(e[4], &mut flag) << 4
                | bit(e[5], &mut flag) << 5
                | bit(e[6], &mut flag) << 6
                | bit(e[7], &mut flag) << 7;
        }
        if !rest.is_empty() {
            out[eights.len()] = rest
                .iter()
                .enumerate()
                .fold(0u8, |byte, (j, &v)| byte | bit(v, &mut flag) << j);
        }
        self.note(flag);
        Buffer::from_vec(out)
    }
}

/// Notes an index past the end of the array. Out of line, so that the gather loops keep no
/// flag in their registers: fewer instructions per slot let more cache misses overlap.
#[cold]
#[inline(never)]
fn past_the_end(flag: &mut bool) {
    *flag = true;
}

/// Bits at `positions`, one slot at a time (see [`Positions::gather_bits`]).
fn walk_bits<P: Positions + ?Sized>(positions: &P, bytes: &[u8], offset: usize) -> Buffer {
    let mut words = Vec::with_capacity(positions.len().div_ceil(64));
    let (mut word, mut filled) = (0u64, 0u32);
    positions.for_each(|p| {
        let bit = p.is_some_and(|i| bitmap::get_bit(bytes, offset + i));
        // Branch-free: whether the bit is set is as random as the data.
        word |= u64::from(bit) << filled;
        filled += 1;
        if filled == 64 {
            words.push(word);
            (word, filled) = (0, 0);
        }
    });
    if filled > 0 {
        words.push(word);
    }
    Buffer::from_vec(words)
}

/// Appends `f(position)` for every slot of `positions` to `out`.
///
/// Written slot by slot into reserved space: pushing stores the vector's length back to
/// memory at every slot, and with one more store per slot a random gather keeps half as
/// many cache misses in flight (`take` of 1 Mi `i32`s: 2.5 ms pushing, 1.6 ms writing in
/// place).
pub(crate) fn extend_in_place<T, P: Positions + ?Sized>(
    out: &mut Vec<T>,
    positions: &P,
    mut f: impl FnMut(Option<usize>) -> T,
) {
    extend_in_place_with(out, positions, (), |(), p| f(p));
}

/// [`extend_in_place`] with state carried from slot to slot and handed back at the end.
///
/// State that `f` captured by reference instead stayed in memory, loaded and stored at
/// every slot: a call that may unwind (a failed bounds check) could observe it. Held
/// here, it stays in registers (filter of 1 Mi short lists at 0.5: 1.58 to 1.46 ms in
/// one A/B run).
pub(crate) fn extend_in_place_with<T, S, P: Positions + ?Sized>(
    out: &mut Vec<T>,
    positions: &P,
    mut state: S,
    mut f: impl FnMut(&mut S, Option<usize>) -> T,
) -> S {
    out.reserve(positions.len());
    let slots = out.spare_capacity_mut();
    let mut written = 0;
    positions.for_each(|p| {
        slots[written].write(f(&mut state, p));
        written += 1;
    });
    let len = out.len() + written;
    // SAFETY: the loop wrote slots `0..written` of the spare capacity, each exactly once and
    // in order (every write bounds-checked), so the first `len` elements are initialised.
    unsafe { out.set_len(len) };
    state
}

/// `width`-byte values at `positions` (relative to slot `offset`).
pub(crate) fn fixed<P: Positions + ?Sized>(
    buffer: &Buffer,
    offset: usize,
    width: usize,
    positions: &P,
) -> Buffer {
    match width {
        1 => fixed_of::<1, P>(buffer, offset, positions),
        2 => fixed_of::<2, P>(buffer, offset, positions),
        4 => fixed_of::<4, P>(buffer, offset, positions),
        8 => fixed_of::<8, P>(buffer, offset, positions),
        16 => fixed_of::<16, P>(buffer, offset, positions),
        32 => fixed_of::<32, P>(buffer, offset, positions),
        _ => {
            let values = &buffer[offset * width..];
            let mut out = Vec::with_capacity(positions.len() * width);
            positions.for_each(|p| match p {
                Some(i) => out.extend_from_slice(&values[i * width..(i + 1) * width]),
                None => out.resize(out.len() + width, 0),
            });
            Buffer::from(out).realigned(16)
        }
    }
}

/// Values of a width known at compile time: each copy is one load and one store.
fn fixed_of<const W: usize, P: Positions + ?Sized>(
    buffer: &Buffer,
    offset: usize,
    positions: &P,
) -> Buffer {
    let (chunks, _) = buffer[offset * W..].as_chunks::<W>();
    let gathered = positions.gather_fixed(chunks);
    // The vector's bytes become the buffer without a copy. Its allocation is only
    // byte-aligned by type; the system allocator gives 16 bytes in practice, enough for
    // every fixed-width type, and `realigned` copies in the rare case it did not (an empty
    // vector's dangling pointer, say).
    Buffer::from(gathered.into_flattened()).realigned(16)
}

/// How many slots ahead of a random gather [`prefetch`] asks for.
const AHEAD: usize = 32;

/// Asks the CPU to bring `slice[at]` into cache; nothing if `at` is out of range.
#[inline(always)]
fn prefetch<T>(slice: &[T], at: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(item) = slice.get(at) {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch is a hint that reads nothing and cannot fault; the pointer is
        // to an element of a live slice anyway, and SSE is part of every x86_64 target.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(item).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, at); // elsewhere the hardware prefetcher is all there is
}

/// Offsets and bytes of the variable-width values at `positions` (slot `offset` first);
/// `None` gives an empty value. `None` when the result's bytes overflow `O`.
pub(crate) fn bytes<O: OffsetSize, P: Positions + ?Sized>(
    offsets: &Buffer,
    values: &Buffer,
    offset: usize,
    positions: &P,
) -> Option<(Buffer, Buffer)> {
    let all: &[O] = offsets.typed().ok()?;
    let all = &all[offset..];
    let range = |i: usize| all[i].as_usize()..all[i + 1].as_usize();
    if all.len() <= SMALL_SOURCE && all.len() * 8 <= positions.len() {
        return bytes_from_small(all, values, positions);
    }
    // Three passes, each with one kind of random load, and each asking for its loads
    // `AHEAD` slots early: a load that waits on another load (a value on its offset) or a
    // late `memcpy` length keeps few cache misses in flight. 1 Mi random strings from 1 Mi:
    // 26 ms in one pass that read the offsets twice, 12 ms this way; arrow-select: 19 ms.
    // First the positions, null as `usize::MAX` (a real position is below the length);
    // then the offsets, with the running total in `usize` (it only grows, so checking the
    // last one against `O` checks them all), turning each position into where its value
    // starts.
    let mut starts: Vec<usize> = Vec::with_capacity(positions.len());
    extend_in_place(&mut starts, positions, |p| p.unwrap_or(usize::MAX));
    let mut new_offsets: Vec<O> = Vec::with_capacity(positions.len() + 1);
    new_offsets.push(O::ZERO);
    let mut total = 0usize;
    new_offsets.extend((0..starts.len()).map(|k| {
        if let (false, Some(&ahead)) = (P::ASCENDING, starts.get(k + AHEAD)) {
            prefetch(all, ahead);
        }
        let start = match starts[k] {
            usize::MAX => 0,
            i => {
                let r = range(i);
                total += r.len();
                r.start
            }
        };
        starts[k] = start;
        O::usize_as(total)
    }));
    O::from_usize(total)?;
    // Room for `copy_value`'s 16-byte copies past the last value.
    let mut data = vec![0u8; total + SHORT_COPY];
    for (k, (&start, ends)) in starts.iter().zip(new_offsets.windows(2)).enumerate() {
        if let (false, Some(&ahead)) = (P::ASCENDING, starts.get(k + AHEAD)) {
            prefetch(values, ahead);
        }
        copy_value(
            &mut data,
            ends[0].as_usize(),
            ends[1].as_usize(),
            values,
            start,
        );
    }
    data.truncate(total);
    Some((Buffer::from_vec(new_offsets), Buffer::from(data)))
}

/// The longest value [`copy_value`] copies as one 16-byte block.
const SHORT_COPY: usize = 16;

/// Copies the value at `start` of `values` to `data[at..end]`. Short values (most
/// strings) are copied as 16 bytes whatever their length: one load and one store, no branch
/// on the length; the next value overwrites the excess (`data` has 16 bytes of room past
/// the last value).
#[inline(always)]
fn copy_value(data: &mut [u8], at: usize, end: usize, values: &[u8], start: usize) {
    let short = values
        .get(start..)
        .and_then(<[u8]>::first_chunk::<SHORT_COPY>);
    if let (true, Some(&chunk)) = (end - at <= SHORT_COPY, short) {
        // A value, not a slice copy: LLVM merged two `copy_from_slice` of different
        // lengths into one call of `memcpy`, which took half of the time.
        *data[at..]
            .first_chunk_mut::<SHORT_COPY>()
            .expect("room for a short copy") = chunk;
    } else {
        data[at..end].copy_from_slice(&values[start..start + end - at]);
    }
}

/// Sources of at most this many offsets (a dictionary's values, mostly) stay in the
/// cache while they are gathered from many times over: see [`bytes_from_small`].
const SMALL_SOURCE: usize = 1 << 16;

/// [`bytes`] from a source small enough to stay in the cache, and at least eight times
/// smaller than the result: offsets first, then the values, each looked up again. The
/// three-pass path's scratch (one start per slot, 8 bytes each) is fresh memory on every
/// call, whose page faults cost more than the second look-up (4 Mi keys into 1,000
/// strings: 38 ms that way, 20 ms this one, with glibc's allocator).
fn bytes_from_small<O: OffsetSize, P: Positions + ?Sized>(
    all: &[O],
    values: &Buffer,
    positions: &P,
) -> Option<(Buffer, Buffer)> {
    let range = |i: usize| all[i].as_usize()..all[i + 1].as_usize();
    let mut new_offsets: Vec<O> = Vec::with_capacity(positions.len() + 1);
    new_offsets.push(O::ZERO);
    let total = extend_in_place_with(&mut new_offsets, positions, 0usize, |total, p| {
        if let Some(i) = p {
            *total += range(i).len();
        }
        O::usize_as(*total)
    });
    O::from_usize(total)?;
    let mut data = vec![0u8; total + SHORT_COPY];
    let mut k = 0;
    positions.for_each(|p| {
        let (at, end) = (new_offsets[k].as_usize(), new_offsets[k + 1].as_usize());
        k += 1;
        let Some(i) = p else { return };
        copy_value(&mut data, at, end, values, range(i).start);
    });
    data.truncate(total);
    Some((Buffer::from_vec(new_offsets), Buffer::from(data)))
}

/// Selected views are compacted when they keep less than 1 / `VIEW_GC_FRACTION` of their
/// input's slots and reference less than 1 / `VIEW_GC_FRACTION` of the bytes their data
/// buffers hold, and those hold at least [`VIEW_GC_MIN_BYTES`]. The first test is free and
/// spares the scan of every view that the second needs (0.6 ms of 1.6 for 1 Mi views): a
/// selection that keeps most slots of an array keeps its buffers no emptier than they were.
pub(crate) const VIEW_GC_FRACTION: usize = 4;
/// See [`VIEW_GC_FRACTION`]: below this, sharing costs too little to be worth a copy.
pub(crate) const VIEW_GC_MIN_BYTES: usize = 64 * 1024;

/// The buffers of views selected from an array of `input_len` slots: `views`, then the
/// data buffers they point into, `data` shared as it is or, past the thresholds above,
/// only the referenced bytes copied into new buffers.
pub(crate) fn view_buffers(
    views: Buffer,
    data: &[Buffer],
    input_len: usize,
) -> Result<Vec<Buffer>, SelectError> {
    let held: usize = data.iter().map(Buffer::len).sum();
    let kept = views.len() / 16;
    if held >= VIEW_GC_MIN_BYTES && kept * VIEW_GC_FRACTION < input_len {
        let typed: &[ByteView] = views.typed().map_err(|e| SelectError::Data(e.into()))?;
        if alkaid_data::referenced_view_bytes(typed) * VIEW_GC_FRACTION < held {
            let (views, data) = alkaid_data::compact_views(typed, data)?;
            return Ok(std::iter::once(views).chain(data).collect());
        }
    }
    Ok(std::iter::once(views).chain(data.iter().cloned()).collect())
}

/// Finishes a selection from `data`, whose layout has no children: `buffers` are the
/// selected buffers (views last, when the layout has them); the views' data buffers
/// (shared, or compacted past the thresholds above) and the dictionary are added, and the
/// result built with structural checks only.
///
/// # Safety
/// `builder` (length, validity) and `buffers` must hold whole values of valid slots of
/// `data` (or zeros under null slots) in a layout that keeps them valid: then the result is
/// as valid as `data`, which every `ArrayData` made without `unsafe` is.
pub(crate) unsafe fn finish_flat(
    builder: ArrayDataBuilder,
    data: &ArrayData,
    variadic: bool,
    mut buffers: Vec<Buffer>,
) -> Result<ArrayData, SelectError> {
    if variadic && let Some(views) = buffers.pop() {
        buffers.extend(view_buffers(views, &data.buffers()[1..], data.len())?);
    }
    let mut builder = builder.buffers(buffers);
    if let Some(dictionary) = data.shared_dictionary() {
        builder = builder.dictionary(dictionary.clone());
    }
    // SAFETY: per the caller, the values are valid; the structural checks still run.
    Ok(unsafe { builder.build_structural() }?)
}
