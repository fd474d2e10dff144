//! Request bodies: the JSON limits and error shape, and turning a JSON object into a service
//! input with a 422 that names the offending field.

use std::collections::BTreeSet;

use actix_web::error::JsonPayloadError;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::BODY_LIMIT;
use crate::error::{AppError, AppResult};

/// The JSON extractor settings of the API: [`BODY_LIMIT`], and malformed bodies answered with
/// the API's error shape (400, saying so when the body is larger than the limit).
pub fn json_config() -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(BODY_LIMIT)
        .error_handler(|err, _req| {
            let message = match &err {
                JsonPayloadError::Overflow { .. }
                | JsonPayloadError::OverflowKnownLength { .. } => {
                    format!("the request body is larger than {BODY_LIMIT} bytes")
                }
                JsonPayloadError::ContentType => {
                    "the request body must be JSON (Content-Type: application/json)".to_owned()
                }
                JsonPayloadError::Deserialize(e) => format!(
                    "the request body is not valid JSON: {}",
                    without_value(&e.to_string())
                ),
                other => format!("the request body could not be read: {other}"),
            };
            AppError::BadRequest(message).into()
        })
}

/// A JSON body of up to `limit` bytes, for the one route whose bodies may outgrow
/// [`BODY_LIMIT`] (a subscriber file); errors as [`json_config`] answers them.
pub async fn json_within(
    req: &HttpRequest,
    payload: web::Payload,
    limit: usize,
) -> AppResult<Value> {
    use actix_web::HttpMessage;
    let json = req
        .mime_type()
        .ok()
        .flatten()
        .is_some_and(|m| m.subtype() == "json" || m.suffix().is_some_and(|s| s == "json"));
    if !json {
        return Err(AppError::BadRequest(
            "the request body must be JSON (Content-Type: application/json)".to_owned(),
        ));
    }
    let bytes = match payload.to_bytes_limited(limit).await {
        Ok(Ok(bytes)) => bytes,
        Err(_) => {
            return Err(AppError::BadRequest(format!(
                "the request body is larger than {limit} bytes"
            )));
        }
        Ok(Err(e)) => {
            return Err(AppError::BadRequest(format!(
                "the request body could not be read: {e}"
            )));
        }
    };
    serde_json::from_slice(&bytes).map_err(|e| {
        AppError::BadRequest(format!(
            "the request body is not valid JSON: {}",
            without_value(&e.to_string())
        ))
    })
}

/// Any request under the API that no route takes: 405 with `Allow` when the path is a route's
/// and only the method is wrong, 404 otherwise.
pub async fn not_found(req: HttpRequest) -> AppResult<HttpResponse> {
    let path = req.path().strip_prefix(super::PREFIX).unwrap_or(req.path());
    let allowed = allowed_methods(path);
    if allowed.is_empty() {
        return Err(AppError::NotFound(format!(
            "route {} {}",
            req.method(),
            req.path()
        )));
    }
    let allow = allowed.join(", ");
    Ok(HttpResponse::MethodNotAllowed()
        .insert_header((actix_web::http::header::ALLOW, allow.clone()))
        .json(serde_json::json!({
            "error": "method_not_allowed",
            "message": format!("{} is not allowed here; this path takes {allow}", req.method()),
        })))
}

/// The methods the API's routes take at `path` (below the prefix), upper-case, in table order.
fn allowed_methods(path: &str) -> Vec<String> {
    static ROUTES: std::sync::LazyLock<Vec<(actix_web::dev::ResourceDef, String)>> =
        std::sync::LazyLock::new(|| {
            super::ROUTES
                .iter()
                .chain(super::AUTH_ROUTES)
                .map(|(method, pattern)| {
                    (
                        actix_web::dev::ResourceDef::new(*pattern),
                        method.to_ascii_uppercase(),
                    )
                })
                .collect()
        });
    // A path that a route names literally (`/subscribers/export`) is that route's, not an id
    // of the pattern beside it (`/subscribers/{id}`): only the routes with the fewest
    // parameters among those that match count.
    let params =
        |def: &actix_web::dev::ResourceDef| def.pattern().unwrap_or("").matches('{').count();
    let matching: Vec<&(actix_web::dev::ResourceDef, String)> = ROUTES
        .iter()
        .filter(|(def, _)| def.is_match(path))
        .collect();
    let fewest = matching
        .iter()
        .map(|(def, _)| params(def))
        .min()
        .unwrap_or(0);
    let mut allowed: Vec<String> = Vec::new();
    for (def, method) in matching {
        if params(def) == fewest && !allowed.contains(method) {
            allowed.push(method.clone());
        }
    }
    allowed
}

/// The query-string extractor settings: a bad query is a 422 in the API's error shape.
pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|err, _req| {
        AppError::field("query", format!("the query string is invalid: {err}")).into()
    })
}

/// The body as `T`. A body that is not an object, a missing field, a value of the wrong type or
/// a field `T` does not take is a 422 on the (top-level) field concerned: a misspelt field is
/// refused, never silently ignored. A body read as several inputs uses [`Parts`].
pub fn typed<T: DeserializeOwned>(body: &Value) -> AppResult<T> {
    let mut parts = Parts::of(body)?;
    let value = parts.part()?;
    parts.finish()?;
    Ok(value)
}

/// The body as `T`, ignoring the fields `T` does not take: for the bodies other tools send
/// (an Alertmanager or Grafana notification), which carry more than Herald reads and gain
/// fields between versions. A missing field or a value of the wrong type is a 422 on its full
/// path (`alerts[0].startsAt`). What `T` keeps is its reader's to check (for the NUL
/// character, say): what it ignores may hold anything.
pub fn lenient<T: DeserializeOwned>(body: &Value) -> AppResult<T> {
    if !body.is_object() {
        return Err(AppError::field("body", "must be a JSON object"));
    }
    serde_path_to_error::deserialize(body.clone()).map_err(|e| {
        let message = clean(e.inner());
        let path = e.path().to_string();
        let field = match (missing_field(&message), path.as_str()) {
            (Some(name), "." | "") => name,
            (Some(name), path) => format!("{path}.{name}"),
            (None, "." | "") => "body".to_owned(),
            (None, path) => path.to_owned(),
        };
        AppError::field(&field, message)
    })
}

/// Refuses a body that is not a JSON object (a 422 on `body`), or that holds the NUL character
/// anywhere (a 422 on the field that does): no text Herald keeps may hold it, and PostgreSQL
/// could not store it.
pub fn object(body: &Value) -> AppResult<()> {
    if !body.is_object() {
        return Err(AppError::field("body", "must be a JSON object"));
    }
    match holding_nul(body, "") {
        Some(path) => Err(AppError::field(
            &path,
            "must not contain the NUL character (U+0000)",
        )),
        None => Ok(()),
    }
}

/// The path (`a.b.0`) of the first name or text in `value` holding U+0000, if any.
fn holding_nul(value: &Value, at: &str) -> Option<String> {
    let below = |key: &str| match at {
        "" => key.to_owned(),
        _ => format!("{at}.{key}"),
    };
    match value {
        Value::String(text) if text.contains('\0') => Some(at.to_owned()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| holding_nul(item, &below(&i.to_string()))),
        Value::Object(fields) => fields.iter().find_map(|(key, item)| {
            if key.contains('\0') {
                Some(below(key))
            } else {
                holding_nul(item, &below(key))
            }
        }),
        _ => None,
    }
}

/// A JSON object body read as one or more typed inputs ([`Parts::part`]); [`Parts::finish`]
/// refuses the fields that none of them takes.
pub struct Parts<'a> {
    body: &'a Value,
    /// The top-level fields every part read so far ignored.
    unknown: Option<BTreeSet<String>>,
}

impl<'a> Parts<'a> {
    pub fn of(body: &'a Value) -> AppResult<Self> {
        object(body)?;
        Ok(Self {
            body,
            unknown: None,
        })
    }

    /// The body as `T`: a missing field or a value of the wrong type is a 422 on its field, as
    /// `serde_path_to_error` tracks it; what `T` ignores is noted (`serde_ignored`).
    pub fn part<T: DeserializeOwned>(&mut self) -> AppResult<T> {
        let mut ignored = BTreeSet::new();
        let mut note = |path: serde_ignored::Path<'_>| {
            ignored.insert(top_level(&path.to_string()));
        };
        let ignoring = serde_ignored::Deserializer::new(self.body.clone(), &mut note);
        let value: T = serde_path_to_error::deserialize(ignoring).map_err(|e| {
            let message = clean(e.inner());
            AppError::field(&field_of(e.path(), &message, "body"), message)
        })?;
        self.unknown = Some(match self.unknown.take() {
            None => ignored,
            Some(before) => before.intersection(&ignored).cloned().collect(),
        });
        Ok(value)
    }

    /// A 422 on the first field no part takes.
    pub fn finish(self) -> AppResult<()> {
        match self.unknown.and_then(|u| u.into_iter().next()) {
            Some(field) => Err(AppError::field(
                &field,
                "is not a field of this request (check its spelling)",
            )),
            None => Ok(()),
        }
    }
}

/// The top-level field of a `serde_ignored` path (`a.b.c` or `a[0]` gives `a`).
fn top_level(path: &str) -> String {
    path.split(['.', '['])
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or("body")
        .to_owned()
}

/// The top-level field a deserialization error at `path` is about. A missing field is
/// reported at its parent, so its name comes from serde's `message`; `whole` names the input
/// itself when neither tells.
pub fn field_of(path: &serde_path_to_error::Path, message: &str, whole: &str) -> String {
    path.iter()
        .find_map(|segment| match segment {
            serde_path_to_error::Segment::Map { key } => Some(key.clone()),
            _ => None,
        })
        .or_else(|| missing_field(message))
        .unwrap_or_else(|| whole.to_owned())
}

/// The field name in serde's "missing field `x`" message.
fn missing_field(message: &str) -> Option<String> {
    let rest = message.strip_prefix("missing field `")?;
    Some(rest.split('`').next()?.to_owned())
}

/// Serde's message without its position suffix.
fn clean(error: &serde_json::Error) -> String {
    let message = without_value(&error.to_string());
    match message.find(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message,
    }
}

/// serde's message with the value it found left out (`invalid type: string "hunter2",
/// expected a boolean` is `invalid type: string, expected a boolean`): a field given the wrong
/// type may hold a secret (a password as a number), and the message reaches the logs.
pub fn without_value(message: &str) -> String {
    for lead in ["invalid type: ", "invalid value: "] {
        if let Some(at) = message.find(lead) {
            let rest = &message[at + lead.len()..];
            if let Some((found, expected)) = rest.split_once(", expected ") {
                let kind = found.split(['`', '"']).next().unwrap_or(found).trim_end();
                return format!("{}{lead}{kind}, expected {expected}", &message[..at]);
            }
        }
    }
    message.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Input {
        name: String,
        count: Option<u8>,
        flag: Option<bool>,
    }

    fn field_of(body: Value) -> Vec<String> {
        match typed::<Input>(&body) {
            Err(AppError::Validation(fields)) => fields.into_keys().collect(),
            other => panic!("expected a field error, got {other:?}"),
        }
    }

    #[test]
    fn a_value_of_the_wrong_type_is_not_repeated_in_the_message() {
        for (body, kind) in [
            (serde_json::json!({"name": 123456789}), "integer"),
            (
                serde_json::json!({"name": "x", "flag": "hunter2"}),
                "string",
            ),
            (serde_json::json!({"name": 1.25}), "floating point"),
            (serde_json::json!({"name": "x", "count": 300}), "integer"),
        ] {
            let Err(AppError::Validation(fields)) = typed::<Input>(&body) else {
                panic!("{body} must be refused");
            };
            let message = fields.values().flatten().cloned().collect::<String>();
            assert!(message.contains(kind), "{message}");
            for secret in ["123456789", "hunter2", "1.25", "300"] {
                assert!(!message.contains(secret), "{message}");
            }
        }
        assert_eq!(
            without_value("invalid type: string \"s3cret\", expected u8 at line 1 column 9"),
            "invalid type: string, expected u8 at line 1 column 9"
        );
        assert_eq!(
            without_value("missing field `name`"),
            "missing field `name`"
        );
    }

    #[test]
    fn a_missing_field_is_named() {
        assert_eq!(field_of(serde_json::json!({"count": 1})), ["name"]);
    }

    #[test]
    fn a_value_of_the_wrong_type_names_its_field() {
        let body = serde_json::json!({"name": "x", "count": "many", "flag": true});
        assert_eq!(field_of(body), ["count"]);
        let body = serde_json::json!({"count": 300});
        assert_eq!(field_of(body), ["count"]);
    }

    #[test]
    fn a_field_the_input_does_not_take_is_named() {
        let body = serde_json::json!({"name": "x", "visibility": "private"});
        assert_eq!(field_of(body), ["visibility"]);
        assert_eq!(top_level("brand.color"), "brand");
        assert_eq!(top_level("items[0].x"), "items");
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Other {
        extra: Option<String>,
    }

    #[test]
    fn a_body_read_in_parts_refuses_only_what_no_part_takes() {
        let body = serde_json::json!({"name": "x", "extra": "y"});
        let mut parts = Parts::of(&body).unwrap();
        parts.part::<Input>().unwrap();
        parts.part::<Other>().unwrap();
        assert!(parts.finish().is_ok());
        let body = serde_json::json!({"name": "x", "extra": "y", "typo": 1});
        let mut parts = Parts::of(&body).unwrap();
        parts.part::<Input>().unwrap();
        parts.part::<Other>().unwrap();
        match parts.finish() {
            Err(AppError::Validation(fields)) => {
                assert_eq!(fields.into_keys().collect::<Vec<_>>(), ["typo"]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_route_s_path_lists_the_methods_it_takes() {
        assert_eq!(allowed_methods("/pages"), ["POST", "GET"]);
        assert_eq!(
            allowed_methods("/pages/acme/incidents/abc"),
            ["GET", "PATCH"]
        );
        assert_eq!(allowed_methods("/tokens/abc"), ["DELETE"]);
        assert_eq!(
            allowed_methods("/pages/acme/subscribers/export"),
            ["GET"],
            "a literal route is not an id of the pattern beside it"
        );
        assert!(allowed_methods("/pages/acme/nothing").is_empty());
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Outer {
        items: Vec<Inner>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        #[serde(rename = "startsAt")]
        starts_at: u8,
    }

    #[test]
    fn a_lenient_body_ignores_extra_fields_and_names_a_bad_one_by_its_path() {
        let fields = |body: Value| match lenient::<Outer>(&body) {
            Err(AppError::Validation(fields)) => fields.into_keys().collect::<Vec<_>>(),
            other => panic!("{body} answered {other:?}"),
        };
        let ok = serde_json::json!({"items": [{"startsAt": 1, "extra": true}], "more": 1});
        assert!(lenient::<Outer>(&ok).is_ok());
        assert_eq!(
            fields(serde_json::json!({"items": [{"startsAt": 1}, {"startsAt": "x"}]})),
            ["items[1].startsAt"]
        );
        assert_eq!(
            fields(serde_json::json!({"items": [{}]})),
            ["items[0].startsAt"]
        );
        assert_eq!(fields(serde_json::json!({})), ["items"]);
        assert_eq!(fields(serde_json::json!([])), ["body"]);
    }

    #[test]
    fn a_body_that_is_not_an_object_is_refused() {
        assert_eq!(field_of(serde_json::json!([1])), ["body"]);
    }

    #[test]
    fn a_nul_character_anywhere_is_refused_on_its_field() {
        let nul = |body: serde_json::Value| match object(&body) {
            Err(AppError::Validation(fields)) => fields.into_keys().collect::<Vec<_>>(),
            other => panic!("{body} answered {other:?}"),
        };
        assert_eq!(nul(serde_json::json!({"body": "a\0b"})), ["body"]);
        assert_eq!(
            nul(serde_json::json!({"follow_ups": [{"owner": "x"}, {"owner": "\0"}]})),
            ["follow_ups.1.owner"]
        );
        assert_eq!(
            nul(serde_json::json!({"components": {"a\0": "operational"}})),
            ["components.a\0"]
        );
        assert!(object(&serde_json::json!({"body": "fine", "n": 0})).is_ok());
    }
}
