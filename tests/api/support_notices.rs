//! Notices of support submissions and reminders at the page's own webhooks, against a real
//! SMTP server and a real HTTP receiver on loopback: the notice to the support address and
//! the sender's copy (headers, escaping, no header injection), the signed support webhook, a
//! spooled submission replayed (twice) and announced once, private webhook URLs refused when
//! saved, and reminders at the responder webhook with a configured lead time.

use std::time::{Duration, Instant};

use base64::Engine;
use herald::domain::Role;
use herald::support::{Submission, Topic, spool};
use herald::workers::Registry;
use serde_json::{Value, json};

use crate::helpers::{Console, TestApp, TestDb};
use crate::notify::sinks::{Mail, Receiver, SmtpSink};
use crate::support::Support;

on_both_backends!(
    a_submission_notifies_the_support_address_the_sender_and_the_support_webhook,
    a_spooled_submission_is_announced_once_however_often_it_is_replayed,
    private_page_webhook_urls_are_refused_when_saved,
    owners_set_page_webhooks_in_the_console_and_see_each_secret_once,
    without_a_mail_server_the_notice_waits_and_retries_with_a_clear_error,
    a_support_webhook_that_answers_410_is_not_retried,
    reminders_reach_the_responder_webhook_after_the_configured_lead_time,
    the_senders_copy_is_written_in_the_language_of_their_form,
);

/// The support form's app with an SMTP sink and a receiver; page `acme` has the support
/// address `help@acme.test` and a support webhook at `/support-hook`, whose secret is returned.
async fn spawn(db: TestDb) -> (Support, SmtpSink, Receiver, String) {
    let smtp = SmtpSink::start();
    let hooks = Receiver::start();
    let smtp_url = smtp.url();
    let s = Support::spawn(
        db,
        &[
            ("HERALD_SMTP_URL", smtp_url.as_str()),
            ("HERALD_MAIL_FROM", "Acme status <status@example.com>"),
            ("HERALD_ALLOW_PRIVATE_WEBHOOKS", "true"),
            ("HERALD_SUPPORT_RATE_PER_MIN", "1000"),
        ],
    )
    .await;
    let token = s.app.token(Role::Owner).await;
    let url = format!("{}/support-hook", hooks.base);
    let (status, page) = s
        .app
        .api(&token)
        .patch(
            "/pages/acme",
            json!({"support_email": "help@acme.test", "support_webhook_url": url}),
        )
        .await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["support_webhook_url"], json!(url));
    let secret = page["support_webhook_secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_"), "{page}");
    // Saving the same URL again keeps the secret and does not show it again.
    let (status, again) = s
        .app
        .api(&token)
        .patch("/pages/acme", json!({"support_webhook_url": url}))
        .await;
    assert_eq!(status, 200, "{again}");
    assert!(again.get("support_webhook_secret").is_none(), "{again}");
    let (_, shown) = s.app.api(&token).get("/pages/acme").await;
    assert_eq!(shown["support_webhook_url"], json!(url));
    assert!(!shown.to_string().contains(&secret), "never shown again");
    (s, smtp, hooks, secret)
}

/// Standard Webhooks, from the specification: base64(HMAC-SHA256(key, "id.timestamp.body")).
fn signature(secret: &str, id: &str, timestamp: &str, body: &[u8]) -> String {
    use hmac::{Hmac, Mac};
    let key = base64::engine::general_purpose::STANDARD
        .decode(secret.strip_prefix("whsec_").unwrap())
        .unwrap();
    let mut mac = <Hmac<sha2::Sha256> as Mac>::new_from_slice(&key).unwrap();
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body);
    format!(
        "v1,{}",
        base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
    )
}

fn assert_signed(hook: &crate::notify::sinks::Hook, secret: &str) {
    let expected = signature(
        secret,
        &hook.headers["webhook-id"],
        &hook.headers["webhook-timestamp"],
        &hook.body,
    );
    assert!(
        hook.headers["webhook-signature"]
            .split(' ')
            .any(|s| s == expected),
        "signature {} is not {expected}",
        hook.headers["webhook-signature"]
    );
}

/// The header names of a mail, lower case.
fn header_names(mail: &Mail) -> Vec<String> {
    let head = mail.raw.split("\n\n").next().unwrap_or_default();
    head.lines()
        .filter(|l| !l.starts_with([' ', '\t']))
        .filter_map(|l| l.split_once(':').map(|(k, _)| k.to_ascii_lowercase()))
        .collect()
}

fn assert_no_list_headers(mail: &Mail) {
    let names = header_names(mail);
    assert!(
        !names.iter().any(|n| n.starts_with("list-")),
        "a direct notice is not list mail: {names:?}"
    );
}

async fn a_submission_notifies_the_support_address_the_sender_and_the_support_webhook(db: TestDb) {
    let (s, smtp, hooks, secret) = spawn(db).await;
    let mut body = s.body("The login page answers 502 <script>alert(1)</script> & more.");
    body["copy"] = json!(true);
    let (status, answer, _) = s.post_json(&body).await;
    assert_eq!(status, 201, "{answer}");
    let reference = answer["reference"].as_str().unwrap().to_owned();

    let notice = smtp.wait_for("help@acme.test", 1).await.remove(0);
    let subject = notice.header("Subject").unwrap();
    for part in ["Acme", reference.as_str(), "sign in", "Ada Lovelace"] {
        assert!(subject.contains(part), "{part} in {subject}");
    }
    let reply_to = notice.header("Reply-To").unwrap();
    assert!(reply_to.contains("ada@example.com"), "{reply_to}");
    assert_no_list_headers(&notice);
    let text = notice.text();
    for part in [
        reference.as_str(),
        "ada@example.com",
        "acct-42",
        "Public API",
        "<script>alert(1)</script> & more",
    ] {
        assert!(text.contains(part), "{part} in {text}");
    }
    let html = notice.html();
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; more")
            && !html.contains("<script>"),
        "user text is escaped in HTML: {html}"
    );

    let copy = smtp.wait_for("ada@example.com", 1).await.remove(0);
    let subject = copy.header("Subject").unwrap();
    assert!(
        subject.contains(&reference) && subject.contains("Acme"),
        "{subject}"
    );
    assert!(copy.header("Reply-To").unwrap().contains("help@acme.test"));
    assert!(copy.text().contains("What happens next"), "{}", copy.text());
    assert!(copy.text().contains(&reference));
    for typed in ["<script>", "acct-42", "Ada Lovelace"] {
        assert!(
            !copy.text().contains(typed) && !copy.html().contains(typed),
            "the copy carries none of the sender's text ({typed}): a contact form must not \
             relay anyone's words to an address they typed"
        );
    }
    assert_no_list_headers(&copy);

    let hook = hooks.wait_for("/support-hook", 1).await.remove(0);
    assert_signed(&hook, &secret);
    let posted = hook.json();
    assert_eq!(posted["type"], "support.submission");
    assert_eq!(posted["reference"], json!(reference));
    assert_eq!(posted["page"]["slug"], "acme");
    assert_eq!(posted["submission"]["email"], "ada@example.com");
    assert_eq!(posted["submission"]["topic"], "sign_in");
    assert_eq!(posted["submission"]["component"]["name"], "Public API");

    // A name with a line break (the form refuses it; a spool written by an older version
    // might not) cannot add a header.
    let evil = Submission {
        id: uuid::Uuid::now_v7().to_string(),
        page_id: s.page_id.clone(),
        reference: "SUP-0000EV1L".into(),
        name: "Mallory\r\nBcc: victim@example.com".into(),
        email: "mallory@example.com".into(),
        topic: Topic::Other,
        component_id: None,
        account: Some("x\r\nX-Evil: 1".into()),
        message: "Hello\r\nBcc: victim@example.com".into(),
        wants_copy: true,
        client_ip: None,
        submitted_at: chrono::Utc::now(),
        language: None,
    };
    let inserted = s
        .app
        .db
        .run(move |c| herald::support::store::insert_submission(c, &evil, false))
        .await
        .unwrap();
    assert!(inserted);
    let notices = smtp.wait_for("help@acme.test", 2).await;
    let copies = smtp.wait_for("mallory@example.com", 1).await;
    for mail in [&notices[1], &copies[0]] {
        let names = header_names(mail);
        assert!(
            !names.iter().any(|n| n == "bcc" || n == "x-evil"),
            "{names:?}\n{}",
            mail.raw
        );
        assert!(mail.header("Subject").is_some());
    }
    assert!(
        notices[1]
            .header("Subject")
            .unwrap()
            .contains("SUP-0000EV1L")
    );
    let _ = hooks.wait_for("/support-hook", 2).await;
    s.app.run_pending_jobs().await;
    assert!(smtp.to("victim@example.com").is_empty());
    assert_eq!(smtp.to("help@acme.test").len(), 2, "one notice each");
    assert_eq!(smtp.to("ada@example.com").len(), 1);
    assert_eq!(hooks.at("/support-hook").len(), 2);
}

/// Writes a file whole under a temporary name, then renames it into place.
fn put_in_place(path: &std::path::Path, bytes: &[u8]) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

async fn wait_for_spool_gone(s: &Support) {
    let started = Instant::now();
    while std::fs::read_dir(s.spool_dir()).unwrap().any(|e| {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        name.ends_with(".replay") || name == "support-spool.log.tmp"
    }) {
        assert!(started.elapsed() < Duration::from_secs(20), "replayed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn a_spooled_submission_is_announced_once_however_often_it_is_replayed(db: TestDb) {
    let (s, smtp, hooks, secret) = spawn(db).await;
    let spooled = Submission {
        id: uuid::Uuid::now_v7().to_string(),
        page_id: s.page_id.clone(),
        reference: "SUP-00SP00L1".into(),
        name: "Spooled Person".into(),
        email: "spooled@example.com".into(),
        topic: Topic::Outage,
        component_id: None,
        account: None,
        message: "Sent while the database was away.".into(),
        wants_copy: true,
        client_ip: None,
        submitted_at: chrono::Utc::now(),
        language: None,
    };
    let record = spool::encode(&serde_json::to_vec(&spooled).unwrap());
    put_in_place(&s.spool_dir().join("support-spool.log"), &record);
    let notice = smtp.wait_for("help@acme.test", 1).await.remove(0);
    assert!(notice.header("Subject").unwrap().contains("SUP-00SP00L1"));
    assert!(notice.text().contains("stored later"), "{}", notice.text());
    smtp.wait_for("spooled@example.com", 1).await;
    let hook = hooks.wait_for("/support-hook", 1).await.remove(0);
    assert_signed(&hook, &secret);
    assert_eq!(hook.json()["submission"]["spooled"], true);

    // The same record replayed again (a crash after the insert, before the file was
    // deleted): nothing is inserted, so nothing is announced.
    put_in_place(
        &s.spool_dir()
            .join("support-spool.19990101T000000.000000-000001.replay"),
        &record,
    );
    wait_for_spool_gone(&s).await;
    s.app.run_pending_jobs().await;
    assert_eq!(smtp.to("help@acme.test").len(), 1);
    assert_eq!(smtp.to("spooled@example.com").len(), 1);
    assert_eq!(hooks.at("/support-hook").len(), 1);
    let jobs: i64 = s
        .app
        .db
        .run(|c| {
            use diesel::prelude::*;
            use herald::db::schema::jobs;
            Ok(jobs::table
                .filter(jobs::kind.eq("support.notify"))
                .count()
                .get_result(c)?)
        })
        .await
        .unwrap();
    assert_eq!(jobs, 0, "every notice job finished");
}

async fn private_page_webhook_urls_are_refused_when_saved(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    let token = app.token(Role::Owner).await;
    for (field, url) in [
        ("support_webhook_url", "http://127.0.0.1:9/hook"),
        (
            "support_webhook_url",
            "http://169.254.169.254/latest/meta-data",
        ),
        ("responder_webhook_url", "http://10.0.0.7/hook"),
        ("responder_webhook_url", "ftp://example.com/hook"),
    ] {
        let (status, answer) = app
            .api(&token)
            .patch("/pages/acme", json!({field: url}))
            .await;
        assert_eq!(status, 422, "{url}: {answer}");
        let message = answer["fields"][field][0].as_str().unwrap_or_default();
        assert!(!message.is_empty(), "{url}: a message on {field}: {answer}");
    }
    let (_, page) = app.api(&token).get("/pages/acme").await;
    assert_eq!(page["support_webhook_url"], Value::Null);
    assert_eq!(page["responder_webhook_url"], Value::Null);

    let owner = Console::sign_in(&app, "console-owner@example.com", Role::Owner).await;
    let path = "/admin/pages/acme/settings";
    let (status, form) = owner.get(path).await;
    assert_eq!(status, 200);
    assert!(form.contains(r#"name="support_webhook_url""#), "{form}");
    let fields = [
        ("csrf_token", owner.csrf.as_str()),
        ("name", "Acme"),
        ("slug", "acme"),
        ("time_zone", "UTC"),
        ("support_webhook_url", "http://127.0.0.1:9/hook"),
        ("responder_webhook_url", ""),
        ("is_public", "yes"),
    ];
    let (status, _, body) = owner.post(path, &fields).await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("loopback"), "the field's message: {body}");
    assert!(body.contains(r#"value="http://127.0.0.1:9/hook""#), "kept");
}

async fn reminders_reach_the_responder_webhook_after_the_configured_lead_time(db: TestDb) {
    let smtp = SmtpSink::start();
    let hooks = Receiver::start();
    let smtp_url = smtp.url();
    let app = TestApp::spawn_with(
        db,
        &[
            ("HERALD_SMTP_URL", smtp_url.as_str()),
            ("HERALD_MAIL_FROM", "Acme status <status@example.com>"),
            ("HERALD_ALLOW_PRIVATE_WEBHOOKS", "true"),
            ("HERALD_REMINDER_LEAD_MINUTES", "30"),
        ],
        Registry::standard(),
    )
    .await;
    app.acme().await;
    let token = app.token(Role::Owner).await;
    let url = format!("{}/responder-hook", hooks.base);
    let (status, page) = app
        .api(&token)
        .patch("/pages/acme", json!({"responder_webhook_url": url}))
        .await;
    assert_eq!(status, 200, "{page}");
    let secret = page["responder_webhook_secret"]
        .as_str()
        .unwrap()
        .to_owned();

    // Promised in 20 minutes: inside the configured 30-minute lead (not the default 10).
    let deadline = chrono::Utc::now() + chrono::Duration::minutes(20);
    let (status, opened) = app
        .api(&token)
        .post(
            "/pages/acme/incidents",
            json!({"name": "Queue backlog", "body": "Draining.", "next_update_by": deadline}),
        )
        .await;
    assert_eq!(status, 201, "{opened}");
    let hook = hooks.wait_for("/responder-hook", 1).await.remove(0);
    assert_signed(&hook, &secret);
    let posted = hook.json();
    assert_eq!(posted["type"], "reminder.due_soon");
    assert_eq!(posted["incident"]["name"], "Queue backlog");
    assert_eq!(posted["page"]["slug"], "acme");
    assert!(
        posted["console_url"]
            .as_str()
            .unwrap()
            .contains("/admin/incidents/")
    );
    let mail = smtp.wait_for("owner@example.com", 1).await.remove(0);
    assert!(mail.header("Subject").unwrap().contains("Update due"));
    assert_no_list_headers(&mail);
    // A pass that looks for reminders again finds none to send.
    app.deliver_pending().await;
    assert_eq!(hooks.at("/responder-hook").len(), 1, "once per deadline");
}

/// The `support.notify` jobs: attempts, last error, whether dead-lettered, payload.
async fn notice_jobs(s: &Support) -> Vec<(i32, Option<String>, bool, String)> {
    s.app
        .db
        .run(|c| {
            use diesel::prelude::*;
            use herald::db::schema::jobs;
            Ok(jobs::table
                .filter(jobs::kind.eq("support.notify"))
                .select((
                    jobs::attempts,
                    jobs::last_error,
                    jobs::dead_at.is_not_null(),
                    jobs::payload,
                ))
                .load(c)?)
        })
        .await
        .unwrap()
}

async fn without_a_mail_server_the_notice_waits_and_retries_with_a_clear_error(db: TestDb) {
    let s = Support::spawn(db, &[]).await;
    let page_id = s.page_id.clone();
    s.app
        .db
        .run(move |c| {
            let input = herald::services::pages::UpdatePageInput {
                support_email: Some(Some("help@acme.test".into())),
                ..Default::default()
            };
            herald::services::pages::update_page(c, &page_id.as_str().into(), &input)?;
            Ok(())
        })
        .await
        .unwrap();
    let (status, answer, _) = s.post_json(&s.body("No mail server here.")).await;
    assert_eq!(status, 201, "{answer}");
    s.app.run_pending_jobs().await;
    let jobs = notice_jobs(&s).await;
    assert_eq!(
        jobs.len(),
        2,
        "the notice and the sender's copy wait: {jobs:?}"
    );
    for (attempts, error, dead, _) in &jobs {
        assert_eq!(*attempts, 1, "{jobs:?}");
        let error = error.as_deref().unwrap_or_default();
        assert!(error.contains("HERALD_SMTP_URL is not set"), "{error}");
        assert!(!dead, "retried later, not dead-lettered");
    }
}

async fn a_support_webhook_that_answers_410_is_not_retried(db: TestDb) {
    let (s, smtp, hooks, _) = spawn(db).await;
    hooks.answer(410);
    let (status, answer, _) = s.post_json(&s.body("The receiver is gone.")).await;
    assert_eq!(status, 201, "{answer}");
    smtp.wait_for("help@acme.test", 1).await;
    hooks.wait_for("/support-hook", 1).await;
    s.app.run_pending_jobs().await;
    let jobs = notice_jobs(&s).await;
    let webhook_job = jobs
        .iter()
        .find(|j| j.3.contains("webhook"))
        .unwrap_or_else(|| panic!("a webhook notice: {jobs:?}"))
        .clone();
    assert!(webhook_job.2, "dead-lettered at once: {webhook_job:?}");
    assert_eq!(webhook_job.0, 1, "one attempt: {webhook_job:?}");
    assert!(
        webhook_job.1.as_deref().unwrap_or_default().contains("410"),
        "{webhook_job:?}"
    );
    s.app.run_pending_jobs().await;
    assert_eq!(hooks.at("/support-hook").len(), 1, "never sent again");
}

async fn owners_set_page_webhooks_in_the_console_and_see_each_secret_once(db: TestDb) {
    let app = TestApp::spawn_with(
        db,
        &[("HERALD_ALLOW_PRIVATE_WEBHOOKS", "true")],
        Registry::standard(),
    )
    .await;
    app.acme().await;
    let owner = Console::sign_in(&app, "owner@example.com", Role::Owner).await;
    let path = "/admin/pages/acme/settings";
    let mut fields = vec![
        ("csrf_token", owner.csrf.as_str()),
        ("name", "Acme"),
        ("slug", "acme"),
        ("time_zone", "UTC"),
        ("support_webhook_url", "http://127.0.0.1:9/support"),
        ("responder_webhook_url", ""),
        ("is_public", "yes"),
    ];
    let (status, _, body) = owner.post(path, &fields).await;
    assert_eq!(status, 200, "the secret is shown on the answer: {body}");
    assert_eq!(body.matches("whsec_").count(), 1, "{body}");
    assert!(body.contains("support_webhook_url"));
    let (status, location, _) = owner.post(path, &fields).await;
    assert_eq!(
        (status, location.as_str()),
        (303, path),
        "same URL: no new secret"
    );
    let (_, form) = owner.get(path).await;
    assert!(form.contains(r#"value="http://127.0.0.1:9/support""#));
    assert!(!form.contains("whsec_"), "never shown again");
    fields[5] = ("responder_webhook_url", "http://127.0.0.1:9/responder");
    let (status, _, body) = owner.post(path, &fields).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body.matches("whsec_").count(),
        1,
        "only the new one: {body}"
    );
    assert!(body.contains("responder_webhook_url"));
    fields[4] = ("support_webhook_url", "");
    let (status, _, _) = owner.post(path, &fields).await;
    assert_eq!(status, 303, "blank clears");
    let (_, form) = owner.get(path).await;
    assert!(!form.contains("127.0.0.1:9/support"), "cleared");
    assert!(form.contains("127.0.0.1:9/responder"));
}

async fn the_senders_copy_is_written_in_the_language_of_their_form(db: TestDb) {
    let (s, smtp, _hooks, _) = spawn(db).await;
    let owner = s.app.user("polyglot@example.com", Role::Owner).await;
    let owner = s.app.token_for(&owner).await;
    let (status, body) = s
        .app
        .api(&owner)
        .patch("/pages/acme", json!({"languages": ["en", "de"]}))
        .await;
    assert_eq!(status, 200, "{body}");
    s.app.refreshed().await;
    let token = s.token(10);
    let fields = [
        ("name", "Grete Meier"),
        ("email", "grete@example.com"),
        ("topic", "sign_in"),
        ("component", ""),
        ("message", "Seit heute früh kann ich mich nicht anmelden."),
        ("copy", "on"),
        ("website", ""),
        ("form_token", token.as_str()),
    ];
    let res = s
        .app
        .client
        .post(format!("{}/status/acme/support?lang=de", s.app.address))
        .form(&fields)
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success(), "{}", res.status());
    let reference = s.stored().await.remove(0).reference;
    let copy = smtp.wait_for("grete@example.com", 1).await.remove(0);
    let german = |key| herald::render::i18n::text(herald::domain::lang::Lang::De, key);
    let subject = copy.subject().unwrap_or_default();
    assert!(
        subject.starts_with("[Acme] ") && subject.contains(&reference),
        "{subject}"
    );
    assert_ne!(
        subject,
        format!("[Acme] We received your request {reference}")
    );
    let text = copy.text();
    assert!(text.starts_with(&german("mail-copy-hello")), "{text}");
    assert!(
        text.contains(&german("support-topic-sign_in")),
        "the topic in German: {text}"
    );
    assert!(text.contains(&german("mail-copy-no-text")), "{text}");
    assert!(
        !text.contains("Seit heute"),
        "the copy carries none of the sender's text"
    );
    assert!(
        copy.html().contains("<html lang=\"de\">"),
        "{}",
        copy.html()
    );
    // The support team's notice stays English.
    let notice = smtp.wait_for("help@acme.test", 1).await.remove(0);
    assert!(notice.text().contains(&reference));
    assert!(!notice.html().contains("<html lang=\"de\">"));
}
