//! What a console form shows again after a refusal or a preview: the values as typed and the
//! messages per field, as JSON objects holding every field the template names (the templates
//! are strict, so an absent key would be an error).

use serde_json::{Map, Value};

use super::form::Submitted;
use crate::error::FieldErrors;
pub use crate::render::html::choice::{Choice, options};

/// `{field: typed value}` for every field in `known` (empty when absent).
pub fn values(form: &Submitted, known: &[&str]) -> Value {
    let map: Map<String, Value> = known
        .iter()
        .map(|k| ((*k).to_owned(), Value::from(form.get(k))))
        .collect();
    Value::Object(map)
}

/// `{any, other, field: message or null}`: every field in `known` has a key; a message about
/// `field[i].x` or `field.x` goes to `field`; messages about unknown fields go to `other`.
pub fn messages(refused: Option<&FieldErrors>, known: &[&str]) -> Value {
    let mut map: Map<String, Value> = known
        .iter()
        .map(|k| ((*k).to_owned(), Value::Null))
        .collect();
    let mut other = Vec::new();
    for (field, texts) in refused.into_iter().flatten() {
        let text = texts.join("; ");
        let base = field.split(['[', '.']).next().unwrap_or(field);
        match map.get_mut(base) {
            Some(slot) => {
                let joined = match slot.as_str() {
                    Some(before) => format!("{before}; {}", detail(field, base, &text)),
                    None => detail(field, base, &text),
                };
                *slot = Value::from(joined);
            }
            None => other.push(Value::from(format!("{field}: {text}"))),
        }
    }
    map.insert(
        "any".into(),
        Value::from(refused.is_some_and(|f| !f.is_empty())),
    );
    map.insert("other".into(), Value::Array(other));
    Value::Object(map)
}

/// The message, naming the item (`line 2: ...`) when it is about one entry of a list field.
fn detail(field: &str, base: &str, text: &str) -> String {
    let rest = &field[base.len()..];
    match rest
        .strip_prefix('[')
        .and_then(|r| r.split(']').next())
        .and_then(|i| i.parse::<usize>().ok())
    {
        Some(i) => format!("line {}: {text}", i + 1),
        None => text.to_owned(),
    }
}

/// The optional whole number typed in `name`; a message when it is not one.
pub fn number(form: &Submitted, name: &str, errors: &mut FieldErrors) -> Option<i32> {
    let text = form.get(name).trim();
    if text.is_empty() {
        return None;
    }
    match text.parse() {
        Ok(n) => Some(n),
        Err(_) => {
            errors
                .entry(name.to_owned())
                .or_default()
                .push("is not a whole number".to_owned());
            None
        }
    }
}

/// Records "must not be blank" for `name` when it is (the service's own rule, checked here
/// too so that a form refused for another field reports it as well).
pub fn required(form: &Submitted, name: &str, errors: &mut FieldErrors) {
    if form.get(name).trim().is_empty() {
        errors
            .entry(name.to_owned())
            .or_default()
            .push("must not be blank".to_owned());
    }
}

/// The trimmed text of `name`, `None` when blank.
pub fn text(form: &Submitted, name: &str) -> Option<String> {
    let v = form.get(name).trim();
    (!v.is_empty()).then(|| v.to_owned())
}

/// A form filled from stored values.
pub fn filled<'a>(pairs: impl IntoIterator<Item = (&'a str, String)>) -> Submitted {
    Submitted(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// Whether the checkbox `name` was ticked.
pub fn ticked(form: &Submitted, name: &str) -> bool {
    !form.get(name).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_field_has_a_key_and_list_items_are_named_by_line() {
        let mut refused = FieldErrors::new();
        refused.insert("name".into(), vec!["must not be blank".into()]);
        refused.insert("timeline[1].description".into(), vec!["too long".into()]);
        refused.insert("mystery".into(), vec!["odd".into()]);
        let m = messages(Some(&refused), &["name", "region", "timeline"]);
        assert_eq!(m["name"], "must not be blank");
        assert!(m["region"].is_null());
        assert_eq!(m["timeline"], "line 2: too long");
        assert_eq!(m["other"][0], "mystery: odd");
        assert_eq!(m["any"], true);
        assert_eq!(messages(None, &["name"])["any"], false);
    }
}
