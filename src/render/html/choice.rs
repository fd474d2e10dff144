//! One `<option>` of a select whose value and label are data (ids, names, stored states),
//! shared by the public forms and the console's.

use serde::Serialize;

/// One `<option>`.
#[derive(Debug, Clone, Serialize)]
pub struct Choice {
    pub value: String,
    pub label: String,
    pub selected: bool,
}

/// `(value, label)` pairs as options, `selected` marked.
pub fn options(all: impl IntoIterator<Item = (String, String)>, selected: &str) -> Vec<Choice> {
    all.into_iter()
        .map(|(value, label)| Choice {
            selected: value == selected,
            value,
            label,
        })
        .collect()
}
