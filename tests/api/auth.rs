//! Accounts and credentials over HTTP: API tokens (CLI and JSON API), the refusal of forged,
//! `none`, wrong-algorithm, wrong-key, expired and revoked tokens, roles, and console sessions
//! (sign-in, cookie flags, rate limiting, CSRF, sign-out).

mod sessions;
mod throttle;
mod tokens;

use crate::helpers::TestApp;

/// The server's signing key, as stored in the test database.
pub async fn server_key(app: &TestApp) -> Vec<u8> {
    app.db
        .run(|c| {
            herald::secret::load_or_create(c, None)
                .map(|k| k.expose().to_vec())
                .map_err(herald::error::AppError::Internal)
        })
        .await
        .expect("key read")
}

/// `GET /api/v1/me` with a bearer token; returns the status and the JSON body.
pub async fn me_with_token(app: &TestApp, token: &str) -> (u16, serde_json::Value) {
    let res = app
        .client
        .get(format!("{}/api/v1/me", app.address))
        .bearer_auth(token)
        .send()
        .await
        .expect("request sent");
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or_default())
}
