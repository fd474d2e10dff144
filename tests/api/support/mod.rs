//! The support contact form: submissions stored with a reference (HTML form and JSON), each
//! invalid field answered, honeypot and hasty submissions refused without saying why, the rate
//! limit, sign-in broken on purpose, the database unreachable (spool, then replay exactly
//! once), a damaged spool tail set aside, and triage through the API.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use herald::db::models::support as rows;
use herald::domain::Role;
use herald::support::token::TokenKey;
use herald::support::{MIN_FILL_SECS, Submission, Topic, spool};
use herald::workers::Registry;
use serde_json::{Value, json};

use crate::helpers::{Console, TestApp, TestDb};

mod form;
mod outage;
mod triage;

/// A Herald with its own data directory, and a page `acme` with one component.
pub struct Support {
    pub app: TestApp,
    pub data: tempfile::TempDir,
    pub page_id: String,
    pub component: String,
    key: TokenKey,
}

/// The key the app's support forms mint their tokens with.
pub async fn form_key(app: &TestApp) -> TokenKey {
    let secret = app
        .db
        .run(|c| Ok(herald::services::signing_key::load_or_create(c, None)?))
        .await
        .unwrap();
    TokenKey::derive(
        secret.expose(),
        chrono::Duration::seconds(MIN_FILL_SECS),
        chrono::Duration::hours(24),
    )
}

impl Support {
    pub async fn spawn(db: TestDb, extra: &[(&str, &str)]) -> Self {
        let data = tempfile::tempdir().unwrap();
        let dir = data.path().to_str().unwrap().to_owned();
        let mut settings = vec![("HERALD_DATA_DIR", dir.as_str())];
        settings.extend_from_slice(extra);
        let app = TestApp::spawn_with(db, &settings, Registry::standard()).await;
        let acme = app.acme().await;
        let (page_id, component) = (acme.id.to_string(), acme.components[0].to_string());
        app.wait_for_page("/status/acme").await;
        let key = form_key(&app).await;
        Self {
            app,
            data,
            page_id,
            component,
            key,
        }
    }

    /// A form token handed out `secs_ago` seconds ago (the tests do not wait for real).
    pub fn token(&self, secs_ago: i64) -> String {
        self.key.mint(
            &self.page_id,
            chrono::Utc::now() - chrono::Duration::seconds(secs_ago),
        )
    }

    /// A valid JSON submission.
    pub fn body(&self, message: &str) -> Value {
        json!({
            "name": "Ada Lovelace",
            "email": "ada@example.com",
            "topic": "sign_in",
            "component": self.component,
            "account": "acct-42",
            "message": message,
            "copy": true,
            "website": "",
            "form_token": self.token(10),
        })
    }

    pub async fn post_json(&self, body: &Value) -> (u16, Value, reqwest::header::HeaderMap) {
        let res = self
            .app
            .client
            .post(format!("{}/status/acme/api/support", self.app.address))
            .json(body)
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let text = res.text().await.unwrap();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
            headers,
        )
    }

    /// Posts the HTML form (redirects not followed): status, Location, body.
    pub async fn post_form(&self, fields: &[(&str, &str)]) -> (u16, String, String) {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let res = client
            .post(format!("{}/status/acme/support", self.app.address))
            .form(fields)
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        let location = res
            .headers()
            .get("location")
            .map(|l| l.to_str().unwrap().to_owned())
            .unwrap_or_default();
        (status, location, res.text().await.unwrap())
    }

    /// Every stored submission of the page, newest first.
    pub async fn stored(&self) -> Vec<rows::SupportSubmission> {
        self.try_stored().await.unwrap()
    }

    /// [`Support::stored`], or the 503 of a pool busy with a replay (the tests use one
    /// connection and a short checkout timeout).
    pub async fn try_stored(
        &self,
    ) -> Result<Vec<rows::SupportSubmission>, herald::error::AppError> {
        let page_id = self.page_id.clone();
        self.app
            .db
            .run(move |c| {
                Ok(rows::list(
                    c,
                    &rows::SubmissionQuery {
                        page_id: Some(page_id),
                        limit: 10_000,
                        ..Default::default()
                    },
                )?)
            })
            .await
    }

    pub fn spool_dir(&self) -> PathBuf {
        self.data.path().to_owned()
    }
}

fn form_fields<'a>(token: &'a str, component: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("name", "Grace Hopper"),
        ("email", "grace@example.com"),
        ("topic", "outage"),
        ("component", component),
        ("account", ""),
        (
            "message",
            "The dashboard answers 502 since 9:00 <script>alert(1)</script>.",
        ),
        ("website", ""),
        ("form_token", token),
    ]
}

/// One connection and a short checkout wait (an outage is noticed at once), and a rate limit
/// the outage tests do not meet.
const OUTAGE_READY: &[(&str, &str)] = &[
    ("HERALD_DB_POOL_SIZE", "1"),
    ("HERALD_DB_TIMEOUT_MS", "300"),
    ("HERALD_SUPPORT_RATE_PER_MIN", "1000"),
];
