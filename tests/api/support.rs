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

/// A Herald with its own data directory, and a page `acme` with one component.
pub struct Support {
    pub app: TestApp,
    pub data: tempfile::TempDir,
    pub page_id: String,
    pub component: String,
    key: TokenKey,
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
        let secret = app
            .db
            .run(|c| Ok(herald::services::signing_key::load_or_create(c, None)?))
            .await
            .unwrap();
        let key = TokenKey::derive(
            secret.expose(),
            chrono::Duration::seconds(MIN_FILL_SECS),
            chrono::Duration::hours(24),
        );
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

on_both_backends!(
    valid_submissions_are_stored_and_referenced,
    each_invalid_field_is_answered_with_its_message,
    honeypot_and_hasty_submissions_are_refused_without_saying_why,
    submissions_still_succeed_when_sign_in_is_broken,
    submissions_survive_a_database_outage_and_are_stored_exactly_once,
    a_form_token_makes_one_submission_however_often_it_is_sent,
    a_full_spool_answers_503_and_loses_nothing_it_accepted,
    a_damaged_spool_tail_is_set_aside_and_the_rest_replayed,
    responders_triage_submissions_through_the_api,
    the_console_lists_filters_and_marks_submissions_handled,
    the_status_page_points_to_support_strongest_when_sign_in_is_affected,
);

async fn valid_submissions_are_stored_and_referenced(db: TestDb) {
    let s = Support::spawn(db, &[]).await;
    let res = s.app.get("/status/acme/support").await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["cache-control"], "no-store");
    let html = res.text().await.unwrap();
    assert!(html.contains(r#"name="form_token" value=""#), "{html}");
    assert!(html.contains(r#"name="website""#), "the honeypot is there");
    assert!(html.contains("Public API"), "components are offered");
    assert!(
        html.contains(r#"<input id="f-copy" name="copy" type="checkbox" value="on">"#)
            && html.contains(r#"<label for="f-copy">Send me a copy by email</label>"#),
        "the 'send me a copy' box, not ticked: {html}"
    );
    let first_token = html.split(r#"name="form_token" value=""#).nth(1).unwrap();
    let again = s
        .app
        .get("/status/acme/support")
        .await
        .text()
        .await
        .unwrap();
    let second_token = again.split(r#"name="form_token" value=""#).nth(1).unwrap();
    assert_ne!(
        &first_token[..20],
        &second_token[..20],
        "a fresh token per request, though the page is rendered once"
    );

    // The HTML form: 303 to the reference page.
    let token = s.token(5);
    let mut fields = form_fields(&token, &s.component);
    fields.push(("copy", "on"));
    let (status, location, _) = s.post_form(&fields).await;
    assert_eq!(status, 303);
    assert!(
        location.starts_with("/status/acme/support/sent?reference=SUP-"),
        "{location}"
    );
    let reference = location.split("reference=").nth(1).unwrap().to_owned();
    let sent = s.app.get(&location).await;
    assert_eq!(sent.status(), 200);
    let sent = sent.text().await.unwrap();
    assert!(
        sent.contains(&reference) && sent.contains("What happens next"),
        "{sent}"
    );

    // JSON: 201 with the reference.
    let (status, body, _) = s
        .post_json(&s.body("I cannot sign in since this morning."))
        .await;
    assert_eq!(status, 201, "{body}");
    let json_reference = body["reference"].as_str().unwrap().to_owned();
    assert!(json_reference.starts_with("SUP-") && json_reference.len() == 12);

    let stored = s.stored().await;
    assert_eq!(stored.len(), 2);
    let html_row = stored.iter().find(|r| r.reference == reference).unwrap();
    assert_eq!(html_row.email, "grace@example.com");
    assert!(html_row.wants_copy, "the ticked box asks for a copy");
    assert_eq!(html_row.topic, "outage");
    assert!(
        html_row.message.contains("<script>"),
        "stored as typed; escaped when shown"
    );
    assert!(!html_row.spooled);
    let json_row = stored
        .iter()
        .find(|r| r.reference == json_reference)
        .unwrap();
    assert_eq!(json_row.topic, "sign_in");
    assert_eq!(json_row.component_id.as_deref(), Some(s.component.as_str()));
    assert_eq!(json_row.account.as_deref(), Some("acct-42"));
    assert!(json_row.wants_copy);
    assert_eq!(json_row.client_ip.as_deref(), Some("127.0.0.1"));

    // The token endpoint for scripts.
    let res = s.app.get("/status/acme/api/support").await;
    assert_eq!(res.status(), 200);
    let info: Value = res.json().await.unwrap();
    assert!(info["form_token"].as_str().is_some_and(|t| t.len() > 20));
    assert_eq!(info["min_fill_seconds"], MIN_FILL_SECS);
    assert_eq!(s.app.get("/status/nope/support").await.status(), 404);
}

async fn each_invalid_field_is_answered_with_its_message(db: TestDb) {
    let s = Support::spawn(db, &[("HERALD_SUPPORT_RATE_PER_MIN", "1000")]).await;
    let cases = [
        ("name", json!("")),
        ("name", json!("x".repeat(101))),
        ("name", json!("Eve\r\nBcc: everyone@example.com")),
        ("email", json!("not-an-address")),
        ("topic", json!("refunds")),
        ("component", json!("no-such-component")),
        ("account", json!("a".repeat(201))),
        ("message", json!("short")),
        ("message", json!("m".repeat(5001))),
    ];
    for (field, value) in cases {
        let mut body = s.body("A message long enough to pass.");
        body[field] = value;
        let (status, answer, _) = s.post_json(&body).await;
        assert_eq!(status, 422, "{field}: {answer}");
        assert_eq!(answer["error"], "validation_failed");
        let fields = answer["fields"].as_object().unwrap();
        assert_eq!(fields.keys().collect::<Vec<_>>(), [field], "{answer}");
        assert!(fields[field][0].as_str().is_some_and(|m| !m.is_empty()));
    }
    let (status, answer, _) = s.post_json(&json!({})).await;
    assert_eq!(status, 422);
    for field in ["name", "email", "topic", "message"] {
        assert!(answer["fields"][field].is_array(), "{field}: {answer}");
    }
    // A field the form does not take is refused by its name, and nothing is stored.
    let mut misspelt = s.body("Everything is down.");
    misspelt["mesage"] = json!("Everything is down.");
    let (status, answer, _) = s.post_json(&misspelt).await;
    assert_eq!(status, 422, "{answer}");
    assert!(answer["fields"]["mesage"].is_array(), "{answer}");
    let mut mistyped = s.body("Everything is down.");
    mistyped["copy"] = json!("yes");
    let (status, answer, _) = s.post_json(&mistyped).await;
    assert_eq!(status, 422, "{answer}");
    assert!(answer["fields"]["copy"].is_array(), "{answer}");
    assert!(s.stored().await.is_empty(), "nothing stored");

    // The HTML form answers with the form again: messages next to fields, what was typed kept.
    let token = s.token(5);
    let mut fields = form_fields(&token, &s.component);
    fields[1] = ("email", "grace at example");
    fields[5] = ("message", "<b>hi");
    fields.push(("copy", "on"));
    let (status, _, html) = s.post_form(&fields).await;
    assert_eq!(status, 422);
    assert!(
        html.contains(r#"id="e-email""#) && html.contains(r#"id="e-message""#),
        "{html}"
    );
    assert!(html.contains(r#"value="Grace Hopper""#), "the name is kept");
    assert!(
        html.contains(r#"name="copy" type="checkbox" value="on" checked>"#),
        "the ticked box stays ticked"
    );
    assert!(
        html.contains(r#"value="grace at example""#),
        "the wrong email is kept to fix"
    );
    assert!(
        html.contains("&lt;b&gt;hi</textarea>"),
        "typed text kept, escaped"
    );
    assert!(
        html.contains(&format!(r#"value="{token}""#)),
        "the same token, so a quick fix is not 'too fast'"
    );
    // A control character (U+0000 here) is refused on its field and shown again as U+FFFD
    // where it was: HTML cannot carry it, and the reader sees what to remove.
    let mut fields = form_fields(&token, &s.component);
    fields[5] = ("message", "Down\u{0}since nine.");
    let (status, _, html) = s.post_form(&fields).await;
    assert_eq!(status, 422);
    assert!(html.contains(r#"id="e-message""#), "{html}");
    assert!(!html.contains('\u{0}'), "no NUL in the page");
    assert!(
        html.contains("Down\u{FFFD}since nine.</textarea>"),
        "{html}"
    );
    let selected = format!(r#"<option value="{}" selected>"#, s.component);
    assert!(
        html.contains(&selected),
        "the chosen component stays chosen"
    );
    assert!(s.stored().await.is_empty(), "nothing stored");

    // Oversized bodies are refused before they are read whole.
    let mut body = s.body("big");
    body["message"] = json!("x".repeat(100 * 1024));
    let (status, _, _) = s.post_json(&body).await;
    assert_eq!(status, 400);
}

async fn honeypot_and_hasty_submissions_are_refused_without_saying_why(db: TestDb) {
    let s = Support::spawn(db, &[("HERALD_SUPPORT_RATE_PER_MIN", "1000")]).await;
    let mut trapped = s.body("Buy cheap watches at our site today.");
    trapped["website"] = json!("http://spam.example");
    let (status, trap_answer, _) = s.post_json(&trapped).await;
    assert_eq!(status, 400);
    let mut hasty = s.body("I cannot sign in since this morning.");
    hasty["form_token"] = json!(s.token(0));
    let (status, hasty_answer, _) = s.post_json(&hasty).await;
    assert_eq!(status, 400);
    let mut forged = s.body("I cannot sign in since this morning.");
    forged["form_token"] = json!("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    let (status, forged_answer, _) = s.post_json(&forged).await;
    assert_eq!(status, 400);
    assert_eq!(
        trap_answer, hasty_answer,
        "the same answer whatever gave it away"
    );
    assert_eq!(trap_answer, forged_answer);
    let message = trap_answer["message"].as_str().unwrap().to_lowercase();
    for word in ["honeypot", "website", "fast", "token", "robot", "bot"] {
        assert!(
            !message.contains(word),
            "the answer names no reason: {message}"
        );
    }

    // A token from the form page, sent at once: refused; the same token after the fill time: fine.
    let info: Value = s
        .app
        .get("/status/acme/api/support")
        .await
        .json()
        .await
        .unwrap();
    let mut body = s.body("I cannot sign in since this morning.");
    body["form_token"] = info["form_token"].clone();
    assert_eq!(s.post_json(&body).await.0, 400);

    let token = s.token(0);
    let mut fields = form_fields(&token, &s.component);
    let (status, _, html) = s.post_form(&fields).await;
    assert_eq!(status, 400);
    assert!(html.contains("We could not accept this message"), "{html}");
    assert!(
        html.contains(r#"value="Grace Hopper""#),
        "what was typed is kept"
    );
    fields[6] = ("website", "http://spam.example");
    let (status, _, trap_html) = s.post_form(&fields).await;
    assert_eq!(status, 400);
    assert!(trap_html.contains("We could not accept this message"));
    assert!(s.stored().await.is_empty(), "nothing refused is stored");

    // Not synchronisation: the product's minimum fill time, waited out as a person would.
    tokio::time::sleep(Duration::from_secs(MIN_FILL_SECS as u64)).await;
    let (status, answer, _) = s.post_json(&body).await;
    assert_eq!(
        status, 201,
        "after the fill time the same token works: {answer}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rate_limit_answers_429_with_retry_after() {
    let s = Support::spawn(TestDb::sqlite(), &[("HERALD_SUPPORT_RATE_PER_MIN", "2")]).await;
    for _ in 0..2 {
        let (status, body, _) = s
            .post_json(&s.body("I cannot sign in since this morning."))
            .await;
        assert_eq!(status, 201, "{body}");
    }
    let (status, body, headers) = s
        .post_json(&s.body("I cannot sign in since this morning."))
        .await;
    assert_eq!(status, 429, "{body}");
    let wait: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    assert_eq!(body["error"], "rate_limited");
    let token = s.token(5);
    let (status, _, html) = s.post_form(&form_fields(&token, &s.component)).await;
    assert_eq!(status, 429);
    assert!(html.contains("Too many messages"), "{html}");
    assert!(html.contains(r#"value="Grace Hopper""#));
    assert_eq!(s.stored().await.len(), 2);
    assert_eq!(
        s.app.get("/status/acme/support").await.status(),
        200,
        "the form still loads"
    );
}

async fn submissions_still_succeed_when_sign_in_is_broken(db: TestDb) {
    let s = Support::spawn(db, &[("HERALD_SUPPORT_RATE_PER_MIN", "1000")]).await;
    // Sign-in is broken for good: the tables it reads are gone.
    s.app
        .db
        .run(|c| {
            let drop = match c.backend() {
                herald::db::Backend::Postgres => {
                    "DROP TABLE sessions CASCADE; DROP TABLE api_tokens CASCADE; DROP TABLE users CASCADE;"
                }
                herald::db::Backend::Sqlite => {
                    "PRAGMA foreign_keys = OFF; DROP TABLE sessions; DROP TABLE api_tokens; DROP TABLE users; PRAGMA foreign_keys = ON;"
                }
            };
            Ok(c.batch_execute(drop)?)
        })
        .await
        .unwrap();
    let (status, _) = s.app.api("eyJhbGciOiJIUzI1NiJ9.e30.x").get("/me").await;
    assert_ne!(status, 200, "sign-in is indeed broken");

    // With a stale session cookie and a bearer header for good measure: neither is looked at.
    let res = s
        .app
        .client
        .post(format!("{}/status/acme/api/support", s.app.address))
        .header("cookie", "herald_session=eyJhbGciOiJIUzI1NiJ9.e30.garbage")
        .bearer_auth("not-a-token")
        .json(&s.body("I cannot sign in, the login page errors."))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let token = s.token(5);
    let (status, location, _) = s.post_form(&form_fields(&token, &s.component)).await;
    assert_eq!(status, 303, "the HTML form too");
    assert!(location.contains("reference=SUP-"));
    assert_eq!(s.stored().await.len(), 2);
}

/// Writes a file whole under a temporary name, then renames it into place (the replay task
/// must never see it half written).
fn put_in_place(path: &std::path::Path, bytes: &[u8]) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// One connection and a short checkout wait (an outage is noticed at once), and a rate limit
/// the outage tests do not meet.
const OUTAGE_READY: &[(&str, &str)] = &[
    ("HERALD_DB_POOL_SIZE", "1"),
    ("HERALD_DB_TIMEOUT_MS", "300"),
    ("HERALD_SUPPORT_RATE_PER_MIN", "1000"),
];

/// Waits (up to 20 s) until `n` submissions are stored; returns them.
async fn wait_for_stored(s: &Support, n: usize) -> Vec<rows::SupportSubmission> {
    let started = Instant::now();
    loop {
        let stored = s.try_stored().await.unwrap_or_default();
        if stored.len() >= n {
            return stored;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "only {} of {n} submissions stored",
            stored.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits (up to 20 s) until the replay has nothing left to do: no file waits for replay and
/// the live spool is empty. Nothing can be stored from the spool after that.
async fn wait_for_spool_drained(s: &Support) {
    let started = Instant::now();
    loop {
        let waiting: Vec<String> = std::fs::read_dir(s.spool_dir())
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.ends_with(".replay")
                    || (name == "support-spool.log" && e.metadata().is_ok_and(|m| m.len() > 0))
            })
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        if waiting.is_empty() {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the spool still holds {waiting:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn a_form_token_makes_one_submission_however_often_it_is_sent(db: TestDb) {
    let s = Support::spawn(db, OUTAGE_READY).await;
    let first = s.body("The first message.");
    let (status, answer, _) = s.post_json(&first).await;
    assert_eq!(status, 201, "{answer}");
    let reference = answer["reference"].as_str().unwrap().to_owned();
    // A double click, and the same token with another message.
    let (status, again, _) = s.post_json(&first).await;
    assert_eq!(
        (status, again["reference"].as_str()),
        (201, Some(reference.as_str()))
    );
    let mut other = first.clone();
    other["message"] = json!("Another message on the same token.");
    let (status, again, _) = s.post_json(&other).await;
    assert_eq!(
        (status, again["reference"].as_str()),
        (201, Some(reference.as_str()))
    );
    // The HTML form: the same token twice redirects to the same reference.
    let token = s.token(5);
    let (_, location, _) = s.post_form(&form_fields(&token, &s.component)).await;
    let (_, second, _) = s.post_form(&form_fields(&token, &s.component)).await;
    assert!(location.contains("reference=SUP-"), "{location}");
    assert_eq!(location, second);
    let stored = wait_for_stored(&s, 2).await;
    assert_eq!(stored.len(), 2, "one per token: {stored:?}");
    let row = stored.iter().find(|r| r.reference == reference).unwrap();
    assert_eq!(row.message, "The first message.");

    // While the database is unreachable the spool takes it; the replay stores it once.
    let outage = s.app.break_database().await;
    let spooled = s.body("Sent during the outage, twice.");
    let (_, a, _) = s.post_json(&spooled).await;
    let (_, b, _) = s.post_json(&spooled).await;
    assert_eq!(a["reference"], b["reference"], "{a} {b}");
    outage.restore().await;
    let stored = wait_for_stored(&s, 3).await;
    let copies = stored
        .iter()
        .filter(|r| r.reference == a["reference"])
        .count();
    assert_eq!((stored.len(), copies), (3, 1), "{stored:?}");
}

async fn a_full_spool_answers_503_and_loses_nothing_it_accepted(db: TestDb) {
    let s = Support::spawn(
        db,
        &[
            ("HERALD_DB_POOL_SIZE", "1"),
            ("HERALD_DB_TIMEOUT_MS", "300"),
            ("HERALD_SUPPORT_RATE_PER_MIN", "100000"),
            ("HERALD_SUPPORT_SPOOL_MAX_MB", "1"),
        ],
    )
    .await;
    let outage = s.app.break_database().await;
    let long = "I cannot sign in. ".repeat(200); // about 3.6 KB a record
    let mut accepted = 0;
    let mut refusal = None;
    for _ in 0..1000 {
        let (status, body, headers) = s.post_json(&s.body(&long)).await;
        match status {
            201 => accepted += 1,
            _ => {
                refusal = Some((status, body, headers));
                break;
            }
        }
    }
    let (status, body, headers) = refusal.expect("the spool filled up");
    assert_eq!(status, 503, "{body}");
    assert_eq!(headers["retry-after"], "60");
    assert!(
        (200..=300).contains(&accepted),
        "1 MiB holds about 280: {accepted}"
    );
    let spooled: u64 = std::fs::read_dir(s.spool_dir())
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(spooled <= 1024 * 1024, "the bound holds on disk: {spooled}");
    // The HTML form says so in words, keeping what was typed.
    let token = s.token(5);
    let mut fields = form_fields(&token, &s.component);
    fields.retain(|(k, _)| *k != "message");
    fields.push(("message", long.as_str()));
    let (status, _, page) = s.post_form(&fields).await;
    assert_eq!(status, 503);
    assert!(page.contains("more messages than we can keep"), "{page}");
    assert!(
        page.contains("I cannot sign in."),
        "what was typed is kept: {page}"
    );

    outage.restore().await;
    let stored = wait_for_stored(&s, accepted).await;
    assert_eq!(stored.len(), accepted, "every accepted message, once");
}

async fn submissions_survive_a_database_outage_and_are_stored_exactly_once(db: TestDb) {
    let s = Support::spawn(db, OUTAGE_READY).await;
    let (status, before, _) = s
        .post_json(&s.body("Sent while the database was fine."))
        .await;
    assert_eq!(status, 201, "{before}");
    let outage = s.app.break_database().await;
    let mut references = vec![before["reference"].as_str().unwrap().to_owned()];
    for n in 0..8 {
        let (status, body, _) = s
            .post_json(&s.body(&format!("Sent during the outage, number {n}.")))
            .await;
        assert_eq!(status, 201, "accepted into the spool: {body}");
        references.push(body["reference"].as_str().unwrap().to_owned());
    }
    let token = s.token(5);
    let (status, location, _) = s.post_form(&form_fields(&token, &s.component)).await;
    assert_eq!(status, 303);
    references.push(location.split("reference=").nth(1).unwrap().to_owned());
    let form = s.app.get("/status/acme/support").await;
    assert_eq!(form.status(), 200, "the form loads during the outage");
    let spooled: Vec<_> = std::fs::read_dir(s.spool_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        spooled.iter().any(|n| n.starts_with("support-spool.")),
        "{spooled:?}"
    );

    outage.restore().await;
    let stored = wait_for_stored(&s, references.len()).await;
    wait_for_spool_drained(&s).await;
    let stored_again = s.stored().await;
    assert_eq!(
        stored_again.len(),
        stored.len(),
        "nothing stored twice later"
    );
    for reference in &references {
        let n = stored_again
            .iter()
            .filter(|r| &r.reference == reference)
            .count();
        assert_eq!(n, 1, "{reference} stored exactly once");
    }
    assert_eq!(
        stored_again.iter().filter(|r| r.spooled).count(),
        references.len() - 1,
        "all but the first came through the spool"
    );

    // A replay that runs again (a crash after the insert, before the file was deleted) changes
    // nothing: the ids are already there.
    let row = stored_again.iter().find(|r| r.spooled).unwrap().clone();
    let again = Submission {
        id: row.id.clone(),
        page_id: row.page_id.clone(),
        reference: row.reference.clone(),
        name: row.name.clone(),
        email: row.email.clone(),
        topic: Topic::SignIn,
        component_id: None,
        account: None,
        message: row.message.clone(),
        wants_copy: false,
        client_ip: None,
        submitted_at: row.submitted_at.and_utc(),
        language: None,
    };
    let payload = serde_json::to_vec(&again).unwrap();
    put_in_place(
        &s.spool_dir()
            .join("support-spool.19990101T000000.000000-000001.replay"),
        &spool::encode(&payload),
    );
    let started = Instant::now();
    while std::fs::read_dir(s.spool_dir()).unwrap().any(|e| {
        e.unwrap()
            .file_name()
            .to_string_lossy()
            .ends_with(".replay")
    }) {
        assert!(started.elapsed() < Duration::from_secs(15), "replayed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(s.stored().await.len(), references.len());
}

async fn a_damaged_spool_tail_is_set_aside_and_the_rest_replayed(db: TestDb) {
    let s = Support::spawn(db, &[]).await;
    let good: Vec<Submission> = (0..3)
        .map(|n| Submission {
            id: uuid::Uuid::now_v7().to_string(),
            page_id: s.page_id.clone(),
            reference: format!("SUP-0000000{n}"),
            name: "Spooled Person".into(),
            email: "spooled@example.com".into(),
            topic: Topic::Outage,
            component_id: None,
            account: None,
            message: format!("Spooled before a crash, number {n}."),
            wants_copy: false,
            client_ip: None,
            submitted_at: chrono::Utc::now(),
            language: None,
        })
        .collect();
    let mut bytes = Vec::new();
    for g in &good {
        bytes.extend(spool::encode(&serde_json::to_vec(g).unwrap()));
    }
    let cut = spool::encode(b"{\"id\": \"cut short by a crash\"");
    let tail = &cut[..cut.len() - 7];
    bytes.extend_from_slice(tail);
    put_in_place(&s.spool_dir().join("support-spool.log"), &bytes);

    let stored = wait_for_stored(&s, 3).await;
    assert_eq!(stored.len(), 3);
    assert!(
        stored
            .iter()
            .all(|r| r.spooled && r.name == "Spooled Person")
    );
    let corrupt = s.spool_dir().join("support-spool.corrupt");
    let started = Instant::now();
    while !corrupt.exists() {
        assert!(started.elapsed() < Duration::from_secs(10));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        std::fs::read(&corrupt).unwrap(),
        tail,
        "the damaged tail, kept for a person"
    );
    let (status, body, _) = s
        .post_json(&s.body("Still working after the damaged spool."))
        .await;
    assert_eq!(status, 201, "{body}");
}

async fn responders_triage_submissions_through_the_api(db: TestDb) {
    let s = Support::spawn(db, &[("HERALD_SUPPORT_RATE_PER_MIN", "1000")]).await;
    let responder = s.app.token(Role::Responder).await;
    let viewer = s.app.token(Role::Viewer).await;
    let mut references = Vec::new();
    for (topic, message) in [
        ("sign_in", "I cannot sign in since this morning."),
        ("billing", "I was charged twice this month."),
        ("sign_in", "The login page spins forever."),
    ] {
        let mut body = s.body(message);
        body["topic"] = json!(topic);
        let (status, answer, _) = s.post_json(&body).await;
        assert_eq!(status, 201);
        references.push(answer["reference"].as_str().unwrap().to_owned());
    }
    let (status, _) = s.app.api(&viewer).get("/pages/acme/support").await;
    assert_eq!(status, 403, "viewers do not read people's messages");
    let (status, list) = s
        .app
        .api(&responder)
        .get("/pages/acme/support?topic=sign_in")
        .await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["items"].as_array().unwrap().len(), 2);
    let (status, list) = s
        .app
        .api(&responder)
        .get("/pages/acme/support?limit=1&offset=1")
        .await;
    assert_eq!(status, 200);
    assert_eq!(list["items"].as_array().unwrap().len(), 1);
    let (status, bad) = s
        .app
        .api(&responder)
        .get("/pages/acme/support?topic=refunds&limit=0")
        .await;
    assert_eq!(status, 422, "{bad}");
    assert!(bad["fields"]["topic"].is_array() && bad["fields"]["limit"].is_array());
    // A NUL character (which PostgreSQL refuses in text) is the caller's mistake, not a 500.
    let (status, bad) = s
        .app
        .api(&responder)
        .get("/pages/acme/support?incident=a%00b")
        .await;
    assert_eq!(status, 422, "{bad}");
    assert!(bad["fields"]["incident"].is_array(), "{bad}");

    let incident = json!({"name": "Sign-in failures", "body": "Investigating."});
    let (status, opened) = s
        .app
        .api(&responder)
        .post("/pages/acme/incidents", incident)
        .await;
    assert_eq!(status, 201, "{opened}");
    let incident_ref = opened["reference"].as_str().unwrap().to_owned();
    let path = format!("/pages/acme/support/{}", references[0]);
    let patch = json!({"status": "handled", "incident": incident_ref});
    let (status, row) = s.app.api(&responder).patch(&path, patch).await;
    assert_eq!(status, 200, "{row}");
    assert_eq!(row["status"], "handled");
    assert_eq!(row["handled_by"], "responder@example.com");
    assert_eq!(row["incident_id"], opened["id"]);
    let (_, linked) = s
        .app
        .api(&responder)
        .get(&format!(
            "/pages/acme/support?incident={incident_ref}&status=handled"
        ))
        .await;
    assert_eq!(linked["items"].as_array().unwrap().len(), 1);
    let (status, unknown) = s
        .app
        .api(&responder)
        .get("/pages/acme/support?incident=INC-1999-0001")
        .await;
    assert_eq!(
        status, 404,
        "a filter naming no incident of the page: {unknown}"
    );
    let (status, bad) = s
        .app
        .api(&responder)
        .patch(&path, json!({"incident": "INC-1999-0001"}))
        .await;
    assert_eq!(status, 422, "{bad}");
    let (status, _) = s
        .app
        .api(&responder)
        .patch("/pages/acme/support/nope", json!({"status": "open"}))
        .await;
    assert_eq!(status, 404);
    // A field the route does not take is refused by its name, as on every route.
    let (status, misspelt) = s
        .app
        .api(&responder)
        .patch(&path, json!({"statos": "open"}))
        .await;
    assert_eq!(status, 422, "{misspelt}");
    assert!(misspelt["fields"]["statos"].is_array(), "{misspelt}");
    // A patch that changes nothing (found by schemathesis: the document allows it) answers the
    // submission as it is, and records nothing.
    for nothing in [json!({}), json!({"status": null})] {
        let (status, same) = s.app.api(&responder).patch(&path, nothing).await;
        assert_eq!(status, 200, "{same}");
        assert_eq!(same, row, "unchanged");
    }

    let owner = s.app.token(Role::Owner).await;
    let (status, audit) = s.app.api(&owner).get("/audit?page=acme").await;
    assert_eq!(status, 200);
    let triaged = audit
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "support.triage")
        .count();
    assert_eq!(
        triaged, 1,
        "one triage recorded, not the empty patches: {audit}"
    );
}

async fn the_console_lists_filters_and_marks_submissions_handled(db: TestDb) {
    let s = Support::spawn(db, &[("HERALD_SUPPORT_RATE_PER_MIN", "1000")]).await;
    for (topic, message) in [
        ("sign_in", "I cannot sign in since this morning."),
        ("billing", "I was charged twice <b>this</b> month."),
    ] {
        let mut body = s.body(message);
        body["topic"] = json!(topic);
        assert_eq!(s.post_json(&body).await.0, 201);
    }
    let console = Console::sign_in(&s.app, "ops@example.com", Role::Responder).await;
    let (status, dashboard) = console.get("/admin").await;
    assert_eq!(status, 200);
    assert!(
        dashboard.contains("Support messages, last hour"),
        "{dashboard}"
    );
    let sign_in_row = dashboard
        .split("I can&#39;t sign in</a></th><td>")
        .nth(1)
        .unwrap_or("");
    assert!(
        sign_in_row.starts_with("1<"),
        "one sign-in message counted: {dashboard}"
    );

    let (status, inbox) = console.get("/admin/support?topic=billing").await;
    assert_eq!(status, 200);
    assert!(
        inbox.contains("charged twice &lt;b&gt;this&lt;/b&gt; month"),
        "escaped: {inbox}"
    );
    assert!(!inbox.contains("cannot sign in since"), "filtered by topic");
    let action = inbox
        .split(r#"<form method="post" action="/admin/support/"#)
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .map(|id| format!("/admin/support/{id}"))
        .unwrap();
    let (status, _, _) = console
        .post(
            &action,
            &[
                ("status", "handled"),
                ("incident", ""),
                ("back", "/admin/support"),
            ],
        )
        .await;
    assert_eq!(status, 403, "no CSRF token, no change");
    let (status, location, _) = console
        .post(
            &action,
            &[
                ("csrf_token", console.csrf.as_str()),
                ("status", "handled"),
                ("incident", ""),
                ("back", "/admin/support?topic=billing"),
            ],
        )
        .await;
    assert_eq!(status, 303);
    assert_eq!(location, "/admin/support?topic=billing");
    let billing = s
        .stored()
        .await
        .into_iter()
        .find(|r| r.topic == "billing")
        .unwrap();
    assert_eq!(billing.status, "handled");
    assert_eq!(billing.handled_by.as_deref(), Some("ops@example.com"));
    let (_, open) = console.get("/admin/support?status=open").await;
    assert!(
        !open.contains("charged twice"),
        "handled ones leave the open list"
    );

    let viewer = Console::sign_in(&s.app, "viewer@example.com", Role::Viewer).await;
    assert_eq!(viewer.get("/admin/support").await.0, 403);
}

async fn the_status_page_points_to_support_strongest_when_sign_in_is_affected(db: TestDb) {
    let s = Support::spawn(db, &[]).await;
    let owner = s.app.token(Role::Owner).await;
    let page = s.app.get("/status/acme").await.text().await.unwrap();
    assert!(
        !page.contains("Can&#39;t sign in?"),
        "nothing wrong, no prompt"
    );
    let api = s.app.api(&owner);
    let component = format!("/pages/acme/components/{}", s.component);
    let patch = |body: Value| api.patch(&component, body);
    let (status, component) = patch(json!({"signin": true})).await;
    assert_eq!(status, 200, "{component}");
    assert_eq!(component["signin"], true);
    let (status, _) = patch(json!({"status": "major_outage"})).await;
    assert_eq!(status, 200);
    let page = s
        .app
        .wait_for_text("/status/acme", "Signing in is affected")
        .await;
    assert!(page.contains(r#"class="signin-help is-urgent""#), "{page}");
    assert!(page.contains(r#"href="/status/acme/support">Can&#39;t sign in? Contact support"#));

    // An open incident shows at the top of the form.
    let incident = json!({"name": "Login failures", "body": "We are looking into it."});
    let (status, _) = api.post("/pages/acme/incidents", incident).await;
    assert_eq!(status, 201);
    let form = s
        .app
        .wait_for_text("/status/acme/support", "Login failures")
        .await;
    assert!(form.contains("We know about"), "{form}");
    assert!(form.contains("We are looking into it."));

    // The default page's form is also at the site root.
    let (status, _) = api.patch("/pages/acme", json!({"is_default": true})).await;
    assert_eq!(status, 200);
    let root = s
        .app
        .wait_for_text("/support", r#"action="/support""#)
        .await;
    assert!(root.contains("Contact support"));
    let res = s
        .app
        .client
        .post(format!("{}/api/support", s.app.address))
        .json(&s.body("Sent through the default page at the root."))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    assert_eq!(
        s.app
            .get("/support/sent?reference=SUP-7K3Q9M2X")
            .await
            .status(),
        200
    );
}
