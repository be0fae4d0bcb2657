//! SQL `LIKE` patterns: `%` matches any run of characters, `_` one character, and the
//! escape character (`\`) makes the next character literal. A pattern is compiled once
//! per call: the common shapes (no wildcard, `abc%`, `%abc`, `%abc%`) become plain byte
//! comparisons and a `memchr` substring search; anything else, and every case-insensitive
//! pattern, becomes an anchored regular expression.

use memchr::memmem;
use regex::bytes::{Regex, RegexBuilder};

use crate::error::ComputeError;

/// The character that escapes `%`, `_` and itself in a pattern.
pub(super) const ESCAPE: char = '\\';

/// A compiled `LIKE` pattern.
pub(super) enum Like {
    Exact(Vec<u8>),
    Prefix(Vec<u8>),
    Suffix(Vec<u8>),
    Contains(Box<memmem::Finder<'static>>),
    /// Anchored at the start, with `_` but no `%` before an optional trailing one:
    /// matched a step at a time, without a regex.
    Steps(Vec<Step>, bool),
    Regex(Regex),
}

/// A step of [`Like::Steps`]: literal bytes, or one character.
#[derive(Debug, PartialEq)]
pub(super) enum Step {
    Bytes(Vec<u8>),
    One,
}

/// Whether `value` starts with `steps` and, unless `open_end`, ends there too.
fn steps_match(steps: &[Step], open_end: bool, value: &[u8]) -> bool {
    let mut at = 0;
    for step in steps {
        match step {
            Step::Bytes(bytes) => {
                if !value[at..].starts_with(bytes) {
                    return false;
                }
                at += bytes.len();
            }
            Step::One => {
                let Some(&lead) = value.get(at) else {
                    return false;
                };
                // The length of the UTF-8 character `lead` starts (1 for ASCII).
                at += match lead {
                    0..0xC0 => 1,
                    0xC0..0xE0 => 2,
                    0xE0..0xF0 => 3,
                    _ => 4,
                };
                if at > value.len() {
                    return false;
                }
            }
        }
    }
    open_end || at == value.len()
}

/// One piece of a parsed pattern.
#[derive(Debug, PartialEq)]
enum Piece {
    Literal(char),
    One,
    Any,
}

impl Like {
    /// Compiles `pattern`; case-insensitively (Unicode case folding) if asked.
    ///
    /// # Errors
    /// If the pattern ends with the escape character.
    pub fn new(pattern: &str, case_insensitive: bool) -> Result<Self, ComputeError> {
        let pieces = parse(pattern)?;
        if !case_insensitive && !pieces.contains(&Piece::One) {
            let literal = |pieces: &[Piece]| -> Option<Vec<u8>> {
                let text: Option<String> = pieces
                    .iter()
                    .map(|p| match p {
                        Piece::Literal(c) => Some(*c),
                        _ => None,
                    })
                    .collect();
                text.map(String::into_bytes)
            };
            let n = pieces.len();
            let (starts, ends) = (
                pieces.first() == Some(&Piece::Any),
                n > 1 && pieces[n - 1] == Piece::Any,
            );
            let inner = &pieces[usize::from(starts)..n - usize::from(ends && n > 0)];
            if let Some(bytes) = literal(inner) {
                return Ok(match (starts, ends) {
                    (false, false) => Self::Exact(bytes),
                    (false, true) => Self::Prefix(bytes),
                    (true, false) => Self::Suffix(bytes),
                    (true, true) => {
                        Self::Contains(Box::new(memmem::Finder::new(&bytes).into_owned()))
                    }
                });
            }
        }
        let inner_any = pieces[..pieces.len().saturating_sub(1)].contains(&Piece::Any);
        if !case_insensitive && pieces.first() != Some(&Piece::Any) && !inner_any {
            let open_end = pieces.last() == Some(&Piece::Any);
            let mut steps: Vec<Step> = Vec::new();
            for piece in &pieces[..pieces.len() - usize::from(open_end)] {
                match (piece, steps.last_mut()) {
                    (Piece::Literal(c), Some(Step::Bytes(bytes))) => {
                        bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes())
                    }
                    (Piece::Literal(c), _) => {
                        steps.push(Step::Bytes(c.encode_utf8(&mut [0; 4]).as_bytes().to_vec()))
                    }
                    _ => steps.push(Step::One),
                }
            }
            return Ok(Self::Steps(steps, open_end));
        }
        // A leading or trailing `%` is an open end, not a `.*` to match: the regex engine
        // then stops at the first match instead of running on to the value's end.
        let start = usize::from(pieces.first() == Some(&Piece::Any));
        let end =
            pieces.len() - usize::from(pieces.len() > start && pieces.last() == Some(&Piece::Any));
        let mut expression = String::from(if start == 0 { r"\A" } else { "" });
        for piece in &pieces[start..end] {
            match piece {
                Piece::Literal(c) => {
                    expression.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])))
                }
                Piece::One => expression.push('.'),
                Piece::Any => expression.push_str(".*"),
            }
        }
        if end == pieces.len() {
            expression.push_str(r"\z");
        }
        let regex = RegexBuilder::new(&expression)
            .dot_matches_new_line(true)
            .case_insensitive(case_insensitive)
            .build()
            .map_err(|e| ComputeError::InvalidArgument(format!("LIKE pattern {pattern:?}: {e}")))?;
        Ok(Self::Regex(regex))
    }

    /// Whether `value` matches.
    #[inline]
    pub fn matches(&self, value: &[u8]) -> bool {
        match self {
            Self::Exact(bytes) => value == bytes.as_slice(),
            Self::Prefix(bytes) => value.starts_with(bytes),
            Self::Suffix(bytes) => value.ends_with(bytes),
            Self::Contains(finder) => finder.find(value).is_some(),
            Self::Steps(steps, open_end) => steps_match(steps, *open_end, value),
            Self::Regex(regex) => regex.is_match(value),
        }
    }
}

/// The pieces of `pattern`; runs of `%` are one piece.
fn parse(pattern: &str) -> Result<Vec<Piece>, ComputeError> {
    let mut pieces = Vec::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        let piece = match c {
            ESCAPE => match chars.next() {
                Some(escaped) => Piece::Literal(escaped),
                None => {
                    return Err(ComputeError::InvalidArgument(format!(
                        "LIKE pattern {pattern:?} ends with the escape character {ESCAPE:?}"
                    )));
                }
            },
            '%' if pieces.last() == Some(&Piece::Any) => continue,
            '%' => Piece::Any,
            '_' => Piece::One,
            c => Piece::Literal(c),
        };
        pieces.push(piece);
    }
    Ok(pieces)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn like(pattern: &str, value: &str) -> bool {
        Like::new(pattern, false).unwrap().matches(value.as_bytes())
    }

    #[test]
    fn shapes_take_their_fast_paths() {
        assert!(matches!(Like::new("abc", false).unwrap(), Like::Exact(_)));
        assert!(matches!(Like::new("abc%", false).unwrap(), Like::Prefix(_)));
        assert!(matches!(
            Like::new("%%abc", false).unwrap(),
            Like::Suffix(_)
        ));
        assert!(matches!(
            Like::new("%abc%", false).unwrap(),
            Like::Contains(_)
        ));
        assert!(matches!(Like::new("%", false).unwrap(), Like::Suffix(_)));
        assert!(matches!(
            Like::new("a_c", false).unwrap(),
            Like::Steps(_, false)
        ));
        assert!(matches!(
            Like::new("a_c%", false).unwrap(),
            Like::Steps(_, true)
        ));
        assert!(matches!(Like::new("%a_c", false).unwrap(), Like::Regex(_)));
        assert!(matches!(Like::new("a_%c", false).unwrap(), Like::Regex(_)));
        assert!(matches!(Like::new("a%c", false).unwrap(), Like::Regex(_)));
        assert!(matches!(Like::new("abc", true).unwrap(), Like::Regex(_)));
    }

    #[test]
    fn wildcards_escapes_and_characters() {
        assert!(like("%", ""));
        assert!(like("", ""));
        assert!(!like("", "a"));
        assert!(like("a%c", "abbbc"));
        assert!(!like("a%c", "abbbcd"));
        assert!(like("_", "é"));
        assert!(!like("_", "ab"));
        assert!(like("日_語", "日本語"));
        assert!(like(r"100\%", "100%"));
        assert!(!like(r"100\%", "1000"));
        assert!(like(r"a\_b", "a_b"));
        assert!(!like(r"a\_b", "axb"));
        assert!(like(r"a\\b", r"a\b"));
        assert!(like("%.*%", "x.*y"), "regex characters are literal");
        assert!(like("a%", "a\nb"), "% spans newlines");
        assert!(like("_", "\n"));
        assert!(like("日_", "日本"));
        assert!(!like("日_", "日本語"));
        assert!(like("日_%", "日本語"));
        assert!(like("__", "é!"));
        assert!(!like("___", "é!"));
        assert!(Like::new("abc\\", false).is_err());
    }

    #[test]
    fn case_insensitive_patterns_fold_unicode() {
        let ilike = |p: &str, v: &str| Like::new(p, true).unwrap().matches(v.as_bytes());
        assert!(ilike("%STRASSE%", "die strasse"));
        assert!(ilike("ä_", "Äb"));
        assert!(!ilike("ä_", "Äbc"));
    }
}
