//! Reading members of parsed JSON with errors that say what was missing, and making JSON
//! values tersely.

use alkaid_schema::json::JsonValue;

use crate::error::{IntegrationError, Result};

/// Members of a JSON object, each missing or mistyped one an error naming it.
pub(crate) trait Get {
    /// Member `key`.
    fn member(&self, key: &str) -> Result<&JsonValue>;

    /// Member `key`, a string.
    fn str_member(&self, key: &str) -> Result<&str> {
        self.member(key)?
            .as_str()
            .ok_or_else(|| IntegrationError::new(format!("{key} is not a string")))
    }

    /// Member `key`, an integer (a number or a string of digits).
    fn int_member(&self, key: &str) -> Result<i64> {
        int(self.member(key)?).map_err(|e| e.context(key))
    }

    /// Member `key`, a list.
    fn array_member(&self, key: &str) -> Result<&[JsonValue]> {
        self.member(key)?
            .as_array()
            .ok_or_else(|| IntegrationError::new(format!("{key} is not a list")))
    }
}

impl Get for JsonValue {
    fn member(&self, key: &str) -> Result<&JsonValue> {
        self.get(key)
            .ok_or_else(|| IntegrationError::new(format!("no member {key:?}")))
    }
}

/// An integer written as a JSON number or, for 64-bit values, a string.
pub(crate) fn int(value: &JsonValue) -> Result<i64> {
    wide_int(value).and_then(|v| {
        i64::try_from(v).map_err(|_| IntegrationError::new(format!("{v} does not fit 64 bits")))
    })
}

/// An integer of up to 128 bits, written as a JSON number or a string.
pub(crate) fn wide_int(value: &JsonValue) -> Result<i128> {
    let text = match value {
        JsonValue::Number(text) | JsonValue::String(text) => text.as_str(),
        other => return Err(IntegrationError::new(format!("{other} is not an integer"))),
    };
    text.parse()
        .map_err(|_| IntegrationError::new(format!("{text:?} is not an integer")))
}

/// A JSON string.
pub(crate) fn string(s: &str) -> JsonValue {
    JsonValue::String(s.to_string())
}

/// A JSON list.
pub(crate) fn array(items: impl IntoIterator<Item = JsonValue>) -> JsonValue {
    JsonValue::Array(items.into_iter().collect())
}

/// A JSON object of `members`, in order.
pub(crate) fn object<'a>(members: impl IntoIterator<Item = (&'a str, JsonValue)>) -> JsonValue {
    JsonValue::Object(
        members
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// Uppercase hex of `bytes`, as the format writes binary values.
pub(crate) fn hex(bytes: &[u8]) -> JsonValue {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    let text: String = bytes
        .iter()
        .flat_map(|b| {
            [
                DIGITS[usize::from(b >> 4)] as char,
                DIGITS[usize::from(b & 15)] as char,
            ]
        })
        .collect();
    JsonValue::String(text)
}

/// The bytes of a hex string (either case).
pub(crate) fn unhex(value: &JsonValue) -> Result<Vec<u8>> {
    let text = value
        .as_str()
        .ok_or_else(|| IntegrationError::new(format!("{value} is not a hex string")))?;
    if text.len() % 2 != 0 {
        return Err(IntegrationError::new(format!(
            "hex {text:?} has an odd length"
        )));
    }
    (0..text.len())
        .step_by(2)
        .map(|i| {
            text.get(i..i + 2)
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                .ok_or_else(|| IntegrationError::new(format!("{text:?} is not hex")))
        })
        .collect()
}
