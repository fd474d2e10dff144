//! Statuspage's manage API (v1) on Herald: its real Python client, unchanged, drives a page,
//! and the effect is checked on Herald's own `/api/v1` and public pages; keys, roles, pages
//! and bodies that must be refused are refused in the document's error shape, writing
//! nothing.

mod client;
mod maintenance;
mod refusals;
mod schemathesis;

use serde_json::Value;

use crate::helpers::TestApp;

/// A request to `/v1{path}` with `key` as Statuspage's clients send it (`OAuth`), a JSON or
/// form body; the status and the body read as JSON.
pub async fn v1(
    app: &TestApp,
    method: &str,
    path: &str,
    key: &str,
    body: Option<Body>,
) -> (u16, Value) {
    let url = format!("{}/v1{path}", app.address);
    let mut req = app.client.request(method.parse().unwrap(), url);
    if !key.is_empty() {
        req = req.header("Authorization", format!("OAuth {key}"));
    }
    req = match body {
        Some(Body::Json(json)) => req.json(&json),
        Some(Body::Form(form)) => req
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(form),
        Some(Body::Raw(content_type, bytes)) => {
            req.header("Content-Type", content_type).body(bytes)
        }
        None => req,
    };
    let res = req.send().await.expect("request sent");
    let status = res.status().as_u16();
    let text = res.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// A request body.
pub enum Body {
    Json(Value),
    /// `application/x-www-form-urlencoded`, as written.
    Form(String),
    /// Bytes with their content type.
    Raw(&'static str, Vec<u8>),
}
