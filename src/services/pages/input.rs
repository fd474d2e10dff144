//! Input helpers shared by the services: collecting field errors, the text rules, "absent vs.
//! null" in JSON patches, and UTC times as stored.

use std::fmt::Display;

use chrono::{DateTime, NaiveDateTime, Utc};
use serde::{Deserialize, Deserializer};

use crate::error::{AppError, AppResult, FieldErrors};

/// Collects field errors so that one answer lists every problem of an input.
#[derive(Debug, Default)]
pub struct FieldCheck(FieldErrors);

impl FieldCheck {
    /// Records a message for `field`.
    pub fn add(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.0.entry(field.into()).or_default().push(message.into());
    }

    /// The value of `result`, or `None` after recording its error under `field`.
    pub fn check<T, E: Display>(&mut self, field: &str, result: Result<T, E>) -> Option<T> {
        result.map_err(|e| self.add(field, e.to_string())).ok()
    }

    /// Whether no error was recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Nothing when no error was recorded, else [`AppError::Taken`] with every message (the
    /// fields hold values already another record's).
    pub fn taken(self) -> AppResult<()> {
        match self.0.is_empty() {
            true => Ok(()),
            false => Err(AppError::Taken(self.0)),
        }
    }

    /// `value` when no error was recorded, else [`AppError::Validation`] with every message.
    pub fn done<T>(self, value: Option<T>) -> AppResult<T> {
        if !self.0.is_empty() {
            return Err(AppError::Validation(self.0));
        }
        value.ok_or_else(|| AppError::Internal(anyhow::anyhow!("a validated input is incomplete")))
    }
}

/// Non-blank text of at most `max` characters as sent, trimmed, without the NUL character.
pub fn required_text(value: &str, max: usize) -> Result<String, String> {
    // No text Herald keeps may hold U+0000 (PostgreSQL cannot store it).
    if value.contains('\0') {
        return Err("must not contain the NUL character (U+0000)".to_owned());
    }
    // The length as sent, spaces around included, as the API document's maxLength counts it.
    match (value.chars().count(), value.trim()) {
        (n, _) if n > max => Err(format!("must be at most {max} characters long, got {n}")),
        (_, "") => Err("must not be blank".to_owned()),
        (_, trimmed) => Ok(trimmed.to_owned()),
    }
}

/// A name: [`required_text`] on a single line, with no control characters (a CR or LF in a
/// name would start a new line in a mail header, a feed title or a calendar property).
pub fn required_line(value: &str, max: usize) -> Result<String, String> {
    let value = required_text(value, max)?;
    if value.contains(['\r', '\n']) {
        return Err("must be a single line (no line breaks)".to_owned());
    }
    if value.chars().any(char::is_control) {
        return Err("must not contain control characters".to_owned());
    }
    Ok(value)
}

/// Trimmed text of at most `max` characters; absent or blank text is `None`.
pub fn optional_text(value: Option<&str>, max: usize) -> Result<Option<String>, String> {
    match value {
        Some(v) if v.chars().count() > max || !v.trim().is_empty() => {
            required_text(v, max).map(Some)
        }
        None | Some(_) => Ok(None),
    }
}

/// Parses a non-blank optional value with `parse`; absent or blank is `None`.
pub fn optional<T, E>(
    value: Option<&str>,
    parse: impl FnOnce(&str) -> Result<T, E>,
) -> Result<Option<T>, E> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) => parse(v).map(Some),
    }
}

/// Serde helper for patch inputs: a present field (even `null`) becomes `Some(..)`, so an absent
/// field (`None`) leaves a value alone and `null` (`Some(None)`) clears it. Use it with
/// `#[serde(default, deserialize_with = "nullable")]`.
pub fn nullable<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// Serde helper for inputs whose absent field takes a default (a flag, a list, a map): `null`
/// is read as that default too, as for every optional field of the API. Use it with
/// `#[serde(default, deserialize_with = "null_as_default")]`.
pub fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// A UTC time as stored: naive, microsecond precision (what both backends keep).
pub fn row_time(at: DateTime<Utc>) -> NaiveDateTime {
    use chrono::SubsecRound;
    at.naive_utc().trunc_subsecs(6)
}

/// Maps diesel's `NotFound` to a 404 naming `what`.
pub fn found<T>(result: diesel::QueryResult<T>, what: &str) -> AppResult<T> {
    result.map_err(|e| match e {
        diesel::result::Error::NotFound => AppError::NotFound(what.to_owned()),
        other => other.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_may_span_lines_but_never_holds_the_nul_character() {
        assert_eq!(required_text(" a\nb ", 10), Ok("a\nb".to_owned()));
        assert_eq!(
            required_text("a\0b", 10),
            Err("must not contain the NUL character (U+0000)".to_owned())
        );
        assert!(optional_text(Some("\0"), 10).is_err());
    }

    #[test]
    fn a_length_counts_the_text_as_sent() {
        assert!(required_text(" abcd ", 5).is_err());
        assert_eq!(required_text(" abc ", 5), Ok("abc".to_owned()));
        assert_eq!(optional_text(Some("   "), 3), Ok(None));
        assert!(optional_text(Some("    "), 3).is_err());
    }

    #[test]
    fn a_name_is_one_line_without_control_characters() {
        assert_eq!(required_line("  API  ", 10), Ok("API".to_owned()));
        assert_eq!(
            required_line("API\r\nBEGIN:VEVENT", 100),
            Err("must be a single line (no line breaks)".to_owned())
        );
        assert!(required_line("A\nB", 100).is_err());
        assert!(required_line("A\u{0}B", 100).is_err());
        assert!(required_line("A\tB", 100).is_err());
        assert_eq!(
            required_line("Zürich – EU", 100),
            Ok("Zürich – EU".to_owned())
        );
        assert!(required_line(" ", 100).is_err());
    }
}
