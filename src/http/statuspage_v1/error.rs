//! How `/v1` answers a refusal: the document's `ErrorEntity`, `{"message": "..."}`, with the
//! status and headers Herald's own error gives (`Retry-After` on a 503, `WWW-Authenticate` on a
//! 401). A refused field is named as Statuspage's clients send it: `incident[name]`.

use std::fmt;

use actix_web::body::BoxBody;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde_json::json;

use crate::error::{AppError, FieldErrors};

/// An [`AppError`] answered in the v1 shape.
#[derive(Debug)]
pub struct V1Error(pub AppError);

/// What a v1 handler returns.
pub type V1Result<T> = Result<T, V1Error>;

impl From<AppError> for V1Error {
    fn from(e: AppError) -> Self {
        Self(e)
    }
}

impl fmt::Display for V1Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl ResponseError for V1Error {
    fn status_code(&self) -> StatusCode {
        self.0.status_code()
    }

    fn error_response(&self) -> HttpResponse<BoxBody> {
        // Herald's own answer (it logs a 5xx once and sets the headers); only the body changes.
        let herald = self.0.error_response();
        let body = json!({ "message": message(&self.0) }).to_string();
        let mut res = herald.set_body(BoxBody::new(body));
        res.headers_mut().insert(
            actix_web::http::header::CONTENT_TYPE,
            actix_web::http::header::HeaderValue::from_static("application/json"),
        );
        res
    }
}

/// The one message of an error: each refused field with its reasons, or the error's text.
pub fn message(e: &AppError) -> String {
    match e {
        AppError::Validation(fields) | AppError::Taken(fields) => fields_message(fields),
        AppError::Internal(_) => "internal error; it has been logged".to_owned(),
        AppError::Unavailable { .. } => "temporarily unavailable, please retry shortly".to_owned(),
        AppError::Unauthorized => {
            "an API key is required: Authorization: OAuth <key> (or ?api_key=<key>)".to_owned()
        }
        AppError::Forbidden => "this API key's role may not do this".to_owned(),
        other => other.to_string(),
    }
}

fn fields_message(fields: &FieldErrors) -> String {
    fields
        .iter()
        .map(|(field, reasons)| format!("{field} {}", reasons.join("; ")))
        .collect::<Vec<_>>()
        .join(". ")
}

/// `e` with its field names put inside `root` as a form names them: `name` becomes
/// `incident[name]`, `components.abc` becomes `incident[components][abc]`.
pub fn within(root: &str, e: AppError) -> AppError {
    let rename = |fields: FieldErrors| -> FieldErrors {
        fields
            .into_iter()
            .map(|(field, reasons)| (bracketed(root, &field), reasons))
            .collect()
    };
    match e {
        AppError::Validation(fields) => AppError::Validation(rename(fields)),
        AppError::Taken(fields) => AppError::Taken(rename(fields)),
        other => other,
    }
}

/// `a.b` inside `root`: `root[a][b]` (no root: `a[b]`).
pub fn bracketed(root: &str, field: &str) -> String {
    let mut parts = field.split('.').filter(|p| !p.is_empty());
    let mut name = match root {
        "" => parts.next().unwrap_or("body").to_owned(),
        root => root.to_owned(),
    };
    for part in parts {
        name.push('[');
        name.push_str(part);
        name.push(']');
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::body::MessageBody;

    #[test]
    fn a_refused_field_is_named_as_a_form_names_it() {
        assert_eq!(bracketed("incident", "name"), "incident[name]");
        assert_eq!(
            bracketed("incident", "components.abc"),
            "incident[components][abc]"
        );
        assert_eq!(bracketed("", "subscribers"), "subscribers");
        let e = within("component", AppError::field("status", "is not a status"));
        assert_eq!(message(&e), "component[status] is not a status");
    }

    #[test]
    fn the_answer_is_an_error_entity_with_the_status_and_headers_of_herald() {
        let res = V1Error(AppError::Unavailable {
            reason: "pool".into(),
            retry_after_secs: 2,
        })
        .error_response();
        assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            res.headers()
                .get(actix_web::http::header::RETRY_AFTER)
                .unwrap(),
            "2"
        );
        let body = res.into_body().try_into_bytes().unwrap();
        let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            json,
            json!({"message": "temporarily unavailable, please retry shortly"})
        );
    }
}
