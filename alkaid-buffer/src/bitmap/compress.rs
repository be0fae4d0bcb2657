//! [`compress`]: the bits of one bitmap at the set positions of another, packed together
//! (a parallel bit extract over whole bitmaps). Filtering a validity bitmap or a boolean
//! column by a mask is exactly this.

use std::sync::atomic::{AtomicU8, Ordering};

use super::chunks::{BitChunks, join, word};
use crate::Buffer;

/// The bits of `bytes` (from bit `offset`) at the positions where `mask` (from bit
/// `mask_offset`) is set, over `len` positions, packed from bit 0 of the result; also
/// returns how many bits that is.
///
/// Works a 64-bit word at a time. On CPUs with a fast `PEXT` instruction (Intel from
/// Haswell, AMD from Zen 3), picked at run time, a word costs a few cycles whatever it
/// holds; elsewhere the loop visits the set bits of each mask word, in registers.
///
/// # Panics
/// If either range does not fit its bytes.
///
/// # Examples
/// ```
/// use alkaid_buffer::bitmap::compress;
/// let values = [0b1010_1100u8];
/// let mask = [0b1111_0000u8];
/// let (packed, count) = compress(&values, 0, &mask, 0, 8);
/// assert_eq!(count, 4);
/// assert_eq!(packed.as_slice()[0], 0b1010); // bits 4..8 of the values
/// ```
pub fn compress(
    bytes: &[u8],
    offset: usize,
    mask: &[u8],
    mask_offset: usize,
    len: usize,
) -> (Buffer, usize) {
    let values = BitChunks::new(bytes, offset, len);
    let masks = BitChunks::new(mask, mask_offset, len);
    #[cfg(target_arch = "x86_64")]
    if fast_pext() {
        // SAFETY: `fast_pext` checked that the CPU has BMI2 (and POPCNT).
        return unsafe { compress_pext(values, masks) };
    }
    compress_with(values, masks, extract_portable)
}

/// The loop, with the word-level extract as a parameter so that each variant inlines its
/// own.
#[inline(always)]
fn compress_with(
    values: BitChunks<'_>,
    masks: BitChunks<'_>,
    extract: impl Fn(u64, u64) -> (u64, u32),
) -> (Buffer, usize) {
    // Written by index into uninitialised room rather than pushed: the output never holds
    // more words than the input has, so no capacity check is needed in the loop (a push's
    // check cost a fifth of this loop in one build of the same code; zeroed room instead
    // cost as much again in page faults on dense masks).
    let mut words: Vec<u64> = Vec::with_capacity(values.padded_count() + 1);
    let room = words.spare_capacity_mut();
    let mut written = 0usize;
    let mut pending = 0u64; // the low `filled` bits are the next output word's start
    let mut filled = 0u32;
    let mut total = 0usize;
    // A macro, not a closure: a closure here is compiled without the instructions of the
    // caller's variant, so the extract could not be inlined into it (a call per word).
    macro_rules! push {
        ($value:expr, $mask:expr) => {{
            let (bits, n) = extract($value, $mask);
            total += n as usize;
            pending |= bits << filled; // `filled` < 64 always
            filled += n;
            if filled >= 64 {
                room[written].write(pending);
                written += 1;
                filled -= 64;
                // The bits of `bits` that did not fit; none when it fitted exactly.
                pending = if filled == 0 { 0 } else { bits >> (n - filled) };
            }
        }};
    }
    // The leading words of both ranges that are two plain loads each, by index (a zip of
    // iterators stayed out of line in the variants compiled for other instructions, a call
    // per word); then the rest a word at a time. Reading words through `padded_chunk`
    // throughout cost a fifth more (its range checks and remainder branch, per word).
    let (mask_low, mask_high) = masks.fast_words();
    let (value_low, value_high) = values.fast_words();
    let fast = mask_low.len().min(value_low.len()) / 8;
    let (mask_low, mask_high) = (&mask_low[..fast * 8], &mask_high[..fast * 8]);
    let (value_low, value_high) = (&value_low[..fast * 8], &value_high[..fast * 8]);
    for i in 0..fast {
        let at = i * 8..i * 8 + 8;
        let mask = join(
            word(&mask_low[at.clone()]),
            word(&mask_high[at.clone()]),
            masks.shift(),
        );
        if mask == 0 {
            continue; // sparse masks are mostly empty words, and their values go unread
        }
        let value = join(
            word(&value_low[at.clone()]),
            word(&value_high[at]),
            values.shift(),
        );
        push!(value, mask);
    }
    for i in fast..masks.padded_count() {
        let mask = masks.padded_chunk(i);
        if mask != 0 {
            push!(values.padded_chunk(i), mask);
        }
    }
    if filled > 0 {
        room[written].write(pending);
        written += 1;
    }
    // SAFETY: the loop wrote `room[..written]` in order, each word once, and `written` is
    // within the capacity: one word per 64 bits taken, at most one per input word, plus
    // the partial last one (the room has one spare). `room[written]` is bounds-checked.
    unsafe { words.set_len(written) };
    (Buffer::from_vec(words), total)
}

/// Extracts the bits of `value` where `mask` is set, and counts them, one set bit at a time.
#[inline(always)]
fn extract_portable(value: u64, mut mask: u64) -> (u64, u32) {
    if mask == u64::MAX {
        return (value, 64);
    }
    let mut out = 0u64;
    let mut n = 0u32;
    while mask != 0 {
        out |= (value >> mask.trailing_zeros() & 1) << n;
        n += 1;
        mask &= mask - 1;
    }
    (out, n)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2,popcnt")]
fn compress_pext(values: BitChunks<'_>, masks: BitChunks<'_>) -> (Buffer, usize) {
    use std::arch::x86_64::_pext_u64;
    compress_with(values, masks, |value, mask| {
        (_pext_u64(value, mask), mask.count_ones())
    })
}

/// Whether `PEXT` is present and fast. AMD's Zen 1 and Zen 2 (family 0x17) and earlier
/// implement it in microcode at hundreds of cycles, far slower than the portable loop.
#[cfg(target_arch = "x86_64")]
fn fast_pext() -> bool {
    static STATE: AtomicU8 = AtomicU8::new(0); // 0 unknown, 1 no, 2 yes
    match STATE.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => {
            let fast = std::arch::is_x86_feature_detected!("bmi2")
                && std::arch::is_x86_feature_detected!("popcnt")
                && !slow_amd_pext();
            STATE.store(if fast { 2 } else { 1 }, Ordering::Relaxed);
            fast
        }
    }
}

/// Whether this is an AMD CPU before Zen 3.
#[cfg(target_arch = "x86_64")]
fn slow_amd_pext() -> bool {
    use std::arch::x86_64::__cpuid;
    let vendor = __cpuid(0);
    let amd = (vendor.ebx, vendor.edx, vendor.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163);
    let eax = __cpuid(1).eax;
    let base = (eax >> 8) & 0xf;
    let family = if base == 0xf {
        base + ((eax >> 20) & 0xff)
    } else {
        base
    };
    amd && family < 0x19
}

/// The portable variant, for tests on machines that pick `PEXT`.
#[doc(hidden)]
pub fn compress_portable(
    bytes: &[u8],
    offset: usize,
    mask: &[u8],
    mask_offset: usize,
    len: usize,
) -> (Buffer, usize) {
    compress_with(
        BitChunks::new(bytes, offset, len),
        BitChunks::new(mask, mask_offset, len),
        extract_portable,
    )
}
