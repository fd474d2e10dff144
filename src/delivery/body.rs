//! A webhook's JSON body, shared by every recipient of one event: the event's body is built
//! and serialised once, and only `meta.unsubscribe` differs per subscriber, so each
//! recipient's bytes are the shared bytes with their link spliced in (no deep copy, no
//! serialising the whole document again for each of 100,000 recipients).

use std::sync::{Arc, OnceLock};

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

/// A document shared by every recipient of one event.
#[derive(Debug)]
pub struct SharedBody {
    value: Value,
    /// The document serialised with a placeholder for `meta.unsubscribe`, cut around it;
    /// `None` when it cannot be cut (not an object, or the placeholder is ambiguous).
    halves: OnceLock<Option<(Vec<u8>, Vec<u8>)>>,
}

/// Stands for the link while the shared document is serialised (control characters are
/// escaped by JSON, so it is one unmistakable run of bytes).
const PLACEHOLDER: &str = "\u{1}herald:unsubscribe\u{1}";

impl SharedBody {
    pub fn new(value: Value) -> Self {
        Self {
            value,
            halves: OnceLock::new(),
        }
    }

    /// The document.
    pub fn value(&self) -> &Value {
        &self.value
    }

    fn halves(&self) -> Option<&(Vec<u8>, Vec<u8>)> {
        self.halves
            .get_or_init(|| {
                let bytes = serde_json::to_vec(&Doc(&self.value, Some(PLACEHOLDER))).ok()?;
                let mark = serde_json::to_vec(PLACEHOLDER).ok()?;
                let mut found = bytes
                    .windows(mark.len())
                    .enumerate()
                    .filter(|(_, w)| *w == mark);
                let (at, _) = found.next()?;
                if found.next().is_some() {
                    return None;
                }
                Some((bytes[..at].to_vec(), bytes[at + mark.len()..].to_vec()))
            })
            .as_ref()
    }
}

impl PartialEq for SharedBody {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

/// A body: a shared document plus, optionally, this recipient's `meta.unsubscribe`.
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookBody {
    shared: Arc<SharedBody>,
    unsubscribe: Option<String>,
}

impl WebhookBody {
    /// `shared` with `meta.unsubscribe` set to `unsubscribe` (added, or replacing one there).
    pub fn with_unsubscribe(shared: Arc<SharedBody>, unsubscribe: String) -> Self {
        Self {
            shared,
            unsubscribe: Some(unsubscribe),
        }
    }

    /// The body as one JSON value (tests, chat formats).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The body's bytes: the shared bytes with this recipient's link spliced in.
    pub fn to_bytes(&self) -> serde_json::Result<Vec<u8>> {
        let (Some(link), Some((head, tail))) = (&self.unsubscribe, self.shared.halves()) else {
            return serde_json::to_vec(self);
        };
        let mut bytes = Vec::with_capacity(head.len() + link.len() + 2 + tail.len());
        bytes.extend_from_slice(head);
        serde_json::to_writer(&mut bytes, link)?;
        bytes.extend_from_slice(tail);
        Ok(bytes)
    }
}

impl From<Value> for WebhookBody {
    fn from(body: Value) -> Self {
        Self {
            shared: Arc::new(SharedBody::new(body)),
            unsubscribe: None,
        }
    }
}

impl Serialize for WebhookBody {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Doc(&self.shared.value, self.unsubscribe.as_deref()).serialize(serializer)
    }
}

/// A document with `meta.unsubscribe` set to a link, if there is one.
struct Doc<'a>(&'a Value, Option<&'a str>);

impl Serialize for Doc<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match (self.0, self.1) {
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

    /// Both ways of serialising agree, and answer the document.
    fn serialised(body: &WebhookBody) -> Value {
        let spliced = body.to_bytes().unwrap();
        assert_eq!(spliced, serde_json::to_vec(body).unwrap());
        serde_json::from_slice(&spliced).unwrap()
    }

    fn shared(value: Value) -> Arc<SharedBody> {
        Arc::new(SharedBody::new(value))
    }

    #[test]
    fn the_recipients_link_is_set_in_meta_and_the_rest_is_unchanged() {
        let shared = shared(json!({
            "meta": {"generated_at": "2026-11-30T07:00:00Z", "unsubscribe": "old"},
            "page": {"id": "acme"},
            "incident": {"name": "API <errors>", "incident_updates": [{"body": "a\nb"}]},
        }));
        let body = WebhookBody::with_unsubscribe(shared.clone(), "https://x/u/1".into());
        assert!(shared.halves().is_some(), "the shared bytes are cut once");
        let mut expected = shared.value().clone();
        expected["meta"]["unsubscribe"] = json!("https://x/u/1");
        assert_eq!(serialised(&body), expected);
        assert_eq!(body.to_value(), expected);
        let other = WebhookBody::with_unsubscribe(shared, "https://x/u/\"2\"".into());
        assert_eq!(
            serialised(&other)["meta"]["unsubscribe"],
            "https://x/u/\"2\""
        );
    }

    #[test]
    fn a_document_quoting_the_placeholder_is_serialised_whole() {
        let odd = shared(json!({"meta": {}, "incident": {"name": PLACEHOLDER}}));
        let body = WebhookBody::with_unsubscribe(odd.clone(), "u".into());
        assert!(odd.halves().is_none());
        assert_eq!(serialised(&body)["incident"]["name"], PLACEHOLDER);
        assert_eq!(serialised(&body)["meta"]["unsubscribe"], "u");
    }

    #[test]
    fn a_body_without_meta_gets_one_and_plain_bodies_pass_through() {
        let body = WebhookBody::with_unsubscribe(shared(json!({"a": 1})), "u".into());
        assert_eq!(
            serialised(&body),
            json!({"a": 1, "meta": {"unsubscribe": "u"}})
        );
        let odd = WebhookBody::with_unsubscribe(shared(json!({"meta": 3})), "u".into());
        assert_eq!(serialised(&odd), json!({"meta": {"unsubscribe": "u"}}));
        let plain = WebhookBody::from(json!({"type": "support.submission"}));
        assert_eq!(serialised(&plain), json!({"type": "support.submission"}));
        let array = WebhookBody::with_unsubscribe(shared(json!([1, 2])), "u".into());
        assert_eq!(serialised(&array), json!([1, 2]));
    }
}
