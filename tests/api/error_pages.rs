//! Errors a browser can read: the HTML routes answer their errors with a page in the site's
//! layout (a sentence, a way back, the request id), the API keeps its JSON, and a console form
//! posted after the session has ended leads back, through signing in, to the same form with
//! everything typed.

use herald::domain::Role;
use herald::workers::Registry;

use crate::console::NEW;
use crate::helpers::Console;
use crate::helpers::{TestApp, TestDb, no_redirects, set_cookie_pair};

on_both_backends!(
    html_routes_answer_their_errors_with_a_page_that_names_the_request,
    the_api_keeps_its_json_errors,
    a_console_form_refused_for_its_csrf_token_is_a_page,
    an_html_route_that_cannot_reach_the_database_answers_a_503_page,
    an_update_typed_after_the_session_ended_survives_signing_in_again,
    a_form_without_a_preview_is_sent_again_only_when_asked,
    a_console_page_asked_for_without_a_session_comes_back_after_sign_in
);

/// Asserts that `res` is an HTML error page with `status`, a link to `back` and its own
/// request id in the body; returns the body.
async fn error_page(res: reqwest::Response, status: u16, back: &str) -> String {
    assert_eq!(res.status(), status);
    let content_type = res.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(content_type.starts_with("text/html"), "{content_type}");
    let id = res.headers()["x-request-id"].to_str().unwrap().to_owned();
    let body = res.text().await.unwrap();
    assert!(body.contains(&format!("<code>{id}</code>")), "{body}");
    assert!(body.contains(&format!(r#"<a href="{back}">"#)), "{body}");
    assert!(
        body.contains(r#"<link rel="stylesheet""#),
        "the site's layout: {body}"
    );
    body
}

async fn html_routes_answer_their_errors_with_a_page_that_names_the_request(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    app.refreshed().await;
    let body = error_page(app.get("/status/nowhere/subscribe").await, 404, "/").await;
    assert!(body.contains("Not found"), "{body}");
    // A link that does not work has its own page in the status page's layout.
    let bad_link = app.get("/status/acme/unsubscribe/not-a-real-token").await;
    assert_eq!(bad_link.status(), 404);
    assert!(
        bad_link.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let body = bad_link.text().await.unwrap();
    assert!(body.contains("This link does not work") && body.contains(r#"href="/status/acme""#));
    let body = error_page(app.get("/status/nowhere/unsubscribe/x").await, 404, "/").await;
    assert!(!body.contains(r#"href="/status/nowhere""#), "{body}");
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let res = console
        .client
        .get(format!("{}/admin/incidents/no-such-incident", app.address))
        .header("Cookie", &console.cookie)
        .send()
        .await
        .unwrap();
    let body = error_page(res, 404, "/admin").await;
    assert!(body.contains("Back to the console"), "{body}");
}

async fn the_api_keeps_its_json_errors(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    app.refreshed().await;
    for (path, status) in [
        ("/api/v1/pages/acme", 401),
        ("/status/nowhere/api/v2/summary.json", 404),
    ] {
        let res = app.get(path).await;
        assert_eq!(res.status(), status, "{path}");
        let body: serde_json::Value = res.json().await.expect("a JSON error");
        assert!(body["error"].is_string(), "{path}: {body}");
    }
    let res = reqwest::Client::new()
        .post(format!("{}/status/acme/api/subscribe", app.address))
        .json(&serde_json::json!({"type": "email", "email": "not an address"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
    let body: serde_json::Value = res.json().await.unwrap();
    assert!(body["fields"]["email"].is_array(), "{body}");
}

async fn a_console_form_refused_for_its_csrf_token_is_a_page(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let res = console
        .client
        .post(format!("{}{NEW}", app.address))
        .header("Cookie", &console.cookie)
        .form(&[("csrf_token", "0".repeat(64).as_str()), ("name", "Forged")])
        .send()
        .await
        .unwrap();
    let body = error_page(res, 403, "/admin").await;
    assert!(body.contains("This was refused"), "{body}");
}

async fn an_html_route_that_cannot_reach_the_database_answers_a_503_page(db: TestDb) {
    let app = TestApp::spawn_with(
        db,
        &[
            ("HERALD_DB_POOL_SIZE", "1"),
            ("HERALD_DB_TIMEOUT_MS", "200"),
            // Email subscriptions are offered only with a mail relay; none is reached here.
            ("HERALD_SMTP_URL", "smtp://127.0.0.1:9"),
        ],
        Registry::standard(),
    )
    .await;
    app.acme().await;
    app.refreshed().await;
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let outage = app.break_database().await;
    // A responder is told the console is busy, not sent to sign in.
    let res = console
        .client
        .get(format!("{}/admin", app.address))
        .header("Cookie", &console.cookie)
        .send()
        .await
        .unwrap();
    assert!(res.headers().contains_key("retry-after"));
    let body = error_page(res, 503, "/admin").await;
    assert!(body.contains("Busy right now"), "{body}");
    let res = reqwest::Client::new()
        .post(format!("{}/status/acme/subscribe", app.address))
        .form(&[("type", "email"), ("email", "reader@example.com")])
        .send()
        .await
        .unwrap();
    let retry_after = res.headers().get("retry-after").cloned();
    let body = error_page(res, 503, "/status/acme").await;
    let retry_after = retry_after.expect("Retry-After on the page");
    let secs = retry_after.to_str().unwrap();
    assert!(
        body.contains(&format!("try again in {secs} seconds")),
        "{body}"
    );
    outage.restore().await;
}

/// The page's summary once the public site shows everything committed so far.
async fn refreshed_summary(app: &TestApp) -> String {
    app.refreshed().await;
    app.get("/status/acme/api/v2/summary.json")
        .await
        .text()
        .await
        .unwrap()
}

/// Every session is over, as after the time a session lasts.
async fn end_session(app: &TestApp) {
    app.db
        .run(|c| {
            use diesel::prelude::*;
            use herald::db::schema::sessions;
            let past = chrono::NaiveDate::from_ymd_opt(2001, 1, 1)
                .unwrap()
                .and_hms_opt(0, 0, 0)
                .unwrap();
            diesel::update(sessions::table)
                .set(sessions::expires_at.eq(past))
                .execute(c)
                .map_err(Into::into)
        })
        .await
        .unwrap();
}

/// The value of the hidden field `name` in `html`.
fn hidden(html: &str, name: &str) -> Option<String> {
    let marker = format!(r#"name="{name}" value=""#);
    let start = html.find(&marker)? + marker.len();
    let raw = html[start..].split('"').next()?;
    Some(
        raw.replace("&quot;", "\"")
            .replace("&#x3D;", "=")
            .replace("&#x60;", "`")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&#x27;", "'")
            .replace("&#39;", "'")
            .replace("&amp;", "&"),
    )
}

/// A sign-in page as a browser holds it: its body and the form cookie it set.
struct SignInPage {
    html: String,
    cookie: String,
}

impl SignInPage {
    async fn of(res: reqwest::Response) -> Self {
        let cookie = set_cookie_pair(&res, "herald_login").expect("the sign-in form's cookie");
        Self {
            html: res.text().await.unwrap(),
            cookie,
        }
    }

    /// Signs in through this page, its hidden fields sent as they are; returns the answer
    /// and the new session's cookie pair.
    async fn sign_in(&self, app: &TestApp) -> (reqwest::Response, String) {
        let mut fields: Vec<(String, String)> = vec![
            ("email".into(), "ops@example.com".into()),
            ("password".into(), crate::helpers::PASSWORD.into()),
        ];
        for name in [
            "csrf_token",
            "resume_to",
            "resume_form",
            "resume_review",
            "next",
        ] {
            if let Some(value) = hidden(&self.html, name) {
                fields.push((name.into(), value));
            }
        }
        let res = no_redirects()
            .post(format!("{}/admin/login", app.address))
            .header("Cookie", &self.cookie)
            .form(&fields)
            .send()
            .await
            .unwrap();
        let session = set_cookie_pair(&res, "herald_session").unwrap_or_default();
        (res, session)
    }
}

/// POSTs `fields` to `path` with `cookie`, without following redirects.
async fn post(
    app: &TestApp,
    cookie: &str,
    path: &str,
    fields: &[(String, String)],
) -> reqwest::Response {
    no_redirects()
        .post(format!("{}{path}", app.address))
        .header("Cookie", cookie)
        .form(fields)
        .send()
        .await
        .unwrap()
}

fn owned(fields: &[(&str, &str)]) -> Vec<(String, String)> {
    fields
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

async fn an_update_typed_after_the_session_ended_survives_signing_in_again(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let component = app.acme().await.components.remove(0);
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let csrf = console.csrf(NEW).await;
    let field = format!("component.{component}");
    let typed = "Payments fail for some cards & wallets; we are \"rolling back\" <now>.";
    end_session(&app).await;
    let sent = owned(&[
        ("csrf_token", &csrf),
        ("name", "Checkout errors"),
        ("status", "identified"),
        ("body", typed),
        (field.as_str(), "major_outage"),
    ]);
    let res = post(&app, &console.cookie, NEW, &sent).await;
    assert_eq!(res.status(), 401);
    let page = SignInPage::of(res).await;
    assert!(
        page.html
            .contains("Your session ended before this was sent"),
        "{}",
        page.html
    );
    assert_eq!(hidden(&page.html, "resume_to").as_deref(), Some(NEW));
    let (res, session) = page.sign_in(&app).await;
    assert_eq!(res.status(), 200);
    let resume = res.text().await.unwrap();
    assert!(resume.contains("Back to the form"), "{resume}");
    assert!(resume.contains(&format!(r#"action="{NEW}""#)), "{resume}");
    // The button leads back to the form, filled in; nothing has been opened yet.
    let mut fields: Vec<(String, String)> = Vec::new();
    for name in ["csrf_token", "name", "status", "body", field.as_str()] {
        let value = hidden(&resume, name).unwrap_or_else(|| panic!("{name} carried: {resume}"));
        fields.push((name.into(), value));
    }
    assert!(
        hidden(&resume, "csrf_token") != Some(csrf.clone()),
        "the new session's token"
    );
    fields.push(("preview".into(), "yes".into()));
    let res = post(&app, &session, NEW, &fields).await;
    assert_eq!(res.status(), 200);
    let form = res.text().await.unwrap();
    let escaped =
        "Payments fail for some cards &amp; wallets; we are &quot;rolling back&quot; &lt;now&gt;.";
    assert!(
        form.contains(escaped),
        "the typed update is in the form: {form}"
    );
    assert!(form.contains(r#"value="Checkout errors""#), "{form}");
    assert!(
        form.contains(&format!(r#"name="{field}" value="major_outage" checked>"#)),
        "the component's choice is kept: {form}"
    );
    let summary = refreshed_summary(&app).await;
    assert!(
        !summary.contains("Checkout errors"),
        "nothing was opened: {summary}"
    );
}

async fn a_form_without_a_preview_is_sent_again_only_when_asked(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let component = app.acme().await.components.remove(0);
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let path = format!("/admin/pages/acme/components/{component}/status");
    let csrf = console.csrf("/admin/pages/acme/components").await;
    end_session(&app).await;
    let sent = owned(&[("csrf_token", &csrf), ("status", "degraded_performance")]);
    let res = post(&app, &console.cookie, &path, &sent).await;
    assert_eq!(res.status(), 401);
    let page = SignInPage::of(res).await;
    let (res, session) = page.sign_in(&app).await;
    assert_eq!(res.status(), 200);
    let resume = res.text().await.unwrap();
    assert!(resume.contains("Send it again"), "{resume}");
    assert!(resume.contains("<dd>degraded_performance</dd>"), "{resume}");
    let summary = refreshed_summary(&app).await;
    assert!(
        !summary.contains("degraded_performance"),
        "not sent yet: {summary}"
    );
    let fields = owned(&[
        ("csrf_token", &hidden(&resume, "csrf_token").unwrap()),
        ("status", &hidden(&resume, "status").unwrap()),
    ]);
    let res = post(&app, &session, &path, &fields).await;
    assert_eq!(res.status(), 303, "sent with the new session");
    app.wait_for_text("/status/acme/api/v2/summary.json", "degraded_performance")
        .await;
}

async fn a_console_page_asked_for_without_a_session_comes_back_after_sign_in(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let res = no_redirects()
        .get(format!("{}/admin/pages/acme/incidents?page=2", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    let to = res.headers()["location"].to_str().unwrap().to_owned();
    assert_eq!(
        to,
        "/admin/login?next=%2Fadmin%2Fpages%2Facme%2Fincidents%3Fpage%3D2"
    );
    let page = SignInPage::of(app.get(&to).await).await;
    let (res, _) = page.sign_in(&app).await;
    assert_eq!(res.status(), 303);
    assert_eq!(
        res.headers()["location"],
        "/admin/pages/acme/incidents?page=2"
    );
    // Only console paths are followed: another site is never where signing in leads.
    for elsewhere in [
        "//evil.example/admin",
        "https://evil.example/",
        "/admin/login",
    ] {
        let query: String = url::form_urlencoded::byte_serialize(elsewhere.as_bytes()).collect();
        let page = SignInPage::of(app.get(&format!("/admin/login?next={query}")).await).await;
        assert_eq!(hidden(&page.html, "next"), None, "{elsewhere}");
        let (res, _) = page.sign_in(&app).await;
        assert_eq!(res.headers()["location"], "/admin", "{elsewhere}");
    }
}
