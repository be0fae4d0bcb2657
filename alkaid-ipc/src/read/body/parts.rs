//! A message body as the walk reads it: whole, or only the byte ranges that a projection
//! needs, each fetched on its own (from a file), so that the columns left out are never
//! read and a column kept alone keeps only its own ranges alive.

use std::ops::Range;

use alkaid_buffer::Buffer;

/// The bytes of a body of `len` bytes that were read: parts at their offsets, in order and
/// not overlapping.
#[derive(Debug, Clone)]
pub(crate) struct Body {
    len: usize,
    parts: Vec<(usize, Buffer)>,
}

impl Body {
    /// A body read whole.
    pub fn whole(bytes: Buffer) -> Self {
        Self {
            len: bytes.len(),
            parts: vec![(0, bytes)],
        }
    }

    /// A body of `len` bytes of which only `parts` (offset, bytes) were read. Parts that
    /// overlap one before them or lie past `len` are dropped: their buffers then read as
    /// missing, which the walk reports.
    pub fn from_parts(len: usize, mut parts: Vec<(usize, Buffer)>) -> Self {
        parts.sort_by_key(|(start, _)| *start);
        let mut kept: Vec<(usize, Buffer)> = Vec::with_capacity(parts.len());
        for (start, bytes) in parts {
            let end = start.checked_add(bytes.len()).filter(|&end| end <= len);
            let after_last = kept.last().is_none_or(|(s, b)| s + b.len() <= start);
            if end.is_some() && after_last {
                kept.push((start, bytes));
            }
        }
        Self { len, parts: kept }
    }

    /// The declared length of the body.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Bytes `start..start + length` of the body, or `None` if they lie outside it or
    /// outside every part read. An empty range inside the body needs no part.
    pub fn slice(&self, start: usize, length: usize) -> Option<Buffer> {
        let end = start.checked_add(length).filter(|&end| end <= self.len)?;
        if length == 0 {
            return Some(Buffer::empty());
        }
        // The last part starting at or before `start`.
        let at = self
            .parts
            .partition_point(|(s, _)| *s <= start)
            .checked_sub(1)?;
        let (part_start, bytes) = &self.parts[at];
        (end <= part_start + bytes.len()).then(|| bytes.slice(start - part_start, length))
    }
}

/// `ranges` (sorted by start or not) merged where they overlap or lie closer than `gap`
/// bytes apart, in order: the reads a projected batch needs.
pub(crate) fn merge_ranges(mut ranges: Vec<Range<usize>>, gap: usize) -> Vec<Range<usize>> {
    ranges.retain(|r| !r.is_empty());
    ranges.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match merged.last_mut() {
            Some(last) if range.start <= last.end.saturating_add(gap) => {
                last.end = last.end.max(range.end);
            }
            _ => merged.push(range),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(range: Range<u8>) -> Buffer {
        Buffer::from(range.collect::<Vec<u8>>())
    }

    #[test]
    fn slices_come_from_the_part_that_holds_them() {
        let whole = Body::whole(bytes(0..100));
        assert_eq!(
            whole.slice(10, 5).unwrap().as_slice(),
            &[10, 11, 12, 13, 14]
        );
        assert!(whole.slice(98, 5).is_none());
        assert!(whole.slice(usize::MAX, 2).is_none());
        let parts = Body::from_parts(100, vec![(60, bytes(60..70)), (10, bytes(10..20))]);
        assert_eq!(parts.len(), 100);
        assert_eq!(parts.slice(12, 3).unwrap().as_slice(), &[12, 13, 14]);
        assert_eq!(parts.slice(60, 10).unwrap().as_slice(), &bytes(60..70)[..]);
        // Across a part's end, between parts, before the first, past the body.
        assert!(parts.slice(18, 4).is_none());
        assert!(parts.slice(30, 1).is_none());
        assert!(parts.slice(0, 1).is_none());
        assert!(parts.slice(99, 2).is_none());
        // Nothing to read: inside the body, no part needed.
        assert_eq!(parts.slice(40, 0).unwrap().len(), 0);
        assert!(parts.slice(101, 0).is_none());
    }

    #[test]
    fn parts_past_the_body_or_over_another_are_dropped() {
        let body = Body::from_parts(
            50,
            vec![(0, bytes(0..10)), (5, bytes(5..15)), (45, bytes(45..55))],
        );
        assert_eq!(body.parts.len(), 1);
        assert!(body.slice(46, 1).is_none());
    }

    #[test]
    fn ranges_merge_across_small_gaps() {
        let merged = merge_ranges(vec![30..40, 0..10, 12..20, 5..8, 100..100, 60..70], 5);
        assert_eq!(merged, [0..20, 30..40, 60..70]);
        assert_eq!(merge_ranges(vec![0..10, 10..20], 0), vec![0..20]);
        assert_eq!(merge_ranges(vec![0..10, 11..20], 0), [0..10, 11..20]);
        assert!(merge_ranges(vec![], 10).is_empty());
    }
}
