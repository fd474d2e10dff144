//! Request bodies: the JSON limits and error shape, and turning a JSON object into a service
//! input with a 422 that names the offending field.

use actix_web::error::JsonPayloadError;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::BODY_LIMIT;
use crate::error::{AppError, AppResult};

/// The JSON extractor settings of the API: [`BODY_LIMIT`], and malformed bodies answered with
/// the API's error shape (400, or 413 when too large).
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
                JsonPayloadError::Deserialize(e) => {
                    format!("the request body is not valid JSON: {e}")
                }
                other => format!("the request body could not be read: {other}"),
            };
            AppError::BadRequest(message).into()
        })
}

/// Any path under the API that no route matches.
pub async fn not_found(req: HttpRequest) -> AppResult<HttpResponse> {
    Err(AppError::NotFound(format!(
        "route {} {}",
        req.method(),
        req.path()
    )))
}

/// The query-string extractor settings: a bad query is a 422 in the API's error shape.
pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|err, _req| {
        AppError::field("query", format!("the query string is invalid: {err}")).into()
    })
}

/// The body as `T`. A body that is not an object, a missing field or a value of the wrong
/// type is a 422 on the field concerned.
pub fn typed<T: DeserializeOwned>(body: &Value) -> AppResult<T> {
    if !body.is_object() {
        return Err(AppError::field("body", "must be a JSON object"));
    }
    serde_json::from_value(body.clone()).map_err(|e| {
        let message = clean(&e);
        AppError::field(&culprit::<T>(body, &message), message)
    })
}

/// The field a deserialization error is about: the one named as missing, or the first field
/// whose removal changes the error (serde reports the first bad field it meets, and a missing
/// field only after every present one).
fn culprit<T: DeserializeOwned>(body: &Value, message: &str) -> String {
    if let Some(name) = missing_field(message) {
        return name;
    }
    let Some(fields) = body.as_object() else {
        return "body".to_owned();
    };
    for name in fields.keys() {
        let mut without = fields.clone();
        without.remove(name);
        match serde_json::from_value::<T>(Value::Object(without)) {
            Ok(_) => return name.clone(),
            Err(e) if clean(&e) != message => return name.clone(),
            Err(_) => {}
        }
    }
    "body".to_owned()
}

/// The field name in serde's "missing field `x`" message.
fn missing_field(message: &str) -> Option<String> {
    let rest = message.strip_prefix("missing field `")?;
    Some(rest.split('`').next()?.to_owned())
}

/// Serde's message without its position suffix.
fn clean(error: &serde_json::Error) -> String {
    let message = error.to_string();
    match message.find(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message,
    }
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
    fn a_body_that_is_not_an_object_is_refused() {
        assert_eq!(field_of(serde_json::json!([1])), ["body"]);
    }
}
