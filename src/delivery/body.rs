//! A webhook's JSON body, shared by every recipient of one event: the event's body is built
//! once and only `meta.unsubscribe` differs per subscriber, so it is added while serialising
//! instead of deep-copying the whole document for each of 100,000 recipients.

use std::sync::Arc;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

/// A body: a shared document plus, optionally, this recipient's `meta.unsubscribe`.
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookBody {
    shared: Arc<Value>,
    unsubscribe: Option<String>,
}

impl WebhookBody {
    /// `shared` with `meta.unsubscribe` set to `unsubscribe` (added, or replacing one there).
    pub fn with_unsubscribe(shared: Arc<Value>, unsubscribe: String) -> Self {
        Self {
            shared,
            unsubscribe: Some(unsubscribe),
        }
    }

    /// The body as one JSON value (tests, chat formats).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl From<Value> for WebhookBody {
    fn from(body: Value) -> Self {
        Self {
            shared: Arc::new(body),
            unsubscribe: None,
        }
    }
}

impl Serialize for WebhookBody {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match (self.shared.as_ref(), &self.unsubscribe) {
            (Value::Object(top), Some(link)) => {
                let has_meta = matches!(top.get("meta"), Some(Value::Object(_)));
                let mut map = serializer.serialize_map(None)?;
                if !has_meta {
                    map.serialize_entry("meta", &Meta(&Map::new(), link))?;
                }
                for (key, value) in top {
                    match value {
                        Value::Object(meta) if key == "meta" => {
                            map.serialize_entry(key, &Meta(meta, link))?
                        }
                        _ if key == "meta" && !has_meta => {}
                        _ => map.serialize_entry(key, value)?,
                    }
                }
                map.end()
            }
            (body, _) => body.serialize(serializer),
        }
    }
}

/// `meta` with `unsubscribe` set.
struct Meta<'a>(&'a Map<String, Value>, &'a str);

impl Serialize for Meta<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in self.0.iter().filter(|(k, _)| *k != "unsubscribe") {
            map.serialize_entry(key, value)?;
        }
        map.serialize_entry("unsubscribe", self.1)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn serialised(body: &WebhookBody) -> Value {
        serde_json::from_slice(&serde_json::to_vec(body).unwrap()).unwrap()
    }

    #[test]
    fn the_recipients_link_is_set_in_meta_and_the_rest_is_unchanged() {
        let shared = Arc::new(json!({
            "meta": {"generated_at": "2026-11-30T07:00:00Z", "unsubscribe": "old"},
            "page": {"id": "acme"},
            "incident": {"name": "API <errors>", "incident_updates": [{"body": "a\nb"}]},
        }));
        let body = WebhookBody::with_unsubscribe(shared.clone(), "https://x/u/1".into());
        let mut expected = (*shared).clone();
        expected["meta"]["unsubscribe"] = json!("https://x/u/1");
        assert_eq!(serialised(&body), expected);
        assert_eq!(body.to_value(), expected);
        let other = WebhookBody::with_unsubscribe(shared, "https://x/u/2".into());
        assert_eq!(serialised(&other)["meta"]["unsubscribe"], "https://x/u/2");
    }

    #[test]
    fn a_body_without_meta_gets_one_and_plain_bodies_pass_through() {
        let body = WebhookBody::with_unsubscribe(Arc::new(json!({"a": 1})), "u".into());
        assert_eq!(
            serialised(&body),
            json!({"a": 1, "meta": {"unsubscribe": "u"}})
        );
        let odd = WebhookBody::with_unsubscribe(Arc::new(json!({"meta": 3})), "u".into());
        assert_eq!(serialised(&odd), json!({"meta": {"unsubscribe": "u"}}));
        let plain = WebhookBody::from(json!({"type": "support.submission"}));
        assert_eq!(serialised(&plain), json!({"type": "support.submission"}));
        let array = WebhookBody::with_unsubscribe(Arc::new(json!([1, 2])), "u".into());
        assert_eq!(serialised(&array), json!([1, 2]));
    }
}
