//! An incident's metadata, as Statuspage's manage API takes it: a JSON object whose every
//! top-level value is itself an object (`{"jira": {"issue_id": "OPS-12"}}`), kept as given.

use serde_json::Value;

/// What an incident without metadata stores.
pub const NONE: &str = "{}";

/// The largest metadata kept, in bytes of its JSON text.
pub const MAX_LEN: usize = 16 * 1024;

/// `given` checked as metadata, as the text to store; the error says what is wrong.
pub fn checked(given: &Value) -> Result<String, String> {
    let Value::Object(fields) = given else {
        return Err("must be an object".to_owned());
    };
    if let Some((key, _)) = fields.iter().find(|(_, value)| !value.is_object()) {
        return Err(format!(
            "must hold objects only at its top level ({key} is not an object)"
        ));
    }
    let text = given.to_string();
    if text.len() > MAX_LEN {
        return Err(format!("must be at most {MAX_LEN} bytes as JSON"));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn metadata_is_an_object_of_objects() {
        let stored = checked(&json!({"jira": {"issue_id": "OPS-12"}})).unwrap();
        assert_eq!(stored, r#"{"jira":{"issue_id":"OPS-12"}}"#);
        assert_eq!(checked(&json!({})).unwrap(), NONE);
        assert!(
            checked(&json!({"jira": "OPS-12"}))
                .unwrap_err()
                .contains("jira")
        );
        assert!(checked(&json!(["a"])).is_err());
        let big = "x".repeat(MAX_LEN);
        assert!(checked(&json!({"a": {"b": big}})).is_err());
    }
}
