//! An alert body far beyond the API's limit (10 MB to an integration's endpoint, with its
//! valid token) is refused as too large, and changes and records nothing; the same alert at
//! its normal size is taken.

use herald::domain::Role;
use serde_json::{Value, json};

use crate::helpers::{TestApp, TestDb};

on_both_backends!(a_10_mb_alert_is_refused_as_too_large_and_changes_nothing);

/// The status `summary.json` shows for the component named `name` of `acme`.
async fn shown(app: &TestApp, name: &str) -> String {
    app.refreshed().await;
    let summary: Value = app
        .get("/status/acme/api/v2/summary.json")
        .await
        .json()
        .await
        .unwrap();
    summary["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .and_then(|c| c["status"].as_str())
        .unwrap_or_else(|| panic!("no component {name} in {summary}"))
        .to_owned()
}

/// POSTs `body` (as JSON) to the integration's `endpoint` with its `token`.
async fn post(app: &TestApp, endpoint: &str, token: &str, body: Vec<u8>) -> (u16, Value) {
    let res = app
        .client
        .post(format!("{}{endpoint}", app.address))
        .bearer_auth(token)
        .header("Content-Type", "application/json")
        .body(body)
        .send()
        .await
        .expect("an answer, not a broken connection");
    let status = res.status().as_u16();
    let text = res.text().await.unwrap_or_default();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

async fn a_10_mb_alert_is_refused_as_too_large_and_changes_nothing(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    let owner = app.token(Role::Owner).await;
    let (status, made) = app
        .api(&owner)
        .post(
            "/pages/acme/integrations",
            json!({"kind": "generic", "name": "Monitor", "hold_seconds": 0}),
        )
        .await;
    assert_eq!(status, 201, "{made}");
    let endpoint = made["endpoint"].as_str().unwrap().to_owned();
    let token = made["token"].as_str().unwrap().to_owned();
    assert_eq!(shown(&app, "Public API").await, "operational");
    let (_, before) = app.api(&owner).get("/audit?limit=100").await;

    // A valid alert padded with 10 MB of JSON whitespace: well-formed, and what it asks for
    // would be done if it were read.
    let alert = r#"{"component": "Public API", "status": "major_outage", "summary": "Down""#;
    let mut huge = alert.as_bytes().to_vec();
    huge.extend(std::iter::repeat_n(b' ', 10 * 1024 * 1024));
    huge.push(b'}');
    let (status, answer) = post(&app, &endpoint, &token, huge).await;
    assert_eq!(status, 400, "{answer}");
    let message = answer["message"].as_str().unwrap_or_default();
    assert!(message.contains("larger than 262144 bytes"), "{answer}");

    assert_eq!(
        shown(&app, "Public API").await,
        "operational",
        "nothing applied"
    );
    let (_, after) = app.api(&owner).get("/audit?limit=100").await;
    assert_eq!(after, before, "nothing recorded");
    let (_, integration) = app
        .api(&owner)
        .get(
            endpoint
                .strip_prefix("/api/v1")
                .unwrap()
                .trim_end_matches("/generic"),
        )
        .await;
    assert_eq!(integration["last_used_at"], Value::Null, "{integration}");

    // The same alert, at its size, is taken: the refusal above was the size's.
    let mut normal = alert.as_bytes().to_vec();
    normal.push(b'}');
    let (status, outcome) = post(&app, &endpoint, &token, normal).await;
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(shown(&app, "Public API").await, "major_outage");
}
