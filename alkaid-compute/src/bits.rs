//! Bit packing and the wider build of hot loops: the two mechanisms every kernel's inner
//! loop goes through.
//!
//! Kernels that produce booleans compute 64 answers at a time into one word
//! ([`collect_bits`]), which the compiler turns into vector compares and mask extraction.
//! Kernels whose loops vectorise run them through [`vectorized`], which compiles the loop a
//! second time for AVX2 and picks that build at run time when the CPU has it: the
//! workspace builds for baseline x86-64 (SSE2), where a vector holds half as much.

use alkaid_buffer::{BooleanBuffer, MutableBuffer};

/// A bitmap of `len` bits, bit `i` being `f(i)`, packed 64 to a word.
#[inline(always)]
pub(crate) fn collect_bits(len: usize, f: impl Fn(usize) -> bool) -> BooleanBuffer {
    let full = len / 64;
    let rest = len % 64;
    let mut out = MutableBuffer::with_capacity(len.div_ceil(64) * 8);
    out.extend_with(full, |word| pack(word * 64, 64, &f));
    if rest > 0 {
        out.push(pack(full * 64, rest, &f));
    }
    out.truncate(len.div_ceil(8));
    BooleanBuffer::new(out.into(), 0, len)
}

/// Bits `f(base)`, …, `f(base + count - 1)` as the low `count` bits of a word.
#[inline(always)]
fn pack(base: usize, count: usize, f: &impl Fn(usize) -> bool) -> u64 {
    let mut word = 0u64;
    for bit in 0..count {
        word |= u64::from(f(base + bit)) << bit;
    }
    word
}

/// Runs `f`, compiled for AVX2 if the CPU has it (see the module docs).
///
/// `f` and what it calls must be `#[inline]` generic code for the wider build to reach
/// the loop: the wider build is a copy of `f` inlined into a function compiled with the
/// feature.
#[inline(always)]
pub(crate) fn vectorized<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above; that is the only obligation
        // of calling a function compiled with the feature.
        return unsafe { with_avx2(f) };
    }
    f()
}

/// `f()`, with AVX2 enabled for everything inlined into it.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn with_avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_every_length_around_a_word() {
        for len in [0, 1, 7, 8, 63, 64, 65, 127, 128, 200] {
            let bits = collect_bits(len, |i| i % 3 == 0 || i == 64);
            assert_eq!(bits.len(), len);
            for i in 0..len {
                assert_eq!(bits.value(i), i % 3 == 0 || i == 64, "len {len} bit {i}");
            }
            // Bytes past the length are not part of the bitmap.
            assert_eq!(bits.inner().len(), len.div_ceil(8));
        }
    }

    #[test]
    fn both_builds_give_the_same_answer() {
        let values: Vec<i32> = (0..1000).map(|i| (i * 7919) % 211).collect();
        let plain = collect_bits(values.len(), |i| values[i] > 100);
        let wide = vectorized(|| collect_bits(values.len(), |i| values[i] > 100));
        assert_eq!(plain, wide);
    }
}
