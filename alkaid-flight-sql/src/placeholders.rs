//! The placeholders of JDBC, ODBC and SQLAlchemy's qmark style, `?`, as DataFusion's
//! `$1`, `$2`, … numbered in the order they appear, so that a statement a tool wrote with
//! `?` binds its parameters as one written with `$n` does (DataFusion refuses `?`: "Failed
//! to parse placeholder id"). `?n` (SQLite's numbered form) becomes `$n`. Only
//! placeholders are replaced: a `?` inside a string, a quoted identifier or a comment stays
//! as written, because the statement is split into tokens by DataFusion's own SQL tokenizer
//! and only the characters of placeholder tokens are changed.

use std::borrow::Cow;

use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::tokenizer::{Token, Tokenizer};

/// `sql` with its `?` placeholders numbered as `$n`; itself when it has none (or does not
/// tokenize: DataFusion's parser then reports why).
///
/// # Errors
/// If `sql` mixes `?` with `$n` placeholders: which parameter is which would be a guess.
pub(crate) fn numbered(sql: &str) -> Result<Cow<'_, str>, String> {
    if !sql.contains('?') {
        return Ok(Cow::Borrowed(sql));
    }
    let dialect = GenericDialect {};
    let Ok(tokens) = Tokenizer::new(&dialect, sql).tokenize_with_location() else {
        return Ok(Cow::Borrowed(sql));
    };
    let mut question_marks = Vec::new();
    let mut dollars = false;
    for token in &tokens {
        if let Token::Placeholder(text) = &token.token {
            match text.strip_prefix('?') {
                Some(number) => question_marks.push((token.span.start, number.to_string())),
                None => dollars = true,
            }
        }
    }
    if question_marks.is_empty() {
        return Ok(Cow::Borrowed(sql));
    }
    if dollars {
        return Err("a statement with both ? and $n placeholders: use one kind".to_string());
    }
    // Locations are lines and columns counted in characters, from 1.
    let mut starts = Vec::with_capacity(question_marks.len());
    let (mut line, mut column) = (1, 1);
    for (offset, c) in sql.char_indices() {
        if question_marks
            .get(starts.len())
            .is_some_and(|(at, _)| at.line == line && at.column == column)
        {
            starts.push(offset);
        }
        if c == '\n' {
            (line, column) = (line + 1, 1);
        } else {
            column += 1;
        }
    }
    if starts.len() != question_marks.len() {
        return Ok(Cow::Borrowed(sql));
    }
    let mut out = String::with_capacity(sql.len() + 2 * starts.len());
    let mut copied = 0;
    for (n, (start, (_, number))) in starts.iter().zip(&question_marks).enumerate() {
        out.push_str(&sql[copied..*start]);
        match number.is_empty() {
            true => out.push_str(&format!("${}", n + 1)),
            false => out.push_str(&format!("${number}")),
        }
        copied = start + 1 + number.len();
    }
    out.push_str(&sql[copied..]);
    Ok(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn question_marks_are_numbered_in_order_and_nothing_else_changes() {
        let sql = "SELECT a, '?', \"?\" FROM t -- ?\nWHERE k = ? AND /* ? */ v IN (?, ?)";
        assert_eq!(
            numbered(sql).unwrap(),
            "SELECT a, '?', \"?\" FROM t -- ?\nWHERE k = $1 AND /* ? */ v IN ($2, $3)"
        );
        assert_eq!(numbered("SELECT ?2, ?1").unwrap(), "SELECT $2, $1");
        assert_eq!(numbered("SELECT 'é', ?").unwrap(), "SELECT 'é', $1");
        assert!(matches!(numbered("SELECT $1"), Ok(Cow::Borrowed(_))));
        assert!(matches!(numbered("SELECT '?'"), Ok(Cow::Borrowed(_))));
        let mixed = numbered("SELECT ?, $1").unwrap_err();
        assert!(mixed.contains("both ? and $n"), "{mixed}");
        // What does not tokenize is left for DataFusion's parser to refuse.
        assert_eq!(
            numbered("SELECT '? unterminated").unwrap(),
            "SELECT '? unterminated"
        );
    }
}
